import { describe, expect, it, vi } from 'vitest';
import { LOG_CAPACITY, LogBuffer, type NotifyScheduler } from './log-buffer';

function lines(buffer: LogBuffer): string[] {
  return Array.from({ length: buffer.length }, (_, i) => buffer.line(i));
}

/** A scheduler the test runs by hand, counting how often a notification was asked for. */
function manualScheduler() {
  const queue: (() => void)[] = [];
  const schedule: NotifyScheduler = (callback) => {
    queue.push(callback);
    return () => queue.splice(queue.indexOf(callback) >>> 0, 1);
  };
  return { schedule, queue, runFrame: () => queue.splice(0).forEach((cb) => cb()) };
}

describe('LogBuffer', () => {
  it('splits chunks into lines and completes a line cut between two chunks', () => {
    const buffer = new LogBuffer();
    buffer.append('INFO starting\nINFO load');
    expect(lines(buffer)).toEqual(['INFO starting', 'INFO load']);
    buffer.append('ing weights\nINFO ready\n');
    expect(lines(buffer)).toEqual(['INFO starting', 'INFO loading weights', 'INFO ready']);
    expect(buffer.length).toBe(3);
    expect(buffer.totalAppended).toBe(3);
  });

  it('treats \\r\\n as one newline, also when the \\r ends one chunk and the \\n starts the next', () => {
    const buffer = new LogBuffer();
    buffer.append('a\r\nb\r');
    buffer.append('\nc\r\n');
    expect(lines(buffer)).toEqual(['a', 'b', 'c']);
  });

  it('lets a bare \\r replace the unfinished line, as progress bars redraw themselves', () => {
    const buffer = new LogBuffer();
    buffer.append('header\n  0%|          | 0/100');
    buffer.append('\r 50%|#####     | 50/100\r');
    expect(lines(buffer)).toEqual(['header', ' 50%|#####     | 50/100']);
    buffer.append('100%|##########| 100/100\n');
    buffer.append('done\n');
    expect(lines(buffer)).toEqual(['header', '100%|##########| 100/100', 'done']);
  });

  it('keeps empty lines that were written', () => {
    const buffer = new LogBuffer();
    buffer.append('a\n\nb\n');
    expect(lines(buffer)).toEqual(['a', '', 'b']);
  });

  it('inserts whole status lines before an unfinished streamed line without cutting it', () => {
    const buffer = new LogBuffer();
    buffer.append('Downloading tor');
    buffer.appendLine('Phase: downloading');
    buffer.append('ch\n');
    expect(lines(buffer)).toEqual(['Phase: downloading', 'Downloading torch']);
  });

  it('holds 200,000 lines by default: a 10 s burst at 10,000 lines/s loses nothing', () => {
    expect(LOG_CAPACITY).toBeGreaterThanOrEqual(100_000);
    const buffer = new LogBuffer();
    for (let tick = 0; tick < 1000; tick++) {
      let chunk = '';
      for (let i = 0; i < 100; i++) chunk += `line ${tick * 100 + i}\n`;
      buffer.append(chunk);
    }
    expect(buffer.length).toBe(100_000);
    expect(buffer.dropped).toBe(0);
    expect(buffer.line(99_999)).toBe('line 99999');
  });

  it('drops the oldest lines beyond its capacity and counts them', () => {
    const buffer = new LogBuffer({ capacity: 3 });
    buffer.append('1\n2\n3\n4\n5\n6');
    expect(lines(buffer)).toEqual(['3', '4', '5', '6']);
    expect(buffer.dropped).toBe(2);
    expect(buffer.totalAppended).toBe(6);
    buffer.append('\n7\n');
    expect(lines(buffer)).toEqual(['5', '6', '7']);
    expect(buffer.dropped).toBe(4);
    expect(() => buffer.line(3)).toThrow(RangeError);
  });

  it('gives plain lines and plain text without escapes for search and copy', () => {
    const buffer = LogBuffer.fromText('\x1b[32mINFO\x1b[0m ready\n\x1b]0;title\x07\x1b[2Kplain\n\x1b[1;31mERR');
    expect(buffer.plainLine(0)).toBe('INFO ready');
    expect(buffer.plainLine(1)).toBe('plain');
    expect(buffer.plainLine(2)).toBe('ERR');
    expect(buffer.plainText()).toBe('INFO ready\nplain\nERR');
    expect(buffer.line(0)).toBe('\x1b[32mINFO\x1b[0m ready');
  });

  it('bumps its version on every change and notifies subscribers once per frame however many chunks arrive', () => {
    const { schedule, queue, runFrame } = manualScheduler();
    const buffer = new LogBuffer({ schedule });
    const listener = vi.fn();
    const off = buffer.subscribe(listener);
    const before = buffer.version;
    for (let i = 0; i < 50; i++) buffer.append(`line ${i}\n`);
    expect(buffer.version).toBe(before + 50);
    expect(queue).toHaveLength(1);
    expect(listener).not.toHaveBeenCalled();
    runFrame();
    expect(listener).toHaveBeenCalledTimes(1);
    buffer.append('more\n');
    buffer.flush();
    expect(listener).toHaveBeenCalledTimes(2);
    expect(queue).toHaveLength(0);
    off();
    buffer.append('after\n');
    runFrame();
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('notifies without requestAnimationFrame through the timer fallback', async () => {
    vi.useFakeTimers();
    const raf = globalThis.requestAnimationFrame;
    // @ts-expect-error: a page without frames (jsdom without pretendToBeVisual)
    delete globalThis.requestAnimationFrame;
    try {
      const buffer = new LogBuffer();
      const listener = vi.fn();
      buffer.subscribe(listener);
      buffer.append('a\n');
      buffer.append('b\n');
      await vi.advanceTimersByTimeAsync(20);
      expect(listener).toHaveBeenCalledTimes(1);
    } finally {
      globalThis.requestAnimationFrame = raf;
      vi.useRealTimers();
    }
  });
});
