import { describe, expect, it } from 'vitest';
import type { StudyState, Trial } from '../../../../shared/study/study';
import { makeTrial } from '../../testing/fixtures';
import { layoutText, timelineOf } from './study-format';

const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const state = (trials: Trial[]): StudyState => ({ status: 'running', trials, decisions: [] });
const label = (hostId: string) => hostId.toUpperCase();

describe('layoutText', () => {
  it('names the layout and the GPUs it holds', () => {
    expect(layoutText({ model: 'm', extraArgs: [], env: {}, tensorParallelSize: 4, dataParallelSize: 2 }, 8)).toBe('TP4×DP2 · 8 GPUs');
    expect(layoutText({ model: 'm', extraArgs: [], env: {} }, 1)).toBe('TP1 · 1 GPU');
  });
});

describe('timelineOf', () => {
  it('gives one row per GPU of each host, in index order, and a bar across the rows its server held', () => {
    const wide = makeTrial({ id: 'w', hostId: 'b', gpus: ['9', '10'], gpuCount: 2, serverId: 's1', startedAt: at(0), finishedAt: at(100) });
    const narrow = makeTrial({ id: 'n', hostId: 'a', gpus: ['1'], serverId: 's2', startedAt: at(50), finishedAt: at(100) });
    const timeline = timelineOf(state([wide, narrow]), label, T0 + 1000)!;
    expect(timeline.lanes.map((l) => l.label)).toEqual(['A · GPU 1', 'B · GPU 9', 'B · GPU 10']);
    expect(timeline.bars.map(({ trial, left, width, lane, lanes, primary }) => ({ id: trial.id, left, width, lane, lanes, primary }))).toEqual([
      { id: 'w', left: 0, width: 100, lane: 1, lanes: 2, primary: true },
      { id: 'n', left: 50, width: 50, lane: 0, lanes: 1, primary: true },
    ]);
  });

  it('draws a server on GPUs apart from each other as pieces, the first one the trial’s', () => {
    const split = makeTrial({ id: 's', hostId: 'a', gpus: ['0', '2'], gpuCount: 2, serverId: 's1', startedAt: at(0), finishedAt: at(10) });
    const between = makeTrial({ id: 'b', hostId: 'a', gpus: ['1'], serverId: 's2', startedAt: at(0), finishedAt: at(10) });
    const bars = timelineOf(state([split, between]), label, T0)!.bars.filter((b) => b.trial.id === 's');
    expect(bars.map(({ lane, lanes, primary }) => ({ lane, lanes, primary }))).toEqual([
      { lane: 0, lanes: 1, primary: true },
      { lane: 2, lanes: 1, primary: false },
    ]);
  });

  it('lays the trials of one server one after another from its launch; a stored trial without GPUs gets its host’s row', () => {
    const first = makeTrial({ id: 'c1', hostId: 'a', gpus: ['0'], serverId: 's1', startedAt: at(0), finishedAt: at(40) });
    const second = makeTrial({ id: 'c2', hostId: 'a', gpus: ['0'], serverId: 's1', startedAt: at(0), finishedAt: at(100) });
    const old = makeTrial({ id: 'old', hostId: 'z', serverId: 's0', startedAt: at(0), finishedAt: at(20) });
    const timeline = timelineOf(state([second, first, old]), label, T0)!;
    const span = (id: string) => timeline.bars.filter((b) => b.trial.id === id).map(({ left, width, lane }) => ({ left, width, lane }));
    expect(span('c1')).toEqual([{ left: 0, width: 40, lane: 0 }]);
    expect(span('c2')).toEqual([{ left: 40, width: 60, lane: 0 }]);
    expect(timeline.lanes.map((l) => l.label)).toEqual(['A · GPU 0', 'Z']);
    expect(span('old')).toEqual([{ left: 0, width: 20, lane: 1 }]);
  });

  it("gives a cluster's nodes rows of their own: two jobs on GPU 0 of different nodes do not share a row", () => {
    const one = makeTrial({ id: 'j1', hostId: 'c', gpus: ['0'], serverId: 's1', startedAt: at(0), finishedAt: at(10), slurmJob: { jobId: '1', state: 'RUNNING', node: 'gpu1' } });
    const two = makeTrial({ id: 'j2', hostId: 'c', gpus: ['0'], serverId: 's2', startedAt: at(0), finishedAt: at(10), slurmJob: { jobId: '2', state: 'RUNNING', node: 'gpu2' } });
    const timeline = timelineOf(state([one, two]), label, T0)!;
    expect(timeline.lanes.map((l) => l.label)).toEqual(['C · gpu1 · GPU 0', 'C · gpu2 · GPU 0']);
    expect(timeline.bars.map((b) => [b.trial.id, b.lane])).toEqual([['j1', 0], ['j2', 1]]);
  });

  it('is null before any trial has started', () => {
    expect(timelineOf(state([makeTrial({ id: 'p', status: 'planned' })]), label, T0)).toBeNull();
  });
});
