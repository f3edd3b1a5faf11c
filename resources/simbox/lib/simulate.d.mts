import type { Profile } from './perf-model.mjs';
export interface Stats {
  mean: number;
  median: number;
  std: number;
  percentiles: [number, number][];
}
export interface Metrics {
  completed: number;
  totalInput: number;
  totalOutput: number;
  requestThroughput: number;
  outputThroughput: number;
  totalTokenThroughput: number;
  maxOutputTokensPerS: number;
  maxConcurrentRequests: number;
  ttft: Stats;
  tpot: Stats;
  itl: Stats;
  e2el: Stats;
}
export interface Simulation {
  durationS: number;
  metrics: Metrics;
}
export function simulateBenchmark(run: {
  profile: Profile;
  requests: { input: number; output: number }[];
  maxConcurrency?: number | null;
  requestRate?: number;
  burstiness?: number;
  seed?: number | string;
  chat?: boolean;
  noise?: number;
  percentiles?: number[];
}): Simulation;
export function sharegptLikeLengths(count: number, seed?: number | string): { input: number; output: number }[];
export function randomLengths(count: number, input: number, output: number): { input: number; output: number }[];
