import { describe, expect, it } from 'vitest';
import { bestConfigOf, planEngineStage, planStage } from './planner';
import type { PlanContext } from './plan-context';
import { parseServerConfig } from '../engines/server-config';
import { rankConfigs, recommendationAndBaseline, topTwoConfigs } from './rank';
import { StudyDefinitionSchema, type StudyDefinition, type Trial } from './study';
import { measuredTrial } from '../../../tests/helpers/measured-trial';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };

function study(goal: 'latency' | 'throughput', repeats = 1): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'rank',
    model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: goal, marginPct: 1 },
    engines: [
      { engine: 'vllm', version: '0.11.0' },
      { engine: 'sglang', version: '0.5.3.post3' },
      { engine: 'trtllm', version: '1.2.0rc1' },
    ],
    stages: [{ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] }],
    workloads: {
      primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 },
      generalisation: [{ id: 'random-128-4', dataset: { kind: 'random', inputLen: 128, outputLen: 4 }, numPrompts: 100 }],
    },
    repeats,
  });
}

/** Engine stage measured (vLLM, SGLang, TensorRT-LLM failed) and the FP8 stage on SGLang. */
function measuredTrials(s: StudyDefinition, metric: string, values: { vllm: number[]; sglang: number[]; fp8: number[] }): Trial[] {
  const pick = (list: number[], t: Trial) => list[t.repeat - 1] as number;
  const engine = planEngineStage(s, H100).map((t) => {
    if (t.workloadId !== s.workloads.primary.id) return t;
    if (t.engine === 'vllm') return measuredTrial(t, { [metric]: pick(values.vllm, t) });
    if (t.engine === 'sglang') return measuredTrial(t, { [metric]: pick(values.sglang, t) });
    return { ...t, status: 'failed' as const, error: 'RuntimeError: Unsupported SM version for FP8 block scaling GEMM' };
  });
  const best = bestConfigOf({ engine: 'sglang', version: '0.5.3.post3', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), ['sglang-0.5.3.post3'], null);
  const quant = planStage(s, 0, best, H100).map((t) => (t.workloadId === s.workloads.primary.id ? measuredTrial(t, { [metric]: pick(values.fp8, t) }) : t));
  return [...engine, ...quant];
}

describe('rankConfigs', () => {
  it('ranks configurations by mean latency, lowest first, leaving out those without a valid result', () => {
    const s = study('latency');
    const trials = measuredTrials(s, 'mean_latency_s', { vllm: [1.68], sglang: [1.61], fp8: [1.2] });
    const ranked = rankConfigs(s, trials);
    expect(ranked.map((r) => [r.label, r.objective])).toEqual([
      [trials.find((t) => t.stageId === 'quantization')!.label, 1.2],
      [trials.find((t) => t.engine === 'sglang')!.label, 1.61],
      [trials.find((t) => t.engine === 'vllm')!.label, 1.68],
    ]);
    for (const r of ranked) expect(trials.find((t) => t.id === r.trialId)?.serverKey).toBe(r.serverKey);
  });

  it('ranks by throughput highest first, and averages repeats', () => {
    const s = study('throughput', 2);
    const trials = measuredTrials(s, 'total_token_throughput', { vllm: [1700, 1762], sglang: [1398, 1398], fp8: [1500, 1626] });
    expect(rankConfigs(s, trials).map((r) => r.objective)).toEqual([1731, 1563, 1398]);
  });

  it('does not let the generalisation pass re-measurement change the ranking', () => {
    const s = study('latency');
    const trials = measuredTrials(s, 'mean_latency_s', { vllm: [1.68], sglang: [1.61], fp8: [1.2] });
    const vllm = trials.find((t) => t.engine === 'vllm' && t.workloadId === s.workloads.primary.id)!;
    const again = measuredTrial({ ...vllm, id: `generalisation/${vllm.id}`, stageId: 'generalisation' }, { mean_latency_s: 0.1 });
    const ranked = rankConfigs(s, [...trials, again]);
    expect(ranked[0]?.objective).toBe(1.2);
    expect(ranked.find((r) => r.serverKey === vllm.serverKey)?.trialId).toBe(vllm.id);
  });
});

describe('topTwoConfigs', () => {
  it('puts the recommendation first even when a candidate within the margin measured a little better', () => {
    const s = study('latency');
    const trials = measuredTrials(s, 'mean_latency_s', { vllm: [1.68], sglang: [1.61], fp8: [1.2] });
    const sglang = trials.find((t) => t.engine === 'sglang' && t.stageId === 'engine')!;
    const fp8 = trials.find((t) => t.stageId === 'quantization')!;
    expect(topTwoConfigs(s, trials, sglang.serverKey).map((r) => r.serverKey)).toEqual([sglang.serverKey, fp8.serverKey]);
    expect(topTwoConfigs(s, trials, fp8.serverKey).map((r) => r.serverKey)).toEqual([fp8.serverKey, sglang.serverKey]);
  });

  it('without a recommendation, or one without a valid result, gives the two best', () => {
    const s = study('latency');
    const trials = measuredTrials(s, 'mean_latency_s', { vllm: [1.68], sglang: [1.61], fp8: [1.2] });
    const best = rankConfigs(s, trials).slice(0, 2).map((r) => r.serverKey);
    expect(topTwoConfigs(s, trials, undefined).map((r) => r.serverKey)).toEqual(best);
    const trt = trials.find((t) => t.engine === 'trtllm')!;
    expect(topTwoConfigs(s, trials, trt.serverKey).map((r) => r.serverKey)).toEqual(best);
  });
});

describe('recommendationAndBaseline', () => {
  it('gives the recommendation and the baseline, or nothing when either has no valid result or they are one', () => {
    const s = study('latency');
    const trials = measuredTrials(s, 'mean_latency_s', { vllm: [1.68], sglang: [1.61], fp8: [1.2] });
    const vllm = trials.find((t) => t.engine === 'vllm')!.serverKey;
    const fp8 = trials.find((t) => t.stageId === 'quantization')!.serverKey;
    const trt = trials.find((t) => t.engine === 'trtllm')!.serverKey;
    expect(recommendationAndBaseline(s, trials, fp8, vllm).map((r) => r.serverKey)).toEqual([fp8, vllm]);
    expect(recommendationAndBaseline(s, trials, fp8, trt)).toEqual([]);
    expect(recommendationAndBaseline(s, trials, vllm, vllm)).toEqual([]);
    expect(recommendationAndBaseline(s, trials, undefined, vllm)).toEqual([]);
  });
});
