// Splitting one ssh_config line the way OpenSSH 9.2 does (readconf.c process_config_line_depth, misc.c strdelim and
// argv_split): the keyword ends at whitespace, a quote or one `=`; the rest is split into words with "" and ''
// quoting and backslash escapes, stopping at an unquoted `#`.

const WHITESPACE = ' \t\r\n';

export type LexedLine =
  | { kind: 'empty' }
  | { kind: 'no-argument'; keyword: string }
  | { kind: 'invalid-quotes'; keyword: string }
  | { kind: 'directive'; keyword: string; /** The text after the keyword, as ssh keeps it for ProxyCommand and the like. */ rest: string; args: string[] };

/** misc.c strdelim_internal: the next token and what follows it (null when the line ends). */
function strdelim(s: string, splitEquals: boolean): { token: string | null; rest: string | null } {
  const delims = WHITESPACE + '"' + (splitEquals ? '=' : '');
  let i = 0;
  while (i < s.length && !delims.includes(s[i] as string)) i++;
  if (i === s.length) return { token: s, rest: null };
  if (s[i] === '"') {
    const before = s.slice(0, i);
    const close = s.indexOf('"', i + 1);
    if (close === -1) return { token: null, rest: null };
    const token = before + s.slice(i + 1, close);
    return { token, rest: skipWhitespace(s, close + 1) };
  }
  const wasEquals = splitEquals && s[i] === '=';
  const token = s.slice(0, i);
  let rest = skipWhitespace(s, i + 1);
  if (splitEquals && rest.startsWith('=') && !wasEquals) rest = skipWhitespace(rest, 1);
  return { token, rest };
}

function skipWhitespace(s: string, from: number): string {
  let i = from;
  while (i < s.length && WHITESPACE.includes(s[i] as string)) i++;
  return s.slice(i);
}

/** misc.c argv_split with terminate_on_comment; null for an unterminated quote. */
export function argvSplit(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') break;
    let quote = '';
    let arg = '';
    for (; i < s.length; i++) {
      const ch = s[i] as string;
      const next = s[i + 1];
      if (ch === '\\') {
        if (next === "'" || next === '"' || next === '\\' || (quote === '' && next === ' ')) {
          i++;
          arg += next;
        } else {
          arg += ch;
        }
      } else if (quote === '' && (ch === ' ' || ch === '\t')) {
        break;
      } else if (quote === '' && (ch === '"' || ch === "'")) {
        quote = ch;
      } else if (quote !== '' && ch === quote) {
        quote = '';
      } else {
        arg += ch;
      }
    }
    out.push(arg);
    if (i >= s.length && quote !== '') return null;
  }
  return out;
}

export function lexLine(raw: string): LexedLine {
  // Trailing whitespace (and a form feed at the end) is dropped first; the first character is never trimmed.
  let end = raw.length;
  while (end > 1 && (WHITESPACE + '\f').includes(raw[end - 1] as string)) end--;
  const line = raw.slice(0, end);
  if (line.length === 0) return { kind: 'empty' };
  let { token: keyword, rest } = strdelim(line, true);
  if (keyword === '' && rest !== null) ({ token: keyword, rest } = strdelim(rest, true));
  if (keyword === null || keyword === '' || keyword.startsWith('\n') || keyword.startsWith('#')) return { kind: 'empty' };
  keyword = keyword.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  if (rest !== null) rest = skipWhitespace(rest, 0);
  if (rest === null || rest === '') return { kind: 'no-argument', keyword };
  const args = argvSplit(rest);
  if (args === null) return { kind: 'invalid-quotes', keyword };
  return { kind: 'directive', keyword, rest, args };
}
