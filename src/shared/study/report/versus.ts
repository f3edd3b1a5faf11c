import { metricOf } from '../../results/metrics';
import { INTERVAL_LEVEL } from '../noise';
import { runsOf } from '../run-stats';
import { withGpuCounts } from '../objective';
import { compareStudies, type DiffRow, type DiffSide, type DiffVerdict, type Regression } from '../study-diff';
import type { ProjectFile, RerunOf } from '../study';
import { geometricMean, type Change } from '../verdict';
import en from './messages/en';
import type { ReportText } from './text';

/**
 * The report's "Versus the original study" section of a re-run (`study.rerunOf`), as data: what changed (engine
 * versions, hosts), then per configuration × workload the objective of the original and of the re-run with their run
 * counts, the change with its interval and the verdict, all from `compareStudies` (the decision rule's statistics).
 * Rows that got worse come first: the objective's regressions, then the other metrics', then configurations that ran
 * in the original and not in the re-run. The original project is an input the caller read (the report stays pure);
 * without it the section says it could not be read.
 */

export interface VersusSide {
  /** Geometric mean of the side's measured runs; null when it was not measured. */
  value: number | null;
  runs: number;
  outcome: DiffSide['outcome'];
  /** Why there is no value, in the report's language ("failed", "not measured"); null when there is one. */
  note: string | null;
}

export interface VersusRow {
  /** `<stage>/<candidate>/<workload>` in the re-run's ids: a trial of the re-run is on the row of that key. */
  key: string;
  /** "Engine selection · vLLM 0.12.0": the stage's name and the configuration's label. */
  configuration: string;
  workloadId: string;
  original: VersusSide;
  rerun: VersusSide;
  /** The objective's change from the original, in percent of it, with its interval; null unless both were measured. */
  change: Change | null;
  verdict: DiffVerdict | null;
  /** The objective's whole interval is worse than the margin. */
  regression: boolean;
  /** Other metrics of this row whose interval is wholly worse than the margin, by name. */
  alsoWorse: string[];
  /** Measured in the original, failed or refused in the re-run. */
  lost: boolean;
  /** The two launched different settings (a greedy stage built on another winner). */
  sameConfig: boolean;
}

export interface VersusOneSide {
  key: string;
  configuration: string;
  workloadId: string;
  /** "2 measured runs", "failed", "not measured". */
  outcome: string;
}

export interface VersusSection {
  originalName: string;
  /** Where the provenance says the original is. */
  originalPath: string;
  /** The original could be read: without it only `changes` are known. */
  found: boolean;
  /** When the original finished, in the report's language. */
  originalFinished: string | null;
  /** What the re-run changed, one sentence each: engine versions, then hosts. */
  changes: string[];
  marginPct: number;
  /** Each configuration × workload with a regression, its worse metrics together: "Engine selection · vLLM 0.12.0 on chat: mean latency +8.1% [+6.0, +10.2]". */
  regressions: string[];
  /** Configurations measured in the original that failed or were refused in the re-run. */
  lost: string[];
  rows: VersusRow[];
  onlyOriginal: VersusOneSide[];
  onlyRerun: VersusOneSide[];
}

export interface VersusContext {
  tx: ReportText;
  objectiveMetric: string;
  stageLabel: (stageId: string) => string;
  /** A trial's label in the report's language (the planner's English roles reworded). */
  trialLabel: (row: { stageId: string; candidateId: string; label: string }) => string;
  engineLabel: (engine: RerunOf['engines'][number]['engine']) => string;
  /** The GPUs a study ran on, as the setup section names them. */
  gpuOf: (project: ProjectFile) => string;
}

type MetricNameKey = Extract<keyof typeof en, `metric.${string}`>;

/** A metric's name in the report's language, or its key (as SLO expressions show it) when the catalogue has none. */
export function metricName(key: string, tx: ReportText): string {
  const name = `metric.${key}`;
  return Object.hasOwn(en, name) ? tx.t(name as MetricNameKey) : key;
}

