import type { SortDirection } from './sort-rows';

/**
 * A column header that sorts its table: a button with ▲/▼ on the sorted column (↕ on the others) and `aria-sort`
 * on the header, so a screen reader says which column the rows follow. A `<th>` in a table, or a `columnheader` cell
 * of a grid drawn with divs (`as="div"`).
 */
export function SortableHeader({
  label,
  sorted,
  numeric = false,
  onSort,
  as = 'th',
}: {
  label: string;
  /** The direction when the rows follow this column, else null. */
  sorted: SortDirection | null;
  /** A column of numbers: aligned to the right. */
  numeric?: boolean;
  onSort: () => void;
  as?: 'th' | 'div';
}) {
  const active = sorted !== null;
  const button = (
    <button type="button" className={`sort-button${active ? ' is-active' : ''}`} onClick={onSort}>
      {label}
      <span className={`sort-mark${active ? ` is-${sorted}` : ''}`} aria-hidden="true">
        {sorted === null ? '↕' : sorted === 'ascending' ? '▲' : '▼'}
      </span>
    </button>
  );
  const className = numeric ? 'num' : undefined;
  const ariaSort = sorted ?? 'none';
  return as === 'th' ? (
    <th scope="col" className={className} aria-sort={ariaSort}>
      {button}
    </th>
  ) : (
    <div role="columnheader" className={className} aria-sort={ariaSort}>
      {button}
    </div>
  );
}
