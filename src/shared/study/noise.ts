import type { Trial } from './study';

/**
 * How much one measured run of a server configuration differs from the next, as published, and the defaults of the
 * decision rule that follow from it. The figures are coefficients of variation (percent) of a run's mean metrics between
 * identical runs; a study's own repeats refine them as they come in (`pooledRunNoise` in verdict.ts).
 */

/**
 * Identical fixed-seed runs, temperature 0: SGLang 0.26–0.28% at concurrency 1–4 and vLLM 0.36–0.64% at
 * concurrency ≥ 8 (https://github.com/vllm-project/vllm/issues/53436). The larger one is the floor assumed for any
 * engine without a known reason to be noisier.
 */
export const BASE_RUN_CV_PCT = 0.64;

/**
 * vLLM with speculative decoding at low concurrency: the draft acceptance varies from run to run, and with it the
 * speed (same report: CV 9.85% at concurrency 1, 19.65% at 2, 7.50% at 4, 0.39% at 8). Keyed by the highest
 * concurrency it applies to.
 */
const VLLM_SPECULATIVE_RUN_CV_PCT: readonly (readonly [maxConcurrency: number, cvPct: number])[] = [
  [1, 9.85],
  [2, 19.65],
  [4, 7.5],
];

/** The run-to-run CV assumed for a trial's configuration on its workload before the study has measured its own. */
export function priorRunCvPct(trial: Pick<Trial, 'engine' | 'config'>, maxConcurrency: number | null | undefined): number {
  if (trial.engine === 'vllm' && trial.config.speculative && maxConcurrency !== null && maxConcurrency !== undefined) {
    const row = VLLM_SPECULATIVE_RUN_CV_PCT.find(([upTo]) => maxConcurrency <= upTo);
    if (row) return row[1];
  }
  return BASE_RUN_CV_PCT;
}

/** Confidence level of every interval a study states. */
export const INTERVAL_LEVEL = 0.95;

/** Measured runs a configuration gets at most in a stage when its comparison stays undecided. */
export const DEFAULT_REPEAT_BUDGET = 4;

/**
 * The default margin: the smallest effect that one run of each of two configurations can tell apart from noise at
 * the base CV — the 95% interval of their difference is ±1.96·√2·CV — rounded up to half a percent, and never
 * below 1%.
 */
export function defaultMarginPct(runCvPct = BASE_RUN_CV_PCT): number {
  return Math.max(1, Math.ceil(1.96 * Math.SQRT2 * runCvPct * 2) / 2);
}