export function versusSection(project: ProjectFile, original: ProjectFile | null, ctx: VersusContext): VersusSection | null {
  const of = project.study.rerunOf;
  if (!of) return null;
  const { tx } = ctx;
  const base = {
    originalName: of.name,
    originalPath: of.path,
    originalFinished: of.finishedAt !== undefined ? tx.date(of.finishedAt) : null,
    changes: changesOf(of, project.study, ctx),
    marginPct: project.study.goal.marginPct,
  };
  if (!original) return { ...base, found: false, regressions: [], lost: [], rows: [], onlyOriginal: [], onlyRerun: [] };
  // The GPUs are known of the original only from its runs: a re-run on another box says what it moved to.
  const gpus = { from: ctx.gpuOf(original), to: ctx.gpuOf(project) };
  if (gpus.from !== gpus.to) base.changes.push(tx.t('versus.gpuChanged', gpus));

  const diff = compareStudies(original, project);
  const worseOf = (key: string) => diff.regressions.filter((x): x is Extract<Regression, { kind: 'worse' }> => x.key === key && x.kind === 'worse');
  const configuration = (stageId: string, candidateId: string, label: string) => `${ctx.stageLabel(stageId)} · ${ctx.trialLabel({ stageId, candidateId, label })}`;
  const outcomeNote = (side: DiffSide) =>
    side.outcome === 'failed' ? tx.t('status.failed') : side.outcome === 'rejected' ? tx.t('status.rejected') : side.outcome === 'not-run' ? tx.t('scenario.notMeasured') : null;
  const sideOf = (side: DiffSide, value: number | null): VersusSide => ({ value, runs: side.runs, outcome: side.outcome, note: outcomeNote(side) });
  // A side measured where the other was not has no change, but still its own value.
  const aloneValue = (of: ProjectFile, row: DiffRow, side: DiffSide) =>
    side.outcome === 'measured' ? measuredValue(of, { stageId: row.stageId, workloadId: row.workloadId, label: side.label }, ctx.objectiveMetric) : null;

  const rows: VersusRow[] = diff.rows.map((row: DiffRow) => {
    const objective = row.metrics.find((m) => m.metric === ctx.objectiveMetric);
    // compareStudies' regressions: a row whose two sides launched other settings flags none.
    const worse = worseOf(row.key);
    return {
      key: row.key,
      configuration: configuration(row.stageId, row.candidateId, row.rerun.label),
      workloadId: row.workloadId,
      original: sideOf(row.original, objective ? objective.original : aloneValue(original, row, row.original)),
      rerun: sideOf(row.rerun, objective ? objective.rerun : aloneValue(project, row, row.rerun)),
      change: objective?.change ?? null,
      verdict: objective?.verdict ?? null,
      regression: worse.some((x) => x.metric === ctx.objectiveMetric),
      alsoWorse: worse.filter((x) => x.metric !== ctx.objectiveMetric).map((x) => metricName(x.metric, tx)),
      lost: diff.regressions.some((x) => x.key === row.key && x.kind === 'lost'),
      sameConfig: row.sameConfig,
    };
  });
  // Worse first (the objective, another metric, no longer running), each group in the re-run's order; all are marked.
  const rank = (r: VersusRow) => (r.regression ? 0 : r.alsoWorse.length > 0 ? 1 : r.lost ? 2 : 3);
  const ordered = rows.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i).map(({ r }) => r);

  // One item per row that got worse, its metrics' changes together (the objective's first).
  const regressions = ordered.flatMap((r) => {
    const worse = worseOf(r.key)
      .sort((a, b) => Number(b.metric === ctx.objectiveMetric) - Number(a.metric === ctx.objectiveMetric))
      .map((x) => tx.t('versus.metricChange', { metric: metricName(x.metric, tx), change: tx.change(x.change) }));
    return worse.length > 0 ? [tx.t('versus.regressionItem', { configuration: r.configuration, workload: r.workloadId, changes: tx.list(worse) })] : [];
  });
  const lost = ordered.filter((r) => r.lost).map((r) => tx.t('versus.lostItem', { configuration: r.configuration, workload: r.workloadId, outcome: r.rerun.note ?? '' }));

  // A one-sided key is in the re-run's words: `<stage>/<candidate>/<workload>`, the candidate being a path of ids.
  const oneSide = (side: DiffSide & { key: string }): VersusOneSide => {
    const parts = side.key.split('/');
    const stageId = parts[0] ?? '';
    const workloadId = parts.length > 1 ? (parts.at(-1) as string) : '';
    const candidateId = parts.slice(1, -1).join('/');
    return {
      key: side.key,
      configuration: configuration(stageId, candidateId, side.label),
      workloadId,
      outcome: side.outcome === 'measured' ? tx.plural('versus.measuredRuns', side.runs) : (outcomeNote(side) ?? ''),
    };
  };
  return {
    ...base,
    found: true,
    regressions,
    lost,
    rows: ordered,
    // A re-run not run yet has all of the original on one side: it says only that nothing is compared yet.
    onlyOriginal: project.state.trials.length === 0 ? [] : diff.onlyOriginal.map(oneSide),
    onlyRerun: diff.onlyRerun.map(oneSide),
  };
}

