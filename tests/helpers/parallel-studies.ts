import type { PlanContext } from '../../src/shared/study/plan-context';
import { applyStep, nextStudyStep, REFERENCE_CANDIDATE_ID } from '../../src/shared/study/study-loop';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type Goal, type ProjectFile, type StudyDefinition, type StudyState, type Trial } from '../../src/shared/study/study';
import { measuredTrial } from './measured-trial';

/**
 * Two published studies whose configurations hold different numbers of GPUs, as studies of their parallel layouts:
 * each trial measures the total token throughput the study printed for that layout (ShareGPT, 1000 prompts,
 * unbounded concurrency, `vllm bench serve`). The numbers are the studies' own; the studies are shaped after their
 * sections (an engine at its defaults, then one stage of layouts).
 *
 * - GPT-OSS-120B on H100 (GPUStack performance lab,
 *   https://github.com/gpustack/gpustack/blob/47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d/docs/performance-lab/gpt-oss-120b/h100.md,
 *   in tests/fixtures/bench-import-corpus/dev/gpustack-gpt-oss-120b-h100.md): vLLM with async scheduling on one GPU
 *   6325.41 tok/s (line 190), TP2 16042.19 (line 224), TP4 23759.49 (line 255), PP2 11198.56 (line 285). TP4 is the
 *   fastest server; per GPU TP2 is best ("achieving 26.8% higher token throughput per GPU", line 301), and the single
 *   GPU beats TP4 and PP2.
 * - Qwen3-235B-A22B on 8 × H100 (GPUStack performance lab,
 *   https://github.com/gpustack/gpustack/blob/47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d/docs/performance-lab/qwen3-235b-a22b/h100.md,
 *   in tests/fixtures/bench-import-corpus/dev/gpustack-qwen3-235b-a22b-h100.md): vLLM BF16 TP8 8424.86 (line 97), FP8
 *   TP8 with expert parallelism 8102.36 (line 167), FP8 TP4 7527.80 (line 202), FP8 TP4 with expert parallelism
 *   7131.69 (line 235), FP8 TP4 with 16384 batched tokens 7787.17 (line 296). TP8 is the fastest server; the study
 *   recommends TP4 as two replicas on the eight GPUs: "7787.17x2 (+84.9%)" against the TP8 baseline (line 18).
 */

const H100 = { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' };
export const EIGHT_H100: PlanContext = { gpus: Array.from({ length: 8 }, (_, i) => ({ hostId: 'lab', index: String(i), ...H100 })) };

const SHAREGPT_1000 = { id: 'sharegpt-1000', dataset: { kind: 'sharegpt' as const }, numPrompts: 1000 };

export function gptOssStudy(goal: Partial<Goal> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'GPT-OSS-120B throughput',
    model: { id: 'openai/gpt-oss-120b' },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'throughput', marginPct: 1, ...goal },
    engines: [{ engine: 'vllm', version: '0.10.2', config: { extraArgs: ['--async-scheduling'] } }],
    stages: [
      {
        id: 'parallelism',
        label: 'Parallelism',
        candidates: [
          { id: 'tp2', label: 'TP2', config: { tensorParallelSize: 2 } },
          { id: 'tp4', label: 'TP4', config: { tensorParallelSize: 4 } },
          { id: 'pp2', label: 'PP2', config: { pipelineParallelSize: 2 } },
        ],
      },
    ],
    workloads: { primary: SHAREGPT_1000, generalisation: [] },
  });
}

/** Total token throughput by candidate id, as printed. */
export const GPT_OSS_TPS = { 'vllm-0.10.2': 6325.41, tp2: 16042.19, tp4: 23759.49, pp2: 11198.56 } as const;

export function qwen235Study(goal: Partial<Goal> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'Qwen3-235B-A22B throughput',
    model: { id: 'Qwen/Qwen3-235B-A22B-Instruct-2507', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8', precision: 'fp8' }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'throughput', marginPct: 1, ...goal },
    engines: [{ engine: 'vllm', version: '0.11.0', config: { tensorParallelSize: 8 } }],
    stages: [
      {
        id: 'layout',
        label: 'Quantization and parallelism',
        candidates: [
          // Expert parallelism as the study launched it (`--enable-expert-parallel`, of size TP): it reuses the tensor-parallel GPUs.
          { id: 'fp8-tp8-ep', label: 'FP8 TP8 EP', variant: 'fp8', config: { tensorParallelSize: 8, expertParallelSize: 8 } },
          { id: 'fp8-tp4', label: 'FP8 TP4', variant: 'fp8', config: { tensorParallelSize: 4 } },
          { id: 'fp8-tp4-ep', label: 'FP8 TP4 EP', variant: 'fp8', config: { tensorParallelSize: 4, expertParallelSize: 4 } },
        ],
      },
      { id: 'batched-tokens', label: 'Max batched tokens', candidates: [{ id: 'mbt16384', label: '--max-num-batched-tokens 16384', config: { maxBatchedTokens: 16384 } }] },
    ],
    workloads: { primary: SHAREGPT_1000, generalisation: [] },
  });
}

export const QWEN235_TPS = { 'vllm-0.11.0': 8424.86, 'fp8-tp8-ep': 8102.36, 'fp8-tp4': 7527.8, 'fp8-tp4-ep': 7131.69, mbt16384: 7787.17 } as const;

let clock = 0;

/**
 * The study run to the end by the study loop, every run measuring its candidate's published number (a repeat measures
 * it again: the studies printed one run each); the generalisation pass re-measures the baseline and the
 * recommendation the same way. Returns the project as the runner would save it.
 */
export function runAsPublished(study: StudyDefinition, tps: Readonly<Record<string, number>>, ctx: PlanContext = EIGHT_H100): ProjectFile {
  let state: StudyState = { status: 'running', trials: [], decisions: [], startedAt: '2025-11-01T10:00:00.000Z' };
  const valueOf = (t: Trial): number | undefined => {
    if (t.candidateId === REFERENCE_CANDIDATE_ID || t.stageId === 'generalisation') {
      const same = state.trials.find((o) => o.serverKey === t.serverKey && o.status === 'done' && o.candidateId in tps);
      return same ? tps[same.candidateId] : undefined;
    }
    return tps[t.candidateId];
  };
  for (let steps = 0; steps < 200; steps++) {
    const step = nextStudyStep(study, state, ctx);
    if (step.kind === 'done') return { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { ...state, status: 'done', finishedAt: '2025-11-01T12:00:00.000Z' } };
    if (step.kind === 'fail') return { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { ...state, status: 'failed', message: step.message } };
    if (step.kind === 'run') {
      const ids = new Set(step.trials.map((t) => t.id));
      state = {
        ...state,
        trials: state.trials.map((t) => {
          if (!ids.has(t.id)) return t;
          const value = valueOf(t);
          clock++;
          const at = `2025-11-01T11:${String(Math.floor(clock / 60) % 60).padStart(2, '0')}:${String(clock % 60).padStart(2, '0')}.000Z`;
          return value === undefined ? { ...t, status: 'failed' as const, error: 'not measured in the published study', finishedAt: at } : measuredTrial(t, { total_token_throughput: value }, at);
        }),
      };
      continue;
    }
    state = applyStep(state, step);
  }
  throw new Error('the study did not finish in 200 steps');
}
