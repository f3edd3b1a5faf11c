export interface GpuModel {
  key: string;
  name: string;
  memoryMiB: number;
  reservedMiB: number;
  computeCap: string;
  architecture: string;
  powerLimitW: number;
  memBandwidthGBs: number;
  bf16Tflops: number;
  fp8Tflops: number | null;
  [key: string]: unknown;
}
export interface ModelInfo {
  id: string;
  baseId: string;
  quant: 'fp8' | 'awq' | 'mxfp4' | null;
  params: number;
  layers: number;
  maxLen: number;
  qHeads: number;
  kvHeads: number;
  headDim: number;
  hidden: number;
  /** Mixture-of-experts models only. */
  experts?: number;
  perToken?: number;
  activeParams?: number;
  [key: string]: unknown;
}
export const GPU_MODELS: Record<'h200' | 'h100' | 'a100', GpuModel>;
export function resolveGpuModel(name: string): GpuModel | null;
export function resolveModel(id: string): ModelInfo | null;
export function allModelIds(): string[];
export function isMoe(model: ModelInfo | null): boolean;
export function weightBytes(model: ModelInfo, quant?: string | null, part?: 'all' | 'experts' | 'dense'): number;
export function versionCompare(a: string, b: string): number;
