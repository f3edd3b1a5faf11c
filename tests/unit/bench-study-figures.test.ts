// The study bench's arithmetic on journal lines in the runner's format (study-runner.ts writes them).
import { describe, expect, it } from 'vitest';
import { launchFigures, parseJournal, passFigures, reasonWords } from '../../scripts/bench-study-figures.mjs';

const T0 = Date.parse('2026-12-07T12:00:00.000Z');
const line = (seconds: number, event: Record<string, unknown>) => JSON.stringify({ at: new Date(T0 + seconds * 1000).toISOString(), ...event });

/** Two servers on two GPUs: A launches at 1 s (ready at 11), B at 1 s (ready at 13); each trial's run is 20 s. */
const JOURNAL = [
  line(0, { event: 'planned', stageId: 'grid', trials: [{ id: 'grid/a' }, { id: 'grid/b' }] }),
  line(1, { event: 'launching', serverKey: 'A', hostId: 'demo-lab', gpus: ['0'], trials: ['grid/a'], reason: { kind: 'first' } }),
  line(1, { event: 'launching', serverKey: 'B', hostId: 'demo-lab', gpus: ['1'], trials: ['grid/b'], reason: { kind: 'first' } }),
  line(2, { event: 'server-launched', serverId: 'sa', serverKey: 'A' }),
  line(2, { event: 'server-launched', serverId: 'sb', serverKey: 'B' }),
  line(11, { event: 'server-ready', serverId: 'sa' }),
  line(13, { event: 'server-ready', serverId: 'sb' }),
  line(16, { event: 'measuring', id: 'grid/a' }),
  line(18, { event: 'measuring', id: 'grid/b' }),
  line(36, { event: 'trial', id: 'grid/a', status: 'done' }),
  line(38, { event: 'trial', id: 'grid/b', status: 'done' }),
  line(37, { event: 'server-stopped', serverId: 'sa' }),
  line(39, { event: 'server-stopped', serverId: 'sb' }),
  line(40, { event: 'decision', stageId: 'grid' }),
  line(41, { event: 'launching', serverKey: 'A', hostId: 'demo-lab', gpus: ['0'], trials: ['generalisation/recommended/w/r1'], reason: { kind: 'later-step', stageIds: ['generalisation'], earlier: ['grid/a'] } }),
].join('\n');

const TRIALS = [
  { id: 'grid/a', stageId: 'grid', serverKey: 'A', label: '--max-num-seqs 32', warmup: { requests: 4, seconds: 5 } },
  { id: 'grid/b', stageId: 'grid', serverKey: 'B', label: 'defaults', warmup: { requests: 4, seconds: 5 } },
  { id: 'generalisation/recommended/w/r1', stageId: 'generalisation', serverKey: 'A', label: '--max-num-seqs 32' },
];

describe('the study bench figures', () => {
  it('takes the ideal as (Σ benchmark + Σ launch) ÷ slots, and the wall time as the pass from its first launch to its decision', () => {
    const f = passFigures(parseJournal(JOURNAL), TRIALS, { stageId: 'grid', slots: 2 });
    expect(f.launchSeconds).toEqual([10, 12]);
    expect(f.benchSeconds).toEqual([25, 25]);
    expect(f.idealSeconds).toBeCloseTo((50 + 22) / 2, 9);
    expect(f.wallSeconds).toBe(39);
    expect(f.ratio).toBeCloseTo(39 / 36, 9);
    expect(f.heldSeconds).toEqual([36, 38]);
  });

  it('counts launches against distinct configurations and lists each relaunch with its journalled reason', () => {
    const f = launchFigures(parseJournal(JOURNAL), TRIALS);
    expect(f).toMatchObject({ launches: 3, configs: 2 });
    expect(f.relaunches).toHaveLength(1);
    expect(f.relaunches[0]).toMatchObject({ serverKey: 'A', label: '--max-num-seqs 32', trials: ['generalisation/recommended/w/r1'] });
    expect(f.relaunches[0]!.words).toBe("trials of a later step (generalisation); it served grid/a before, and the runner stops a step's servers when the step ends");
  });

  it('words every reason the runner journals, and says so when a journal has none', () => {
    expect(reasonWords({ kind: 'first' })).toBe('first launch');
    expect(reasonWords({ kind: 'rerun-interrupted', trials: ['grid/a'] })).toBe('trials left unfinished by an earlier run, run again: grid/a');
    expect(reasonWords(undefined)).toMatch(/no reason recorded/);
  });

  it('refuses a journal without the pass asked for', () => {
    expect(() => passFigures(parseJournal(JOURNAL), TRIALS, { stageId: 'tp', slots: 2 })).toThrow(/no planned and decided pass "tp"/);
  });
});
