import type { LogBuffer } from './log-buffer';
import { foldForSearch } from '../components/search-text';

/**
 * The lines of a log that contain a needle, as absolute line numbers (0 = the first line ever appended, so a
 * number keeps naming the same line while older ones are dropped). A snapshot: later appends do not change it.
 */
export interface LogMatches {
  readonly count: number;
  /** The absolute line number of the k-th match, oldest first. */
  at(k: number): number;
  /** The first k whose line is at or after `line`; `count` when none is. */
  lowerBound(line: number): number;
}

export const NO_MATCHES: LogMatches = { count: 0, at: () => -1, lowerBound: () => 0 };

/**
 * Case-insensitive search over a growing log, on the text without escapes. Incremental: each update scans only
 * the lines appended since the last one, so searching while thousands of lines a second stream in stays cheap.
 */
export class LineMatcher {
  private needle = '';
  private list: number[] = [];
  private head = 0;
  /** Absolute number of the first complete line not yet scanned. */
  private scanned = 0;
  private cachedVersion = -1;
  private cached: LogMatches = NO_MATCHES;

  constructor(private readonly buffer: LogBuffer) {}

  /** The matches of `needle` now; `version` is the buffer's, so asking twice for one version scans once. */
  update(needle: string, version: number = this.buffer.version): LogMatches {
    const lower = foldForSearch(needle);
    if (lower !== this.needle) {
      this.needle = lower;
      this.list = [];
      this.head = 0;
      this.scanned = 0;
      this.cachedVersion = -1;
    }
    if (lower === '') return NO_MATCHES;
    if (version === this.cachedVersion) return this.cached;
    const buffer = this.buffer;
    const dropped = buffer.dropped;
    while (this.head < this.list.length && this.list[this.head]! < dropped) this.head++;
    if (this.head > 4096 && this.head * 2 > this.list.length) {
      this.list = this.list.slice(this.head);
      this.head = 0;
    }
    const complete = buffer.length - (buffer.hasPartialLine ? 1 : 0);
    const end = dropped + complete;
    for (let line = Math.max(this.scanned, dropped); line < end; line++) {
      if (foldForSearch(buffer.plainLine(line - dropped)).includes(lower)) this.list.push(line);
    }
    this.scanned = end;
    const partialMatches = buffer.hasPartialLine && foldForSearch(buffer.plainLine(complete)).includes(lower);
    this.cachedVersion = version;
    this.cached = snapshot(this.list, this.head, this.list.length - this.head, partialMatches ? end : null);
    return this.cached;
  }
}

function snapshot(list: readonly number[], head: number, held: number, partialLine: number | null): LogMatches {
  const count = held + (partialLine === null ? 0 : 1);
  const at = (k: number) => (k < held ? list[head + k]! : (partialLine ?? -1));
  return {
    count,
    at,
    lowerBound(line) {
      let lo = 0;
      let hi = count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (at(mid) < line) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
  };
}
