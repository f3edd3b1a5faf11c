import { describe, expect, it } from 'vitest';
import { basisFactor, replicasOf, studyObjective, trialObjective } from './objective';
import { planEngineStage, planStage } from './planner';
import { rankConfigs } from './rank';
import { compareRuns, pooledRunNoise } from './verdict';
import { StudyDefinitionSchema } from './study';
import { measuredTrial } from '../../../tests/helpers/measured-trial';
import { EIGHT_H100, GPT_OSS_TPS, QWEN235_TPS, gptOssStudy, qwen235Study, runAsPublished } from '../../../tests/helpers/parallel-studies';

const labelsOf = (ranked: { label: string }[]) => ranked.map((r) => r.label.replace(/^vLLM 0\.10\.2 \+ /, ''));

describe('the goal basis in the schema', () => {
  const base = gptOssStudy();
  const withGoal = (goal: Record<string, unknown>) => StudyDefinitionSchema.safeParse({ ...base, goal: { ...base.goal, ...goal } });
  const messages = (goal: Record<string, unknown>) => {
    const parsed = withGoal(goal);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('is absent for a study on one server, and not written back', () => {
    expect(base.goal.basis).toBeUndefined();
    expect(studyObjective(base.goal)).toMatchObject({ basis: 'server', metric: 'total_token_throughput', catalogueKey: 'total_token_throughput', unit: 'tok/s' });
  });

  it('refuses a per-GPU or budget basis for a latency goal, saying why', () => {
    expect(messages({ kind: 'latency', basis: 'per-gpu' })).toEqual([
      'goal.basis: "per-gpu" applies to a throughput goal only: a latency per request does not divide by GPUs; compare latency on "server", or use a throughput goal with a latency SLO',
    ]);
    expect(messages({ kind: 'latency', basis: 'server' })).toEqual([]);
  });

  it('needs a budget with gpu-budget, reads it only there, and refuses one smaller than the fewest GPUs a trial takes', () => {
    expect(messages({ basis: 'gpu-budget' })).toEqual(['goal.gpuBudget: is required with the basis "gpu-budget": the GPUs the replicas share']);
    expect(messages({ basis: 'per-gpu', gpuBudget: 8 })).toEqual(['goal.gpuBudget: is read only with the basis "gpu-budget"']);
    expect(StudyDefinitionSchema.safeParse({ ...base, gpusPerTrial: 4, goal: { ...base.goal, basis: 'gpu-budget', gpuBudget: 2 } }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'goal.gpuBudget: is less than gpusPerTrial (4): no configuration fits in it',
    ]);
    expect(messages({ basis: 'bogus' })[0]).toBe('goal.basis: must be one of server, per-gpu, gpu-budget');
  });
});

describe('the objective on a basis', () => {
  it('per GPU divides by the GPUs; on a budget multiplies by the whole replicas, and a server over the budget has none', () => {
    expect(basisFactor({ kind: 'throughput' }, 8)).toBe(1);
    expect(basisFactor({ kind: 'throughput', basis: 'per-gpu' }, 8)).toBe(1 / 8);
    expect(replicasOf(8, 4)).toBe(2);
    expect(replicasOf(8, 3)).toBe(2);
    expect(replicasOf(8, 16)).toBe(0);
    expect(basisFactor({ kind: 'throughput', basis: 'gpu-budget', gpuBudget: 8 }, 3)).toBe(2);
    expect(basisFactor({ kind: 'throughput', basis: 'gpu-budget', gpuBudget: 8 }, 16)).toBeNull();
    expect(studyObjective({ kind: 'throughput', basis: 'per-gpu' })).toMatchObject({ label: 'total token throughput per GPU', unit: 'tok/s/GPU', catalogueKey: 'total_token_throughput_per_gpu' });
    expect(studyObjective({ kind: 'throughput', basis: 'gpu-budget', gpuBudget: 8 })).toMatchObject({ label: 'total token throughput on 8 GPUs', unit: 'tok/s', catalogueKey: null });
  });

  it("reads a trial's objective from the GPUs its layout holds", () => {
    const s = qwen235Study({ basis: 'gpu-budget', gpuBudget: 8 });
    const [engine] = planEngineStage(s, EIGHT_H100);
    expect(engine?.gpuCount).toBe(8);
    expect(trialObjective(s, measuredTrial(engine!, { total_token_throughput: QWEN235_TPS['vllm-0.11.0'] }))).toBe(8424.86);
    const tp4 = planStage(s, 0, { engine: 'vllm', version: '0.11.0', mode: 'env', config: engine!.config, serverKey: engine!.serverKey, path: ['vllm-0.11.0'], objective: 8424.86 }, EIGHT_H100).find((t) => t.candidateId === 'fp8-tp4')!;
    expect(tp4.gpuCount).toBe(4);
    expect(trialObjective(s, measuredTrial(tp4, { total_token_throughput: 7527.8 }))).toBeCloseTo(15055.6, 6);
  });

  it('compares per GPU as the measured numbers times the ratio of the GPU counts: the decision rule carries over', () => {
    // Per GPU, a configuration's runs are its measured ones over a constant: the interval of the change is the same
    // interval, moved by the ratio of the constants.
    const tp2 = [16042.19, 15800, 16210];
    const tp4 = [23759.49, 23100];
    const opts = { priorCvPct: 0.64, noise: pooledRunNoise([tp2, tp4]), level: 0.95 };
    const raw = compareRuns(tp2, tp4, opts)!;
    const perGpu = compareRuns(
      tp2.map((v) => v / 2),
      tp4.map((v) => v / 4),
      { ...opts, noise: pooledRunNoise([tp2.map((v) => v / 2), tp4.map((v) => v / 4)]) },
    )!;
    const scaled = (pct: number) => ((1 + pct / 100) * 2 - 1) * 100;
    expect(perGpu.pct).toBeCloseTo(scaled(raw.pct), 9);
    expect(perGpu.low).toBeCloseTo(scaled(raw.low), 9);
    expect(perGpu.high).toBeCloseTo(scaled(raw.high), 9);
  });
});

describe('deciding GPT-OSS-120B on H100 (published numbers): TP4 is the fastest server, TP2 the best per GPU', () => {
  it('on one server, keeps TP4', () => {
    const project = runAsPublished(gptOssStudy(), GPT_OSS_TPS);
    const stage = project.state.decisions.find((d) => d.stageId === 'parallelism')!;
    expect(stage).toMatchObject({ winner: 'tp4', verdict: 'kept', before: 6325.41, after: 23759.49 });
    expect(project.state.recommendation?.path).toEqual(['vllm-0.10.2', 'tp4']);
  });

  it('per GPU, keeps TP2, and ranks TP4 below the single GPU and TP2', () => {
    const study = gptOssStudy({ basis: 'per-gpu' });
    const project = runAsPublished(study, GPT_OSS_TPS);
    const stage = project.state.decisions.find((d) => d.stageId === 'parallelism')!;
    expect(stage).toMatchObject({ winner: 'tp2', verdict: 'kept', before: 6325.41 });
    expect(stage.after).toBeCloseTo(16042.19 / 2, 6);
    // "TP2 improves throughput from 6325.41 tok/s to 16042.19 tok/s, achieving 26.8% higher token throughput per GPU."
    expect(stage.change?.pct.toFixed(1)).toBe('26.8');
    expect(stage.reason).toMatch(/^TP2: \+26\.8% \[\+\d+\.\d, \+\d+\.\d\] total token throughput per GPU \(6325 → 8021 tok\/s\/GPU; \d+ runs? each\), kept$/);
    expect(project.state.recommendation?.path).toEqual(['vllm-0.10.2', 'tp2']);
    const ranked = rankConfigs(study, project.state.trials);
    expect(labelsOf(ranked)).toEqual(['TP2', 'vLLM 0.10.2', 'TP4', 'PP2']);
    expect(ranked.map((r) => Math.round(r.objective))).toEqual([8021, 6325, 5940, 5599]);
  });

  it('on a budget of 4 GPUs, keeps 2 × TP2 over 4 × one GPU, 1 × TP4 and 2 × PP2', () => {
    const study = gptOssStudy({ basis: 'gpu-budget', gpuBudget: 4 });
    const project = runAsPublished(study, GPT_OSS_TPS);
    const stage = project.state.decisions.find((d) => d.stageId === 'parallelism')!;
    expect(stage).toMatchObject({ winner: 'tp2', verdict: 'kept', before: 4 * 6325.41 });
    expect(stage.after).toBeCloseTo(2 * 16042.19, 6);
    expect(stage.reason).toMatch(/^2 × TP2: \+26\.8% \[.*\] total token throughput on 4 GPUs \(25302 → 32084 tok\/s; /);
    expect(rankConfigs(study, project.state.trials).map((r) => Math.round(r.objective))).toEqual([32084, 25302, 23759, 22397]);
  });

  it('on a budget of 2 GPUs, TP4 has no place: it is not compared, and the decision says why', () => {
    const study = gptOssStudy({ basis: 'gpu-budget', gpuBudget: 2 });
    const project = runAsPublished(study, GPT_OSS_TPS);
    const stage = project.state.decisions.find((d) => d.stageId === 'parallelism')!;
    expect(stage.winner).toBe('tp2');
    expect(stage.unmeasured).toEqual([{ label: 'TP4', why: 'over-budget', gpus: 4, budget: 2 }]);
    expect(stage.reason).toContain('; TP4 needs 4 GPUs, more than the budget of 2');
    expect(labelsOf(rankConfigs(study, project.state.trials))).toEqual(['TP2', 'vLLM 0.10.2', 'PP2']);
  });
});

describe('deciding Qwen3-235B-A22B on 8 × H100 (published numbers): TP8 is the fastest server, TP4 the best per GPU', () => {
  it('on one server, nothing beats BF16 TP8', () => {
    const project = runAsPublished(qwen235Study(), QWEN235_TPS);
    const layout = project.state.decisions.find((d) => d.stageId === 'layout')!;
    expect(layout).toMatchObject({ winner: null, compared: 'fp8-tp8-ep', verdict: 'worse' });
    expect(project.state.recommendation?.path).toEqual(['vllm-0.11.0']);
  });

  it('per GPU and on the 8-GPU budget, keeps FP8 TP4 and then 16384 batched tokens: 2 × TP4 is +84.9% over TP8, as published', () => {
    for (const goal of [{ basis: 'per-gpu' as const }, { basis: 'gpu-budget' as const, gpuBudget: 8 }]) {
      const study = qwen235Study(goal);
      const project = runAsPublished(study, QWEN235_TPS);
      expect(project.state.recommendation?.path, goal.basis).toEqual(['vllm-0.11.0', 'fp8-tp4', 'mbt16384']);
      const ranked = rankConfigs(study, project.state.trials);
      expect(ranked[0]?.label, goal.basis).toContain('--max-num-batched-tokens 16384');
      // "Total TPS: 7787.17x2 (+84.9%)" against the TP8 baseline's 8424.86.
      const gain = (ranked[0]!.objective / ranked.find((r) => r.label === 'vLLM 0.11.0')!.objective - 1) * 100;
      expect(gain.toFixed(1), goal.basis).toBe('84.9');
    }
  });

  it('a stage over the budget compares nothing over it (TP8 on a budget of 4)', () => {
    const study = qwen235Study({ basis: 'gpu-budget', gpuBudget: 4 });
    const project = runAsPublished(study, QWEN235_TPS);
    const engine = project.state.decisions.find((d) => d.stageId === 'engine')!;
    expect(engine).toMatchObject({ winner: null, basis: { kind: 'no-valid-result' } });
    expect(engine.unmeasured).toEqual([{ label: 'vLLM 0.11.0', why: 'over-budget', gpus: 8, budget: 4 }]);
    expect(project.state.status).toBe('failed');
    expect(project.state.message).toBe('No engine completed the primary workload: vLLM 0.11.0 needs 8 GPUs, more than the budget of 4');
  });
});
