import { describe, it, expect } from 'vitest';
import { LogFrameParser, type LogFrame } from './log-frames';

function collect(frames: LogFrame[]): { data: string; rest: LogFrame[] } {
  const data = Buffer.concat(frames.flatMap((f) => (f.kind === 'data' ? [f.bytes] : []))).toString('utf8');
  return { data, rest: frames.filter((f) => f.kind !== 'data') };
}

describe('LogFrameParser', () => {
  // The second data frame's bytes look like a header on purpose: only the byte count decides.
  const stream = Buffer.from('D 5\nab\ncdH\nD 3\nD 1X 7\n');

  it('parses data, heartbeat and exit frames, split at every possible point', () => {
    for (let size = 1; size <= stream.length; size++) {
      const parser = new LogFrameParser();
      const frames: LogFrame[] = [];
      for (let i = 0; i < stream.length; i += size) frames.push(...parser.push(stream.subarray(i, i + size)));
      expect(collect(frames)).toEqual({ data: 'ab\ncdD 1', rest: [{ kind: 'heartbeat' }, { kind: 'exit', code: 7 }] });
    }
  });

  it('parses a lost frame with its reason', () => {
    expect(new LogFrameParser().push(Buffer.from('L the process is gone\n'))).toEqual([{ kind: 'lost', reason: 'the process is gone' }]);
  });

  it('throws when the stream is out of step', () => {
    expect(() => new LogFrameParser().push(Buffer.from('garbage\n'))).toThrow(/out of step/);
  });
});
