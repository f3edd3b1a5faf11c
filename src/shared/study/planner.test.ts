import { describe, expect, it } from 'vitest';
import { parseServerConfig } from '../engines/server-config';
import { bestConfigOf, estimatePlan, planEngineStage, planGeneralisation, planGrid, planStage, serverKeyOf } from './planner';
import type { PlanContext } from './plan-context';
import { StudyDefinitionSchema, type StudyDefinition, type StudyDefinitionInput } from './study';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };
const A100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' }] };

const sharegpt = (c: number) => ({ id: `sharegpt-c${c}`, dataset: { kind: 'sharegpt' as const }, numPrompts: 100, maxConcurrency: c });

function study(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'Qwen3-8B latency',
    model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency' },
    engines: [
      { engine: 'vllm', version: '0.11.0' },
      { engine: 'sglang', version: '0.5.3.post3' },
      { engine: 'trtllm', version: '1.2.0rc1' },
    ],
    stages: [
      { id: 'cuda-graph', label: '--cuda-graph-max-bs 8', engines: ['sglang'], candidates: [{ id: 'bs8', label: '--cuda-graph-max-bs 8', config: { cudaGraphMaxBatchSize: 8 } }] },
      { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] },
    ],
    workloads: { primary: sharegpt(4), generalisation: [sharegpt(1), sharegpt(2), sharegpt(8)] },
    ...overrides,
  });
}

describe('planEngineStage', () => {
  it('plans every engine at its defaults on the primary workload, once per repeat, sharing a server per engine', () => {
    const trials = planEngineStage(study({ repeats: 2 }), H100);
    expect(trials.map((t) => t.id)).toEqual([
      'engine/vllm-0.11.0/sharegpt-c4/r1',
      'engine/vllm-0.11.0/sharegpt-c4/r2',
      'engine/sglang-0.5.3.post3/sharegpt-c4/r1',
      'engine/sglang-0.5.3.post3/sharegpt-c4/r2',
      'engine/trtllm-1.2.0rc1/sharegpt-c4/r1',
      'engine/trtllm-1.2.0rc1/sharegpt-c4/r2',
    ]);
    expect(trials.map((t) => t.command)).toEqual([
      'vllm serve Qwen/Qwen3-8B',
      'vllm serve Qwen/Qwen3-8B',
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B',
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B',
      'trtllm-serve Qwen/Qwen3-8B',
      'trtllm-serve Qwen/Qwen3-8B',
    ]);
    expect(trials.every((t) => t.status === 'planned' && t.stageId === 'engine')).toBe(true);
    expect(trials[0]?.serverKey).toBe(trials[1]?.serverKey);
    expect(new Set(trials.map((t) => t.serverKey)).size).toBe(3);
    expect(trials[2]).toMatchObject({ candidateId: 'sglang-0.5.3.post3', label: 'SGLang 0.5.3.post3', engine: 'sglang', mode: 'env', repeat: 1 });
  });

  it("starts each engine from its own settings (vLLM's --max-model-len)", () => {
    const s = study({ engines: [{ engine: 'vllm', version: '0.11.0', config: { maxModelLen: 32768 } }] });
    expect(planEngineStage(s, H100)[0]?.command).toBe('vllm serve Qwen/Qwen3-8B --max-model-len 32768');
  });

  it('tells a docker choice apart from the same version in an environment', () => {
    const s = study({ engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'vllm', version: '0.11.0', mode: 'docker' }] });
    const trials = planEngineStage(s, H100);
    expect(trials.map((t) => t.candidateId)).toEqual(['vllm-0.11.0', 'vllm-0.11.0-docker']);
    expect(trials[0]?.serverKey).not.toBe(trials[1]?.serverKey);
  });

  it('marks trials the pre-flight check refuses as rejected, with the reason', () => {
    const s = study({ model: { id: 'Qwen/Qwen3-32B-FP8', variants: [] }, stages: [] });
    const trtllm = planEngineStage(s, A100).find((t) => t.engine === 'trtllm');
    expect(trtllm?.status).toBe('rejected');
    expect(trtllm?.rejectReason).toMatch(/sm 8\.0/);
  });
});

