import { TerminalTextFilter } from '../shared/terminal-text';

/** What a CLI command may touch of its process, so tests can run commands in-process and read what they print. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stdout and stderr are terminals (colors are kept there); neither when absent. */
  isTTY?: { stdout: boolean; stderr: boolean };
  /** A document the user asked for on stdout (a report): byte for byte when stdout is not a terminal. */
  document?(text: string): void;
}

/**
 * The io every command writes through: engine logs, pip output and messages quoting the box's stderr reach the
 * terminal without escape sequences or controls (terminal-text.ts; colors stay on a terminal). `end()` once the
 * command is done.
 */
export function terminalSafeIo(io: CliIo): { io: CliIo; end(): void } {
  const tty = io.isTTY ?? { stdout: false, stderr: false };
  const out = new TerminalTextFilter({ keepColors: tty.stdout });
  const err = new TerminalTextFilter({ keepColors: tty.stderr });
  const write = (to: (text: string) => void, text: string) => {
    if (text !== '') to(text);
  };
  const stdout = (text: string) => write(io.stdout, out.push(text));
  return {
    io: {
      ...io,
      stdout,
      stderr: (text) => write(io.stderr, err.push(text)),
      document: tty.stdout ? stdout : (text) => io.stdout(text),
    },
    end() {
      write(io.stdout, out.end());
      write(io.stderr, err.end());
    },
  };
}
