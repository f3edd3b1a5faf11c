import { formattingLocale, t } from '../i18n';

/** Counted metrics: shown as whole numbers. */
const COUNT_METRICS = new Set(['completed', 'failed', 'max_concurrency', 'max_concurrent_requests', 'total_input_tokens', 'total_output_tokens']);

// No digit grouping: the numbers read exactly as the benchmark client prints them.
const formats = new Map<string, Intl.NumberFormat>();

/** A number with exactly `digits` decimals in the UI's number format, without digit grouping. */
export function fixedNumber(digits: number): Intl.NumberFormat {
  const key = `${formattingLocale()}:${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(formattingLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    formats.set(key, format);
  }
  return format;
}

/** A metric as shown: two decimals, counts whole, "—" when there is no number. */
export function formatMetric(key: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return t('results.none');
  return fixedNumber(COUNT_METRICS.has(key) ? 0 : 2).format(value);
}
