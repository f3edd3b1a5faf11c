import { metricInterval, metricOf, metricSpec } from '../results/metrics';
import { objectiveOf, trialGpuCount, type Goal, type GoalKind, type ObjectiveBasis, type StudyDefinition, type Trial } from './study';

/**
 * The study's objective on its basis (`goal.basis`), so configurations of different sizes compare fairly:
 *
 * - `server` (the default): one server's own number, whatever GPUs it holds.
 * - `per-gpu`: the throughput divided by the GPUs the server holds (`trialGpuCount`: TP4×DP2 holds 8, TP2 holds 2).
 * - `gpu-budget`: as many whole replicas as fit in `gpuBudget` GPUs (⌊budget ÷ GPUs⌋), the throughput times the
 *   replicas — "4 × TP2 on 8 GPUs" against "1 × TP8". A configuration that needs more GPUs than the budget cannot be
 *   placed and has no objective.
 *
 * Either way the based value is the measured one times a constant of the configuration (1, 1/GPUs or the replicas),
 * so the decision rule carries over unchanged: `compareRuns` works on logarithms, where the constant shifts a
 * configuration's runs without changing their spread, and the change between two configurations is the ratio of
 * their measured numbers times the ratio of their constants (per GPU: of their GPU counts, inverted). Only throughput
 * goals take a basis: the schema refuses the others for a latency goal (`study.ts`), since a request's latency does
 * not divide by GPUs, and N replicas would each carry 1/N of the load, a workload the study never measured.
 */

/** The objective of a study: the measured metric, its direction, the basis and its words in English. */
export interface StudyObjective {
  /** The measured metric the objective is computed from. */
  metric: ReturnType<typeof objectiveOf>['metric'];
  better: 'lower' | 'higher';
  basis: ObjectiveBasis;
  /** The GPUs the replicas share, for `gpu-budget`; else null. */
  gpuBudget: number | null;
  /** The metric catalogue's key whose value is the objective (the per-GPU throughput for `per-gpu`); null on a budget. */
  catalogueKey: string | null;
  /** "total token throughput per GPU", in English (decide.ts's reasons). */
  label: string;
  unit: string;
}

type GoalOfBasis = Pick<Goal, 'kind'> & Partial<Pick<Goal, 'basis' | 'gpuBudget'>>;

/** The basis a goal compares on; absent: `server`, as every study before bases existed. */
export function basisOf(goal: Partial<Pick<Goal, 'basis'>>): ObjectiveBasis {
  return goal.basis ?? 'server';
}

export function studyObjective(goal: GoalOfBasis | GoalKind): StudyObjective {
  const g: GoalOfBasis = typeof goal === 'string' ? { kind: goal } : goal;
  const raw = objectiveOf(g.kind);
  const basis = g.kind === 'throughput' ? basisOf(g) : 'server';
  const gpuBudget = basis === 'gpu-budget' ? (g.gpuBudget ?? null) : null;
  if (basis === 'per-gpu') {
    const key = `${raw.metric}_per_gpu`;
    return { ...raw, basis, gpuBudget, catalogueKey: key, label: `${raw.label} per GPU`, unit: metricSpec(key)?.unit ?? `${raw.unit}/GPU` };
  }
  if (basis === 'gpu-budget') return { ...raw, basis, gpuBudget, catalogueKey: null, label: `${raw.label} on ${gpuBudget ?? '?'} GPUs`, unit: raw.unit };
  return { ...raw, basis, gpuBudget, catalogueKey: raw.metric };
}

/** Whole replicas of a `gpus`-GPU server in a budget of `budget` GPUs (0: it does not fit). */
export function replicasOf(budget: number, gpus: number): number {
  return gpus > 0 ? Math.floor(budget / gpus) : 0;
}

/**
 * What a configuration's measured objective is multiplied by on the goal's basis: 1 per server, 1/GPUs per GPU, the
 * replicas on a budget; null when it does not fit the budget (it then has no objective).
 */
export function basisFactor(goal: GoalOfBasis, gpus: number): number | null {
  const objective = studyObjective(goal);
  switch (objective.basis) {
    case 'server':
      return 1;
    case 'per-gpu':
      return 1 / gpus;
    case 'gpu-budget': {
      const replicas = replicasOf(objective.gpuBudget ?? 0, gpus);
      return replicas > 0 ? replicas : null;
    }
  }
}

/** The replicas of a configuration on the study's budget; null when the goal has no budget. */
export function trialReplicas(study: Pick<StudyDefinition, 'goal' | 'gpusPerTrial'>, trial: Pick<Trial, 'gpuCount'>): number | null {
  const objective = studyObjective(study.goal);
  return objective.basis === 'gpu-budget' ? replicasOf(objective.gpuBudget ?? 0, trialGpuCount(study, trial)) : null;
}

/** A metric of a trial of the study, per-GPU ones from the trial's GPU count (`gpusPerTrial` for trials stored before each had its own). */
export function trialMetric(study: Pick<StudyDefinition, 'gpusPerTrial'>, trial: Trial, key: string): number | null {
  return metricOf(trial, key, study.gpusPerTrial);
}

/** The run's own interval of a metric of a trial of the study, per-GPU ones as `trialMetric` reads them. */
export function trialMetricInterval(study: Pick<StudyDefinition, 'gpusPerTrial'>, trial: Trial, key: string): { low: number; high: number } | null {
  return metricInterval(trial, key, study.gpusPerTrial);
}

/** A trial's objective on the study's basis: its measured metric times `basisFactor`; null when unmeasured or over the budget. */
export function trialObjective(study: Pick<StudyDefinition, 'goal' | 'gpusPerTrial'>, trial: Trial): number | null {
  const raw = metricOf(trial, studyObjective(study.goal).metric);
  const factor = basisFactor(study.goal, trialGpuCount(study, trial));
  return raw === null || factor === null ? null : raw * factor;
}

/** The run's own interval of its objective on the study's basis (the measured one's, times the same factor). */
export function trialObjectiveInterval(study: Pick<StudyDefinition, 'goal' | 'gpusPerTrial'>, trial: Trial): { low: number; high: number } | null {
  const interval = metricInterval(trial, studyObjective(study.goal).metric);
  const factor = basisFactor(study.goal, trialGpuCount(study, trial));
  return interval === null || factor === null ? null : { low: interval.low * factor, high: interval.high * factor };
}

/**
 * The trials each carrying its GPU count (`trialGpuCount`), for views that read metrics off trials alone: a project
 * stored before trials had their own count gets its `gpusPerTrial`. The same array when every trial has one.
 */
export function withGpuCounts(study: Pick<StudyDefinition, 'gpusPerTrial'>, trials: readonly Trial[]): readonly Trial[] {
  return trials.every((t) => t.gpuCount !== undefined) ? trials : trials.map((t) => (t.gpuCount !== undefined ? t : { ...t, gpuCount: study.gpusPerTrial }));
}

/** Whether a configuration of `gpus` GPUs has no place on the study's budget (false when the goal has none). */
export function overBudget(study: Pick<StudyDefinition, 'goal'>, gpus: number): boolean {
  const objective = studyObjective(study.goal);
  return objective.basis === 'gpu-budget' && replicasOf(objective.gpuBudget ?? 0, gpus) === 0;
}
