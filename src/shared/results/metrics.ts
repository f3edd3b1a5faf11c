// The metric catalogue: every benchmark metric under vLLM's `--save-result` name (vllm/benchmarks/serve.py), with its unit,
// which way is better and the decimals the UI shows, and the one way to read a metric off a trial or a result. The
// report, the CSV, the comparison, the Results page, the study's Results tab and the wizard's SLOs all read it; each
// keeps only its own choice of metrics and its own words for them.
import { DERIVED_METRIC_KEYS, parsePercentileKey, withDerivedMetrics, type BenchMetricKey, type BenchMetrics, type LatencyMetric } from './bench-result';

export type Better = 'lower' | 'higher';

export interface MetricSpec {
  /** vLLM's JSON name, e.g. `p99_ttft_ms`. */
  readonly key: string;
  /** The name in English, as vLLM's result block prints it ("Mean TTFT", "Total token throughput"). */
  readonly name: string;
  readonly unit: string;
  /** Which way a change is an improvement; null for counts and settings, which say how a run went, not how fast. */
  readonly better: Better | null;
  /** Decimals a number is shown with: counts are whole. */
  readonly decimals: number;
  /**
   * A per-GPU metric is never stored: it is this metric of the run divided by the GPUs its server held, known only
   * where the GPU count is (a study's trial, or an import the user sized).
   */
  readonly perGpuOf?: PerGpuBase;
}

/** The latency metrics as vLLM's result block names them. */
export const LATENCY_NAMES = { ttft: 'TTFT', tpot: 'TPOT', itl: 'ITL', e2el: 'E2EL' } as const satisfies Record<LatencyMetric, string>;

type Spec = Omit<MetricSpec, 'key'>;
const count = (name: string, unit: string) => ({ name, unit, better: null, decimals: 0 }) as const satisfies Spec;
const setting = (name: string, unit: string) => ({ name, unit, better: null, decimals: 2 }) as const satisfies Spec;
const rate = (name: string, unit: string) => ({ name, unit, better: 'higher', decimals: 2 }) as const satisfies Spec;
const latency = (name: string, unit = 'ms') => ({ name, unit, better: 'lower', decimals: 2 }) as const satisfies Spec;
const perGpu = <B extends PerGpuBase>(perGpuOf: B, name: string, unit: string) => ({ name, unit, better: 'higher', decimals: 2, perGpuOf }) as const satisfies Spec;

/** The throughputs that also have a per-GPU metric, so configurations of different sizes compare on the same hardware. */
export const PER_GPU_BASES = ['total_token_throughput', 'output_throughput', 'request_throughput'] as const;
export type PerGpuBase = (typeof PER_GPU_BASES)[number];
/** `total_token_throughput_per_gpu`: a per-GPU metric's key is its throughput's with `_per_gpu`. */
export type PerGpuMetricKey = `${PerGpuBase}_per_gpu`;
export const PER_GPU_METRIC_KEYS = PER_GPU_BASES.map((base) => `${base}_per_gpu` as const) as readonly PerGpuMetricKey[];

const STATS = { mean: 'Mean', median: 'Median', std: 'Std' } as const;
const statSpecs = Object.fromEntries(
  (Object.keys(LATENCY_NAMES) as LatencyMetric[]).flatMap((m) => (Object.keys(STATS) as (keyof typeof STATS)[]).map((stat) => [`${stat}_${m}_ms`, latency(`${STATS[stat]} ${LATENCY_NAMES[m]}`)])),
) as Record<`${keyof typeof STATS}_${LatencyMetric}_ms`, ReturnType<typeof latency>>;

/** Every fixed metric (bench-result's BENCH_METRIC_KEYS); percentiles are open-ended and described by `metricSpec`. */
export const METRIC_CATALOGUE = {
  completed: count('Successful requests', 'requests'),
  failed: count('Failed requests', 'requests'),
  max_concurrency: count('Maximum request concurrency', 'requests'),
  request_rate: setting('Request rate configured', 'req/s'),
  duration: setting('Benchmark duration', 's'),
  total_input_tokens: count('Total input tokens', 'tokens'),
  total_output_tokens: count('Total generated tokens', 'tokens'),
  request_throughput: rate('Request throughput', 'req/s'),
  request_goodput: rate('Request goodput', 'req/s'),
  output_throughput: rate('Output token throughput', 'tok/s'),
  max_output_tokens_per_s: rate('Peak output token throughput', 'tok/s'),
  max_concurrent_requests: count('Peak concurrent requests', 'requests'),
  total_token_throughput: rate('Total token throughput', 'tok/s'),
  ...statSpecs,
  spec_decode_acceptance_rate: rate('Acceptance rate', '%'),
  spec_decode_acceptance_length: rate('Acceptance length', 'tokens'),
  spec_decode_num_drafts: count('Drafts', 'drafts'),
  spec_decode_draft_tokens: count('Draft tokens', 'tokens'),
  spec_decode_accepted_tokens: count('Accepted tokens', 'tokens'),
  mean_latency_s: latency('Mean latency', 's'),
  total_token_throughput_per_gpu: perGpu('total_token_throughput', 'Total token throughput per GPU', 'tok/s/GPU'),
  output_throughput_per_gpu: perGpu('output_throughput', 'Output token throughput per GPU', 'tok/s/GPU'),
  request_throughput_per_gpu: perGpu('request_throughput', 'Request throughput per GPU', 'req/s/GPU'),
} as const satisfies Record<BenchMetricKey | PerGpuMetricKey, Spec>;

/** A key the catalogue knows: a fixed metric, a per-GPU one or a latency percentile. */
export type MetricKey = BenchMetricKey | PerGpuMetricKey | `p${number}_${LatencyMetric}_ms`;

