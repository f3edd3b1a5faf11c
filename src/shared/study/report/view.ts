import type { ReportModel, ScenarioRow, StageSection, TrialRow } from './model';
import type { MetricStat } from '../run-stats';
import type { ReportText } from './text';

/** Wording shared by the Markdown and HTML reports, so both say the same thing in the model's language. */

export function trialName(row: TrialRow, section: StageSection, repeats: number, tx: ReportText): string {
  // A role the planner gave the trial (baseline, recommended, best so far) is in its label already.
  const parts = [row.label];
  if (section.severalWorkloads) parts.push(row.workloadId);
  if (repeats > 1) parts.push(tx.t('trial.run', { n: tx.integer(row.repeat) }));
  return parts.join(' · ');
}

export function statusText(status: TrialRow['status'], tx: ReportText): string {
  return status === 'running' ? tx.t('status.trialRunning') : tx.t(`status.${status}`);
}

/** What a reader must know about one trial besides its numbers: why it failed, kept, its replicas on the budget, SLO misses. */
export function trialNotes(row: TrialRow, tx: ReportText, gpuBudget: number | null = null): string[] {
  const notes: string[] = [];
  if (row.kept) notes.push(tx.t('trial.kept'));
  if (gpuBudget !== null && row.replicas !== null) {
    const budget = tx.integer(gpuBudget);
    // A trial refused for the budget says so in its refusal.
    if (row.replicas > 0) notes.push(tx.plural('trial.replicas', row.replicas, { budget }));
    else if (row.status !== 'rejected') notes.push(tx.t('trial.overBudget', { budget }));
  }
  if (row.warmup !== null) notes.push(row.warmup);
  if (row.runs > 1) notes.push(tx.t('trial.runs', { n: tx.integer(row.runs) }));
  if (row.problem !== null) notes.push(row.status === 'rejected' ? tx.t('trial.refused', { problem: row.problem }) : row.status === 'failed' ? tx.t('trial.error', { problem: row.problem }) : row.problem);
  notes.push(...row.sloViolations);
  return notes;
}

/** The recommendation's basis and, where it matters, its replicas and per-GPU numbers, each a sentence. */
export function recommendationBasis(model: ReportModel): string[] {
  const r = model.recommendation;
  return [r?.replicas ?? null, model.basis.text, r?.perGpu ?? null].filter((line): line is string => line !== null);
}

/** A number, with its interval when it has one: "1.84 [1.80, 1.88]". */
export function metricCell(tx: ReportText, value: number | null | undefined, interval?: { low: number; high: number } | null): string {
  if (value === null || value === undefined) return '–';
  return interval ? tx.interval(value, interval.low, interval.high) : tx.number(value);
}

/** A scenario side: the mean over its runs with the interval and run count, or why it has none. */
export function scenarioValue(tx: ReportText, value: number | null, note: string | null, stat?: MetricStat | null): string {
  if (value === null) return note ?? tx.t('scenario.notMeasured');
  if (!stat) return tx.number(value);
  const interval = stat.low !== null && stat.high !== null ? { low: stat.low, high: stat.high } : null;
  return tx.plural('scenario.runs', stat.runs, { value: metricCell(tx, stat.value, interval) });
}

/** The before/after table's column titles, in the objective's unit. */
export function scenarioColumns(model: ReportModel): string[] {
  const tx = model.text;
  const unit = model.objective.unit;
  return [
    tx.t('scenario.col.scenario'),
    tx.t('scenario.col.baseline', { unit }),
    tx.t('scenario.col.recommended', { unit }),
    tx.t('scenario.col.change', { metric: model.objective.label }),
    tx.t('scenario.col.factor'),
    tx.t('scenario.col.winner'),
  ];
}

/**
 * The objective as the comparison with the original states it: on a GPU budget, the measured throughput per server
 * (the same configuration has the same replicas in both studies, so the change is the same); else the objective.
 */
export function versusObjective(model: ReportModel): { label: string; unit: string } {
  return model.objective.basis === 'gpu-budget' ? { label: model.text.t('objective.total_token_throughput'), unit: model.objective.unit } : model.objective;
}

/** The "versus the original" table's column titles, in the objective's unit. */
export function versusColumns(model: ReportModel): string[] {
  const tx = model.text;
  const { unit, label } = versusObjective(model);
  return [
    tx.t('versus.col.configuration'),
    tx.t('versus.col.workload'),
    tx.t('versus.col.original', { unit }),
    tx.t('versus.col.rerun', { unit }),
    tx.t('versus.col.change', { metric: label }),
    tx.t('versus.col.verdict'),
    tx.t('versus.col.notes'),
  ];
}

export function winnerText(row: ScenarioRow, tx: ReportText): string {
  if (row.winner === null) return '–';
  if (row.winner === 'tie') {
    const verdict = row.comparison?.verdict;
    if (verdict === 'no-difference') return tx.t('winner.tieNoDifference');
    if (verdict === 'possibly-better') return tx.t('winner.tiePossiblyBetter');
    if (verdict === 'possibly-worse') return tx.t('winner.tiePossiblyWorse');
    return tx.t('winner.tieMargin');
  }
  return row.winner === 'recommended' ? tx.t('winner.recommended') : tx.t('winner.baseline');
}

/** The change with its interval and verdict ("better: −21.2% [−23.0, −19.5]"), or the regression flag. */
export function changeText(row: ScenarioRow, tx: ReportText): string {
  if (row.changePct === null) return '–';
  if (row.flag) return row.flag;
  return row.comparison ? tx.t('scenario.verdict', { verdict: tx.t(`scenarioVerdict.${row.comparison.verdict}`), change: tx.change(row.comparison.change) }) : tx.pct(row.changePct);
}

export function factorText(row: ScenarioRow, tx: ReportText): string {
  return row.factor !== null ? tx.factor(row.factor) : '–';
}

export function gainText(gain: number | null, tx: ReportText): string {
  return gain === null ? '-' : tx.pct(gain);
}

/** The warning above the scenario table; null when no scenario regressed. */
export function regressionCallout(model: ReportModel): string | null {
  const tx = model.text;
  if (model.regressions.length === 0) return null;
  const list = model.regressions.map((r) => tx.t('regression.item', { scenario: r.description, flag: r.flag ?? '' })).join('; ');
  return tx.plural('regression.callout', model.regressions.length, { list });
}

export function decisionText(section: StageSection, tx: ReportText): string {
  if (section.id === 'generalisation') return tx.t('decision.generalisation');
  const d = section.decision;
  if (d === null) return section.trials.some((t) => t.status === 'planned' || t.status === 'running') ? tx.t('decision.pending') : tx.t('decision.none');
  return d.words;
}

/** The callout under the title when the numbers are simulated. */
export function simulatedText(model: ReportModel): string {
  const source = model.simulatedSource;
  return source?.kind === 'hosts' ? model.text.t('callout.simulatedHosts', { hosts: source.hosts.join(', ') }) : model.text.t('callout.simulatedDemo');
}
