import type { EngineId } from '../engines/types';
import { metricOf, metricSpec, type Better } from '../results/metrics';
import { engineCandidateId, serverKeyOf } from './planner';
import { INTERVAL_LEVEL, priorRunCvPct } from './noise';
import { runsOf } from './run-stats';
import { objectiveOf, type ProjectFile, type StudyDefinition, type Trial } from './study';
import { studyObjective, withGpuCounts } from './objective';
import { compareRuns, gainOf, geometricMean, pooledRunNoise, stageOutcome, type Change } from './verdict';

/**
 * A study against the study it re-runs (`rerun.ts`), trial by trial: each configuration × workload both measured, each
 * metric's change from the original to the re-run with its 95% interval, read against the study's margin by the
 * decision rule's own statistics (`verdict.ts`: log-ratio of the runs' geometric means, a Student-t interval whose
 * spread is both studies' own repeats pooled, the published run-to-run CV as the prior). A regression is the same
 * settings doing worse at the re-run: a change whose whole interval is worse than the margin (an interval that only
 * reaches past it is inconclusive), or a configuration the original measured that the re-run failed or refused to
 * launch. A row whose two sides launched other settings (a greedy stage kept another winner upstream) is shown with
 * its changes but flags nothing: it does not compare versions.
 */

/** kept (the decision rule's word) is `better` here: the re-run improved on the original beyond the margin. */
export type DiffVerdict = 'better' | 'no-difference' | 'worse' | 'inconclusive';

/** The metrics compared, after the objective and the SLOs' metrics: the throughputs and the mean latencies. */
const DIFF_METRICS = ['total_token_throughput', 'output_throughput', 'mean_latency_s', 'mean_ttft_ms', 'mean_tpot_ms', 'mean_itl_ms'] as const;

export interface DiffMetric {
  metric: string;
  better: Better;
  /** Geometric means of the measured runs. */
  original: number;
  rerun: number;
  /** The re-run's change in percent of the original (the metric itself), with its interval. */
  change: Change;
  verdict: DiffVerdict;
  runs: { original: number; rerun: number };
}

/** What one side measured of a configuration × workload. */
export type SideOutcome = 'measured' | 'failed' | 'rejected' | 'not-run';

export interface DiffSide {
  label: string;
  engine: EngineId;
  version: string;
  outcome: SideOutcome;
  /** Measured runs. */
  runs: number;
}

export interface DiffRow {
  /** `<stage>/<candidate>/<workload>` in the re-run's ids. */
  key: string;
  stageId: string;
  candidateId: string;
  workloadId: string;
  original: DiffSide;
  rerun: DiffSide;
  /** False when the two launched different settings (a greedy stage built on another winner), versions aside. */
  sameConfig: boolean;
  /** Empty unless both sides measured it. */
  metrics: DiffMetric[];
}

interface RegressionAt {
  key: string;
  stageId: string;
  workloadId: string;
  label: string;
}

/** `worse`: a metric's whole interval is worse than the margin; `lost`: measured in the original, not in the re-run. */
export type Regression = RegressionAt & ({ kind: 'worse'; metric: string; change: Change } | { kind: 'lost'; outcome: 'failed' | 'rejected' });