const FIXED: ReadonlyMap<string, MetricSpec> = new Map(Object.entries(METRIC_CATALOGUE).map(([key, spec]) => [key, { key, ...spec }]));

/** The catalogue entry of a key: a fixed metric or a latency percentile (`p99_ttft_ms`, `p99.9_itl_ms`). */
export function metricSpec(key: MetricKey): MetricSpec;
export function metricSpec(key: string): MetricSpec | undefined;
export function metricSpec(key: string): MetricSpec | undefined {
  const fixed = FIXED.get(key);
  if (fixed) return fixed;
  const percentile = parsePercentileKey(key);
  return percentile ? { key, ...latency(`P${percentile.percentile} ${LATENCY_NAMES[percentile.metric]}`) } : undefined;
}

/** Decimals a metric is shown with; a key the catalogue does not know shows two. */
export function metricDecimals(key: string): number {
  return metricSpec(key)?.decimals ?? 2;
}

export type MetricValues = Readonly<Record<string, number | null | undefined>>;

/** A trial (its result entry, when it has one) or a library entry (its benchmark result itself). */
type Holding<R> = { readonly result?: { readonly result: R } | undefined } | { readonly result: R };

/**
 * What may say how many GPUs the measured server held: a trial (`gpuCount`), a result entry (`gpuCount`: set for a
 * study's run, and for an import only when the user gave it), or a trial holding such an entry.
 */
type Sized = { readonly gpuCount?: number | undefined };

/** The benchmark result a trial or a library entry holds. */
function heldResult<R extends object>(source: Holding<R>): R | undefined {
  const held = source.result;
  if (held === undefined) return undefined;
  return 'result' in held ? (held as { readonly result: R }).result : (held as R);
}

/** Whatever holds measured metrics. */
export type MetricSource = Holding<Measured> & Sized;
type Measured = { readonly metrics: MetricValues };

function metricsOf(source: MetricSource): MetricValues | undefined {
  return heldResult<Measured>(source)?.metrics;
}

/**
 * The GPUs the measured server held: the source's own count, else that of the entry it holds, else `fallbackGpus`
 * (a trial of a project written before trials had their own count: `trialGpuCount`); null when nobody says.
 */
export function gpuCountOf(source: Sized & { readonly result?: unknown }, fallbackGpus?: number): number | null {
  if (typeof source.gpuCount === 'number' && source.gpuCount > 0) return source.gpuCount;
  const held = source.result as { gpuCount?: unknown } | undefined;
  if (held !== undefined && held !== null && typeof held === 'object' && typeof held.gpuCount === 'number' && held.gpuCount > 0) return held.gpuCount;
  return fallbackGpus !== undefined && fallbackGpus > 0 ? fallbackGpus : null;
}

const isDerived = (key: string) => (DERIVED_METRIC_KEYS as readonly string[]).includes(key);

/** The throughput a per-GPU key divides, or undefined for any other key. */
export function perGpuBaseOf(key: string): PerGpuBase | undefined {
  return FIXED.get(key)?.perGpuOf;
}

/**
 * A metric of a trial or a result; null when it was not measured. A derived metric an older result lacks is derived
 * as new results get it (`withDerivedMetrics`): `mean_latency_s` from mean E2EL. A per-GPU metric is its throughput
 * over the GPUs the server held (`gpuCountOf`), null where that count is not known.
 */
export function metricOf(source: MetricSource, key: string, fallbackGpus?: number): number | null {
  const metrics = metricsOf(source);
  if (!metrics) return null;
  const base = perGpuBaseOf(key);
  if (base !== undefined) {
    const value = metricOf(source, base);
    const gpus = gpuCountOf(source, fallbackGpus);
    return value === null || gpus === null ? null : value / gpus;
  }
  const value = metrics[key];
  if (typeof value === 'number') return value;
  if (!isDerived(key)) return null;
  const derived = withDerivedMetrics(metrics as BenchMetrics)[key];
  return typeof derived === 'number' ? derived : null;
}

/**
 * Every metric of a trial or a result as `metricOf` reads each: the measured ones, the derived ones an older result
 * lacks, and the per-GPU throughputs where the GPU count is known.
 */
export function metricValuesOf(source: MetricSource, fallbackGpus?: number): MetricValues {
  const metrics = metricsOf(source) ?? {};
  const out: Record<string, number | null | undefined> = { ...metrics };
  for (const key of [...DERIVED_METRIC_KEYS, ...PER_GPU_METRIC_KEYS]) {
    if (typeof out[key] === 'number') continue;
    const value = metricOf(source, key, fallbackGpus);
    if (value !== null) out[key] = value;
  }
  return out;
}

/** Whatever may carry within-run intervals (`BenchResult.intervals`). */
type IntervalSource = Holding<WithIntervals> & Sized;
type WithIntervals = { readonly intervals?: { readonly values: Readonly<Record<string, { low: number; high: number }>> } | undefined };

/**
 * The within-run confidence interval of a metric of a trial or a result; null when it has none. A per-GPU metric's is
 * its throughput's over the same GPU count (a constant: the interval scales with it).
 */
export function metricInterval(source: IntervalSource, key: string, fallbackGpus?: number): { low: number; high: number } | null {
  const base = perGpuBaseOf(key);
  if (base !== undefined) {
    const interval = metricInterval(source, base);
    const gpus = gpuCountOf(source, fallbackGpus);
    return interval === null || gpus === null ? null : { low: interval.low / gpus, high: interval.high / gpus };
  }
  return heldResult<WithIntervals>(source)?.intervals?.values[key] ?? null;
}
