// Project files shaped like the two reference studies: Study A (Qwen3-8B, lowest latency, H100, with
// EAGLE3) and Study B (Qwen3-32B, highest throughput, A100, with a refused FP8 trial, a failed AWQ one and a
// scenario that regresses by 13.8%). Numbers are the guides' own.
import type { EngineId } from '../../src/shared/engines/types';
import type { ServerConfigInput } from '../../src/shared/engines/server-config';
import { WORKLOAD_PRESETS, type Workload } from '../../src/shared/bench/workload';
import { ProjectFileSchema, PROJECT_SCHEMA_VERSION, type GoalKind, type ProjectFile, type TrialStatus } from '../../src/shared/study/study';

/** The smallest study a project file takes: one engine, one workload, on the demo lab (defaults fill the rest). */
export const SMALL_STUDY = {
  name: 'Qwen3-8B latency',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  goal: { kind: 'latency' as const },
  engines: [{ engine: 'vllm' as const, version: '0.11.0' }],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' as const }, numPrompts: 100, maxConcurrency: 4 } },
};

/** Values that must never appear in a report: a plain env value (env values may be credentials). */
export const PLAIN_ENV_VALUE = 'plain-env-value-7f3a9c';

interface TrialSpec {
  stage: string;
  candidate: string;
  label: string;
  engine: EngineId;
  version: string;
  command: string;
  workload: string;
  config?: Omit<ServerConfigInput, 'model'> & { model?: string };
  serverKey?: string;
  status?: TrialStatus;
  /** The objective: mean latency (s) or total token throughput (tok/s). */
  value?: number;
  metrics?: Record<string, number>;
  rejectReason?: string;
  error?: string;
}

interface Box {
  gpu: { model: string; count: number; driver: string; cuda: string };
  simulated: boolean;
  host: string;
}

const preset = (id: string): Workload => {
  const w = WORKLOAD_PRESETS.find((p) => p.id === id);
  if (!w) throw new Error(`no preset ${id}`);
  return w;
};

function metricsFor(goal: GoalKind, value: number): Record<string, number> {
  if (goal === 'throughput') {
    return {
      completed: 1000,
      total_token_throughput: value,
      output_throughput: value * 0.48,
      max_output_tokens_per_s: value * 0.6,
      mean_ttft_ms: 105557.78 * (1731 / value),
      p99_ttft_ms: 210000 * (1731 / value),
      mean_tpot_ms: 149.67 * (1731 / value),
      mean_itl_ms: 140.1 * (1731 / value),
      mean_e2el_ms: 180000 * (1731 / value),
      mean_latency_s: 180 * (1731 / value),
    };
  }
  return {
    completed: 100,
    mean_latency_s: value,
    mean_e2el_ms: value * 1000,
    total_token_throughput: 1700 / value,
    output_throughput: 830 / value,
    max_output_tokens_per_s: 1000 / value,
    mean_ttft_ms: 64 * value,
    p99_ttft_ms: 140 * value,
    mean_tpot_ms: 7.38 * value,
    mean_itl_ms: 7.2 * value,
  };
}

let resultCounter = 0;

