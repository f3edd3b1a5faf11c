import { describe, expect, it } from 'vitest';
import { simulateSchedule } from './schedule-simulation';

const host = (hostId: string, n: number) => ({ hostId, gpus: Array.from({ length: n }, (_, i) => String(i)) });

describe('simulateSchedule', () => {
  it('runs the largest server first, then packs the smaller ones side by side on one 8-GPU host', () => {
    const s = simulateSchedule(
      [host('a', 8)],
      [
        { key: 'tp2-a', gpus: 2, seconds: 50 },
        { key: 'tp4', gpus: 4, seconds: 50 },
        { key: 'tp8', gpus: 8, seconds: 100 },
        { key: 'tp2-b', gpus: 2, seconds: 30 },
      ],
    );
    expect(s.placements).toEqual({
      tp8: { start: 0, end: 100, set: { hostId: 'a', gpus: ['0', '1', '2', '3', '4', '5', '6', '7'] } },
      tp4: { start: 100, end: 150, set: { hostId: 'a', gpus: ['0', '1', '2', '3'] } },
      'tp2-a': { start: 100, end: 150, set: { hostId: 'a', gpus: ['4', '5'] } },
      'tp2-b': { start: 100, end: 130, set: { hostId: 'a', gpus: ['6', '7'] } },
    });
    expect(s).toMatchObject({ wallSeconds: 150, peakGpus: 8 });
  });

  it('starts a waiting server when the first GPUs it needs free up (two hosts of four)', () => {
    const s = simulateSchedule(
      [host('a', 4), host('b', 4)],
      [
        { key: 'four', gpus: 4, seconds: 100 },
        { key: 'two-1', gpus: 2, seconds: 60 },
        { key: 'two-2', gpus: 2, seconds: 60 },
        { key: 'two-3', gpus: 2, seconds: 60 },
      ],
    );
    expect(s.placements['two-3']).toEqual({ start: 60, end: 120, set: { hostId: 'b', gpus: ['0', '1'] } });
    expect(s).toMatchObject({ wallSeconds: 120, peakGpus: 8 });
  });

  it('runs one server at a time under parallelism 1, and leaves out a server no host can hold', () => {
    const s = simulateSchedule(
      [host('a', 4)],
      [
        { key: 'x', gpus: 1, seconds: 10 },
        { key: 'y', gpus: 1, seconds: 20 },
        { key: 'huge', gpus: 8, seconds: 1000 },
      ],
      1,
    );
    expect(s).toMatchObject({ wallSeconds: 30, peakGpus: 1 });
    expect(Object.keys(s.placements).sort()).toEqual(['x', 'y']);
  });
});