/**
 * The geometric mean of the metric over the measured runs of a configuration on a workload, found by its stage and
 * label (as `compareStudies` named the side), counting a repeat wherever it ran (`runsOf`), as the comparison does.
 */
function measuredValue(project: ProjectFile, side: { stageId: string; workloadId: string; label: string }, metric: string): number | null {
  const trials = withGpuCounts(project.study, project.state.trials);
  const keys = new Set(trials.filter((t) => t.stageId === side.stageId && t.workloadId === side.workloadId && t.label === side.label).map((t) => t.serverKey));
  return geometricMean([...keys].flatMap((k) => runsOf(trials, k, side.workloadId)).flatMap((t) => metricOf(t, metric) ?? []));
}

/** The engine versions and hosts of the original (its provenance) against the re-run's. */
function changesOf(of: RerunOf, study: ProjectFile['study'], ctx: VersusContext): string[] {
  const { tx } = ctx;
  const out: string[] = [];
  // The re-run keeps the original's engine choices in order, each at its own or a new version.
  of.engines.forEach((before, i) => {
    const after = study.engines[i];
    const engine = ctx.engineLabel(before.engine);
    if (after && after.engine === before.engine && after.version !== before.version) out.push(tx.t('versus.engineChanged', { engine, from: before.version, to: after.version }));
    else if (after && after.engine === before.engine) out.push(tx.t('versus.engineSame', { engine, version: before.version }));
  });
  const hosts = study.hosts.map((h) => h.hostId);
  const same = hosts.length === of.hostIds.length && hosts.every((h, i) => h === of.hostIds[i]);
  out.push(same ? tx.t('versus.hostsSame', { hosts: of.hostIds.join(', ') }) : tx.t('versus.hostsChanged', { from: of.hostIds.join(', '), to: hosts.join(', ') }));
  return out;
}

/** The verdict of a row in words; "–" when it has none. */
export function versusVerdictText(row: VersusRow, tx: ReportText): string {
  return row.verdict === null ? '–' : tx.t(`versus.verdict.${row.verdict}`);
}

/** A side of a row: its value with the run count, or why it has none. */
export function versusSideText(side: VersusSide, tx: ReportText): string {
  if (side.note !== null) return side.note;
  if (side.value === null) return tx.plural('versus.measuredRuns', side.runs);
  return tx.plural('scenario.runs', side.runs, { value: tx.number(side.value) });
}

/** The row is marked: a metric of it got worse, or it no longer runs. */
export function versusRowWorse(row: VersusRow): boolean {
  return row.regression || row.alsoWorse.length > 0 || row.lost;
}

/** What a reader must know of a row besides its numbers. */
export function versusRowNotes(row: VersusRow, tx: ReportText): string[] {
  const notes: string[] = [];
  if (row.alsoWorse.length > 0) notes.push(tx.t(row.regression ? 'versus.alsoWorse' : 'versus.worseIn', { metrics: tx.list(row.alsoWorse) }));
  if (row.lost) notes.push(tx.t('versus.lost'));
  if (!row.sameConfig) notes.push(tx.t('versus.otherConfig'));
  return notes;
}

/** The method sentence under the table. */
export function versusFootnote(section: VersusSection, metric: string, tx: ReportText): string {
  return tx.t('versus.footnote', { metric, level: tx.percent(Math.round(INTERVAL_LEVEL * 100)), margin: tx.percent(section.marginPct) });
}