export interface StudyDiff {
  marginPct: number;
  metrics: string[];
  rows: DiffRow[];
  regressions: Regression[];
  /** Configuration × workloads only one of the studies has, each keyed in its own study's ids. */
  onlyOriginal: (DiffSide & { key: string })[];
  onlyRerun: (DiffSide & { key: string })[];
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/**
 * The original's engine candidate ids in the re-run's words. Engine ids carry the version (`vllm-0.11.0`, and a grid
 * path starts with one), so each engine choice is paired with the re-run's choice of the same engine and mode, in order.
 */
function engineIdMap(original: StudyDefinition, rerun: StudyDefinition): Map<string, string> {
  const used = new Set<number>();
  const map = new Map<string, string>();
  for (const choice of original.engines) {
    const j = rerun.engines.findIndex((c, i) => !used.has(i) && c.engine === choice.engine && c.mode === choice.mode);
    if (j < 0) continue;
    used.add(j);
    map.set(engineCandidateId(original, choice), engineCandidateId(rerun, rerun.engines[j] as StudyDefinition['engines'][number]));
  }
  return map;
}

function translateCandidate(candidateId: string, map: ReadonlyMap<string, string>): string {
  const exact = map.get(candidateId);
  if (exact !== undefined) return exact;
  const cut = candidateId.indexOf('~', 1);
  if (cut > 0) {
    const head = map.get(candidateId.slice(0, cut));
    if (head !== undefined) return `${head}${candidateId.slice(cut)}`;
  }
  return candidateId;
}

interface Group {
  /** In the re-run's words, to match on. */
  key: string;
  /** In the study's own words. */
  ownKey: string;
  stageId: string;
  candidateId: string;
  workloadId: string;
  trials: Trial[];
}

function groupTrials(trials: readonly Trial[], candidateOf: (t: Trial) => string): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const trial of trials) {
    const candidateId = candidateOf(trial);
    const key = `${trial.stageId}/${candidateId}/${trial.workloadId}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, ownKey: `${trial.stageId}/${trial.candidateId}/${trial.workloadId}`, stageId: trial.stageId, candidateId, workloadId: trial.workloadId, trials: [] };
      groups.set(key, group);
    }
    group.trials.push(trial);
  }
  return groups;
}

function sideOf(group: Group, all: readonly Trial[]): DiffSide {
  const first = group.trials[0] as Trial;
  const measured = measuredRuns(group, all).length;
  const outcome: SideOutcome =
    measured > 0 ? 'measured' : group.trials.some((t) => t.status === 'failed') ? 'failed' : group.trials.some((t) => t.status === 'rejected') ? 'rejected' : 'not-run';
  return { label: first.label, engine: first.engine, version: first.version, outcome, runs: measured };
}

/**
 * The done, measured runs of the group's configuration on its workload anywhere in the study (run-stats.ts `runsOf`:
 * a repeat counts wherever it ran, so the engine stage's winner also has its later stages' reference runs).
 */
function measuredRuns(group: Group, all: readonly Trial[]): Trial[] {
  const keys = new Set(group.trials.map((t) => t.serverKey));
  return [...keys].flatMap((k) => runsOf(all, k, group.workloadId));
}

/** Each configuration × workload of a study once, as its measured runs. */
function configurationRuns(trials: readonly Trial[]): Trial[][] {
  const keys = new Set(trials.map((t) => `${t.serverKey}\n${t.workloadId}`));
  return [...keys].map((k) => {
    const [serverKey, workloadId] = k.split('\n') as [string, string];
    return runsOf(trials, serverKey, workloadId);
  });
}

function sameSettings(a: Trial, b: Trial): boolean {
  return serverKeyOf(a.engine, '', a.mode, a.config) === serverKeyOf(b.engine, '', b.mode, b.config);
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing

function diffMetricsOf(study: StudyDefinition): string[] {
  // The objective as the study compares it: per GPU on that basis; a GPU budget multiplies both sides by the same
  // replicas (the same configuration holds the same GPUs), so its change is the measured throughput's.
  const keys = [studyObjective(study.goal).catalogueKey ?? objectiveOf(study.goal.kind).metric, ...study.goal.slos.map((s) => s.metric), ...DIFF_METRICS];
  return [...new Set(keys)].filter((k) => metricSpec(k)?.better);
}

function valuesOf(trials: readonly Trial[], metric: string): number[] {
  return trials.map((t) => metricOf(t, metric)).filter((v): v is number => v !== null && v > 0);
}

function verdictOf(change: Change, better: Better, marginPct: number): DiffVerdict {
  const outcome = stageOutcome(gainOf(change, better), marginPct, false);
  if (outcome === 'kept') return 'better';
  if (outcome === 'no-difference' || outcome === 'worse') return outcome;
  return 'inconclusive';
}

function concurrencyOf(study: StudyDefinition, workloadId: string): number | undefined {
  return [study.workloads.primary, ...study.workloads.generalisation].find((w) => w.id === workloadId)?.maxConcurrency;
}

function regressionsOf(row: DiffRow): Regression[] {
  if (!row.sameConfig) return [];
  const at: RegressionAt = { key: row.key, stageId: row.stageId, workloadId: row.workloadId, label: row.rerun.label };
  const outcome = row.rerun.outcome;
  if (row.original.outcome === 'measured' && (outcome === 'failed' || outcome === 'rejected')) return [{ ...at, kind: 'lost', outcome }];
  return row.metrics.filter((m) => m.verdict === 'worse').map((m) => ({ ...at, kind: 'worse', metric: m.metric, change: m.change }));
}

/**
 * `rerun` against `original`, row by matching configuration × workload (stage, candidate and workload ids; an engine's
 * id with its version is matched to the same engine in the other study), in the re-run's order.
 */
export function compareStudies(original: ProjectFile, rerun: ProjectFile): StudyDiff {
  const map = engineIdMap(original.study, rerun.study);
  // Each trial with its GPUs, for per-GPU metrics of trials stored before each had its own count.
  const originalTrials = withGpuCounts(original.study, original.state.trials);
  const rerunTrials = withGpuCounts(rerun.study, rerun.state.trials);
  const before = groupTrials(originalTrials, (t) => translateCandidate(t.candidateId, map));
  const after = groupTrials(rerunTrials, (t) => t.candidateId);
  const marginPct = rerun.study.goal.marginPct;
  const metrics = diffMetricsOf(rerun.study);

  const pairs = [...after.values()].filter((g) => before.has(g.key)).map((g) => ({ after: g, before: before.get(g.key) as Group }));
  // Run-to-run spread per metric, pooled over every configuration of both studies measured more than once.
  const configurations = [...configurationRuns(originalTrials), ...configurationRuns(rerunTrials)];
  const noise = new Map(metrics.map((m) => [m, pooledRunNoise(configurations.map((runs) => valuesOf(runs, m)))]));

  const rows: DiffRow[] = pairs.map(({ before: b, after: a }) => {
    const runsA = measuredRuns(a, rerunTrials);
    const runsB = measuredRuns(b, originalTrials);
    const likeA = a.trials[0] as Trial;
    const likeB = b.trials[0] as Trial;
    const concurrency = concurrencyOf(rerun.study, a.workloadId);
    const priorCvPct = Math.max(priorRunCvPct(likeA, concurrency), priorRunCvPct(likeB, concurrency));
    const diffs: DiffMetric[] = [];
    for (const metric of metrics) {
      const va = valuesOf(runsA, metric);
      const vb = valuesOf(runsB, metric);
      const change = compareRuns(va, vb, { priorCvPct, noise: noise.get(metric) ?? { ss: 0, df: 0 }, level: INTERVAL_LEVEL });
      if (!change) continue;
      const better = metricSpec(metric)?.better as Better;
      diffs.push({ metric, better, original: geometricMean(vb) as number, rerun: geometricMean(va) as number, change, verdict: verdictOf(change, better, marginPct), runs: { original: vb.length, rerun: va.length } });
    }
    return { key: a.key, stageId: a.stageId, candidateId: a.candidateId, workloadId: a.workloadId, original: sideOf(b, originalTrials), rerun: sideOf(a, rerunTrials), sameConfig: sameSettings(likeA, likeB), metrics: diffs };
  });

  const regressions = rows.flatMap(regressionsOf);
  return {
    marginPct,
    metrics,
    rows,
    regressions,
    onlyOriginal: [...before.values()].filter((g) => !after.has(g.key)).map((g) => ({ key: g.ownKey, ...sideOf(g, originalTrials) })),
    onlyRerun: [...after.values()].filter((g) => !before.has(g.key)).map((g) => ({ key: g.key, ...sideOf(g, rerunTrials) })),
  };
}
