import type { MetricStat } from '../../../shared/study/run-stats';
import type { Trial } from '../../../shared/study/study';
import { formatMetric } from './metric-text';
import { t } from '../i18n';

/** "[80.00, 84.00]" in the metric's decimals and the UI's number format; null without an interval. */
export function intervalText(key: string, stat: Pick<MetricStat, 'low' | 'high'> | null): string | null {
  if (!stat || stat.low === null || stat.high === null) return null;
  return `[${formatMetric(key, stat.low)}, ${formatMetric(key, stat.high)}]`;
}

/** "82.00 [80.00, 84.00]" — the value with its interval, in the UI's numbers. */
export function statText(key: string, stat: MetricStat): string {
  const interval = intervalText(key, stat);
  return interval ? `${formatMetric(key, stat.value)} ${interval}` : formatMetric(key, stat.value);
}

/** Where the interval comes from, in words: between repeated runs or within one run's requests. */
export function statTitle(key: string, stat: MetricStat): string {
  const text = statText(key, stat);
  if (stat.basis === 'runs') return t('compare.study.interval.runs', { stat: text, runs: stat.runs });
  if (stat.basis === 'requests') return t('compare.study.interval.requests', { stat: text });
  return text;
}

/** "warm-up: 8 requests, 12.4 s" or "warm-up failed: …"; null when the trial had no warm-up. */
export function warmupNote(trial: Pick<Trial, 'warmup'>): string | null {
  const w = trial.warmup;
  if (!w) return null;
  if (w.error) return t('compare.study.warmup.failed', { error: w.error });
  return w.seconds === undefined ? t('compare.study.warmup.requests', { requests: w.requests }) : t('compare.study.warmup.timed', { requests: w.requests, seconds: w.seconds.toFixed(1) });
}
