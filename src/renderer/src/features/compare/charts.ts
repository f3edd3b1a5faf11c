// echarts options for the comparison's charts. Every chart has a title, named axes with units, a legend and a tooltip;
// colours come from the app's theme so the charts read the same in light and dark.
import type { EChartsCoreOption } from 'echarts/core';
import type { ChartTheme } from '../../components/EChart';
import type { CompareRow, ConcurrencyCurve, ConfigPoint, PercentileSpread } from './compare-model';

/** What the labels say; all texts come from the caller (translated there). */
export interface ChartTexts {
  title: string;
  xName: string;
  yName: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Tooltips are HTML: names typed by users are escaped, one line each. */
function htmlLines(lines: readonly string[]): string {
  return lines.map(escapeHtml).join('<br/>');
}

/** Every chart's axes in the theme's colours, the name centred along the axis. */
export function themedAxis(theme: ChartTheme) {
  return {
    nameLocation: 'middle' as const,
    nameTextStyle: { color: theme.muted, fontSize: 12 },
    axisLine: { lineStyle: { color: theme.border } },
    axisTick: { lineStyle: { color: theme.border } },
    axisLabel: { color: theme.muted },
    splitLine: { lineStyle: { color: theme.border } },
  };
}

function base(theme: ChartTheme, texts: ChartTexts) {
  const axis = themedAxis(theme);
  return {
    option: {
      backgroundColor: 'transparent',
      color: theme.palette,
      textStyle: { color: theme.text, fontFamily: 'inherit' },
      title: { text: texts.title, left: 8, top: 4, textStyle: { color: theme.text, fontSize: 14, fontWeight: 600 } },
      legend: { type: 'scroll', bottom: 4, textStyle: { color: theme.muted, width: 220, overflow: 'truncate' }, pageTextStyle: { color: theme.muted } },
      tooltip: {
        confine: true,
        backgroundColor: theme.background,
        borderColor: theme.border,
        textStyle: { color: theme.text },
      },
      grid: { left: 72, right: 28, top: 56, bottom: 80, containLabel: false },
    },
    axis,
  };
}

/** One error bar: at x, from low to high. */
export type ErrorBar = readonly [x: number | string, low: number, high: number];

interface ErrorBarApi {
  value: (dimension: number) => number;
  coord: (point: readonly [number, number]) => number[];
}

/** Half the width of an error bar's caps, in pixels. */
const CAP = 4;

/**
 * An echarts custom series drawing a vertical line with caps from low to high at each point, beside the series it
 * belongs to (same name: the legend hides both together). Silent: the point's own series carries the tooltip.
 */
export function errorBarSeries(name: string, bars: readonly ErrorBar[], color: string | undefined) {
  return {
    type: 'custom',
    name,
    silent: true,
    z: 3,
    data: bars.map((b) => [...b]),
    // y spans both ends, so the axis's extent takes the interval in.
    encode: { x: 0, y: [1, 2] },
    renderItem: (_params: unknown, api: ErrorBarApi) => {
      const x = api.value(0);
      const [px = 0, low = 0] = api.coord([x, api.value(1)]);
      const [, high = 0] = api.coord([x, api.value(2)]);
      const style = { stroke: color, lineWidth: 1.5 };
      return {
        type: 'group',
        children: [
          { type: 'line', shape: { x1: px, y1: low, x2: px, y2: high }, style },
          { type: 'line', shape: { x1: px - CAP, y1: low, x2: px + CAP, y2: low }, style },
          { type: 'line', shape: { x1: px - CAP, y1: high, x2: px + CAP, y2: high }, style },
        ],
      };
    },
  };
}

/** Bars of one metric, one per compared column; the tooltip says the value and its delta against the baseline. */
export function metricBarsOption(theme: ChartTheme, texts: ChartTexts, row: CompareRow, labels: ReadonlyMap<string, string>, describe: (cellIndex: number) => string[]): EChartsCoreOption {
  const { option, axis } = base(theme, texts);
  return {
    ...option,
    tooltip: { ...option.tooltip, trigger: 'item', formatter: (p: { seriesIndex: number }) => htmlLines(describe(p.seriesIndex)) },
    xAxis: { ...axis, type: 'category', data: [row.metric.title], name: texts.xName, nameGap: 28, splitLine: { show: false } },
    yAxis: { ...axis, type: 'value', name: texts.yName, nameGap: 52 },
    series: row.cells.map((cell) => ({
      type: 'bar',
      name: labels.get(cell.columnId) ?? cell.columnId,
      data: [cell.value],
      barMaxWidth: 48,
    })),
  };
}

/** The error bar of a point whose latency has an interval, none otherwise. */
function barOf<P extends { latencyLow?: number; latencyHigh?: number }>(x: (p: P) => number) {
  return (p: P): ErrorBar[] => (p.latencyLow === undefined || p.latencyHigh === undefined ? [] : [[x(p), p.latencyLow, p.latencyHigh]]);
}

/**
 * Above this many points a chart is drawn whole in its first frame: no entry animation (each point animated on its
 * own costs more than the drawing), no label on every point (thousands of overlapping labels cost most of the drawing
 * and cannot be read; the tooltip names the point), and the points drawn as one batched scatter (echarts' `large`)
 * rather than one shape each.
 */
export const LARGE_CHART_POINTS = 1000;

/** Latency against throughput, one line per configuration, each point named by its concurrency (in its tooltip only, on a large chart). */
export function curveOption(theme: ChartTheme, texts: ChartTexts, curves: readonly ConcurrencyCurve[], pointLabel: (concurrency: number) => string, describe: (curve: ConcurrencyCurve, pointIndex: number) => string[]): EChartsCoreOption {
  const { option, axis } = base(theme, texts);
  const large = curves.reduce((n, curve) => n + curve.points.length, 0) > LARGE_CHART_POINTS;
  return {
    ...option,
    ...(large ? { animation: false } : {}),
    // A large chart's points are series of their own after the lines: series index n + i is curve i's points.
    tooltip: { ...option.tooltip, trigger: 'item', formatter: (p: { seriesIndex: number; dataIndex: number }) => htmlLines(describe(curves[p.seriesIndex % curves.length]!, p.dataIndex)) },
    xAxis: { ...axis, type: 'value', name: texts.xName, nameGap: 28, scale: true },
    yAxis: { ...axis, type: 'value', name: texts.yName, nameGap: 52, scale: true },
    series: [
      ...curves.map((curve) => ({
        type: 'line',
        name: curve.label,
        data: curve.points.map((p) => [p.throughput, p.latency, p.concurrency]),
        symbolSize: 8,
        label: { show: true, position: 'top', color: theme.muted, formatter: (p: { value: number[] }) => pointLabel(p.value[2]!) },
        // Thousands of points: the line alone, its points drawn in one batch by the series below.
        ...(large ? { showSymbol: false, silent: true, label: { show: false } } : {}),
      })),
      ...(large
        ? curves.map((curve, i) => ({
            type: 'scatter',
            name: curve.label,
            data: curve.points.map((p) => [p.throughput, p.latency]),
            symbolSize: 8,
            itemStyle: { color: theme.palette[i % theme.palette.length] },
            large: true,
            largeThreshold: 0,
          }))
        : []),
      // After the lines and their points, so a tooltip's series index still names its curve.
      ...curves
        .map((curve, i) => ({ curve, color: theme.palette[i % theme.palette.length], bars: curve.points.flatMap(barOf((p) => p.throughput)) }))
        .filter((c) => c.bars.length > 0)
        .map((c) => errorBarSeries(c.curve.label, c.bars, c.color)),
    ],
  };
}

/** Every configuration as a point, the Pareto front as a line through its points, the recommendation marked apart. */
export function paretoOption(
  theme: ChartTheme,
  texts: ChartTexts & { configs: string; front: string; recommended: string },
  points: readonly ConfigPoint[],
  front: readonly ConfigPoint[],
  recommendedId: string | undefined,
  describe: (point: ConfigPoint) => string[],
): EChartsCoreOption {
  const { option, axis } = base(theme, texts);
  const large = points.length > LARGE_CHART_POINTS;
  const recommended = points.filter((p) => p.id === recommendedId);
  const series = [
    { type: 'scatter', name: texts.configs, data: points.map((p) => [p.x, p.y]), symbolSize: 9, itemStyle: { color: theme.palette[0], opacity: 0.75 }, ...(large ? { large: true, largeThreshold: LARGE_CHART_POINTS } : {}) },
    { type: 'line', name: texts.front, data: front.map((p) => [p.x, p.y]), symbol: 'circle', symbolSize: 6, lineStyle: { color: theme.better, width: 2 }, itemStyle: { color: theme.better } },
    {
      type: 'scatter',
      name: texts.recommended,
      data: recommended.map((p) => [p.x, p.y]),
      symbol: 'diamond',
      symbolSize: 18,
      itemStyle: { color: theme.palette[2], borderColor: theme.text, borderWidth: 1.5 },
      label: { show: true, position: 'top', color: theme.text, formatter: texts.recommended },
      z: 5,
    },
  ];
  const bars = points.flatMap(barOf((p) => p.x));
  const lists = [points, front, recommended];
  return {
    ...option,
    ...(large ? { animation: false } : {}),
    tooltip: { ...option.tooltip, trigger: 'item', formatter: (p: { seriesIndex: number; dataIndex: number }) => htmlLines(describe(lists[p.seriesIndex]![p.dataIndex]!)) },
    xAxis: { ...axis, type: 'value', name: texts.xName, nameGap: 28, scale: true },
    yAxis: { ...axis, type: 'value', name: texts.yName, nameGap: 52, scale: true },
    // The error bars last, so a tooltip's series index still names its list.
    series: bars.length > 0 ? [...series, errorBarSeries(texts.configs, bars, theme.palette[0])] : series,
  };
}

/** P50, P90 and P99 of one latency side by side for each compared column. */
export function spreadOption(theme: ChartTheme, texts: ChartTexts, spreads: readonly PercentileSpread[], format: (value: number | null) => string): EChartsCoreOption {
  const { option, axis } = base(theme, texts);
  const series = (['p50', 'p90', 'p99'] as const).map((key) => ({
    type: 'bar',
    name: key.toUpperCase(),
    data: spreads.map((s) => s[key]),
    barMaxWidth: 28,
  }));
  return {
    ...option,
    tooltip: {
      ...option.tooltip,
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (params: { seriesName: string; dataIndex: number; value: number | null; marker: string }[]) => {
        const first = params[0];
        if (!first) return '';
        const lines = params.map((p) => `${p.marker}${escapeHtml(p.seriesName)}: ${escapeHtml(format(p.value))}`);
        return [escapeHtml(spreads[first.dataIndex]?.label ?? ''), ...lines].join('<br/>');
      },
    },
    xAxis: { ...axis, type: 'category', data: spreads.map((s) => s.label), name: texts.xName, nameGap: 28, axisLabel: { ...axis.axisLabel, interval: 0, width: 140, overflow: 'truncate' }, splitLine: { show: false } },
    yAxis: { ...axis, type: 'value', name: texts.yName, nameGap: 52 },
    series,
  };
}
