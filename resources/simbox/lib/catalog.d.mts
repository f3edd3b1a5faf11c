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
  quant: 'fp8' | 'awq' | null;
  params: number;
  layers: number;
  maxLen: number;
  [key: string]: unknown;
}
export const GPU_MODELS: Record<'h200' | 'h100' | 'a100', GpuModel>;
export function resolveGpuModel(name: string): GpuModel | null;
export function resolveModel(id: string): ModelInfo | null;
export function versionCompare(a: string, b: string): number;
