export type SortDirection = 'ascending' | 'descending';
export type SortValue = string | number | null;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/**
 * The rows in the order of their values: numbers by value, text by a collator that reads digits as numbers ("r2"
 * before "r10"). Stable, so equal values keep the order they came in; a missing value (null) goes last either way.
 */
export function sortRows<T>(rows: readonly T[], valueOf: (row: T) => SortValue, direction: SortDirection): T[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: valueOf(row) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null) return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      const diff = typeof a.value === 'number' && typeof b.value === 'number' ? a.value - b.value : collator.compare(String(a.value), String(b.value));
      return diff !== 0 ? sign * diff : a.index - b.index;
    })
    .map((entry) => entry.row);
}