describe('planStage (greedy)', () => {
  const s = study();
  const sglang = bestConfigOf({ engine: 'sglang', version: '0.5.3.post3', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B', cudaGraphMaxBatchSize: 8 }), ['sglang-0.5.3.post3', 'bs8'], 1.6);

  it("applies each candidate on top of the best so far, the variant's model replacing the model", () => {
    const trials = planStage(s, 1, sglang, H100);
    expect(trials).toHaveLength(1);
    expect(trials[0]).toMatchObject({
      id: 'quantization/fp8/sharegpt-c4/r1',
      stageId: 'quantization',
      candidateId: 'fp8',
      label: 'FP8 checkpoint',
      engine: 'sglang',
      version: '0.5.3.post3',
      command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --cuda-graph-max-bs 8',
      status: 'planned',
    });
    expect(trials[0]?.config).toMatchObject({ model: 'Qwen/Qwen3-8B-FP8', cudaGraphMaxBatchSize: 8 });
  });

  it("skips a stage whose engines exclude the best so far's engine", () => {
    const vllm = bestConfigOf({ engine: 'vllm', version: '0.11.0', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), ['vllm-0.11.0'], 1.68);
    expect(planStage(s, 0, vllm, H100)).toEqual([]);
    expect(planStage(s, 1, vllm, H100)).toHaveLength(1);
  });

  it('appends extra arguments and merges environment variables instead of replacing them', () => {
    const withExtras = study({
      stages: [{ id: 'extra', label: 'extra', candidates: [{ id: 'x', label: 'x', config: { extraArgs: ['--enable-mixed-chunk'], env: { B: '2' } } }] }],
    });
    const best = bestConfigOf({ engine: 'sglang', version: '0.5.3.post3', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B', extraArgs: ['--disable-radix-cache'], env: { A: '1' } }), ['sglang'], null);
    const [trial] = planStage(withExtras, 0, best, H100);
    expect(trial?.config.extraArgs).toEqual(['--disable-radix-cache', '--enable-mixed-chunk']);
    expect(trial?.config.env).toEqual({ A: '1', B: '2' });
    expect(trial?.command).toBe('A=1 B=2 python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disable-radix-cache --enable-mixed-chunk');
  });
});

describe('planGrid', () => {
  it('plans every engine × one pick (or unchanged) per stage that applies to it', () => {
    const s = study({
      engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'sglang', version: '0.5.3.post3' }],
      stages: [
        { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8', variant: 'fp8' }, { id: 'online', label: 'online FP8', config: { quantization: 'fp8' } }] },
        { id: 'cuda-graph', label: 'CUDA graphs', engines: ['sglang'], candidates: [{ id: 'bs8', label: 'bs 8', config: { cudaGraphMaxBatchSize: 8 } }] },
      ],
      repeats: 2,
    });
    const trials = planGrid(s, H100);
    // vLLM: 3 quantization picks; SGLang: 3 × 2 (bs8 or unchanged); each twice.
    expect(trials).toHaveLength((3 + 3 * 2) * 2);
    expect(new Set(trials.map((t) => t.id)).size).toBe(trials.length);
    expect(new Set(trials.map((t) => t.serverKey)).size).toBe(9);
    const combo = trials.find((t) => t.id === 'grid/sglang-0.5.3.post3~quantization=fp8~cuda-graph=bs8/sharegpt-c4/r1');
    expect(combo?.command).toBe('python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --cuda-graph-max-bs 8');
    expect(trials[0]?.id).toBe('grid/vllm-0.11.0/sharegpt-c4/r1');
    expect(trials[0]?.command).toBe('vllm serve Qwen/Qwen3-8B');
  });
});

describe('planGeneralisation', () => {
  const s = study();
  const baseline = bestConfigOf({ engine: 'vllm', version: '0.11.0', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), ['vllm-0.11.0'], 1.68);
  const recommended = bestConfigOf({ engine: 'sglang', version: '0.5.3.post3', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B-FP8' }), ['sglang-0.5.3.post3', 'fp8'], 1.25);

  it('measures the baseline and the recommendation on every scenario and the primary workload, one server each', () => {
    const trials = planGeneralisation(s, baseline, recommended, H100);
    expect(trials.map((t) => t.id)).toEqual([
      'generalisation/baseline/sharegpt-c1/r1',
      'generalisation/baseline/sharegpt-c2/r1',
      'generalisation/baseline/sharegpt-c8/r1',
      'generalisation/baseline/sharegpt-c4/r1',
      'generalisation/recommended/sharegpt-c1/r1',
      'generalisation/recommended/sharegpt-c2/r1',
      'generalisation/recommended/sharegpt-c8/r1',
      'generalisation/recommended/sharegpt-c4/r1',
    ]);
    expect(new Set(trials.filter((t) => t.candidateId === 'baseline').map((t) => t.serverKey))).toEqual(new Set([baseline.serverKey]));
    expect(new Set(trials.filter((t) => t.candidateId === 'recommended').map((t) => t.serverKey))).toEqual(new Set([recommended.serverKey]));
    expect(trials[4]?.command).toBe('python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8');
  });

  it('does not measure the primary workload twice when it is also a scenario', () => {
    const again = study({ workloads: { primary: sharegpt(4), generalisation: [sharegpt(1), sharegpt(4)] } });
    expect(planGeneralisation(again, baseline, recommended, H100)).toHaveLength(4);
  });
});

describe('serverKeyOf', () => {
  const config = parseServerConfig({ model: 'Qwen/Qwen3-8B', cudaGraphMaxBatchSize: 8, speculative: { algorithm: 'eagle3', draftModel: 'a/b', numSteps: 4 } });

  it('is a short hash that does not depend on key order, host, port or empty lists', () => {
    const key = serverKeyOf('sglang', '0.5.3.post3', 'env', config);
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    const reordered = { speculative: { numSteps: 4, draftModel: 'a/b', algorithm: 'eagle3' as const }, cudaGraphMaxBatchSize: 8, model: 'Qwen/Qwen3-8B', env: {}, extraArgs: [] };
    expect(serverKeyOf('sglang', '0.5.3.post3', 'env', reordered)).toBe(key);
    expect(serverKeyOf('sglang', '0.5.3.post3', 'env', { ...config, host: '0.0.0.0', port: 30000 })).toBe(key);
  });

  it('changes with the engine, version, mode, model or any setting', () => {
    const key = serverKeyOf('sglang', '0.5.3.post3', 'env', config);
    const others = [
      serverKeyOf('vllm', '0.5.3.post3', 'env', config),
      serverKeyOf('sglang', '0.5.5', 'env', config),
      serverKeyOf('sglang', '0.5.3.post3', 'docker', config),
      serverKeyOf('sglang', '0.5.3.post3', 'env', { ...config, model: 'Qwen/Qwen3-8B-FP8' }),
      serverKeyOf('sglang', '0.5.3.post3', 'env', { ...config, speculative: { algorithm: 'eagle3', draftModel: 'a/b', numSteps: 8 } }),
      serverKeyOf('sglang', '0.5.3.post3', 'env', { ...config, extraArgs: ['--enable-mixed-chunk'] }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });
});

describe('estimatePlan', () => {
  it('counts trials, rejections and launches, and adds benchmark and launch time per GPU', () => {
    const s = study({ model: { id: 'Qwen/Qwen3-8B-FP8', variants: [] }, stages: [] });
    const once = planEngineStage(s, A100);
    const twice = planEngineStage({ ...s, repeats: 2 }, A100);
    const e1 = estimatePlan(s, once);
    const e2 = estimatePlan({ ...s, repeats: 2 }, twice);
    expect(e1).toMatchObject({ trials: 3, rejected: 1, launches: 2 });
    expect(e2).toMatchObject({ trials: 6, rejected: 2, launches: 2 });
    expect(e1.perTrialSeconds['engine/trtllm-1.2.0rc1/sharegpt-c4/r1']).toBe(0);
    const bench1 = Object.values(e1.perTrialSeconds).reduce((a, b) => a + b, 0);
    expect(bench1).toBeGreaterThan(0);
    // Launch time is on top of benchmark time; a second repeat adds its benchmarks but no launch.
    expect(e1.gpuSeconds).toBeGreaterThan(bench1);
    expect(Math.abs(e2.gpuSeconds - e1.gpuSeconds - bench1)).toBeLessThanOrEqual(1);
    // Each trial counts the GPUs it holds: two per trial doubles the GPU time.
    const twoA100: PlanContext = { gpus: [...A100.gpus, { ...A100.gpus[0]!, index: '1' }] };
    const wide = estimatePlan({ ...s, gpusPerTrial: 2 }, planEngineStage({ ...s, gpusPerTrial: 2 }, twoA100));
    expect(Math.abs(wide.gpuSeconds - 2 * e1.gpuSeconds)).toBeLessThanOrEqual(1);
    const tp2 = planEngineStage({ ...s, engines: s.engines.map((e) => ({ ...e, config: { ...e.config, tensorParallelSize: 2 } })) }, twoA100);
    expect(tp2.every((t) => t.gpuCount === 2)).toBe(true);
  });

  it('adds the repeats an undecided comparison is expected to take: more for a tighter margin, within the budget', () => {
    const s = study({ model: { id: 'Qwen/Qwen3-8B-FP8', variants: [] }, stages: [] });
    const trials = planEngineStage(s, A100);
    const loose = estimatePlan({ ...s, goal: { ...s.goal, marginPct: 3 } }, trials);
    const tight = estimatePlan({ ...s, goal: { ...s.goal, marginPct: 0.5 } }, trials);
    // One comparison (the engine stage): two configurations, one more run each at least, at most the budget.
    expect(loose.expectedRepeats).toBe(2);
    expect(tight.expectedRepeats).toBe(2 * (s.goal.repeatBudget - 1));
    expect(tight.gpuSeconds).toBeGreaterThan(loose.gpuSeconds);
    const capped = estimatePlan({ ...s, goal: { ...s.goal, marginPct: 0.5, repeatBudget: 2 } }, trials);
    expect(capped.expectedRepeats).toBe(2);
    // The generalisation pass compares nothing it could repeat.
    const best = bestConfigOf({ engine: 'vllm', version: '0.11.0', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B-FP8' }), ['vllm-0.11.0'], 1);
    expect(estimatePlan(s, planGeneralisation(s, best, best, A100)).expectedRepeats).toBe(0);
  });

  it('estimates the wall-clock time on the study’s GPUs: servers of 1, 2 and 4 GPUs side by side after the 8-GPU one', () => {
    const h100s = (n: number) => Array.from({ length: n }, (_, i) => ({ ...H100.gpus[0]!, index: String(i) }));
    const tp = study({
      model: { id: 'Qwen/Qwen3-8B', variants: [] },
      engines: [{ engine: 'vllm', version: '0.11.0' }],
      stages: [{ id: 'tp', label: 'Tensor parallelism', candidates: [2, 4, 8].map((n) => ({ id: `tp${n}`, label: `TP${n}`, config: { tensorParallelSize: n } })) }],
      strategy: 'grid',
      workloads: { primary: sharegpt(4), generalisation: [] },
    });
    const trials = planGrid(tp, { gpus: h100s(8) });
    expect(trials.map((t) => t.gpuCount)).toEqual([1, 2, 4, 8]);
    const sideBySide = estimatePlan(tp, trials, { gpus: h100s(8) });
    const oneAtATime = estimatePlan({ ...tp, parallelism: 1 }, trials, { gpus: h100s(8) });
    expect(sideBySide.peakGpus).toBe(8);
    expect(sideBySide.wallSeconds).toBeGreaterThan(0);
    expect(sideBySide.wallSeconds).toBeLessThan(oneAtATime.wallSeconds!);
    // Without the study's GPUs there is no schedule to simulate.
    expect(estimatePlan(tp, trials).wallSeconds).toBeUndefined();
    // On one GPU, one 1-GPU server at a time: the wall-clock time is the GPU time, repeats included.
    const s = study({ model: { id: 'Qwen/Qwen3-8B-FP8', variants: [] }, stages: [] });
    const single = estimatePlan(s, planEngineStage(s, H100), H100);
    expect(single.expectedRepeats).toBeGreaterThan(0);
    expect(single.peakGpus).toBe(1);
    expect(Math.abs(single.wallSeconds! - single.gpuSeconds)).toBeLessThanOrEqual(2);
  });

  it('takes longer for more prompts and longer requests', () => {
    const s = study();
    const trials = planEngineStage(s, H100);
    const longer = study({ workloads: { primary: { ...sharegpt(4), numPrompts: 1000 }, generalisation: [] } });
    const a = estimatePlan(s, trials).perTrialSeconds['engine/vllm-0.11.0/sharegpt-c4/r1'] as number;
    const b = estimatePlan(longer, planEngineStage(longer, H100)).perTrialSeconds['engine/vllm-0.11.0/sharegpt-c4/r1'] as number;
    expect(b).toBeGreaterThan(5 * a);
  });
});

describe('estimatePlan on paced workloads', () => {
  const trialSeconds = (primary: object) => {
    const s = study({ stages: [], clientVersion: '0.11.1', workloads: { primary: { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 200, ...primary }, generalisation: [] } });
    return estimatePlan(s, planEngineStage(s, H100)).perTrialSeconds['engine/vllm-0.11.0/w/r1'] as number;
  };

  it('lasts at least as long as the client takes to send every request', () => {
    const burst = trialSeconds({});
    // 200 prompts at a constant 1 req/s: the last goes at 200 s, far beyond what the server needs for them.
    expect(burst).toBeLessThan(100);
    expect(trialSeconds({ requestRate: 1, burstiness: 'inf' })).toBe(200);
    expect(trialSeconds({ requestRate: 1 })).toBe(200);
    // A linear ramp 1 → 16 req/s: the mean gaps sum to ≈ 200/15 · ln 16 ≈ 37 s.
    const ramp = trialSeconds({ rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } });
    expect(ramp).toBeGreaterThan(Math.max(burst, 35));
    expect(ramp).toBeLessThan(40);
  });
});

describe('StudyDefinitionSchema on arrivals', () => {
  it('refuses, before launch, a constant rate its benchmark client cannot send, naming the client version', () => {
    const constant = { id: 'rate8', dataset: { kind: 'sharegpt' as const }, numPrompts: 100, requestRate: 8, burstiness: 'inf' as const };
    const result = StudyDefinitionSchema.safeParse({ ...study(), clientVersion: '0.11.0', workloads: { primary: sharegpt(4), generalisation: [constant] } });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['workloads.generalisation.0.burstiness']);
    expect(result.error?.issues[0]?.message).toMatch(/^vllm bench serve 0\.11\.0 cannot send at a constant rate: --burstiness inf works from 0\.11\.1 on/);
    expect(StudyDefinitionSchema.safeParse({ ...study(), clientVersion: '0.11.1', workloads: { primary: sharegpt(4), generalisation: [constant] } }).success).toBe(true);
  });
});
