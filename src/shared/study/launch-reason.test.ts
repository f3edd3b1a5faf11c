import { describe, expect, it } from 'vitest';
import { launchReason } from './launch-reason';
import type { Trial } from './study';

function trial(id: string, serverKey: string, patch: Partial<Trial> = {}): Trial {
  const [stageId = 'grid'] = id.split('/');
  return { id, stageId, candidateId: 'c', label: id, engine: 'vllm', version: '0.11.0', mode: 'env', config: { engine: 'vllm', model: 'Qwen/Qwen3-8B' }, serverKey, command: 'vllm serve Qwen/Qwen3-8B', workloadId: 'w', repeat: 1, status: 'planned', ...patch } as Trial;
}

describe('launchReason', () => {
  it('is a first launch when no earlier trial of the configuration was served', () => {
    const group = [trial('grid/a/w/r1', 'A')];
    const others = [trial('grid/b/w/r1', 'B', { status: 'done', serverId: 'srv-b' }), trial('grid/a/w2/r1', 'A', { status: 'failed' })];
    expect(launchReason(group, [...others, ...group], new Set())).toEqual({ kind: 'first' });
  });

  it('names the earlier trials and the later step when the configuration was served before', () => {
    const grid = trial('grid/a/w/r1', 'A', { status: 'done', serverId: 'srv-1' });
    const group = [trial('generalisation/recommended/w/r1', 'A'), trial('generalisation/recommended/w2/r1', 'A')];
    expect(launchReason(group, [grid, ...group], new Set())).toEqual({ kind: 'later-step', stageIds: ['generalisation'], earlier: ['grid/a/w/r1'] });
  });

  it('says a trial left unfinished by an earlier run is run again, before anything else', () => {
    const grid = trial('grid/a/w/r1', 'A', { status: 'done', serverId: 'srv-1' });
    const group = [trial('grid/a/w/r2', 'A')];
    expect(launchReason(group, [grid, ...group], new Set(['grid/a/w/r2']))).toEqual({ kind: 'rerun-interrupted', trials: ['grid/a/w/r2'] });
  });
});
