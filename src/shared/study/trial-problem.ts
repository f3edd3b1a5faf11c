import { z } from 'zod';
import { ENGINE_IDS } from '../engines/types';

/**
 * Why a trial did not measure, as a code and the facts behind it, so a report and the app word it in the reader's
 * language (report/problem-words.ts). The one table of the pre-flight's refusal kinds and of the study runner's own
 * failures. What an engine or the benchmark said is kept verbatim in `detail`/`evidence`: those are their words.
 * Trials keep the English `rejectReason`/`error` beside these for readers that predate them.
 */

const EngineId = z.enum(ENGINE_IDS);
const Count = z.number().int().min(0);

export const REFUSAL_CODES = [
  'knobs-unsupported',
  'extra-args-refused',
  'tp-over-gpus',
  'host-too-small',
  'over-gpu-budget',
  'heads-indivisible',
  'pp-over-layers',
  'experts-indivisible',
  'ep-indivisible',
  'dcp-indivisible',
  'dp-attention-indivisible',
  'ep-dense-model',
  'fp8-block-scaling-sm',
  'weights-too-large',
  'request-too-long',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];
/**
 * Codes kept only so older projects still read and word: the pre-flight no longer gives them (a trial now takes as
 * many GPUs as its layout needs, so tensor parallelism cannot exceed them).
 */
export const STORED_ONLY_REFUSALS: readonly RefusalCode[] = ['tp-over-gpus'];

export const RefusalSchema = z.discriminatedUnion('code', [
  /** The engine version cannot express a setting; `reason` is the flag table's own explanation. */
  z.object({ code: z.literal('knobs-unsupported'), engine: EngineId, version: z.string(), knobs: z.array(z.object({ knob: z.string(), reason: z.string() })) }),
  /** The engine's parser would reject the extra arguments; `issues` are the argument check's findings. */
  z.object({ code: z.literal('extra-args-refused'), engine: EngineId, version: z.string(), issues: z.array(z.string()) }),
  /** Stored only (STORED_ONLY_REFUSALS): tensor parallelism above the study's fixed GPUs per trial. */
  z.object({ code: z.literal('tp-over-gpus'), tp: Count, gpusPerTrial: Count }),
  /** No host has as many GPUs as a trial takes (`gpusPerTrial`: the trial's own count). */
  z.object({ code: z.literal('host-too-small'), gpusPerTrial: Count, most: Count }),
  /** The study compares on a budget of GPUs, and this configuration needs more than the budget: it has no place in it. */
  z.object({ code: z.literal('over-gpu-budget'), gpus: Count, budget: Count }),
  // Parallel layouts the engine refuses at start-up (layout-checks.ts has each engine's own condition).
  /** The attention heads do not divide over the tensor-parallel size attention is split across (`tp`). */
  z.object({ code: z.literal('heads-indivisible'), engine: EngineId, version: z.string(), model: z.string(), heads: Count, tp: Count }),
  /** More pipeline stages than the model has layers. */
  z.object({ code: z.literal('pp-over-layers'), engine: EngineId, version: z.string(), model: z.string(), layers: Count, pp: Count }),
  /** The routed experts do not divide over the expert-parallel size. */
  z.object({ code: z.literal('experts-indivisible'), engine: EngineId, version: z.string(), model: z.string(), experts: Count, ep: Count }),
  /** The expert-parallel size does not divide the tensor-parallel group it is cut from. */
  z.object({ code: z.literal('ep-indivisible'), engine: EngineId, version: z.string(), tp: Count, ep: Count }),
  /** The decode-context-parallel size does not divide the tensor-parallel size. */
  z.object({ code: z.literal('dcp-indivisible'), engine: EngineId, version: z.string(), tp: Count, dcp: Count }),
  /** DP attention with a data-parallel size that does not divide the tensor-parallel size. */
  z.object({ code: z.literal('dp-attention-indivisible'), engine: EngineId, version: z.string(), tp: Count, dp: Count }),
  /** Expert parallelism asked of a model without experts. */
  z.object({ code: z.literal('ep-dense-model'), engine: EngineId, version: z.string(), model: z.string() }),
  /** TensorRT-LLM's FP8 block-scaling GEMM needs sm 8.9+; `gpus` are the distinct GPUs found, with their compute capability. */
  z.object({ code: z.literal('fp8-block-scaling-sm'), model: z.string(), gpus: z.array(z.object({ name: z.string(), computeCapability: z.string() })) }),
  /**
   * Sizes in bytes; `gpus`: the distinct GPUs, their memory and the share of it the engine lets weights take.
   * `bytesPerParam` is the average over all parameters (MXFP4 checkpoints keep all but the experts in BF16).
   */
  z.object({
    code: z.literal('weights-too-large'),
    model: z.string(),
    params: z.number(),
    precision: z.string(),
    bytesPerParam: z.number(),
    weightsPerGpu: z.number(),
    tp: Count,
    /** The parallel layout the weights are split by (`parallelLayoutLabel`); absent in older projects: TP alone. */
    layout: z.string().optional(),
    engine: EngineId,
    version: z.string(),
    gpus: z.array(z.object({ name: z.string(), usable: z.number(), total: z.number() })),
  }),
  /** `limit` is the configured maximum model length or the model's own context length. */
  z.object({ code: z.literal('request-too-long'), workloadId: z.string(), longest: Count, maxLen: Count, limit: z.enum(['configured', 'model']), model: z.string() }),
]);
export type Refusal = z.infer<typeof RefusalSchema>;

/** What killed a server, as the log classifier read it: its class (`unknown` when none matched) and the line that says so. */
export const ServerDeathSchema = z.object({ class: z.string().optional(), evidence: z.string().optional() });
export type ServerDeath = z.infer<typeof ServerDeathSchema>;

export const FAILURE_CODES = ['launch-refused', 'not-ready', 'died-before-workload', 'requests-failed', 'bench-failed', 'job-ended'] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export const RunFailureSchema = z.discriminatedUnion('code', [
  /** The launch itself failed; `detail` is the error as raised. */
  z.object({ code: z.literal('launch-refused'), detail: z.string() }),
  /** The server never answered as ready: what its log says killed it, or (no log verdict) the error as raised. */
  z.object({ code: z.literal('not-ready'), death: ServerDeathSchema.optional(), detail: z.string().optional() }),
  z.object({ code: z.literal('died-before-workload'), death: ServerDeathSchema }),
  /** The benchmark finished with `lost` of `total` requests failed; `death` when the server had died. */
  z.object({ code: z.literal('requests-failed'), lost: Count, total: Count, death: ServerDeathSchema.optional() }),
  /** The benchmark gave no result; `detail` is its own error when it said one. */
  z.object({ code: z.literal('bench-failed'), detail: z.string().optional(), death: ServerDeathSchema.optional() }),
  /**
   * Slurm ended the trial's batch job before the trial was measured: its state (TIMEOUT, NODE_FAIL, PREEMPTED,
   * OUT_OF_MEMORY, CANCELLED, …) and reason as Slurm gave them.
   */
  z.object({ code: z.literal('job-ended'), jobId: z.string(), state: z.string(), reason: z.string().optional() }),
]);
export type RunFailure = z.infer<typeof RunFailureSchema>;
