import type { EnglishReportMessages, ReportMessageKey } from './en';

/** What a language of the report holds: every key of `en.ts`, each a string. */
export type ReportMessages = { readonly [K in ReportMessageKey]: string };

/** The placeholder names in a message: "Stage {n}: {label}" → "n" | "label". */
export type PlaceholdersOf<S extends string> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersOf<Rest> : never;

/** The keys of a translation (declared `as const`) whose placeholders are not exactly the English message's. */
export type MismatchedPlaceholders<T extends ReportMessages> = {
  [K in ReportMessageKey]: [PlaceholdersOf<T[K]>] extends [PlaceholdersOf<EnglishReportMessages[K]>]
    ? [PlaceholdersOf<EnglishReportMessages[K]>] extends [PlaceholdersOf<T[K]>]
      ? never
      : K
    : K;
}[ReportMessageKey];

/** `true` when every placeholder matches; otherwise the type names the keys that do not, so assigning `true` fails. */
export type SamePlaceholders<T extends ReportMessages> = [MismatchedPlaceholders<T>] extends [never] ? true : { mismatched: MismatchedPlaceholders<T> };

export type ReportParams<K extends ReportMessageKey> = Record<PlaceholdersOf<EnglishReportMessages[K]>, string | number>;
export type ReportParamsArg<K extends ReportMessageKey> = [PlaceholdersOf<EnglishReportMessages[K]>] extends [never] ? [] : [params: ReportParams<K>];

/**
 * English words that are also the Turkish ones: metric abbreviations, product and dataset names, and formats made
 * only of placeholders and signs. The completeness test allows these (and only these) to be equal in both languages.
 */
export const SAME_IN_EVERY_LANGUAGE: ReadonlySet<ReportMessageKey> = new Set<ReportMessageKey>([
  'format.list',
  'regression.item',
  'scenario.verdict',
  'stage.metricHeader',
  'decision.engineOther',
  'metric.p99_ttft_ms',
  'workload.sharegpt',
  'setup.model',
  'versus.engineChanged',
  'versus.metricChange',
  'problem.gigabytes',
  'refusal.knob',
  'refusal.gpuSm',
  'failure.cause',
  'basis.sizes.one',
]);
