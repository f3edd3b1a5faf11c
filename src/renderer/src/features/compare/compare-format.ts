import { formattingLocale } from '../../i18n';

const formats = new Map<string, Intl.NumberFormat>();
function fixed(digits: number): Intl.NumberFormat {
  const key = `${formattingLocale()}:${digits}`;
  let format = formats.get(key);
  if (!format) {
    // No grouping, like the Results page: numbers read as the benchmark client prints them.
    format = new Intl.NumberFormat(formattingLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
    formats.set(key, format);
  }
  return format;
}

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
