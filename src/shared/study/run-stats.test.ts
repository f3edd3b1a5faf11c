import { describe, expect, it } from 'vitest';
import { configWorkloadKey, metricStat, runsOf, trialsByConfig } from './run-stats';
import type { Trial } from './study';

function trial(id: string, serverKey: string, workloadId: string, ttft: number | null, over: Partial<Trial> = {}): Trial {
  return {
    id,
    stageId: 'kv',
    candidateId: id,
    label: id,
    engine: 'vllm',
    version: '0.11.0',
    mode: 'env',
    config: { model: 'Qwen/Qwen3-8B', extraArgs: [], env: {} },
    serverKey,
    command: 'vllm serve Qwen/Qwen3-8B',
    workloadId,
    repeat: 1,
    status: 'done',
    ...(ttft === null
      ? {}
      : { result: { id: `res-${id}`, kind: 'measured', status: 'ok', addedAt: '2026-01-01T00:00:00.000Z', title: id, result: { schemaVersion: 1, metrics: { mean_ttft_ms: ttft }, extra: {} } } }),
    ...over,
  } as Trial;
}

describe('trialsByConfig', () => {
  const trials = [
    trial('a1', 'a', 'w1', 10),
    trial('b1', 'b', 'w1', 30),
    trial('a2', 'a', 'w2', 50),
    trial('a3', 'a', 'w1', 14, { stageId: 'generalisation', repeat: 2 }),
    trial('a4', 'a', 'w1', null, { status: 'failed' }),
  ];

  it('groups each configuration’s trials on each workload in the study’s order', () => {
    const groups = trialsByConfig(trials);
    expect([...groups.keys()]).toEqual([configWorkloadKey('a', 'w1'), configWorkloadKey('b', 'w1'), configWorkloadKey('a', 'w2')]);
    expect(groups.get(configWorkloadKey('a', 'w1'))!.map((t) => t.id)).toEqual(['a1', 'a3', 'a4']);
  });

  it('gives a group’s runs and numbers as a scan of every trial does', () => {
    const group = trialsByConfig(trials).get(configWorkloadKey('a', 'w1'))!;
    expect(runsOf(group, 'a', 'w1')).toEqual(runsOf(trials, 'a', 'w1'));
    expect(metricStat(group, 'a', 'w1', 'mean_ttft_ms')).toEqual(metricStat(trials, 'a', 'w1', 'mean_ttft_ms'));
    expect(metricStat(group, 'a', 'w1', 'mean_ttft_ms')).toMatchObject({ value: 12, runs: 2, basis: 'runs' });
  });
});
