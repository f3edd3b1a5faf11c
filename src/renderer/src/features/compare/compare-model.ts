// The maths behind the comparison and its charts: pure functions of trials and result entries, no React, no i18n.
import { parsePercentileKey } from '../../../../shared/results/bench-result';
import { LATENCY_NAMES, metricSpec, metricValuesOf, type Better, type MetricKey, type MetricValues } from '../../../../shared/results/metrics';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { configWorkloadKey, metricStat, trialsByConfig, type MetricStat } from '../../../../shared/study/run-stats';
import type { PublishedSource, ReferenceTrial, Trial } from '../../../../shared/study/study';
import { publishedFor } from '../../../../shared/study/guide/published';

export { LATENCY_NAMES, type Better, type MetricValues };
export type Verdict = 'better' | 'worse' | 'same';

export interface MetricInfo {
  /** vLLM's `--save-result` name, e.g. `p99_ttft_ms`. */
  key: string;
  title: string;
  unit: string;
  better: Better;
}

/** A change within this share of the baseline counts as no change (run-to-run noise). */
export const SAME_WITHIN_PCT = 0.5;

export type LatencyName = keyof typeof LATENCY_NAMES;
const LATENCIES = Object.keys(LATENCY_NAMES) as LatencyName[];

const STATS = ['mean', 'median', 'p50', 'p90', 'p99'] as const;

/** A metric of the catalogue as a comparison row shows it; only metrics with a better direction are compared. */
function compared(key: string): MetricInfo | undefined {
  const spec = metricSpec(key);
  return spec?.better ? { key, title: spec.name, unit: spec.unit, better: spec.better } : undefined;
}

/**
 * The metrics a comparison shows, in this order: throughputs first (per server, then per GPU where the columns know
 * their GPUs), then each latency's mean, median and percentiles.
 */
const COMPARE_KEYS: readonly MetricKey[] = [
  'total_token_throughput',
  'output_throughput',
  'request_throughput',
  'total_token_throughput_per_gpu',
  'output_throughput_per_gpu',
  'request_throughput_per_gpu',
  'mean_latency_s',
  ...LATENCIES.flatMap((m) => STATS.map((stat) => `${stat}_${m}_ms` as const)),
];
export const COMPARE_METRICS: readonly MetricInfo[] = COMPARE_KEYS.map((key) => compared(key)!);

const BY_KEY = new Map(COMPARE_METRICS.map((m) => [m.key, m]));

/** Compared only when the columns carry them: vLLM's speculative-decoding acceptance. */
const WHEN_PRESENT: readonly MetricKey[] = ['spec_decode_acceptance_rate', 'spec_decode_acceptance_length'];

/** The comparison's entry of a key: other percentiles (`p99.9_itl_ms`) and speculative acceptance too. */
export function metricInfo(key: string): MetricInfo | undefined {
  return BY_KEY.get(key) ?? (parsePercentileKey(key) || (WHEN_PRESENT as readonly string[]).includes(key) ? compared(key) : undefined);
}

/** One column of a comparison: a trial of a study or an entry of the results library. */
export interface CompareColumn {
  id: string;
  label: string;
  metrics: MetricValues;
  /** The settings it ran with, nested as the server config is; for the config diff. */
  config?: Readonly<Record<string, unknown>>;
  /** Per metric: the interval and run count of the column's configuration on its workload (study trials only). */
  stats?: Readonly<Record<string, MetricStat>>;
  /** A published result (a guide's), never a measurement: where it was printed. Never the baseline. */
  published?: PublishedSource;
}

export interface CompareCell {
  columnId: string;
  value: number | null;
  /** value − baseline; null without both numbers. */
  delta: number | null;
  /** delta in percent of |baseline|; null without both numbers or when the baseline is 0. */
  deltaPct: number | null;
  /** null for the baseline itself and when a number is missing. */
  verdict: Verdict | null;
}

export interface CompareRow {
  metric: MetricInfo;
  baseline: number | null;
  cells: CompareCell[];
}

