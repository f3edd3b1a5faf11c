/**
 * Text from a box (engine logs, pip output, error messages quoting its stderr) made safe to print on a terminal.
 * A log line can carry escape sequences that retitle the window, plant a hyperlink, write the clipboard (OSC 52),
 * move the cursor to overwrite what was printed, or ask the terminal to answer on stdin. Kept: printable text,
 * newline and tab, and (only when the output is a terminal) SGR color sequences. Dropped: every other escape
 * sequence whole (CSI, OSC, DCS/APC/PM/SOS strings, two-character escapes), C0 and C1 controls and DEL. A carriage
 * return becomes a newline (CRLF one newline), so progress bars stay readable without overwriting lines.
 */
export interface TerminalTextOptions {
  /** Keep SGR color/style sequences (`ESC [ … m`): true when writing to a terminal. */
  keepColors: boolean;
}

/** Past these lengths a sequence is taken for garbage: the filter returns to text, so nothing can hide the output after it. */
const MAX_CSI_LENGTH = 64;
const MAX_STRING_LENGTH = 4096;

type State = 'text' | 'cr' | 'esc' | 'escInter' | 'csi' | 'string' | 'stringEsc';

/** Stateful, for text that arrives in chunks: a sequence cut between two chunks is still recognized. */
export class TerminalTextFilter {
  private state: State = 'text';
  private pending = '';
  private length = 0;

  constructor(private readonly opts: TerminalTextOptions) {}

  push(text: string): string {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      const code = ch.charCodeAt(0);
      switch (this.state) {
        case 'cr':
          this.state = 'text';
          out += '\n';
          if (ch === '\n') continue;
          i--;
          continue;
        case 'esc':
          if (ch === '[') this.enter('csi', '\u001b[');
          else if (ch === ']' || ch === 'P' || ch === 'X' || ch === '^' || ch === '_') this.enter('string');
          else if (code >= 0x20 && code <= 0x2f) this.enter('escInter');
          else if (code >= 0x30 && code <= 0x7e) this.state = 'text';
          else if (code !== 0x1b) this.abandon(() => i--);
          continue;
        case 'escInter':
          if (code >= 0x20 && code <= 0x2f) continue;
          if (code >= 0x30 && code <= 0x7e) this.state = 'text';
          else this.abandon(() => i--);
          continue;
        case 'csi':
          if (code >= 0x40 && code <= 0x7e) {
            const params = this.pending.slice(2);
            if (this.opts.keepColors && ch === 'm' && /^[0-9;:]*$/.test(params)) out += `${this.pending}m`;
            this.state = 'text';
            this.pending = '';
          } else if (code >= 0x20 && code <= 0x3f && this.pending.length < MAX_CSI_LENGTH) {
            this.pending += ch;
          } else {
            this.abandon(() => i--);
          }
          continue;
        case 'string':
        case 'stringEsc':
          if (this.state === 'stringEsc') {
            // ESC \ ends the string; any other ESC ends it too and starts a sequence of its own.
            this.state = 'esc';
            if (ch === '\\') this.state = 'text';
            else i--;
            continue;
          }
          if (code === 0x07 || code === 0x9c) this.state = 'text';
          else if (code === 0x1b) this.state = 'stringEsc';
          else if (++this.length > MAX_STRING_LENGTH) this.abandon(() => i--);
          continue;
        case 'text':
          if (code === 0x1b) this.state = 'esc';
          else if (code === 0x0d) this.state = 'cr';
          else if (code === 0x0a || code === 0x09 || (code >= 0x20 && code < 0x7f) || code > 0x9f) out += ch;
          // Anything else is a C0 or C1 control or DEL: dropped.
          continue;
      }
    }
    return out;
  }

  /** The end of the text: a pending carriage return is a newline; an unfinished sequence is dropped. */
  end(): string {
    const out = this.state === 'cr' ? '\n' : '';
    this.state = 'text';
    this.pending = '';
    return out;
  }

  private enter(state: State, pending = ''): void {
    this.state = state;
    this.pending = pending;
    this.length = 0;
  }

  /** Not a sequence after all (or too long): back to text, where the current character is looked at again. */
  private abandon(again: () => void): void {
    this.state = 'text';
    this.pending = '';
    again();
  }
}

/** One piece of text, whole. */
export function terminalSafe(text: string, opts: TerminalTextOptions): string {
  const filter = new TerminalTextFilter(opts);
  return filter.push(text) + filter.end();
}
