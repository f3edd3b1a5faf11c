import { metricInterval, metricOf } from '../results/metrics';
import { meanInterval } from '../stats/mean-interval';
import { meetsSlos } from './decide';
import { INTERVAL_LEVEL, priorRunCvPct } from './noise';
import { studyObjective, trialObjective, trialObjectiveInterval } from './objective';
import type { StudyDefinition, Trial } from './study';
import { compareRuns, gainOf, pooledRunNoise, scenarioVerdict, type Change, type ScenarioVerdict } from './verdict';

/**
 * A configuration's numbers on one workload as every view states them: the mean over its measured runs with the
 * interval of that mean between runs, or — with one run — the run's own interval from its requests.
 */

/** Where an interval comes from: the spread between repeated runs, or the requests within one run. */
export type IntervalBasis = 'runs' | 'requests';

export interface MetricStat {
  value: number;
  low: number | null;
  high: number | null;
  basis: IntervalBasis | null;
  /** Measured runs behind the value. */
  runs: number;
}

/** The done, measured runs of one configuration on one workload (any stage: a repeat counts wherever it ran). */
export function runsOf(trials: readonly Trial[], serverKey: string, workloadId: string): Trial[] {
  return trials.filter((t) => t.serverKey === serverKey && t.workloadId === workloadId && t.status === 'done' && t.result !== undefined);
}

/** The key of one configuration on one workload in `trialsByConfig`. */
export function configWorkloadKey(serverKey: string, workloadId: string): string {
  return `${serverKey}\n${workloadId}`;
}

/**
 * Every configuration's trials on each workload, in the study's order, grouped in one pass: a view asking `runsOf` or
 * `metricStat` of many configurations passes its group instead of scanning every trial each time.
 */
export function trialsByConfig(trials: readonly Trial[]): Map<string, Trial[]> {
  const groups = new Map<string, Trial[]>();
  for (const trial of trials) {
    const key = configWorkloadKey(trial.serverKey, trial.workloadId);
    const group = groups.get(key);
    if (group) group.push(trial);
    else groups.set(key, [trial]);
  }
  return groups;
}

/**
 * The metric of a configuration on a workload, with its interval and run count; null when no run measured it.
 * `fallbackGpus`: the GPUs of a trial that does not record its own, for the per-GPU metrics (`gpusPerTrial`).
 */
export function metricStat(trials: readonly Trial[], serverKey: string, workloadId: string, key: string, fallbackGpus?: number): MetricStat | null {
  return statOf(
    runsOf(trials, serverKey, workloadId),
    (t) => metricOf(t, key, fallbackGpus),
    (t) => metricInterval(t, key, fallbackGpus),
  );
}

/** The study's objective on its basis (`objective.ts`) for a configuration on a workload, as `metricStat` states a metric. */
export function objectiveStat(study: StudyDefinition, trials: readonly Trial[], serverKey: string, workloadId: string): MetricStat | null {
  return statOf(
    runsOf(trials, serverKey, workloadId),
    (t) => trialObjective(study, t),
    (t) => trialObjectiveInterval(study, t),
  );
}

function statOf(runs: readonly Trial[], valueOf: (t: Trial) => number | null, intervalOf: (t: Trial) => { low: number; high: number } | null): MetricStat | null {
  const measured = runs.map((t) => ({ trial: t, value: valueOf(t) })).filter((m): m is { trial: Trial; value: number } => m.value !== null);
  if (measured.length === 0) return null;
  if (measured.length >= 2) {
    const m = meanInterval(
      measured.map((x) => x.value),
      INTERVAL_LEVEL,
    );
    return { value: m.mean, low: m.low, high: m.high, basis: 'runs', runs: measured.length };
  }
  const only = measured[0] as { trial: Trial; value: number };
  const within = intervalOf(only.trial);
  return within ? { value: only.value, low: within.low, high: within.high, basis: 'requests', runs: 1 } : { value: only.value, low: null, high: null, basis: null, runs: 1 };
}

export interface ScenarioComparison {
  /** The recommendation's change of the objective (on the study's basis) against the baseline's, with its interval. */
  change: Change;
  verdict: ScenarioVerdict;
  runs: { recommended: number; baseline: number };
}

/**
 * How the recommendation does against the baseline on one scenario: their objective (on the study's basis) on that workload compared as
 * stages compare candidates (the run-to-run spread pooled over the scenario's configurations with repeats, the
 * published CV as the prior), read against the study's margin. Null when either side has no valid run.
 */
export function scenarioComparison(study: StudyDefinition, trials: readonly Trial[], workloadId: string, baselineKey: string, recommendedKey: string): ScenarioComparison | null {
  const { better } = studyObjective(study.goal);
  const values = (key: string) =>
    runsOf(trials, key, workloadId)
      .filter((t) => meetsSlos(study, t).ok || workloadId !== study.workloads.primary.id)
      .map((t) => trialObjective(study, t))
      .filter((v): v is number => v !== null);
  const recommended = values(recommendedKey);
  const baseline = values(baselineKey);
  const like = trials.find((t) => t.serverKey === recommendedKey) ?? trials.find((t) => t.serverKey === baselineKey);
  const other = trials.find((t) => t.serverKey === baselineKey) ?? like;
  if (!like || !other) return null;
  const workload = [study.workloads.primary, ...study.workloads.generalisation].find((w) => w.id === workloadId);
  const priorCvPct = Math.max(priorRunCvPct(like, workload?.maxConcurrency), priorRunCvPct(other, workload?.maxConcurrency));
  const change = compareRuns(recommended, baseline, { priorCvPct, noise: pooledRunNoise([recommended, baseline]), level: INTERVAL_LEVEL });
  if (!change) return null;
  return { change, verdict: scenarioVerdict(gainOf(change, better), study.goal.marginPct), runs: { recommended: recommended.length, baseline: baseline.length } };
}