function buildTrial(goal: GoalKind, model: string, box: Box, workloads: Workload[], spec: TrialSpec): unknown {
  const status = spec.status ?? 'done';
  const workload = workloads.find((w) => w.id === spec.workload);
  if (!workload) throw new Error(`no workload ${spec.workload}`);
  const config = { model, ...spec.config };
  const started = new Date(Date.UTC(2025, 9, 2, 14, 0, resultCounter * 5)).toISOString();
  const finished = new Date(Date.UTC(2025, 9, 2, 14, 4, resultCounter * 5)).toISOString();
  const ran = status === 'done' || status === 'failed';
  const dataset =
    workload.dataset.kind === 'sharegpt'
      ? { name: 'sharegpt', path: '~/.servelab/datasets/ShareGPT_V3_unfiltered_cleaned_split.json', sha256: '35f0e213ce091ed9b9af2a1f0f2a8ebc1b5e9d1b5e3f6f2c5a1c0c94c7e8d1b2' }
      : { name: 'random' };
  const datasetArgs =
    workload.dataset.kind === 'random'
      ? `--dataset-name random --random-input-len ${workload.dataset.inputLen} --random-output-len ${workload.dataset.outputLen} --seed 42`
      : `--dataset-name sharegpt --dataset-path ${dataset.path ?? ''}`;
  const benchCommand = `vllm bench serve --model ${model} --backend openai-chat --endpoint /v1/chat/completions ${datasetArgs} --num-prompts ${workload.numPrompts}${workload.maxConcurrency !== undefined ? ` --max-concurrency ${workload.maxConcurrency}` : ''} --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 99 --save-result`;
  resultCounter++;
  return {
    id: `${spec.stage}/${spec.candidate}/${spec.workload}/r1`,
    stageId: spec.stage,
    candidateId: spec.candidate,
    label: spec.label,
    engine: spec.engine,
    version: spec.version,
    mode: 'env',
    config,
    serverKey: spec.serverKey ?? `${spec.engine}-${spec.version}/${spec.stage}/${spec.candidate}`,
    command: spec.command,
    workloadId: spec.workload,
    repeat: 1,
    status,
    ...(spec.rejectReason !== undefined ? { rejectReason: spec.rejectReason } : {}),
    ...(spec.error !== undefined ? { error: spec.error } : {}),
    ...(status !== 'planned' && status !== 'rejected' ? { hostId: box.host, gpus: ['0'], startedAt: started } : {}),
    ...(ran ? { finishedAt: finished } : {}),
    ...(ran
      ? {
          result: {
            id: `res-${resultCounter.toString(36)}-${(0x1a2b3c00 + resultCounter).toString(16)}`,
            kind: 'measured',
            status: status === 'done' ? 'ok' : 'failed',
            addedAt: finished,
            title: `${spec.workload} on ${spec.label}`,
            command: benchCommand,
            ...(status === 'failed' ? { error: spec.error ?? 'failed' } : {}),
            result: {
              schemaVersion: 1,
              metrics: status === 'done' ? { ...metricsFor(goal, spec.value ?? 1), ...spec.metrics } : {},
              extra: {},
              provenance: {
                engine: spec.engine,
                engineVersion: spec.version,
                model: config.model,
                gpu: box.gpu,
                host: box.host,
                ...(box.simulated ? { simulated: true } : {}),
                client: { name: 'vllm bench serve', version: '0.11.0', backend: 'openai-chat', endpoint: '/v1/chat/completions' },
                dataset,
              },
            },
          },
        }
      : {}),
  };
}

// --- Study B: Qwen3-32B, highest throughput on one A100 SXM 80GB ------------------------------------------------

const B_MODEL = 'Qwen/Qwen3-32B';
export const STUDY_B_RECOMMENDED = 'trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill';
const B_BASELINE = 'vllm serve Qwen/Qwen3-32B --max-model-len 32768';
const B_TRTLLM_ENV = { HF_TOKEN: { secretRef: 'hf-token' }, TLLM_LOG_LEVEL: PLAIN_ENV_VALUE };

