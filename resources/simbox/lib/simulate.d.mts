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
/** The engine scheduler of one simulated server (lib/engine-core.mjs), carried from run to run. */
export interface SimEngine {
  readonly steps: number;
}
export interface Simulation {
  durationS: number;
  metrics: Metrics;
  engine: SimEngine;
  /** Virtual seconds at which the run ended on its engine: the next run's startAt. */
  endAt: number;
  /** The rate each request's gap was drawn at (the ramp's, else --request-rate). */
  rates: number[];
}
export function simulateBenchmark(run: {
  profile: Profile;
  /** input: prompt tokens the server prefills; promptLen: as the client counts them (its totals); refused: the
   * server's error for a request it refuses at once (longer than its context). */
  requests: { input: number; output: number; promptLen?: number; refused?: string }[];
  maxConcurrency?: number | null;
  requestRate?: number;
  /** Infinity: constant gaps (client 0.11.1 and later). */
  burstiness?: number;
  rampUp?: { strategy: 'linear' | 'exponential'; startRps: number; endRps: number };
  /** The client's version, for how it spaces requests (resources/simbox/lib/arrivals.mjs); 0.11.0 when absent. */
  version?: string;
  seed?: number | string;
  chat?: boolean;
  noise?: number;
  /** Seeds the server's run-to-run drift, stalls and warm-up (lib/noise.mjs); without it a new engine has none. */
  noiseSeed?: number | string | null;
  /** Runs on an earlier run's engine (same server) instead of a new one. */
  engine?: SimEngine;
  /** Virtual seconds at which this run starts on `engine` (the previous run's endAt). */
  startAt?: number;
  percentiles?: number[];
}): Simulation;
export function sharegptLikeLengths(count: number, seed?: number | string): { input: number; output: number }[];
export function randomLengths(count: number, input: number, output: number): { input: number; output: number }[];
export function syntheticShareGpt(count: number, seed?: number | string): { id: string; conversations: { from: string; value: string }[] }[];
