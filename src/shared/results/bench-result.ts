// One normalized record per benchmark run, keyed by vLLM's `--save-result` JSON names (vllm/benchmarks/serve.py), so a
// number from any client's text or JSON lands under the name `vllm bench serve` gives it.
import { z } from 'zod';
import { ENGINE_IDS } from '../engines/types';

export const BENCH_RESULT_SCHEMA_VERSION = 1;

/** The latency metrics `--percentile-metrics` chooses from. */
export const LATENCY_METRICS = ['ttft', 'tpot', 'itl', 'e2el'] as const;
export type LatencyMetric = (typeof LATENCY_METRICS)[number];

/** Run-level metrics, in the order vLLM writes them. */
export const RUN_METRIC_KEYS = [
  'completed',
  'failed',
  'max_concurrency',
  'request_rate',
  'duration',
  'total_input_tokens',
  'total_output_tokens',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'max_output_tokens_per_s',
  'max_concurrent_requests',
  'total_token_throughput',
] as const;

/**
 * Speculative decoding, as `vllm bench serve` reads it from the server's /metrics and writes it (its "Speculative
 * Decoding" section). The acceptance rate is in percent; the per-position rates are a list in vLLM's JSON, kept in
 * `extra` as `spec_decode_per_position_acceptance_rates.N` (fractions, as the JSON has them).
 */
export const SPEC_DECODE_METRIC_KEYS = [
  'spec_decode_acceptance_rate',
  'spec_decode_acceptance_length',
  'spec_decode_num_drafts',
  'spec_decode_draft_tokens',
  'spec_decode_accepted_tokens',
] as const;

/** vLLM's JSON name of the per-position acceptance list, and the `extra` key of one position in it. */
export const SPEC_DECODE_PER_POSITION_KEY = 'spec_decode_per_position_acceptance_rates';
export function perPositionAcceptanceKey(position: number): string {
  return `${SPEC_DECODE_PER_POSITION_KEY}.${position}`;
}

/** Counted, so whole numbers. */
const COUNT_KEYS = new Set<string>([
  'completed',
  'failed',
  'max_concurrency',
  'total_input_tokens',
  'total_output_tokens',
  'spec_decode_num_drafts',
  'spec_decode_draft_tokens',
  'spec_decode_accepted_tokens',
]);

/** Computed here from a measured one: mean latency per request in seconds, from mean E2EL. */
export const DERIVED_METRIC_KEYS = ['mean_latency_s'] as const;

const STAT_KEYS = LATENCY_METRICS.flatMap((m) => [`mean_${m}_ms`, `median_${m}_ms`, `std_${m}_ms`] as const);

/**
 * Every fixed metric key. Percentiles are open-ended (`p99_ttft_ms`, `p99.9_itl_ms`: one per
 * `--metric-percentiles` value) and recognised by `isPercentileKey`.
 */
export const BENCH_METRIC_KEYS = [...RUN_METRIC_KEYS, ...STAT_KEYS, ...SPEC_DECODE_METRIC_KEYS, ...DERIVED_METRIC_KEYS] as const;
export type BenchMetricKey = (typeof BENCH_METRIC_KEYS)[number];

