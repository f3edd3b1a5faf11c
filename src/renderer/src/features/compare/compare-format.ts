import type { MetricKey } from '../../../../shared/results/metrics';
import { fixedNumber as fixed } from '../../components/metric-text';
import { t, type PlainMessageKey } from '../../i18n';
import type { MetricInfo } from './compare-model';

/** A signed number with a real minus sign: "+1.25", "−0.50", "0.00". */
export function formatSigned(value: number, digits = 2): string {
  const text = fixed(digits).format(Math.abs(value));
  if (Number(text.replace(',', '.')) === 0) return fixed(digits).format(0);
  return `${value < 0 ? '−' : '+'}${text}`;
}

/** "+1.25 (+2.0%)"; the percentage is left out when there is none (a baseline of 0). */
export function formatDelta(delta: number, deltaPct: number | null): string {
  return deltaPct === null ? formatSigned(delta) : `${formatSigned(delta)} (${formatSigned(deltaPct, 1)}%)`;
}

/** Metric names the UI translates, by catalogue key; any other is named by the catalogue. */
const METRIC_TITLES: Readonly<Partial<Record<MetricKey, PlainMessageKey>>> = {
  total_token_throughput: 'metric.totalTokenThroughput',
  output_throughput: 'metric.outputThroughput',
  request_throughput: 'metric.requestThroughput',
  total_token_throughput_per_gpu: 'metric.totalTokenThroughputPerGpu',
  output_throughput_per_gpu: 'metric.outputThroughputPerGpu',
  request_throughput_per_gpu: 'metric.requestThroughputPerGpu',
  mean_latency_s: 'metric.meanLatency',
  spec_decode_acceptance_rate: 'metric.specAcceptanceRate',
  spec_decode_acceptance_length: 'metric.specAcceptanceLength',
  completed: 'metric.completed',
  failed: 'metric.failed',
  max_concurrency: 'metric.maxConcurrency',
  request_rate: 'metric.requestRate',
  duration: 'metric.duration',
  total_input_tokens: 'metric.totalInputTokens',
  total_output_tokens: 'metric.totalOutputTokens',
  request_goodput: 'metric.requestGoodput',
  max_output_tokens_per_s: 'metric.maxOutputTokensPerS',
  max_concurrent_requests: 'metric.maxConcurrentRequests',
  spec_decode_num_drafts: 'metric.specDrafts',
  spec_decode_draft_tokens: 'metric.specDraftTokens',
  spec_decode_accepted_tokens: 'metric.specAcceptedTokens',
};
const STAT_PATTERN = /^(mean|median)_(ttft|tpot|itl|e2el)_ms$/;

/** A metric's name in the UI's language; percentiles and latency names (P99 TTFT) are the same in every language. */
export function metricTitle(metric: MetricInfo): string {
  const key = METRIC_TITLES[metric.key as MetricKey];
  if (key) return t(key);
  const stat = STAT_PATTERN.exec(metric.key);
  if (stat) return t(stat[1] === 'mean' ? 'metric.mean' : 'metric.median', { latency: stat[2]!.toUpperCase() });
  return metric.title;
}
