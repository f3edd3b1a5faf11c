import en, { type ReportMessageKey } from './messages/en';
import tr from './messages/tr';
import type { ReportMessages, ReportParams, ReportParamsArg } from './messages/catalogue';
import type { Change } from '../verdict';

/**
 * The report's words and numbers in one language: messages from the catalogue (`messages/`), numbers and dates by
 * `Intl` in the reader's locale (en-US: 1.61, 12,054; tr-TR: 1,61, 12.054). Numbers keep a real minus sign, so a
 * sign is never lost to a line break or a font. The CSV does not use this: it is for machines and stays the same in
 * every language.
 */

export const REPORT_LANGS = ['en', 'tr'] as const;
export type ReportLang = (typeof REPORT_LANGS)[number];

export const REPORT_CATALOGUES: Readonly<Record<ReportLang, ReportMessages>> = { en, tr };
const LOCALES: Record<ReportLang, string> = { en: 'en-US', tr: 'tr-TR' };

/** The report language for a UI locale ("tr", "tr-TR"); English for any language the report does not have. */
export function reportLangOf(locale: string | undefined): ReportLang {
  const code = locale?.slice(0, 2).toLowerCase();
  return (REPORT_LANGS as readonly string[]).includes(code ?? '') ? (code as ReportLang) : 'en';
}

type PluralBase = ReportMessageKey extends infer K ? (K extends `${infer B}.one` ? B : never) : never;
type PluralParams<B extends PluralBase> = Omit<ReportParams<`${B}.other` & ReportMessageKey>, 'n'>;

export interface ReportText {
  readonly lang: ReportLang;
  /** The message as plain text, params inserted as given. */
  t<K extends ReportMessageKey>(key: K, ...params: ReportParamsArg<K>): string;
  /** The message with its own words passed through `escape` and params inserted as given (already markup). */
  markup<K extends ReportMessageKey>(key: K, escape: (text: string) => string, ...params: ReportParamsArg<K>): string;
  /** `base.one` for 1, else `base.other`, with `{n}` the count. */
  plural<B extends PluralBase>(base: B, n: number, params?: PluralParams<B>): string;
  /** Digits by magnitude: 2054, 149.7, 1.61, 0.62. */
  number(value: number): string;
  /** A whole number: a count, a seed. */
  integer(value: number): string;
  /** A number with a fixed count of decimals. */
  fixed(value: number, digits: number): string;
  /** A signed percentage, one decimal: "+18.7%", "−13.8%", "0.0%". */
  pct(pct: number): string;
  /** A percentage without a sign: a margin ("3%"), an interval level ("95%"). */
  percent(value: number): string;
  /** "−21.2% [−23.0, −19.5]": a change with its interval. */
  change(change: Change): string;
  /** A value with its interval: "1.84 [1.80, 1.88]". */
  interval(value: number, low: number, high: number): string;
  /** "2.70x". */
  factor(factor: number): string;
  /** "a, b and c". */
  list(items: readonly string[]): string;
  /** A timestamp as a date and time in UTC. */
  date(iso: string): string;
}

const PLACEHOLDER = /\{([A-Za-z]+)\}/g;

function fill(template: string, params: Record<string, string | number> | undefined, escape: (text: string) => string): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    out += escape(template.slice(last, match.index));
    out += params && Object.hasOwn(params, name) ? String(params[name]) : match[0];
    last = (match.index ?? 0) + match[0].length;
  }
  return out + escape(template.slice(last));
}

const plain = (text: string) => text;

export function reportText(lang: ReportLang = 'en'): ReportText {
  const messages = REPORT_CATALOGUES[lang];
  const locale = LOCALES[lang];
  const formats = new Map<number, Intl.NumberFormat>();
  // Grouping from five digits on, so a 4-digit throughput (2054) reads as one word in both languages.
  const fixed = (value: number, digits: number) => {
    let format = formats.get(digits);
    if (!format) {
      format = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: 'min2' as unknown as boolean });
      formats.set(digits, format);
    }
    return format.format(value).replace('-', '−');
  };
  const number = (value: number) => {
    const abs = Math.abs(value);
    return fixed(value, abs >= 1000 ? 0 : abs >= 100 ? 1 : 2);
  };
  const t = <K extends ReportMessageKey>(key: K, ...params: ReportParamsArg<K>) => fill(messages[key], params[0], plain);
  const percent = (value: number) => fill(messages['format.percent'], { value: Number.isInteger(value) ? fixed(value, 0) : fixed(value, 1) }, plain);
  const signed = (x: number) => {
    const rounded = Math.round(x * 10) / 10;
    return `${rounded > 0 ? '+' : rounded < 0 ? '−' : ''}${fixed(Math.abs(rounded), 1)}`;
  };
  const pct = (value: number) => {
    const rounded = Math.round(value * 10) / 10;
    return `${rounded > 0 ? '+' : rounded < 0 ? '−' : ''}${fill(messages['format.percent'], { value: fixed(Math.abs(rounded), 1) }, plain)}`;
  };
  const dates = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', hourCycle: 'h23' });
  return {
    lang,
    t,
    markup: (key, escape, ...params) => fill(messages[key], params[0], escape),
    plural: (base, n, params) => fill(messages[`${base}.${n === 1 ? 'one' : 'other'}` as ReportMessageKey], { ...(params ?? {}), n: fixed(n, 0) }, plain),
    number,
    integer: (value) => fixed(value, 0),
    fixed,
    pct,
    percent,
    change: (c) => fill(messages['format.change'], { pct: pct(c.pct), low: signed(c.low), high: signed(c.high) }, plain),
    interval: (value, low, high) => fill(messages['format.interval'], { value: number(value), low: number(low), high: number(high) }, plain),
    factor: (f) => fill(messages['format.factor'], { value: fixed(f, f >= 10 ? 1 : 2) }, plain),
    list: (items) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(messages['format.list'])}${messages['format.listLast']}${items.at(-1) as string}`),
    date: (iso) => {
      const when = new Date(iso);
      return Number.isNaN(when.getTime()) ? iso : dates.format(when);
    },
  };
}