const FIXED_KEYS = new Set<string>(BENCH_METRIC_KEYS);
const PERCENTILE_KEY = /^p(\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$/;

/** `p99_ttft_ms`: vLLM's percentile name, `p` + the percentile as it prints it (`99`, `99.9`). */
export function percentileKey(percentile: string, metric: LatencyMetric): string {
  return `p${percentile}_${metric}_ms`;
}

export function isPercentileKey(key: string): boolean {
  return PERCENTILE_KEY.test(key);
}

/** `p99.9_itl_ms` → percentile "99.9" of ITL; null for any other key. */
export function parsePercentileKey(key: string): { percentile: string; metric: LatencyMetric } | null {
  const match = PERCENTILE_KEY.exec(key);
  return match ? { percentile: match[1]!, metric: match[2] as LatencyMetric } : null;
}

export function isBenchMetricKey(key: string): boolean {
  return FIXED_KEYS.has(key) || isPercentileKey(key);
}

/** A measured number; null when the client printed `inf`, `not set` (or wrote null / NaN). */
const MetricValue = z.number().finite().nullable();
const CountValue = z.number().int().nonnegative().nullable();

const fixedShape = Object.fromEntries(
  BENCH_METRIC_KEYS.map((key) => [key, (COUNT_KEYS.has(key) ? CountValue : MetricValue).optional()]),
) as Record<BenchMetricKey, z.ZodOptional<typeof MetricValue>>;

export const BenchMetricsSchema = z
  .object(fixedShape)
  .catchall(MetricValue)
  .superRefine((metrics, ctx) => {
    for (const key of Object.keys(metrics)) {
      if (!isBenchMetricKey(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is not a benchmark metric; put it in "extra".` });
    }
  });
export type BenchMetrics = z.infer<typeof BenchMetricsSchema>;

/** Where an imported record came from: the file, its detected format and the block's position in it. */
export const RESULT_FORMATS = ['vllm-text', 'sglang-text', 'vllm-json', 'vllm-jsonl', 'sglang-jsonl'] as const;
export type ResultFormat = (typeof RESULT_FORMATS)[number];

export const ResultSourceSchema = z.object({
  file: z.string(),
  format: z.enum(RESULT_FORMATS),
  /** 0-based position of the record among the file's records. */
  index: z.number().int().nonnegative(),
  /** 1-based line where the block (or JSON object) starts. */
  line: z.number().int().positive(),
});
export type ResultSource = z.infer<typeof ResultSourceSchema>;

const Text = z.string().min(1);

/**
 * Everything needed to reproduce and trust a number. All optional because an imported file carries little of it;
 * a measured run fills it all. Environment variables by name only: values may be secrets.
 */
export const ResultProvenanceSchema = z.object({
  engine: z.enum(ENGINE_IDS).optional(),
  engineVersion: Text.optional(),
  serverArgv: z.array(z.string()).optional(),
  serverEnvNames: z.array(Text).optional(),
  model: Text.optional(),
  modelRevision: Text.optional(),
  tokenizer: Text.optional(),
  gpu: z
    .object({ model: Text.optional(), count: z.number().int().positive().optional(), driver: Text.optional(), cuda: Text.optional() })
    .optional(),
  host: Text.optional(),
  /** The box said it is the simulated GPU box: these numbers are a simulation, never to be taken as real. */
  simulated: z.boolean().optional(),
  client: z
    .object({
      /** `vllm bench serve` or `sglang.bench_serving`. */
      name: Text.optional(),
      version: Text.optional(),
      /** `--backend` (vLLM also writes it as `endpoint_type`). */
      backend: Text.optional(),
      endpoint: Text.optional(),
      label: Text.optional(),
    })
    .optional(),
  dataset: z.object({ name: Text.optional(), path: Text.optional(), sha256: Text.optional() }).optional(),
  workload: z
    .object({
      numPrompts: z.number().int().nonnegative().optional(),
      /** Requests per second; `inf` sends all at once, `trace` replays timestamps (SGLang). */
      requestRate: z.union([z.number().nonnegative(), z.literal('inf'), z.literal('trace')]).optional(),
      /** `inf`: constant gaps between requests (`--burstiness inf`, vLLM 0.11.1 and later). */
      burstiness: z.union([z.number().positive(), z.literal('inf')]).optional(),
      maxConcurrency: z.number().int().positive().nullable().optional(),
      rampUp: z.object({ strategy: Text, startRps: z.number().nullable(), endRps: z.number().nullable() }).optional(),
      randomInputLen: z.number().int().nonnegative().optional(),
      randomOutputLen: z.number().int().nonnegative().optional(),
      randomRangeRatio: z.number().nonnegative().optional(),
      sharegptOutputLen: z.number().int().nonnegative().nullable().optional(),
    })
    .optional(),
  timestamps: z
    .object({
      /** The client's own stamp, as written (vLLM: `20251002-141530`). */
      clientDate: Text.optional(),
      startedAt: z.iso.datetime({ offset: true }).optional(),
      finishedAt: z.iso.datetime({ offset: true }).optional(),
    })
    .optional(),
  /** `--metadata KEY=VALUE` entries and other text fields the client wrote. */
  metadata: z.record(z.string(), z.string()).optional(),
});
export type ResultProvenance = z.infer<typeof ResultProvenanceSchema>;

/**
 * Bootstrap confidence intervals from the requests within the run (`vllm bench serve --save-detailed`), keyed like
 * the metrics; the per-request arrays themselves stay in the run's JSON file.
 */
export const ResultIntervalsSchema = z.object({
  level: z.number().gt(0).lt(1),
  requests: z.number().int().nonnegative(),
  resamples: z.number().int().positive(),
  values: z
    .record(z.string(), z.object({ low: z.number().finite(), high: z.number().finite() }))
    .superRefine((values, ctx) => {
      for (const key of Object.keys(values)) {
        if (!isBenchMetricKey(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is not a benchmark metric.` });
      }
    }),
});
export type ResultIntervals = z.infer<typeof ResultIntervalsSchema>;

