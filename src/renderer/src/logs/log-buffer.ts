import { stripAnsi } from './ansi';

/**
 * Lines a log keeps before the oldest are dropped: a 10 s burst at 10,000 lines/s fits with room to spare, and
 * at ~100 bytes a line the whole buffer stays in the tens of megabytes.
 */
export const LOG_CAPACITY = 200_000;

/** A scheduler for change notifications: runs `callback` once, soon; returns a cancel. */
export type NotifyScheduler = (callback: () => void) => () => void;

/**
 * Once per animation frame, with a timer as well: jsdom (tests) may lack requestAnimationFrame, and a hidden
 * window's frames stop, yet readers such as the "new lines" count should still move.
 */
export const frameScheduler: NotifyScheduler = (callback) => {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    cancel();
    callback();
  };
  const frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : null;
  const timer = setTimeout(run, frame === null ? 16 : 250);
  const cancel = () => {
    done = true;
    if (frame !== null) cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
  return cancel;
};

export interface LogBufferOptions {
  /** Complete lines held; older ones are dropped and counted. */
  capacity?: number;
  schedule?: NotifyScheduler;
}

/**
 * An append-only log fed by text chunks as events bring them. A chunk may end mid-line: the unfinished line is
 * held as the last line and completed by the next chunk. `\n` and `\r\n` end a line (also when split across two
 * chunks); a bare `\r`, as progress bars (tqdm) write it, makes the next text replace the unfinished line.
 *
 * Appends are O(1) amortised (a ring of lines, no copy per event). Readers subscribe; notifications are coalesced
 * to at most one per animation frame, so a view renders once per frame however many events arrive. The buffer is
 * mutable on purpose: a store holds the same instance for the life of a job and `version` says when it changed.
 */
export class LogBuffer {
  readonly capacity: number;
  private readonly ring: string[] = [];
  private readonly plainRing: (string | undefined)[] = [];
  /** Ring index of the oldest complete line held. */
  private start = 0;
  private held = 0;
  private completed = 0;
  private partial = '';
  /** A bare `\r` was read: the next text replaces the unfinished line. */
  private overwrite = false;
  private changes = 0;
  private readonly listeners = new Set<() => void>();
  private readonly schedule: NotifyScheduler;
  private cancelNotify: (() => void) | null = null;

  constructor(options: LogBufferOptions = {}) {
    this.capacity = Math.max(1, options.capacity ?? LOG_CAPACITY);
    this.schedule = options.schedule ?? frameScheduler;
  }

  /** A finished log from one piece of text (a stored log tail, say). */
  static fromText(text: string, options?: LogBufferOptions): LogBuffer {
    const buffer = new LogBuffer(options);
    buffer.append(text);
    return buffer;
  }

  /** Lines held: the complete ones and, when there is one, the unfinished last line. */
  get length(): number {
    return this.held + (this.partial === '' ? 0 : 1);
  }

  /** Whether the last line is still unfinished (no newline yet). */
  get hasPartialLine(): boolean {
    return this.partial !== '';
  }

  /** Lines ever appended, the dropped ones included (the unfinished line counts once). */
  get totalAppended(): number {
    return this.completed + (this.partial === '' ? 0 : 1);
  }

  /** Complete lines dropped from the front to stay within `capacity`. */
  get dropped(): number {
    return this.completed - this.held;
  }

  /** Goes up with every change; equal versions mean equal contents. */
  get version(): number {
    return this.changes;
  }

  /** The line at `index` (0 = oldest held) as it arrived, escapes included. */
  line(index: number): string {
    if (index < 0 || index >= this.length) throw new RangeError(`line ${index} of ${this.length}`);
    if (index === this.held) return this.partial;
    return this.ring[(this.start + index) % this.capacity]!;
  }

  /** The line at `index` without escape sequences or control characters, as search and copy see it. */
  plainLine(index: number): string {
    if (index === this.held && this.partial !== '') return stripAnsi(this.partial);
    const slot = (this.start + this.checked(index)) % this.capacity;
    let plain = this.plainRing[slot];
    if (plain === undefined) this.plainRing[slot] = plain = stripAnsi(this.ring[slot]!);
    return plain;
  }

  /** Every line held, plain, one per line: what "copy all" puts on the clipboard. */
  plainText(): string {
    const out: string[] = new Array(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.plainLine(i);
    return out.join('\n');
  }

  /** Adds a chunk of streamed text. */
  append(text: string): void {
    if (text === '') return;
    const n = text.length;
    let i = 0;
    // indexOf is native and fast; most logs have no \r at all, so its position is looked up again only when passed.
    let cr = text.indexOf('\r');
    while (i < n) {
      if (cr !== -1 && cr < i) cr = text.indexOf('\r', i);
      const nl = text.indexOf('\n', i);
      let j = nl === -1 ? n : nl;
      if (cr !== -1 && cr < j) j = cr;
      if (j > i) this.write(text.slice(i, j));
      if (j === n) break;
      if (text.charCodeAt(j) === 10) {
        this.endLine();
        i = j + 1;
      } else if (j + 1 < n && text.charCodeAt(j + 1) === 10) {
        this.endLine();
        i = j + 2;
      } else {
        // A bare \r, or one whose \n may open the next chunk: the next \n still ends this line.
        this.overwrite = true;
        i = j + 1;
      }
    }
    this.changed();
  }

  /**
   * Adds whole lines (a status line that arrives apart from the stream). An unfinished streamed line stays the
   * last line, so it is neither cut nor merged with them.
   */
  appendLine(text: string): void {
    for (const line of text.split(/\r?\n/)) this.push(line);
    this.changed();
  }

  /** Calls `listener` after changes, at most once per frame; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.cancelPending();
    };
  }

  /** Notifies now instead of at the next frame (tests, benchmarks, a final event). */
  flush(): void {
    if (!this.cancelNotify) return;
    this.cancelPending();
    for (const listener of [...this.listeners]) listener();
  }

  private checked(index: number): number {
    if (index < 0 || index >= this.held) throw new RangeError(`line ${index} of ${this.length}`);
    return index;
  }

  private write(piece: string): void {
    if (this.overwrite) {
      this.partial = piece;
      this.overwrite = false;
    } else {
      this.partial += piece;
    }
  }

  private endLine(): void {
    this.push(this.partial);
    this.partial = '';
    this.overwrite = false;
  }

  private push(line: string): void {
    if (this.held < this.capacity) {
      const slot = (this.start + this.held) % this.capacity;
      this.ring[slot] = line;
      this.plainRing[slot] = undefined;
      this.held++;
    } else {
      this.ring[this.start] = line;
      this.plainRing[this.start] = undefined;
      this.start = (this.start + 1) % this.capacity;
    }
    this.completed++;
  }

  private changed(): void {
    this.changes++;
    if (this.cancelNotify || this.listeners.size === 0) return;
    this.cancelNotify = this.schedule(() => {
      this.cancelNotify = null;
      for (const listener of [...this.listeners]) listener();
    });
  }

  private cancelPending(): void {
    this.cancelNotify?.();
    this.cancelNotify = null;
  }
}
