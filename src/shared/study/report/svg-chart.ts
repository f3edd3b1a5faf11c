import { escapeHtml } from './escape';

/**
 * A horizontal bar chart as one inline SVG string: no script, font or image, so the report stays one file that
 * opens anywhere. Horizontal bars because the labels are configuration names, too long to sit under a column.
 */

export interface ChartBar {
  /** Index into `series`. */
  series: number;
  value: number | null;
  /** Shown instead of a bar when there is no value ("failed", "rejected"). */
  missing?: string;
  tone?: 'kept' | 'regression';
  /** The value's interval, drawn as an error bar across the bar's end. */
  interval?: { low: number; high: number } | null;
}

export interface ChartGroup {
  label: string;
  bars: ChartBar[];
}

export interface BarChartSpec {
  title: string;
  unit: string;
  series: { name: string; color: string }[];
  groups: ChartGroup[];
  /** Numbers in the report's locale. */
  format: (value: number) => string;
  /** Shown for a bar without a value or a reason of its own. */
  noResult: string;
}

const WIDTH = 760;
const LABEL_WIDTH = 260;
const VALUE_WIDTH = 110;
const BAR_HEIGHT = 14;
const BAR_GAP = 3;
const GROUP_GAP = 10;
const MAX_LABEL_CHARS = 40;
const TONE_COLORS = { kept: '#1a7f37', regression: '#c62828' } as const;

export function renderBarChart(spec: BarChartSpec): string {
  const formatNumber = spec.format;
  const values = spec.groups.flatMap((g) => g.bars.flatMap((b) => [b.value, b.interval?.high ?? null])).filter((v): v is number => v !== null && v > 0);
  const max = values.length > 0 ? Math.max(...values) : 1;
  const area = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  const legend = spec.series.length > 1;
  let y = legend ? 44 : 28;
  const parts: string[] = [];
  parts.push(`<text x="0" y="16" class="chart-title" font-size="13" font-weight="600">${escapeHtml(`${spec.title} (${spec.unit})`)}</text>`);
  if (legend) {
    let x = 0;
    for (const s of spec.series) {
      parts.push(`<rect x="${x}" y="26" width="10" height="10" fill="${s.color}"/>`);
      parts.push(`<text x="${x + 14}" y="35" font-size="11">${escapeHtml(s.name)}</text>`);
      x += 24 + s.name.length * 7;
    }
  }
  for (const group of spec.groups) {
    const groupHeight = group.bars.length * (BAR_HEIGHT + BAR_GAP) - BAR_GAP;
    const short = group.label.length > MAX_LABEL_CHARS ? `${group.label.slice(0, MAX_LABEL_CHARS - 1)}…` : group.label;
    parts.push(
      `<text x="${LABEL_WIDTH - 8}" y="${y + groupHeight / 2 + 4}" text-anchor="end" font-size="11"><title>${escapeHtml(group.label)}</title>${escapeHtml(short)}</text>`,
    );
    for (const bar of group.bars) {
      const series = spec.series[bar.series];
      const color = bar.tone ? TONE_COLORS[bar.tone] : (series?.color ?? '#57606a');
      const name = series && spec.series.length > 1 ? `${series.name}: ` : '';
      if (bar.value !== null && bar.value > 0) {
        const w = Math.max(1, (bar.value / max) * area);
        parts.push(
          `<rect x="${LABEL_WIDTH}" y="${y}" width="${w.toFixed(1)}" height="${BAR_HEIGHT}" fill="${color}"><title>${escapeHtml(`${group.label} — ${name}${formatNumber(bar.value)} ${spec.unit}`)}</title></rect>`,
        );
        let labelAt = LABEL_WIDTH + w + 4;
        if (bar.interval) {
          const lo = LABEL_WIDTH + Math.max(0, (bar.interval.low / max) * area);
          const hi = LABEL_WIDTH + Math.max(0, (bar.interval.high / max) * area);
          const mid = y + BAR_HEIGHT / 2;
          parts.push(
            `<path class="error-bar" d="M${lo.toFixed(1)} ${mid}H${hi.toFixed(1)}M${lo.toFixed(1)} ${y + 3}V${y + BAR_HEIGHT - 3}M${hi.toFixed(1)} ${y + 3}V${y + BAR_HEIGHT - 3}" stroke="#24292f" stroke-width="1.2" fill="none"><title>${escapeHtml(`${formatNumber(bar.interval.low)} – ${formatNumber(bar.interval.high)} ${spec.unit}`)}</title></path>`,
          );
          labelAt = Math.max(labelAt, hi + 4);
        }
        parts.push(`<text x="${labelAt.toFixed(1)}" y="${y + BAR_HEIGHT - 3}" font-size="11">${escapeHtml(formatNumber(bar.value))}</text>`);
      } else {
        parts.push(`<text x="${LABEL_WIDTH + 4}" y="${y + BAR_HEIGHT - 3}" font-size="11" font-style="italic" fill="#8c959f">${escapeHtml(bar.missing ?? spec.noResult)}</text>`);
      }
      y += BAR_HEIGHT + BAR_GAP;
    }
    y += GROUP_GAP - BAR_GAP;
  }
  const height = y + 4;
  return `<svg role="img" aria-label="${escapeHtml(spec.title)}" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif">${parts.join('')}</svg>`;
}
