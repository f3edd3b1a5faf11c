import { metricInterval, metricOf, metricSpec, type MetricKey } from '../../results/metrics';
import type { ProjectFile, Trial } from '../study';
import { buildReportModel, envRedactor, type ReportInputs, type ReportModel, type TrialRow } from './model';

/**
 * Every trial as one CSV row, for a spreadsheet. RFC 4180: CRLF line ends, a field holding `"`, `,`, CR or LF is
 * quoted with inner quotes doubled. UTF-8 without a byte-order mark: the RFC has none and tools that split or
 * concatenate files (and `cut`, `awk`) would carry it into the first header. Text a spreadsheet would run as a
 * formula (starting with = + - @, tab or CR) is prefixed with `'`; numbers, negative ones included, stay numbers.
 */

/** The metrics the CSV carries, in column order; each header is the key with the catalogue's unit. */
const METRIC_KEYS: readonly MetricKey[] = [
  'total_token_throughput',
  'output_throughput',
  'max_output_tokens_per_s',
  'request_throughput',
  // Per GPU: the run's throughputs over the GPUs its server held (the trial's `gpu count`).
  'total_token_throughput_per_gpu',
  'output_throughput_per_gpu',
  'request_throughput_per_gpu',
  'mean_latency_s',
  'mean_e2el_ms',
  'mean_ttft_ms',
  'median_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'p99_tpot_ms',
  'mean_itl_ms',
  'p99_itl_ms',
  'completed',
  'failed',
  'duration',
];
const METRICS = METRIC_KEYS.map((key) => ({ key, unit: metricSpec(key).unit }));
/** Counts and the run's length are what was sent and how long it took, not estimates: they have no interval. */
const WITHOUT_INTERVAL: ReadonlySet<MetricKey> = new Set(['completed', 'failed', 'duration']);

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
  { title: 'runs of this configuration', cell: (r) => r.runs },
  { title: 'warm-up requests', cell: (_r, t) => t.warmup?.requests ?? null },
  { title: 'host', cell: (r) => r.hostId },
  { title: 'gpus', cell: (r) => r.gpus.join(' ') },
  // On a Slurm cluster: the batch job the trial ran in and its node.
  { title: 'slurm job', cell: (_r, t) => t.slurmJob?.jobId ?? null },
  { title: 'node', cell: (_r, t) => t.slurmJob?.node ?? null },
  { title: 'gpu count', cell: (r) => r.gpuCount },
  { title: 'started', cell: (r) => r.startedAt },
  { title: 'finished', cell: (r) => r.finishedAt },
  { title: 'simulated', cell: (r) => r.simulated },
  { title: 'objective vs baseline (%)', cell: (r) => (r.vsBaselinePct === null ? null : Math.round(r.vsBaselinePct * 100) / 100) },
  ...METRICS.flatMap(({ key, unit }) => [
    { title: `${key} (${unit})`, cell: (r: TrialRow, t: Trial) => (t.status === 'done' ? metricOf(t, key, r.gpuCount) : null) },
    // The run's own 95% interval from its requests; empty when the run kept no per-request samples.
    ...(WITHOUT_INTERVAL.has(key)
      ? []
      : [
          { title: `${key} low (${unit})`, cell: (r: TrialRow, t: Trial) => (t.status === 'done' ? (metricInterval(t, key, r.gpuCount)?.low ?? null) : null) },
          { title: `${key} high (${unit})`, cell: (r: TrialRow, t: Trial) => (t.status === 'done' ? (metricInterval(t, key, r.gpuCount)?.high ?? null) : null) },
        ]),
  ]),
  { title: 'benchmark command', cell: (r) => r.benchCommand },
];

export function renderCsv(project: ProjectFile, inputs: ReportInputs = {}): string {
  const model = buildReportModel(project, 'en', inputs);
  const redact = envRedactor(project);
  const columns = [...COLUMNS, ...objectiveColumns(model), ...versusColumns(model)];
  const lines = [columns.map((c) => field(c.title))];
  project.state.trials.forEach((trial, i) => {
    const row = model.trials[i] as TrialRow;
    lines.push(columns.map((c) => field(cellText(c.cell(row, trial), redact))));
  });
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

/**
 * The objective each decision read, on the study's basis: its basis, the value (per GPU, or the total of the
 * replicas on the GPU budget, with the replicas), so a spreadsheet can check a decision without the project file.
 */
function objectiveColumns(model: ReportModel): typeof COLUMNS {
  const { basis, unit, metric } = model.objective;
  // The CSV's unit is the catalogue's symbol, in every language.
  const csvUnit = metric === 'mean_latency_s' ? 's' : basis === 'per-gpu' ? metricSpec(`${metric}_per_gpu`)?.unit ?? unit : (metricSpec(metric)?.unit ?? unit);
  return [
    { title: 'objective basis', cell: () => (basis === 'gpu-budget' ? `gpu-budget ${model.basis.gpuBudget ?? ''}` : basis) },
    ...(basis === 'gpu-budget' ? [{ title: 'replicas on the gpu budget', cell: (r: TrialRow) => r.replicas }] : []),
    { title: `objective (${csvUnit})`, cell: (r: TrialRow) => r.objective },
  ];
}

/**
 * A re-run's comparison with its original, on each trial's row: its configuration × workload's objective in the
 * original (geometric mean, runs), the change with its interval and the verdict's key. Only a re-run has these
 * columns; they are empty where a side was not measured or the original could not be read. A configuration only the
 * original has is not a trial of this project, so it has no row (the Markdown and HTML list it).
 */
function versusColumns(model: ReportModel): typeof COLUMNS {
  if (!model.versus) return [];
  const metric = model.objective.catalogueKey ?? model.objective.metric;
  const unit = metricSpec(metric)?.unit ?? '';
  const rows = new Map(model.versus.rows.map((r) => [r.key, r]));
  const of = (t: TrialRow) => rows.get(`${t.stageId}/${t.candidateId}/${t.workloadId}`);
  const round = (x: number | undefined) => (x === undefined ? null : Math.round(x * 100) / 100);
  return [
    { title: `original ${metric} (${unit})`, cell: (r) => of(r)?.original.value ?? null },
    { title: 'original runs', cell: (r) => of(r)?.original.runs ?? null },
    { title: 'objective vs original (%)', cell: (r) => round(of(r)?.change?.pct) },
    { title: 'objective vs original low (%)', cell: (r) => round(of(r)?.change?.low) },
    { title: 'objective vs original high (%)', cell: (r) => round(of(r)?.change?.high) },
    { title: 'verdict vs original', cell: (r) => of(r)?.verdict ?? null },
  ];
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
