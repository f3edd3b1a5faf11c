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
  asyncScheduling?: boolean;
  spec?: { algorithm: string; draftModel?: string | null; steps?: number | null; topk?: number | null; draftTokens?: number | null } | null;
}
export interface Profile {
  engine: 'vllm' | 'sglang' | 'trtllm';
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
export function buildProfile(input: { engine: 'vllm' | 'sglang' | 'trtllm'; version: string; gpu: GpuModel; model: ModelInfo; knobs?: Knobs; freeMiB?: number }): Profile;
export function startupSeconds(profile: Profile): number;
