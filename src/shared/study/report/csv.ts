import type { ProjectFile, Trial } from '../study';
import { buildReportModel, envRedactor, metricOf, type TrialRow } from './model';

/**
 * Every trial as one CSV row, for a spreadsheet. RFC 4180: CRLF line ends, a field holding `"`, `,`, CR or LF is
 * quoted with inner quotes doubled. UTF-8 without a byte-order mark: the RFC has none and tools that split or
 * concatenate files (and `cut`, `awk`) would carry it into the first header. Text a spreadsheet would run as a
 * formula (starting with = + - @, tab or CR) is prefixed with `'`; numbers, negative ones included, stay numbers.
 */

const METRICS: { key: string; unit: string }[] = [
  { key: 'total_token_throughput', unit: 'tok/s' },
  { key: 'output_throughput', unit: 'tok/s' },
  { key: 'max_output_tokens_per_s', unit: 'tok/s' },
  { key: 'request_throughput', unit: 'req/s' },
  { key: 'mean_latency_s', unit: 's' },
  { key: 'mean_e2el_ms', unit: 'ms' },
  { key: 'mean_ttft_ms', unit: 'ms' },
  { key: 'median_ttft_ms', unit: 'ms' },
  { key: 'p99_ttft_ms', unit: 'ms' },
  { key: 'mean_tpot_ms', unit: 'ms' },
  { key: 'p99_tpot_ms', unit: 'ms' },
  { key: 'mean_itl_ms', unit: 'ms' },
  { key: 'p99_itl_ms', unit: 'ms' },
  { key: 'completed', unit: 'requests' },
  { key: 'failed', unit: 'requests' },
  { key: 'duration', unit: 's' },
];

type Cell = string | number | boolean | null;

const COLUMNS: { title: string; cell: (row: TrialRow, trial: Trial) => Cell }[] = [
  { title: 'trial id', cell: (r) => r.id },
  { title: 'stage', cell: (r) => r.stageId },
  { title: 'candidate', cell: (r) => r.candidateId },
  { title: 'label', cell: (r) => r.label },
  { title: 'engine', cell: (r) => r.engine },
  { title: 'version', cell: (r) => r.version },
  { title: 'mode', cell: (r) => r.mode },
  { title: 'model', cell: (r) => r.model },
  { title: 'status', cell: (r) => r.status },
  { title: 'reject reason / error', cell: (r) => r.problem },
  { title: 'command', cell: (r) => r.command },
  { title: 'env names', cell: (r) => r.envNames.join(' ') },
  { title: 'workload', cell: (r) => r.workloadId },
  { title: 'repeat', cell: (r) => r.repeat },
  { title: 'host', cell: (r) => r.hostId },
  { title: 'gpus', cell: (r) => r.gpus.join(' ') },
  { title: 'started', cell: (r) => r.startedAt },
  { title: 'finished', cell: (r) => r.finishedAt },
  { title: 'simulated', cell: (r) => r.simulated },
  { title: 'objective vs baseline (%)', cell: (r) => (r.vsBaselinePct === null ? null : Math.round(r.vsBaselinePct * 100) / 100) },
  ...METRICS.map(({ key, unit }) => ({ title: `${key} (${unit})`, cell: (_r: TrialRow, t: Trial) => (t.status === 'done' ? metricOf(t, key) : null) })),
  { title: 'benchmark command', cell: (r) => r.benchCommand },
];

export function renderCsv(project: ProjectFile): string {
  const model = buildReportModel(project);
  const redact = envRedactor(project);
  const lines = [COLUMNS.map((c) => field(c.title))];
  project.state.trials.forEach((trial, i) => {
    const row = model.trials[i] as TrialRow;
    lines.push(COLUMNS.map((c) => field(cellText(c.cell(row, trial), redact))));
  });
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

function cellText(value: Cell, redact: (s: string) => string): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return redact(value);
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Neutralises formula-looking text, then quotes as RFC 4180 needs. */
export function field(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) && !NUMBER.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
