// Parses what the remote stream script prints (see streamScript): header lines, each `D <n>` followed by n raw
// log bytes. Input may arrive split anywhere, including inside a header or between a header and its bytes.

export type LogFrame =
  | { kind: 'data'; bytes: Buffer }
  | { kind: 'heartbeat' }
  | { kind: 'exit'; code: number }
  | { kind: 'lost'; reason: string };

// A header is a few dozen bytes; anything longer without a newline means the stream is out of step.
const MAX_HEADER_BYTES = 4096;

export class LogFrameParser {
  private buffer: Buffer = Buffer.alloc(0);
  /** Log bytes still owed by the current `D` frame. */
  private remaining = 0;

  /** Returns the complete frames in `chunk`; a data frame may come in several pieces. Throws when out of step. */
  push(chunk: Buffer): LogFrame[] {
    const frames: LogFrame[] = [];
    let data = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    this.buffer = Buffer.alloc(0);
    while (data.length > 0) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, data.length);
        frames.push({ kind: 'data', bytes: data.subarray(0, take) });
        this.remaining -= take;
        data = data.subarray(take);
        continue;
      }
      const newline = data.indexOf(0x0a);
      if (newline < 0) {
        if (data.length > MAX_HEADER_BYTES) throw new Error('the log stream is out of step (header too long)');
        this.buffer = Buffer.from(data);
        break;
      }
      const header = data.subarray(0, newline).toString('utf8');
      data = data.subarray(newline + 1);
      frames.push(...this.parseHeader(header));
    }
    return frames;
  }

  private parseHeader(header: string): LogFrame[] {
    if (header === 'H') return [{ kind: 'heartbeat' }];
    let match = /^D (\d+)$/.exec(header);
    if (match) {
      this.remaining = Number(match[1]);
      return [];
    }
    match = /^X (-?\d+)$/.exec(header);
    if (match) return [{ kind: 'exit', code: Number(match[1]) }];
    match = /^L ?(.*)$/.exec(header);
    if (match) return [{ kind: 'lost', reason: match[1] || 'the job is gone' }];
    throw new Error(`the log stream is out of step (unexpected line ${JSON.stringify(header.slice(0, 80))})`);
  }
}