export function studyBProject(): ProjectFile {
  const box: Box = { gpu: { model: 'NVIDIA A100-SXM4-80GB', count: 1, driver: '570.172.08', cuda: '12.8' }, simulated: false, host: 'a100-box' };
  const primary = preset('sharegpt-1000-unbounded');
  const scenarios = ['random-32000-100', 'random-4000-200', 'random-2000-100', 'random-128-4'].map(preset);
  const workloads = [primary, ...scenarios];
  const trtConfig = { maxModelLen: 40960, chunkedPrefill: true, env: B_TRTLLM_ENV };
  const trt = (s: Omit<TrialSpec, 'engine' | 'version'>): TrialSpec => ({ engine: 'trtllm', version: '1.2.0rc1', ...s });
  const vllmBase = { stage: 'engine', candidate: 'vllm-0.11.0', label: 'vLLM 0.11.0 defaults', engine: 'vllm' as const, version: '0.11.0', command: B_BASELINE, config: { maxModelLen: 32768 }, serverKey: 'vllm-0.11.0/base' };
  const trtBest = { candidate: 'trtllm-1.2.0rc1', label: 'TensorRT-LLM 1.2.0rc1 defaults', command: `TLLM_LOG_LEVEL=${PLAIN_ENV_VALUE} ${STUDY_B_RECOMMENDED}`, config: trtConfig, serverKey: 'trtllm-1.2.0rc1/base' };
  const scenarioValues: [string, number, number][] = [
    ['sharegpt-1000-unbounded', 1731, 2054],
    ['random-32000-100', 5210, 4491.02],
    ['random-4000-200', 3120, 3460.08],
    ['random-2000-100', 2810, 3026.37],
    ['random-128-4', 3010, 4006.31],
  ];
  const specs: TrialSpec[] = [
    { ...vllmBase, workload: primary.id, value: 1731 },
    { stage: 'engine', candidate: 'sglang-0.5.5.post1', label: 'SGLang 0.5.5.post1 defaults', engine: 'sglang', version: '0.5.5.post1', command: 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B', workload: primary.id, value: 1398 },
    trt({ ...trtBest, stage: 'engine', workload: primary.id, value: 2054 }),
    trt({
      stage: 'quantization', candidate: 'fp8', label: 'FP8 checkpoint (Qwen/Qwen3-32B-FP8)', workload: primary.id, status: 'rejected',
      command: 'trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960 --enable_chunked_prefill', config: { ...trtConfig, model: 'Qwen/Qwen3-32B-FP8' },
      rejectReason: 'TensorRT-LLM runs block-scaled FP8 GEMMs only on compute capability 8.9 or newer; this GPU is sm 8.0 (A100)',
    }),
    trt({
      stage: 'quantization', candidate: 'awq', label: 'AWQ checkpoint (Qwen/Qwen3-32B-AWQ)', workload: primary.id, status: 'failed',
      command: 'trtllm-serve Qwen/Qwen3-32B-AWQ --max_seq_len=40960 --enable_chunked_prefill', config: { ...trtConfig, model: 'Qwen/Qwen3-32B-AWQ' },
      error: "KeyError: 'weight' (while loading the checkpoint)",
    }),
    trt({ stage: 'max-num-tokens', candidate: 'mnt-16384', label: '--max_num_tokens 16384', command: `${STUDY_B_RECOMMENDED} --max_num_tokens 16384`, config: { ...trtConfig, maxBatchedTokens: 16384 }, workload: primary.id, value: 2041 }),
    trt({ stage: 'max-num-tokens', candidate: 'mnt-32768', label: '--max_num_tokens 32768', command: `${STUDY_B_RECOMMENDED} --max_num_tokens 32768`, config: { ...trtConfig, maxBatchedTokens: 32768 }, workload: primary.id, value: 2049 }),
    ...scenarioValues.flatMap(([workload, base, rec]): TrialSpec[] => [
      { ...vllmBase, stage: 'generalisation', candidate: 'baseline', workload, value: base },
      trt({ ...trtBest, stage: 'generalisation', candidate: 'recommended', workload, value: rec }),
    ]),
  ];
  return ProjectFileSchema.parse({
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: {
      name: 'Qwen3-32B throughput on A100',
      description: 'Highest total token throughput under unbounded concurrency.',
      model: {
        id: B_MODEL,
        precision: 'bf16',
        variants: [
          { id: 'fp8', model: 'Qwen/Qwen3-32B-FP8', precision: 'fp8', fp8BlockScaled: true },
          { id: 'awq', model: 'Qwen/Qwen3-32B-AWQ', precision: 'awq' },
        ],
      },
      hosts: [{ hostId: 'a100-box' }],
      goal: { kind: 'throughput', slos: [], marginPct: 1 },
      engines: [
        { engine: 'vllm', version: '0.11.0', config: { maxModelLen: 32768 } },
        { engine: 'sglang', version: '0.5.5.post1' },
        { engine: 'trtllm', version: '1.2.0rc1', config: trtConfig },
      ],
      stages: [
        { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8', variant: 'fp8' }, { id: 'awq', label: 'AWQ', variant: 'awq' }] },
        {
          id: 'max-num-tokens', label: 'Max number of batched tokens', engines: ['trtllm'],
          candidates: [{ id: 'mnt-16384', label: '--max_num_tokens 16384', config: { maxBatchedTokens: 16384 } }, { id: 'mnt-32768', label: '--max_num_tokens 32768', config: { maxBatchedTokens: 32768 } }],
        },
      ],
      workloads: { primary, generalisation: scenarios },
      strategy: 'greedy',
    },
    state: {
      status: 'done',
      trials: specs.map((s) => buildTrial('throughput', B_MODEL, box, workloads, s)),
      decisions: [
        { stageId: 'engine', winner: 'trtllm-1.2.0rc1', reason: 'TensorRT-LLM 1.2.0rc1: 2054 tok/s against 1731 for vLLM 0.11.0 (+18.7%), kept', before: 1731, after: 2054, decidedAt: '2025-10-02T14:30:00Z' },
        { stageId: 'quantization', winner: null, reason: 'no candidate completed: FP8 was refused for sm 8.0, AWQ failed to load', before: 2054, after: 2054, decidedAt: '2025-10-02T14:40:00Z' },
        { stageId: 'max-num-tokens', winner: null, reason: 'no candidate beat the best by more than 1%', before: 2054, after: 2054, decidedAt: '2025-10-02T14:50:00Z' },
      ],
      baselineTrialServerKey: 'vllm-0.11.0/base',
      recommendation: {
        engine: 'trtllm', version: '1.2.0rc1', mode: 'env', config: { model: B_MODEL, ...trtConfig },
        command: `TLLM_LOG_LEVEL=${PLAIN_ENV_VALUE} ${STUDY_B_RECOMMENDED}`, path: ['trtllm-1.2.0rc1'],
      },
      startedAt: '2025-10-02T14:00:00Z',
      finishedAt: '2025-10-02T15:30:00Z',
    },
  });
}

// --- Study A: Qwen3-8B, lowest latency on one H100 SXM (run on the demo lab's simulated box) -----------------------

const A_MODEL = 'Qwen/Qwen3-8B';
export const STUDY_A_RECOMMENDED =
  'python3 -m sglang.launch_server --model Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16';

export function studyAProject(): ProjectFile {
  const box: Box = { gpu: { model: 'NVIDIA H100 80GB HBM3', count: 1, driver: '570.133.20', cuda: '12.8' }, simulated: true, host: 'demo-lab' };
  const [c1, c2, c4, c8] = ['sharegpt-c1', 'sharegpt-c2', 'sharegpt-c4', 'sharegpt-c8'].map(preset) as [Workload, Workload, Workload, Workload];
  const workloads = [c1, c2, c4, c8];
  const sgl = (s: Omit<TrialSpec, 'engine' | 'version' | 'workload'> & { workload?: string }): TrialSpec => ({ engine: 'sglang', version: '0.5.3.post3', workload: c4.id, ...s });
  const base = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B';
  const fp8 = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8';
  const eagle = { algorithm: 'eagle3' as const, draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 };
  const vllmBase = { candidate: 'vllm-0.11.0', label: 'vLLM 0.11.0 defaults', engine: 'vllm' as const, version: '0.11.0', command: 'vllm serve Qwen/Qwen3-8B', serverKey: 'vllm-0.11.0/base' };
  const recSpec = { candidate: 'recommended', label: 'SGLang FP8 + EAGLE3 (4/4/16)', command: STUDY_A_RECOMMENDED, config: { model: 'Qwen/Qwen3-8B-FP8', speculative: eagle }, serverKey: 'rec' };
  const specs: TrialSpec[] = [
    { ...vllmBase, stage: 'engine', workload: c4.id, value: 1.68 },
    sgl({ stage: 'engine', candidate: 'sglang-0.5.3.post3', label: 'SGLang 0.5.3.post3 defaults', command: base, value: 1.61 }),
    { stage: 'engine', candidate: 'trtllm-1.2.0rc1', label: 'TensorRT-LLM 1.2.0rc1 defaults', engine: 'trtllm', version: '1.2.0rc1', command: 'trtllm-serve Qwen/Qwen3-8B', workload: c4.id, value: 1.74 },
    sgl({ stage: 'cuda-graph', candidate: 'cgbs-8', label: '--cuda-graph-max-bs 8', command: `${base} --cuda-graph-max-bs 8`, config: { cudaGraphMaxBatchSize: 8 }, value: 1.62 }),
    sgl({ stage: 'quantization', candidate: 'fp8', label: 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)', command: fp8, config: { model: 'Qwen/Qwen3-8B-FP8' }, value: 1.28 }),
    sgl({ stage: 'attention', candidate: 'triton', label: '--attention-backend triton', command: `${fp8} --attention-backend triton`, config: { model: 'Qwen/Qwen3-8B-FP8', attentionBackend: 'triton' }, value: 1.3 }),
    sgl({ stage: 'attention', candidate: 'flashinfer', label: '--attention-backend flashinfer', command: `${fp8} --attention-backend flashinfer`, config: { model: 'Qwen/Qwen3-8B-FP8', attentionBackend: 'flashinfer' }, value: 1.29, metrics: { p99_ttft_ms: 5700 } }),
    sgl({
      stage: 'speculative', candidate: 'eagle3-tengyunw-4-4-16', label: 'EAGLE3 Tengyunw/qwen3_8b_eagle3, steps 4, top-k 4, draft tokens 16', command: STUDY_A_RECOMMENDED,
      config: { model: 'Qwen/Qwen3-8B-FP8', speculative: eagle }, value: 0.77,
      // Real speculative-decoding behaviour: peak below mean output throughput, ITL above TPOT.
      metrics: { output_throughput: 1078, max_output_tokens_per_s: 610, mean_tpot_ms: 3.1, mean_itl_ms: 9.8 },
    }),
    sgl({
      stage: 'speculative', candidate: 'eagle3-angelslim-2-1-4', label: 'EAGLE3 AngelSlim/Qwen3-8B_eagle3, steps 2, top-k 1, draft tokens 4',
      command: `${fp8} --speculative-algorithm EAGLE3 --speculative-draft-model-path AngelSlim/Qwen3-8B_eagle3 --speculative-num-steps 2 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4`,
      config: { model: 'Qwen/Qwen3-8B-FP8', speculative: { algorithm: 'eagle3', draftModel: 'AngelSlim/Qwen3-8B_eagle3', numSteps: 2, eagleTopK: 1, numDraftTokens: 4 } }, value: 0.95,
    }),
    sgl({ stage: 'torch-compile', candidate: 'torch-compile', label: '--enable-torch-compile', command: `${STUDY_A_RECOMMENDED} --enable-torch-compile`, config: { model: 'Qwen/Qwen3-8B-FP8', speculative: eagle, torchCompile: true }, value: 0.78 }),
    ...([
      [c1.id, 1.66, 0.62],
      [c2.id, 1.68, 0.71],
      [c4.id, 1.68, 0.77],
      [c8.id, 1.78, 1.1],
    ] as [string, number, number][]).flatMap(([workload, b, r]): TrialSpec[] => [
      { ...vllmBase, stage: 'generalisation', candidate: 'baseline', workload, value: b },
      sgl({ ...recSpec, stage: 'generalisation', workload, value: r }),
    ]),
  ];
  const sglangOnly = ['sglang' as const];
  return ProjectFileSchema.parse({
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: {
      name: 'Qwen3-8B latency on H100',
      model: { id: A_MODEL, variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
      hosts: [{ hostId: 'demo-lab' }],
      demoLab: { gpu: 'h100', count: 1 },
      goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 500 }], marginPct: 1 },
      engines: [
        { engine: 'vllm', version: '0.11.0' },
        { engine: 'sglang', version: '0.5.3.post3' },
        { engine: 'trtllm', version: '1.2.0rc1' },
      ],
      stages: [
        { id: 'cuda-graph', label: 'CUDA graph max batch size', engines: sglangOnly, candidates: [{ id: 'cgbs-8', label: '--cuda-graph-max-bs 8', config: { cudaGraphMaxBatchSize: 8 } }] },
        { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8', variant: 'fp8' }] },
        {
          id: 'attention', label: 'Attention backend', engines: sglangOnly,
          candidates: [{ id: 'triton', label: 'triton', config: { attentionBackend: 'triton' } }, { id: 'flashinfer', label: 'flashinfer', config: { attentionBackend: 'flashinfer' } }],
        },
        {
          id: 'speculative', label: 'Speculative decoding (EAGLE3)', engines: sglangOnly,
          candidates: [
            { id: 'eagle3-tengyunw-4-4-16', label: 'EAGLE3 Tengyunw 4/4/16', config: { speculative: eagle } },
            { id: 'eagle3-angelslim-2-1-4', label: 'EAGLE3 AngelSlim 2/1/4', config: { speculative: { algorithm: 'eagle3', draftModel: 'AngelSlim/Qwen3-8B_eagle3', numSteps: 2, eagleTopK: 1, numDraftTokens: 4 } } },
          ],
        },
        { id: 'torch-compile', label: 'torch.compile', engines: sglangOnly, candidates: [{ id: 'torch-compile', label: '--enable-torch-compile', config: { torchCompile: true } }] },
      ],
      workloads: { primary: c4, generalisation: [c1, c2, c4, c8] },
      strategy: 'greedy',
    },
    state: {
      status: 'done',
      trials: specs.map((s) => buildTrial('latency', A_MODEL, box, workloads, s)),
      decisions: [
        { stageId: 'engine', winner: 'sglang-0.5.3.post3', reason: 'SGLang 1.61 s < vLLM 1.68 s < TensorRT-LLM 1.74 s, kept', before: 1.68, after: 1.61, decidedAt: '2025-10-02T14:10:00Z' },
        { stageId: 'cuda-graph', winner: null, reason: 'no candidate beat the best by more than 1%', before: 1.61, after: 1.61, decidedAt: '2025-10-02T14:12:00Z' },
        { stageId: 'quantization', winner: 'fp8', reason: 'FP8: 1.28 s against 1.61 s, kept', before: 1.61, after: 1.28, decidedAt: '2025-10-02T14:14:00Z' },
        { stageId: 'attention', winner: null, reason: 'no candidate beat the best by more than 1%', before: 1.28, after: 1.28, decidedAt: '2025-10-02T14:16:00Z' },
        { stageId: 'speculative', winner: 'eagle3-tengyunw-4-4-16', reason: 'EAGLE3 Tengyunw 4/4/16: 0.77 s against 1.28 s, kept', before: 1.28, after: 0.77, decidedAt: '2025-10-02T14:20:00Z' },
        { stageId: 'torch-compile', winner: null, reason: 'no candidate beat the best by more than 1%', before: 0.77, after: 0.77, decidedAt: '2025-10-02T14:22:00Z' },
      ],
      recommendation: {
        engine: 'sglang', version: '0.5.3.post3', mode: 'env', config: { model: 'Qwen/Qwen3-8B-FP8', speculative: eagle },
        command: STUDY_A_RECOMMENDED, path: ['sglang-0.5.3.post3', 'fp8', 'eagle3-tengyunw-4-4-16'],
      },
    },
  });
}
