// The example projects: valid project files whose plans carry the reference studies' exact commands and refuse what the
// hand-made studies had to learn by failing. Decisions are driven with the reference studies' own numbers.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { ProjectFileSchema, type StudyDefinition, type Trial } from '../../src/shared/study/study';
import { estimatePlan, planEngineStage, planGeneralisation, planStage, type BestConfig } from '../../src/shared/study/planner';
import type { PlanContext } from '../../src/shared/study/plan-context';
import { decideEngineStage, decideStage, recommendationOf } from '../../src/shared/study/decide';
import { preflight } from '../../src/shared/study/preflight';
import { parseServerConfig } from '../../src/shared/engines/server-config';

const H100: PlanContext = { gpus: [{ hostId: 'demo-lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };
const A100: PlanContext = { gpus: [{ hostId: 'demo-lab', index: '0', name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' }] };

function load(name: string): StudyDefinition {
  const project = ProjectFileSchema.parse(JSON.parse(readFileSync(join(repoRoot, 'examples', name), 'utf8')));
  expect(project.state).toEqual({ status: 'draft', trials: [], decisions: [] });
  return project.study;
}

/** Each trial of a candidate measured with the reference study's value for it; candidates without one fail. */
function measure(study: StudyDefinition, trials: Trial[], values: Record<string, number>): Trial[] {
  const metric = study.goal.kind === 'latency' ? 'mean_latency_s' : 'total_token_throughput';
  return trials.map((t) => {
    if (t.status === 'rejected') return t;
    const value = values[t.candidateId];
    if (value === undefined) return { ...t, status: 'failed', error: "KeyError: 'weight'" };
    return {
      ...t,
      status: 'done',
      result: { id: 'res-x-0123abcd', kind: 'measured', status: 'ok', addedAt: '2025-11-01T00:00:00.000Z', title: t.label, result: { schemaVersion: 1, metrics: { [metric]: value }, extra: {} } },
    };
  });
}

describe('examples/qwen3-8b-latency-h100.servelab (Study A)', () => {
  const study = load('qwen3-8b-latency-h100.servelab');

  it("plans the three engines at their defaults with the reference study's commands", () => {
    const trials = planEngineStage(study, H100);
    expect(trials.map((t) => [t.id, t.command, t.status])).toEqual([
      ['engine/vllm-0.11.0/sharegpt-c4/r1', 'vllm serve Qwen/Qwen3-8B', 'planned'],
      ['engine/sglang-0.5.3.post3/sharegpt-c4/r1', 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B', 'planned'],
      ['engine/trtllm-1.2.0rc1/sharegpt-c4/r1', 'trtllm-serve Qwen/Qwen3-8B', 'planned'],
    ]);
    expect(study.workloads.primary).toMatchObject({ id: 'sharegpt-c4', numPrompts: 100, maxConcurrency: 4 });
    expect(study.workloads.generalisation.map((w) => w.id)).toEqual(['sharegpt-c1', 'sharegpt-c2', 'sharegpt-c8']);
  });

  it("runs greedily on the reference study's numbers to its recommendation, every trial planned and buildable", () => {
    const engine = measure(study, planEngineStage(study, H100), { 'vllm-0.11.0': 1.68, 'sglang-0.5.3.post3': 1.61, 'trtllm-1.2.0rc1': 1.74 });
    const first = decideEngineStage(study, engine);
    expect(first.best.engine).toBe('sglang');
    const byStage: Record<string, Record<string, number>> = {
      'cuda-graph': { bs8: 1.605 },
      quantization: { fp8: 1.25 },
      'attention-backend': { triton: 1.3, flashinfer: 1.26 },
      speculative: { 'tengyunw-defaults': 0.9, 'tengyunw-s2-k1-t3': 0.85, 'tengyunw-s4-k4-t8': 0.8, 'tengyunw-s4-k4-t16': 0.752, 'tengyunw-s8-k8-t32': 0.79, 'angelslim-s4-k4-t16': 0.77 },
      'torch-compile': { on: 0.751 },
    };
    let best: BestConfig = first.best;
    const commands: string[] = [];
    study.stages.forEach((stage, i) => {
      const planned = planStage(study, i, best, H100);
      expect(planned.length, stage.id).toBeGreaterThan(0);
      expect(planned.every((t) => t.status === 'planned'), stage.id).toBe(true);
      commands.push(...planned.map((t) => t.command));
      best = decideStage(study, i, measure(study, planned, byStage[stage.id] ?? {}), best).best;
    });
    expect(commands).toContain(
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
    expect(commands).toContain('python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-max-bs 8');
    expect(commands).toContain('python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --attention-backend triton');
    expect(best.path).toEqual(['sglang-0.5.3.post3', 'fp8', 'tengyunw-s4-k4-t16']);
    // The reference study writes --model, the alias of --model-path.
    expect(recommendationOf(best).command).toBe(
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
    const generalisation = planGeneralisation(study, first.baseline, best, H100);
    expect(generalisation).toHaveLength(8);
    expect(generalisation[0]?.command).toBe('vllm serve Qwen/Qwen3-8B');
    expect(estimatePlan(study, generalisation).launches).toBe(2);
  });
});

describe('examples/qwen3-32b-throughput-a100.servelab (Study B)', () => {
  const study = load('qwen3-32b-throughput-a100.servelab');

  it("plans the engines with the reference study's settings, all fitting an 80 GB A100", () => {
    const trials = planEngineStage(study, A100);
    expect(trials.map((t) => [t.command, t.status])).toEqual([
      ['vllm serve Qwen/Qwen3-32B --max-model-len 32768', 'planned'],
      ['python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B', 'planned'],
      ['trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill', 'planned'],
    ]);
    expect(study.engines[1]?.version).toBe('0.5.5.post1');
    expect(study.workloads.primary).toMatchObject({ numPrompts: 1000, dataset: { kind: 'sharegpt' } });
    expect(study.workloads.primary.maxConcurrency).toBeUndefined();
    expect(study.workloads.generalisation.map((w) => w.id)).toEqual(['random-32000-100', 'random-4000-200', 'random-2000-100', 'random-128-4']);
  });

  it('refuses TensorRT-LLM FP8 on sm 8.0 before launch, plans AWQ, and builds stage 3 from Qwen3-32B', () => {
    const engine = measure(study, planEngineStage(study, A100), { 'vllm-0.11.0': 1731, 'sglang-0.5.5.post1': 1398, 'trtllm-1.2.0rc1': 2054 });
    const first = decideEngineStage(study, engine);
    expect(first.best.engine).toBe('trtllm');
    expect(first.decision.reason).toContain('+18.7% total token throughput vs the baseline vLLM 0.11.0');

    const quant = planStage(study, 0, first.best, A100);
    const fp8 = quant.find((t) => t.candidateId === 'fp8');
    expect(fp8?.status).toBe('rejected');
    expect(fp8?.rejectReason).toMatch(/sm 8\.0/);
    expect(fp8?.command).toBe('trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960 --enable_chunked_prefill');
    expect(quant.find((t) => t.candidateId === 'awq')?.status).toBe('planned');
    const afterQuant = decideStage(study, 0, measure(study, quant, {}), first.best);
    expect(afterQuant.decision.winner).toBeNull();
    expect(afterQuant.decision.reason).toContain("failed: KeyError: 'weight'");
    expect(afterQuant.decision.reason).toContain('rejected: TensorRT-LLM cannot run the block-scaled FP8 checkpoint');

    const stage3 = planStage(study, 1, afterQuant.best, A100);
    expect(stage3.map((t) => t.command)).toEqual([
      'trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill --max_num_tokens=16384',
      'trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill --max_num_tokens=32768',
    ]);
    expect(stage3.every((t) => t.config.model === 'Qwen/Qwen3-32B' && !t.command.includes('14B'))).toBe(true);
    const final = decideStage(study, 1, measure(study, stage3, { t16384: 2040, t32768: 1900 }), afterQuant.best);
    expect(recommendationOf(final.best).command).toBe('trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill');

    const generalisation = planGeneralisation(study, first.baseline, final.best, A100);
    expect(generalisation.every((t) => t.status === 'planned')).toBe(true);
    expect(generalisation.filter((t) => t.candidateId === 'baseline').map((t) => t.workloadId)).toEqual([
      'random-32000-100',
      'random-4000-200',
      'random-2000-100',
      'random-128-4',
      'sharegpt-1000-unbounded',
    ]);
  });

  it('fits Qwen3-32B in bf16 at TP 1 on 80 GB, but not a 70B model', () => {
    const trial = (model: string) => ({ engine: 'vllm' as const, version: '0.11.0', config: parseServerConfig({ model, maxModelLen: 32768 }), workloadId: 'sharegpt-1000-unbounded' });
    expect(preflight(study, trial('Qwen/Qwen3-32B'), A100)).toBeNull();
    expect(preflight(study, trial('meta-llama/Llama-3.1-70B-Instruct'), A100)).toMatch(/141\.1 GB per GPU at TP1, more than .* GB/);
  });
});

describe('examples/gpt-oss-120b-moe-h100x8.servelab (a mixture-of-experts model on eight GPUs)', () => {
  const study = load('gpt-oss-120b-moe-h100x8.servelab');
  const H100x8: PlanContext = { gpus: Array.from({ length: 8 }, (_, i) => ({ ...(H100.gpus[0] as PlanContext['gpus'][number]), index: String(i) })) };
  const best = (config: object): BestConfig => ({
    engine: 'vllm',
    version: '0.11.0',
    mode: 'env',
    config: parseServerConfig({ model: 'openai/gpt-oss-120b', maxModelLen: 32768, extraArgs: ['--async-scheduling'], ...config }),
    serverKey: 'k',
    path: ['vllm-0.11.0', 'on'],
    objective: null,
  });

  it('plans each layout on as many GPUs as it needs, with its flags: TP4×PP2 takes eight', () => {
    const stage = study.stages.findIndex((s) => s.id === 'parallelism');
    const planned = planStage(study, stage, best({}), H100x8);
    expect(planned.map((t) => [t.candidateId, t.gpuCount, t.status])).toEqual([
      ['tp2', 2, 'planned'],
      ['pp2', 2, 'planned'],
      ['tp4', 4, 'planned'],
      ['tp4-ep4', 4, 'planned'],
      ['tp2-dp2', 4, 'planned'],
      ['tp4-pp2', 8, 'planned'],
      ['tp8', 8, 'planned'],
    ]);
    expect(planned.find((t) => t.candidateId === 'tp4-pp2')?.command).toBe('vllm serve openai/gpt-oss-120b --tensor-parallel-size 4 --pipeline-parallel-size 2 --max-model-len 32768 --async-scheduling');
    expect(planned.find((t) => t.candidateId === 'tp4-ep4')?.command).toBe('vllm serve openai/gpt-oss-120b --tensor-parallel-size 4 --enable-expert-parallel --max-model-len 32768 --async-scheduling');
    // The estimate packs them: less wall time than GPU time, and all eight GPUs busy at once.
    const estimate = estimatePlan(study, planned, H100x8);
    expect(estimate.peakGpus).toBe(8);
    expect(estimate.wallSeconds as number).toBeLessThan(estimate.gpuSeconds);
  });

  it('refuses before launch a layout the model cannot take or the box cannot hold, with the reason', () => {
    const at = (config: object) => preflight(study, { engine: 'vllm', version: '0.11.0', config: best(config).config, workloadId: 'sharegpt-1000-unbounded' }, H100x8);
    expect(at({ tensorParallelSize: 4, pipelineParallelSize: 2 })).toBeNull();
    // gpt-oss-120b has 64 attention heads: vLLM cannot split them over 3 ranks.
    expect(at({ tensorParallelSize: 3 })).toMatch(/64 attention heads.*tensor-parallel size of 3/);
    // TP8×DP2 needs sixteen GPUs on one host; the box has eight.
    expect(at({ tensorParallelSize: 8, dataParallelSize: 2 })).toMatch(/16 GPUs.*8/);
    // Expert parallelism over 3 ranks is not TP×DP, vLLM's only expert-parallel size.
    expect(at({ tensorParallelSize: 4, expertParallelSize: 3 })).toMatch(/expert/i);
  });
});
