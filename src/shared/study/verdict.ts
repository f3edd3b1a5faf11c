import type { z } from 'zod';
import { tQuantile } from '../stats/t-distribution';
import type { ChangeSchema, STAGE_VERDICTS } from './study';

/** A change of a metric in percent of the reference, with its interval (same units) and the interval's level. */
export type Change = z.infer<typeof ChangeSchema>;

/**
 * Comparing two configurations from their measured runs. A run's objective is one number; the runs of one
 * configuration differ by run-to-run noise, which is multiplicative (a slower clock slows every step), so the
 * comparison is made on logarithms: the change is the ratio of the configurations' geometric means, and its
 * interval comes from the run-to-run spread — the study's own repeats, pooled over every configuration that has
 * some, combined with the published figure as a prior worth `PRIOR_DEGREES_OF_FREEDOM` runs.
 */

/** How many runs' worth of evidence the published noise figure counts for against the study's own repeats. */
export const PRIOR_DEGREES_OF_FREEDOM = 4;

// Run-to-run noise is multiplicative: every statistic below is taken on the logarithms of the positive runs.
const logsOf = (values: readonly number[]) => values.filter((v) => v > 0).map(Math.log);
const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** The spread of repeated runs within configurations: the sum of squared log deviations and its degrees of freedom. */
export interface RunNoise {
  ss: number;
  df: number;
}

/** The pooled run-to-run spread of the configurations that have more than one run (each group: one configuration). */
export function pooledRunNoise(groups: readonly (readonly number[])[]): RunNoise {
  let ss = 0;
  let df = 0;
  for (const values of groups) {
    const logs = logsOf(values);
    if (logs.length < 2) continue;
    const mean = meanOf(logs);
    ss += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
    df += logs.length - 1;
  }
  return { ss, df };
}

/** The centre `compareRuns` compares: the geometric mean of the positive runs; null when there is none. */
export function geometricMean(values: readonly number[]): number | null {
  const logs = logsOf(values);
  return logs.length === 0 ? null : Math.exp(meanOf(logs));
}

export interface CompareOptions {
  /** The run-to-run CV (percent) assumed before the study measured its own. */
  priorCvPct: number;
  noise: RunNoise;
  level: number;
}

/**
 * The change of `candidate` against `reference` in percent of the reference (the metric itself: −20% latency is a
 * fifth less), with its interval. Null when either has no positive run.
 */
export function compareRuns(candidate: readonly number[], reference: readonly number[], opts: CompareOptions): Change | null {
  const a = logsOf(candidate);
  const b = logsOf(reference);
  if (a.length === 0 || b.length === 0) return null;
  const d = meanOf(a) - meanOf(b);
  const priorSd = Math.log1p(opts.priorCvPct / 100);
  const df = PRIOR_DEGREES_OF_FREEDOM + opts.noise.df;
  const variance = (PRIOR_DEGREES_OF_FREEDOM * priorSd ** 2 + opts.noise.ss) / df;
  const half = tQuantile(1 - (1 - opts.level) / 2, df) * Math.sqrt(variance * (1 / a.length + 1 / b.length));
  const pct = (x: number) => Math.expm1(x) * 100;
  return { pct: pct(d), low: pct(d - half), high: pct(d + half), level: opts.level };
}

/** The change as a gain in the objective's direction (positive = better), interval bounds in order. */
export function gainOf(change: Change, better: 'lower' | 'higher'): Change {
  if (better === 'higher') return change;
  return { pct: -change.pct, low: -change.high, high: -change.low, level: change.level };
}

/** What a stage concludes of a candidate from its gain; `undecided` asks for another run of both. */
export type StageOutcome = (typeof STAGE_VERDICTS)[number] | 'undecided';

/**
 * kept: the whole interval clears the margin; no-difference: it lies within ±margin; worse: wholly below −margin;
 * no-gain: it cannot clear the margin but reaches below −margin (not kept, and no run would make it kept);
 * otherwise undecided while runs remain in the budget, then inconclusive.
 */
export function stageOutcome(gain: Change, marginPct: number, canRepeat: boolean): StageOutcome {
  if (gain.low > marginPct) return 'kept';
  if (gain.high < -marginPct) return 'worse';
  if (gain.low >= -marginPct && gain.high <= marginPct) return 'no-difference';
  if (gain.high <= marginPct) return 'no-gain';
  return canRepeat ? 'undecided' : 'inconclusive';
}

export const SCENARIO_VERDICTS = ['better', 'possibly-better', 'no-difference', 'possibly-worse', 'worse'] as const;
export type ScenarioVerdict = (typeof SCENARIO_VERDICTS)[number];

/** How the recommendation does against the baseline on one scenario, from its gain and the study's margin. */
export function scenarioVerdict(gain: Change, marginPct: number): ScenarioVerdict {
  if (gain.low > marginPct) return 'better';
  if (gain.high < -marginPct) return 'worse';
  if (gain.low >= -marginPct && gain.high <= marginPct) return 'no-difference';
  return gain.pct < 0 ? 'possibly-worse' : 'possibly-better';
}

/** "−21.2% [−23.0, −19.5]": the change with its interval, one decimal, real minus signs. */
export function formatChange(change: Change): string {
  const signed = (x: number, unit = '') => `${x < 0 ? '−' : '+'}${Math.abs(x).toFixed(1)}${unit}`;
  return `${signed(change.pct, '%')} [${signed(change.low)}, ${signed(change.high)}]`;
}
