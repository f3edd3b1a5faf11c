import type { GpuModel, ModelInfo } from './catalog.mjs';
export interface Knobs {
  quantization?: string | null;
  kvCacheDtype?: string;
  cudaGraphMaxBs?: number | null;
  disableCudaGraph?: boolean;
  attentionBackend?: string | null;
  torchCompile?: boolean;
  chunkedPrefill?: boolean | null;
  maxBatchedTokens?: number | null;
  maxRunning?: number | null;
  maxModelLen?: number | null;
  memFraction?: number | null;
  tp?: number;
  pp?: number;
  dp?: number;
  /** vLLM --decode-context-parallel-size. */
  dcp?: number;
  /** vLLM --enable-expert-parallel. */
  enableEp?: boolean;
  /** SGLang --ep-size / TensorRT-LLM --ep_size. */
  epSize?: number | null;
  /** SGLang --enable-dp-attention. */
  dpAttention?: boolean;
  /** TensorRT-LLM enable_attention_dp (extra options YAML). */
  attentionDp?: boolean;
  /** vLLM --all2all-backend / SGLang --moe-a2a-backend. */
  a2aBackend?: string | null;
  asyncScheduling?: boolean;
  spec?: { algorithm: string; draftModel?: string | null; steps?: number | null; topk?: number | null; draftTokens?: number | null } | null;
}
/** How one server spreads over GPUs (lib/parallel.mjs parallelLayout). */
export interface ParallelLayout {
  engine: 'vllm' | 'sglang' | 'trtllm';
  tp: number;
  pp: number;
  dp: number;
  dcp: number;
  world: number;
  /** GPUs the server needs. */
  gpus: number;
  /** Scheduler ranks behind the endpoint. */
  ranks: number;
  attnTp: number;
  moeShards: number;
  epSize: number;
  coupled: boolean;
  dpAttention: boolean;
  a2a: string | null;
}
export interface Profile {
  engine: 'vllm' | 'sglang' | 'trtllm';
  layout: ParallelLayout;
  ranks: number;
  kvTokens: number;
  heldMiB: number;
  maxModelLen: number;
  weightsGiB: number;
  spec: { steps: number; topk: number; draftTokens: number; expectedAccept: number } | null;
  [key: string]: unknown;
}
export class StartupFailure extends Error {
  kind: string;
  details: Record<string, number>;
}
export function buildProfile(input: {
  engine: 'vllm' | 'sglang' | 'trtllm';
  version: string;
  gpu: GpuModel;
  model: ModelInfo;
  knobs?: Knobs;
  freeMiB?: number;
  layout?: ParallelLayout;
  interconnect?: { busGBs: number; latencyS: number; link?: string | null };
}): Profile;
export function startupSeconds(profile: Profile): number;
