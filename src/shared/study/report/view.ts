import { formatFactor, formatNumber, formatPct, type ReportModel, type ScenarioRow, type StageSection, type TrialRow } from './model';
import type { MetricStat } from '../run-stats';
import { describeScenario } from '../run-stats';

/** Wording shared by the Markdown and HTML reports, so both say the same thing. */

export function trialName(row: TrialRow, section: StageSection, repeats: number): string {
  // In the generalisation pass the role matters more than the label: "baseline: vLLM 0.11.0 defaults".
  const parts = [section.id === 'generalisation' ? `${row.candidateId}: ${row.label}` : row.label];
  if (section.severalWorkloads) parts.push(row.workloadId);
  if (repeats > 1) parts.push(`run ${row.repeat}`);
  return parts.join(' · ');
}

export const STATUS_TEXT: Record<TrialRow['status'], string> = {
  planned: 'planned',
  rejected: 'rejected before launch',
  running: 'running',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** What a reader must know about one trial besides its numbers: why it failed, kept, SLO misses. */
export function trialNotes(row: TrialRow): string[] {
  const notes: string[] = [];
  if (row.kept) notes.push('kept');
  if (row.warmup !== null) notes.push(row.warmup);
  if (row.runs > 1) notes.push(`${row.runs} runs of this configuration`);
  if (row.problem !== null) notes.push(row.status === 'rejected' ? `refused: ${row.problem}` : row.status === 'failed' ? `error: ${row.problem}` : row.problem);
  notes.push(...row.sloViolations);
  return notes;
}

/** A number, with its interval when it has one: "1.84 [1.80, 1.88]". */
export function metricCell(value: number | null | undefined, interval?: { low: number; high: number } | null): string {
  if (value === null || value === undefined) return '–';
  return interval ? `${formatNumber(value)} [${formatNumber(interval.low)}, ${formatNumber(interval.high)}]` : formatNumber(value);
}

/** A scenario side: the mean over its runs with the interval and run count, or why it has none. */
export function scenarioValue(value: number | null, note: string | null, stat?: MetricStat | null): string {
  if (value === null) return note ?? 'not measured';
  if (!stat) return formatNumber(value);
  const interval = stat.low !== null && stat.high !== null ? { low: stat.low, high: stat.high } : null;
  return `${metricCell(stat.value, interval)}, ${stat.runs} run${stat.runs === 1 ? '' : 's'}`;
}

export function winnerText(row: ScenarioRow): string {
  if (row.winner === null) return '–';
  if (row.winner === 'tie' && row.comparison) return row.comparison.verdict === 'no-difference' ? 'tie (no difference)' : `tie (${row.comparison.verdict.replace('-', ' ')})`;
  return row.winner === 'tie' ? 'tie (within margin)' : row.winner;
}

/** The change with its interval and verdict ("better: −21.2% [−23.0, −19.5]"), or the regression flag. */
export function changeText(row: ScenarioRow): string {
  if (row.changePct === null) return '–';
  if (row.flag) return row.flag;
  return row.comparison ? describeScenario(row.comparison) : formatPct(row.changePct);
}

export function factorText(row: ScenarioRow): string {
  return row.factor !== null ? formatFactor(row.factor) : '–';
}

export function gainText(gain: number | null): string {
  return gain === null ? '-' : formatPct(gain);
}

/** The warning above the scenario table; null when no scenario regressed. */
export function regressionCallout(model: ReportModel): string | null {
  if (model.regressions.length === 0) return null;
  const list = model.regressions.map((r) => `${r.description} (${r.flag ?? ''})`).join('; ');
  const n = model.regressions.length;
  return `The recommended configuration is worse than the baseline on ${n} scenario${n === 1 ? '' : 's'}: ${list}. If this workload matters to you, keep the baseline for it or serve it separately.`;
}

export function decisionText(section: StageSection): string {
  if (section.id === 'generalisation') return 'The winner of each scenario is in the before/after table at the top.';
  const d = section.decision;
  if (d === null) return section.trials.some((t) => t.status === 'planned' || t.status === 'running') ? 'Not decided yet: trials are still to run.' : 'No decision recorded.';
  const kept = d.winnerLabel !== null ? `Kept ${d.winnerLabel}` : 'Nothing kept';
  const gain = d.gainPct !== null ? ` (${formatPct(d.gainPct)})` : '';
  const reason = d.reason.charAt(0).toUpperCase() + d.reason.slice(1);
  return `${kept}${gain}. ${reason}${/[.!?]$/.test(reason) ? '' : '.'}`;
}
