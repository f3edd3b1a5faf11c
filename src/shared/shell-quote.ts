/**
 * The one function through which every user-supplied string reaches a remote shell.
 *
 * Commands are sent to `sh -s` on stdin (never through the user's login shell, which may be fish or csh),
 * so only POSIX sh parses them. Inside single quotes sh treats every byte literally except `'` itself,
 * which is closed, escaped and reopened: `it's` → `'it'\''s'`. NUL cannot be carried in an argument at all,
 * so it is refused rather than silently truncated.
 */
export function shellQuote(value: string): string {
  if (value.includes('\0')) {
    throw new Error('A shell argument cannot contain a NUL byte.');
  }
  // Plain words stay readable in logs and in the commands shown to users (`--port 8000`, not `'--port' 8000`):
  // none of these characters means anything to sh. A leading `=` is quoted for shells that expand `=cmd`.
  if (/^[A-Za-z0-9_./:=@%+,-]+$/.test(value) && !value.startsWith('=')) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Quotes each word and joins them with spaces: a command line sh will split back into exactly these words. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/** A name sh takes as an environment variable's in `NAME=value` and `export NAME`: spliced in bare, so checked. */
export const SHELL_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