/** Whether a change is better, worse or the same for a metric where `better` is good. */
export function verdictOf(delta: number, deltaPct: number | null, better: Better): Verdict {
  // Float noise must not turn an exact 0.5 % into "worse".
  if (delta === 0 || (deltaPct !== null && Math.abs(deltaPct) <= SAME_WITHIN_PCT + 1e-9)) return 'same';
  return (delta < 0) === (better === 'lower') ? 'better' : 'worse';
}

function numberOf(metrics: MetricValues, key: string): number | null {
  const value = metrics[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Rows per metric (those at least one column has), each column's value with its delta and delta % against the
 * baseline column and whether that is better, worse or the same for the metric. An unknown baseline id falls back to
 * the first column.
 */
export function compareTrials(columns: readonly CompareColumn[], baselineId: string | undefined, metrics: readonly MetricInfo[] = catalogueFor(columns)): CompareRow[] {
  // A published number is shown against the baseline, never taken as one.
  const measured = columns.filter((c) => !c.published);
  const base = measured.find((c) => c.id === baselineId) ?? measured[0] ?? columns[0];
  if (!base) return [];
  return metrics
    .filter((metric) => columns.some((c) => numberOf(c.metrics, metric.key) !== null))
    .map((metric) => {
      const baseline = numberOf(base.metrics, metric.key);
      const cells = columns.map((column): CompareCell => {
        const value = numberOf(column.metrics, metric.key);
        if (column.id === base.id || value === null || baseline === null) {
          return { columnId: column.id, value, delta: column.id === base.id && value !== null ? 0 : null, deltaPct: column.id === base.id && value !== null && value !== 0 ? 0 : null, verdict: null };
        }
        const delta = value - baseline;
        const deltaPct = baseline !== 0 ? (delta / Math.abs(baseline)) * 100 : null;
        return { columnId: column.id, value, delta, deltaPct, verdict: verdictOf(delta, deltaPct, metric.better) };
      });
      return { metric, baseline, cells };
    });
}

/** The catalogue plus any other comparable metric the columns carry (e.g. `p99.9_itl_ms`, `spec_decode_acceptance_rate`): percentiles in latency order after the others. */
export function catalogueFor(columns: readonly CompareColumn[]): MetricInfo[] {
  const extra = new Map<string, MetricInfo>();
  for (const column of columns) {
    for (const key of Object.keys(column.metrics)) {
      if (!BY_KEY.has(key) && !extra.has(key)) {
        const info = metricInfo(key);
        if (info) extra.set(key, info);
      }
    }
  }
  const rank = (key: string) => {
    const percentile = parsePercentileKey(key);
    return percentile ? LATENCIES.indexOf(percentile.metric) * 1000 + Number(percentile.percentile) : 0;
  };
  return [...COMPARE_METRICS, ...[...extra.values()].sort((a, b) => rank(a.key) - rank(b.key))];
}

// ---------------------------------------------------------------------------------------------------------------
// Config diff

export interface ConfigDiffRow {
  /** Dotted, e.g. `speculative.numSteps` or `env.VLLM_USE_V1`. */
  key: string;
  /** Per column, in column order: the value as text, or null when the column does not set it. */
  values: (string | null)[];
}

/** Where a trial runs, not how: never a difference worth showing. */
const PLACEMENT_KEYS = new Set(['host', 'port']);

/** Flattens a config to dotted keys. Environment variables keep their names only: a value may be a secret. */
export function flattenConfig(config: Readonly<Record<string, unknown>>): Map<string, { shown: string; compared: string }> {
  const out = new Map<string, { shown: string; compared: string }>();
  const visit = (value: unknown, path: string) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      if (value.length > 0) out.set(path, { shown: value.map(String).join(' '), compared: JSON.stringify(value) });
      return;
    }
    if (typeof value === 'object') {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) visit(inner, path ? `${path}.${key}` : key);
      return;
    }
    out.set(path, { shown: String(value), compared: JSON.stringify(value) });
  };
  for (const [key, value] of Object.entries(config)) {
    if (PLACEMENT_KEYS.has(key)) continue;
    if (key === 'env' && value && typeof value === 'object') {
      for (const [name, envValue] of Object.entries(value as Record<string, unknown>)) {
        // Compared by a fingerprint so differing values still count as a difference; only "set" is shown.
        out.set(`env.${name}`, { shown: 'set', compared: JSON.stringify(envValue) });
      }
      continue;
    }
    visit(value, key);
  }
  return out;
}

