import { metricDecimals } from '../../../shared/results/metrics';
import { formattingLocale, t } from '../i18n';

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

/** A metric as shown: with the catalogue's decimals (two; counts whole), "—" when there is no number. */
export function formatMetric(key: string, value: number | null | undefined): string {
  if (value === null || value === undefined) return t('results.none');
  return fixedNumber(metricDecimals(key)).format(value);
}
