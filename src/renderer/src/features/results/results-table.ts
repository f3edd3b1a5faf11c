import { getAdapter } from '../../../../shared/engines';
import { metricOf, type MetricKey } from '../../../../shared/results/metrics';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { foldForSearch } from '../../components/search-text';
import { sortRows, type SortDirection } from '../../components/sort-rows';
import { formattingLocale, t, type PlainMessageKey } from '../../i18n';
import { resultTitle } from './result-title';

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(formattingLocale(), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

export function engineLabel(entry: ResultEntry): string | null {
  const p = entry.result.provenance;
  if (!p?.engine) return null;
  return [getAdapter(p.engine).displayName, p.engineVersion].filter(Boolean).join(' ');
}

export function gpuLabel(entry: ResultEntry): string | null {
  const gpu = entry.result.provenance?.gpu;
  if (!gpu?.model) return null;
  return gpu.count && gpu.count > 1 ? t('results.gpuOf', { count: gpu.count, model: gpu.model }) : gpu.model;
}

/** One word per argv element, quoted for a POSIX shell when it needs it, so the line can be pasted as is. */
export function shellJoin(argv: string[]): string {
  return argv.map((word) => (word !== '' && /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export type ColumnId =
  | 'title'
  | 'kind'
  | 'status'
  | 'engine'
  | 'model'
  | 'gpu'
  | 'completed'
  | 'duration'
  | 'output_throughput'
  | 'total_token_throughput'
  | 'total_token_throughput_per_gpu'
  | 'mean_ttft_ms'
  | 'mean_tpot_ms'
  | 'mean_e2el_ms'
  | 'mean_latency_s'
  | 'added';

export interface Column {
  id: ColumnId;
  label: PlainMessageKey;
  /** Set for columns that show a metric: right-aligned, formatted by formatMetric. */
  metric?: MetricKey;
  /** The value sorted on; null sorts last in either direction. */
  sortValue(entry: ResultEntry): string | number | null;
}

const metricColumn = (id: Extract<ColumnId, MetricKey>, label: PlainMessageKey): Column => ({
  id,
  label,
  metric: id,
  sortValue: (e) => metricOf(e, id),
});

export const COLUMNS: readonly Column[] = [
  { id: 'title', label: 'results.col.title', sortValue: (e) => resultTitle(e) },
  { id: 'kind', label: 'results.col.kind', sortValue: (e) => e.kind },
  { id: 'status', label: 'results.col.status', sortValue: (e) => e.status },
  { id: 'engine', label: 'results.col.engine', sortValue: engineLabel },
  { id: 'model', label: 'results.col.model', sortValue: (e) => e.result.provenance?.model ?? null },
  { id: 'gpu', label: 'results.col.gpu', sortValue: gpuLabel },
  metricColumn('completed', 'results.col.completed'),
  metricColumn('duration', 'results.col.duration'),
  metricColumn('output_throughput', 'results.col.outputThroughput'),
  metricColumn('total_token_throughput', 'results.col.totalThroughput'),
  // Known where the entry has its GPU count: a study's run, or an import the user sized.
  metricColumn('total_token_throughput_per_gpu', 'results.col.totalThroughputPerGpu'),
  metricColumn('mean_ttft_ms', 'results.col.meanTtft'),
  metricColumn('mean_tpot_ms', 'results.col.meanTpot'),
  metricColumn('mean_e2el_ms', 'results.col.meanE2el'),
  metricColumn('mean_latency_s', 'results.col.meanLatency'),
  { id: 'added', label: 'results.col.added', sortValue: (e) => e.addedAt },
];

export interface SortOrder {
  column: ColumnId;
  direction: SortDirection;
}

export function sortEntries(entries: readonly ResultEntry[], order: SortOrder): ResultEntry[] {
  const column = COLUMNS.find((c) => c.id === order.column) ?? COLUMNS[0]!;
  return sortRows(entries, (entry) => column.sortValue(entry), order.direction);
}

export interface ResultFilter {
  text: string;
  kind: 'all' | ResultEntry['kind'];
  status: 'all' | ResultEntry['status'];
}

export function filterEntries(entries: readonly ResultEntry[], filter: ResultFilter): ResultEntry[] {
  const needle = foldForSearch(filter.text.trim());
  return entries.filter((e) => {
    if (filter.kind !== 'all' && e.kind !== filter.kind) return false;
    if (filter.status !== 'all' && e.status !== filter.status) return false;
    if (!needle) return true;
    const p = e.result.provenance;
    const haystack = foldForSearch([e.title, resultTitle(e), p?.model, engineLabel(e), p?.engine, p?.host].filter(Boolean).join('\n'));
    return haystack.includes(needle);
  });
}
