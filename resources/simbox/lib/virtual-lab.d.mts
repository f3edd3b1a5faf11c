import type { GpuModel } from './catalog.mjs';
import type { Profile } from './perf-model.mjs';
export interface VirtualBox {
  gpu: string;
  count: number;
  seed: number;
  faults: Record<string, unknown>;
  gpuModel: GpuModel;
  /** How the GPUs are wired (lib/topology.mjs): NVLink between every pair, or PCIe cards. */
  topology: 'nvlink' | 'pcie';
}
export function virtualBox(opts?: { gpu?: string; count?: number; seed?: number; topology?: 'nvlink' | 'pcie' }): VirtualBox;
/** The product's Workload as plain data (src/shared/bench/workload.ts). */
export interface VirtualWorkload {
  id: string;
  dataset: { kind: 'sharegpt'; path?: string; outputLen?: number } | { kind: 'random'; inputLen: number; outputLen: number; rangeRatio?: number; prefixLen?: number } | { kind: 'custom'; path: string; outputLen?: number };
  numPrompts: number;
  maxConcurrency?: number;
  requestRate?: number;
  burstiness?: number | 'inf';
  rampUp?: { strategy: 'linear' | 'exponential'; startRps: number; endRps: number };
  seed?: number;
  ignoreEos?: boolean;
  backend?: 'openai-chat' | 'openai';
}
export type VirtualRun =
  /** metrics: the `--save-result` document's keys (vLLM's names); json: the document as the client writes it. */
  | { ok: true; metrics: Record<string, unknown>; json: string; seconds: number }
  | { ok: false; error: string; seconds: number };
export interface LaunchOptions {
  argv: string[];
  env?: Record<string, string>;
  version: string;
  box: VirtualBox;
  /** The box's launch counter for this server: seeds its run-to-run noise. */
  launch?: number;
  /** false: the calibrated engine without run-to-run noise. */
  noise?: boolean;
  /** Files the command names (TensorRT-LLM's extra options YAML), as the adapter builds them. */
  files?: { path: string; content: string }[];
  clientVersion?: string;
  percentileMetrics?: string;
  metricPercentiles?: string;
}
export type VirtualServer = { ok: true; spec: Record<string, unknown>; profile: Profile; run(workload: VirtualWorkload): VirtualRun } | { ok: false; error: string; code: number };
export function launchVirtual(opts: LaunchOptions): VirtualServer;
export function runVirtualTrial(opts: LaunchOptions & { workloads: VirtualWorkload[] }): { ok: true; runs: VirtualRun[] } | { ok: false; error: string; code: number };
/** The requests the client sends for a workload: the server's prompt tokens, the output, the client's prompt count. */
export function workloadRequests(workload: VirtualWorkload, profile: Profile): { input: number; output: number; promptLen: number; refused?: string }[];