export const BenchResultSchema = z.object({
  schemaVersion: z.literal(BENCH_RESULT_SCHEMA_VERSION),
  source: ResultSourceSchema.optional(),
  metrics: BenchMetricsSchema,
  /** Numbers the client reported that are not vLLM metrics (SGLang's `concurrency`, `accept_length`, …). */
  extra: z.record(z.string(), MetricValue),
  provenance: ResultProvenanceSchema.optional(),
  intervals: ResultIntervalsSchema.optional(),
});
export type BenchResult = z.infer<typeof BenchResultSchema>;

/**
 * Fills what follows from the measured numbers: `failed` = prompts − completed when the client did not say, and
 * `mean_latency_s` from mean E2EL. Never overwrites a measured value (runners in vLLM's layout print "Mean Latency(s)").
 */
export function withDerivedMetrics(metrics: BenchMetrics, numPrompts?: number): BenchMetrics {
  const out: BenchMetrics = { ...metrics };
  if (out.failed === undefined && numPrompts !== undefined && typeof out.completed === 'number' && numPrompts >= out.completed) {
    out.failed = numPrompts - out.completed;
  }
  if (out.mean_latency_s === undefined && typeof out.mean_e2el_ms === 'number') out.mean_latency_s = out.mean_e2el_ms / 1000;
  return out;
}

/** Metrics in a stable order: run metrics, each latency metric's mean, median, std and percentiles, speculative decoding, derived. */
export function orderMetrics(metrics: BenchMetrics): BenchMetrics {
  const percentilesOf = (metric: LatencyMetric) =>
    Object.keys(metrics)
      .map((key) => PERCENTILE_KEY.exec(key))
      .filter((m): m is RegExpExecArray => m !== null && m[2] === metric)
      .sort((a, b) => Number(a[1]) - Number(b[1]))
      .map((m) => m[0]);
  const order = [
    ...RUN_METRIC_KEYS,
    ...LATENCY_METRICS.flatMap((m) => [`mean_${m}_ms`, `median_${m}_ms`, `std_${m}_ms`, ...percentilesOf(m)]),
    ...SPEC_DECODE_METRIC_KEYS,
    ...DERIVED_METRIC_KEYS,
  ];
  const out: Record<string, number | null> = {};
  for (const key of order) {
    const value = metrics[key];
    if (value !== undefined) out[key] = value;
  }
  return out as BenchMetrics;
}