/** The settings that differ between the columns' configs (set in some and not others, or set differently), sorted by key. */
export function configDiff(columns: readonly Pick<CompareColumn, 'config'>[]): ConfigDiffRow[] {
  const flat = columns.map((c) => flattenConfig(c.config ?? {}));
  const keys = new Set(flat.flatMap((f) => [...f.keys()]));
  const rows: ConfigDiffRow[] = [];
  for (const key of [...keys].sort()) {
    const entries = flat.map((f) => f.get(key) ?? null);
    const distinct = new Set(entries.map((e) => (e ? e.compared : '\u0000absent')));
    if (distinct.size < 2) continue;
    if (key.startsWith('env.')) {
      // Same name, different values: number the values so the difference shows without showing them.
      const order = [...new Set(entries.filter((e) => e !== null).map((e) => e.compared))];
      rows.push({ key, values: entries.map((e) => (e === null ? null : order.length > 1 ? `set (value ${order.indexOf(e.compared) + 1})` : 'set')) });
    } else {
      rows.push({ key, values: entries.map((e) => e?.shown ?? null) });
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------------------------
// Pareto front

export interface ParetoPoint {
  id: string;
  /** Throughput: more is better. */
  x: number;
  /** Latency: less is better. */
  y: number;
}

/** The points no other point beats on both axes (more x and less y, one of them strictly), by rising x. */
export function paretoFront<P extends ParetoPoint>(points: readonly P[]): P[] {
  const sorted = [...points].filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => b.x - a.x || a.y - b.y);
  const front: P[] = [];
  let bestY = Infinity;
  let last: P | undefined;
  for (const p of sorted) {
    if (p.y < bestY) {
      front.push(p);
      bestY = p.y;
      last = p;
    } else if (last && p.y === last.y && p.x === last.x) {
      front.push(p); // the very same point twice: neither beats the other
    }
  }
  return front.reverse();
}

// ---------------------------------------------------------------------------------------------------------------
// Trials: grouping, columns, curves

export interface StageGroup {
  stageId: string;
  /** The stage's label in the definition; the stage id when it has none (engine, generalisation, grid). */
  label: string;
  trials: Trial[];
}

export const ENGINE_STAGE = 'engine';
export const GENERALISATION_STAGE = 'generalisation';

/**
 * Trials by stage in study order: engine selection, the definition's stages, stages the definition no longer has
 * (in order of first appearance), then generalisation. Trials keep their order inside a stage; empty stages are left out.
 */
export function groupTrialsByStage(trials: readonly Trial[], stages: readonly { id: string; label: string }[]): StageGroup[] {
  const order: string[] = [ENGINE_STAGE, ...stages.map((s) => s.id)];
  for (const t of trials) if (t.stageId !== GENERALISATION_STAGE && !order.includes(t.stageId)) order.push(t.stageId);
  order.push(GENERALISATION_STAGE);
  const byStage = new Map<string, Trial[]>();
  for (const t of trials) {
    const list = byStage.get(t.stageId);
    if (list) list.push(t);
    else byStage.set(t.stageId, [t]);
  }
  return order
    .filter((id) => byStage.has(id))
    .map((id) => ({ stageId: id, label: stages.find((s) => s.id === id)?.label ?? id, trials: byStage.get(id)! }));
}

function metricsOfTrial(trial: Trial): MetricValues {
  return metricValuesOf(trial);
}

/** A trial as a comparison column: label, workload and repeat, so repeats and scenarios of one config stay apart. */
export function trialColumn(trial: Trial, trials?: readonly Trial[]): CompareColumn {
  const label = [trial.label, trial.workloadId, trial.repeat > 1 ? `r${trial.repeat}` : null].filter(Boolean).join(' · ');
  const metrics = metricsOfTrial(trial);
  const column: CompareColumn = { id: trial.id, label, metrics, config: { engine: trial.engine, version: trial.version, mode: trial.mode, ...trial.config } };
  if (!trials || trial.status !== 'done') return column;
  // With the study's trials, each number carries its configuration's interval and runs on that workload.
  const stats = Object.keys(metrics).flatMap((key) => {
    const stat = metricStat(trials, trial.serverKey, trial.workloadId, key);
    return stat ? [[key, stat] as const] : [];
  });
  return { ...column, stats: Object.fromEntries(stats) };
}

/** A published reference as a comparison column: its printed numbers, its guide and line. */
export function publishedColumn(reference: ReferenceTrial): CompareColumn {
  return {
    id: reference.id,
    label: [reference.label, reference.workloadId].filter(Boolean).join(' · '),
    metrics: reference.result ? metricValuesOf({ result: reference.result }) : {},
    config: { engine: reference.engine, version: reference.version, command: reference.command },
    published: reference.source,
  };
}

/** The trials' columns, each followed by the published results of the same candidate on the same workload. */
export function withPublished(columns: readonly CompareColumn[], trials: readonly Trial[], references: readonly ReferenceTrial[] | undefined): CompareColumn[] {
  const shown = new Set<string>();
  return columns.flatMap((column) => {
    const trial = trials.find((tr) => tr.id === column.id);
    const beside = trial ? publishedFor(trial, references).filter((r) => r.status === 'ok' && !shown.has(r.id)) : [];
    for (const r of beside) shown.add(r.id);
    return [column, ...beside.map(publishedColumn)];
  });
}

/** A library entry as a comparison column; its config is what its provenance knows (env by name only). */
export function entryColumn(entry: ResultEntry): CompareColumn {
  const p = entry.result.provenance;
  const config: Record<string, unknown> = {
    engine: p?.engine,
    engineVersion: p?.engineVersion,
    model: p?.model,
    gpu: p?.gpu?.model ? (p.gpu.count && p.gpu.count > 1 ? `${p.gpu.count}× ${p.gpu.model}` : p.gpu.model) : undefined,
    serverArgv: p?.serverArgv,
    env: Object.fromEntries((p?.serverEnvNames ?? []).map((name) => [name, ''])),
    workload: p?.workload ? { numPrompts: p.workload.numPrompts, maxConcurrency: p.workload.maxConcurrency, requestRate: p.workload.requestRate } : undefined,
    dataset: p?.dataset?.name,
    client: p?.client?.name,
  };
  return { id: entry.id, label: entry.title, metrics: metricValuesOf(entry), config };
}

/** The in-flight cap of a workload id: from the study's workloads, else the `-c<N>` suffix of the preset names. */
export function concurrencyOf(workloadId: string, workloads: readonly { id: string; maxConcurrency?: number | undefined }[]): number | null {
  const known = workloads.find((w) => w.id === workloadId);
  if (known) return known.maxConcurrency ?? null;
  const match = /-c(\d+)$/.exec(workloadId);
  return match ? Number(match[1]) : null;
}

export interface CurvePoint {
  concurrency: number;
  workloadId: string;
  /** Means over repeats. */
  throughput: number;
  latency: number;
  /** The latency's interval (between runs, or one run's requests) and the runs behind the point. */
  latencyLow?: number;
  latencyHigh?: number;
  runs?: number;
}

/**
 * The interval and run count of a configuration's latency on a workload, as the error bars draw them. `groups`: the
 * study's trials by configuration and workload (`trialsByConfig`), so each point reads only its own.
 */
function latencySpread(groups: ReadonlyMap<string, Trial[]>, serverKey: string, workloadId: string, latencyKey: string): { latencyLow?: number; latencyHigh?: number; runs?: number } {
  const stat = metricStat(groups.get(configWorkloadKey(serverKey, workloadId)) ?? [], serverKey, workloadId, latencyKey);
  if (!stat) return {};
  return stat.low === null || stat.high === null ? { runs: stat.runs } : { latencyLow: stat.low, latencyHigh: stat.high, runs: stat.runs };
}

export interface ConcurrencyCurve {
  serverKey: string;
  label: string;
  points: CurvePoint[];
}

function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Latency against throughput across concurrency, one curve per configuration (server key), from the finished
 * trials of the generalisation stage whose workloads set a concurrency; repeats are averaged. Curves with fewer than
 * two concurrencies are left out: a single point says nothing about the trend.
 */
export function concurrencyCurves(
  trials: readonly Trial[],
  workloads: readonly { id: string; maxConcurrency?: number | undefined }[],
  latencyKey: string,
  throughputKey = 'total_token_throughput',
): ConcurrencyCurve[] {
  const byConfig = new Map<string, { label: string; byWorkload: Map<string, { throughput: number[]; latency: number[] }> }>();
  for (const t of trials) {
    if (t.stageId !== GENERALISATION_STAGE || t.status !== 'done') continue;
    if (concurrencyOf(t.workloadId, workloads) === null) continue;
    const m = metricsOfTrial(t);
    const throughput = numberOf(m, throughputKey);
    const latency = numberOf(m, latencyKey);
    if (throughput === null || latency === null) continue;
    let config = byConfig.get(t.serverKey);
    if (!config) byConfig.set(t.serverKey, (config = { label: t.label, byWorkload: new Map() }));
    let sums = config.byWorkload.get(t.workloadId);
    if (!sums) config.byWorkload.set(t.workloadId, (sums = { throughput: [], latency: [] }));
    sums.throughput.push(throughput);
    sums.latency.push(latency);
  }
  const curves: ConcurrencyCurve[] = [];
  const groups = trialsByConfig(trials);
  for (const [serverKey, config] of byConfig) {
    const points = [...config.byWorkload].map(([workloadId, sums]) => ({
      workloadId,
      concurrency: concurrencyOf(workloadId, workloads)!,
      throughput: mean(sums.throughput)!,
      latency: mean(sums.latency)!,
      ...latencySpread(groups, serverKey, workloadId, latencyKey),
    }));
    if (new Set(points.map((p) => p.concurrency)).size < 2) continue;
    curves.push({ serverKey, label: config.label, points: points.sort((a, b) => a.concurrency - b.concurrency) });
  }
  return curves;
}

export interface PercentileSpread {
  columnId: string;
  label: string;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** P50 (the median when P50 was not asked for), P90 and P99 of one latency, per column. */
export function percentileSpread(columns: readonly CompareColumn[], latency: LatencyName): PercentileSpread[] {
  return columns.map((c) => ({
    columnId: c.id,
    label: c.label,
    p50: numberOf(c.metrics, `p50_${latency}_ms`) ?? numberOf(c.metrics, `median_${latency}_ms`),
    p90: numberOf(c.metrics, `p90_${latency}_ms`),
    p99: numberOf(c.metrics, `p99_${latency}_ms`),
  }));
}

/** A value of a column, or null. */
export function valueOf(column: CompareColumn, key: string): number | null {
  return numberOf(column.metrics, key);
}

export interface ConfigPoint extends ParetoPoint {
  /** The server key: one point per configuration. */
  id: string;
  label: string;
  /** The latency's interval and the runs behind the point (as `CurvePoint`). */
  latencyLow?: number;
  latencyHigh?: number;
  runs?: number;
}

/** One point per configuration measured on `workloadId` (repeats averaged): x = throughput, y = the latency asked for. */
export function configPoints(trials: readonly Trial[], workloadId: string, latencyKey: string, throughputKey = 'total_token_throughput'): ConfigPoint[] {
  const byConfig = new Map<string, { label: string; x: number[]; y: number[] }>();
  for (const t of trials) {
    if (t.status !== 'done' || t.workloadId !== workloadId) continue;
    const m = metricsOfTrial(t);
    const x = numberOf(m, throughputKey);
    const y = numberOf(m, latencyKey);
    if (x === null || y === null) continue;
    let sums = byConfig.get(t.serverKey);
    if (!sums) byConfig.set(t.serverKey, (sums = { label: t.label, x: [], y: [] }));
    sums.x.push(x);
    sums.y.push(y);
  }
  const groups = trialsByConfig(trials);
  return [...byConfig].map(([id, s]) => ({ id, label: s.label, x: mean(s.x)!, y: mean(s.y)!, ...latencySpread(groups, id, workloadId, latencyKey) }));
}
