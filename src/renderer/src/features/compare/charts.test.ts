import { describe, expect, it } from 'vitest';
import { curveOption, errorBarSeries, LARGE_CHART_POINTS, paretoOption, spreadOption } from './charts';
import type { ChartTheme } from '../../components/EChart';

const THEME: ChartTheme = { mode: 'light', text: '#111', muted: '#555', border: '#ddd', background: '#fff', better: '#070', worse: '#a00', palette: ['#00f', '#0aa', '#f80'] };
const TEXTS = { title: 'T', xName: 'Total token throughput (tok/s)', yName: 'Mean TTFT (ms)' };

describe('chart options', () => {
  it('marks the recommended configuration apart from the front, and escapes names in tooltips', () => {
    const points = [
      { id: 'a', label: '<b>A</b>', x: 100, y: 10 },
      { id: 'b', label: 'B', x: 200, y: 20 },
      { id: 'c', label: 'C', x: 150, y: 30 },
    ];
    const option = paretoOption(THEME, { ...TEXTS, configs: 'Configurations', front: 'Pareto front', recommended: 'Recommended' }, points, points.slice(0, 2), 'b', (p) => [p.label]) as {
      series: { name: string; data: number[][] }[];
      tooltip: { formatter: (p: { seriesIndex: number; dataIndex: number }) => string };
      xAxis: { name: string };
      yAxis: { name: string };
      title: { text: string };
      legend: object;
    };
    expect(option.series.map((s) => [s.name, s.data])).toEqual([
      ['Configurations', [[100, 10], [200, 20], [150, 30]]],
      ['Pareto front', [[100, 10], [200, 20]]],
      ['Recommended', [[200, 20]]],
    ]);
    expect([option.title.text, option.xAxis.name, option.yAxis.name]).toEqual(['T', TEXTS.xName, TEXTS.yName]);
    expect(option.legend).toBeDefined();
    expect(option.tooltip.formatter({ seriesIndex: 0, dataIndex: 0 })).toBe('&#60;b&#62;A&#60;/b&#62;');
  });

  it('puts P50, P90 and P99 side by side per run', () => {
    const option = spreadOption(THEME, TEXTS, [{ columnId: 'x', label: 'X', p50: 1, p90: 2, p99: 3 }], String) as { series: { name: string; data: (number | null)[] }[] };
    expect(option.series.map((s) => [s.name, s.data])).toEqual([
      ['P50', [1]],
      ['P90', [2]],
      ['P99', [3]],
    ]);
  });

  it('draws an error bar from low to high, capped at both ends, at each point with an interval', () => {
    const series = errorBarSeries('Configurations', [[100, 9, 11]], '#00f');
    // A fake coordinate system: x in pixels as is, y flipped as on screen.
    const api = { value: (d: number) => [100, 9, 11][d]!, coord: ([x, y]: readonly [number, number]) => [x, 200 - y * 10] };
    const drawn = series.renderItem(null, api);
    expect(drawn.children.map((c) => c.shape)).toEqual([
      { x1: 100, y1: 110, x2: 100, y2: 90 },
      { x1: 96, y1: 110, x2: 104, y2: 110 },
      { x1: 96, y1: 90, x2: 104, y2: 90 },
    ]);
    expect(series.encode).toEqual({ x: 0, y: [1, 2] });
  });

  it('adds error bars beside the Pareto points and the curves where an interval exists, after the series tooltips name', () => {
    const points = [
      { id: 'a', label: 'A', x: 100, y: 10, latencyLow: 9, latencyHigh: 11, runs: 3 },
      { id: 'b', label: 'B', x: 200, y: 20, runs: 1 },
    ];
    const pareto = paretoOption(THEME, { ...TEXTS, configs: 'Configurations', front: 'Pareto front', recommended: 'Recommended' }, points, points, 'b', (p) => [p.label]) as { series: { type: string; name: string; data: unknown[] }[] };
    expect(pareto.series.map((s) => s.type)).toEqual(['scatter', 'line', 'scatter', 'custom']);
    expect(pareto.series[3]).toMatchObject({ name: 'Configurations', data: [[100, 9, 11]] });

    const curve = (label: string, withInterval: boolean) => ({
      serverKey: label,
      label,
      points: [
        { concurrency: 1, workloadId: 'c1', throughput: 300, latency: 40, ...(withInterval ? { latencyLow: 38, latencyHigh: 43 } : {}) },
        { concurrency: 4, workloadId: 'c4', throughput: 1000, latency: 100 },
      ],
    });
    const curves = curveOption(THEME, TEXTS, [curve('A', true), curve('B', false)], String, () => []) as { series: { type: string; name: string; data: unknown[] }[] };
    expect(curves.series.map((s) => [s.type, s.name])).toEqual([
      ['line', 'A'],
      ['line', 'B'],
      ['custom', 'A'],
    ]);
    expect(curves.series[2]!.data).toEqual([[300, 38, 43]]);
  });

  it('draws no error bar where no point has an interval', () => {
    const points = [{ id: 'a', label: 'A', x: 100, y: 10 }];
    const pareto = paretoOption(THEME, { ...TEXTS, configs: 'C', front: 'F', recommended: 'R' }, points, points, undefined, () => []) as { series: { type: string }[] };
    expect(pareto.series.map((s) => s.type)).not.toContain('custom');
  });

  it('draws a large chart whole at once: no entry animation, no label on every point, scatter points in one batch', () => {
    const curveOf = (count: number) => ({
      serverKey: 'k',
      label: 'K',
      points: Array.from({ length: count }, (_, i) => ({ concurrency: i + 1, workloadId: `c${i + 1}`, throughput: 100 + i, latency: 10 + i })),
    });
    type Drawn = { animation?: boolean; series: { type: string; name: string; showSymbol?: boolean; label?: { show: boolean }; large?: boolean }[] };
    const small = curveOption(THEME, TEXTS, [curveOf(10)], String, () => []) as Drawn;
    expect(small.animation).toBeUndefined();
    expect(small.series[0]!.label!.show).toBe(true);
    const large = curveOption(THEME, TEXTS, [curveOf(LARGE_CHART_POINTS + 1)], String, (curve, i) => [curve.label, `c=${curve.points[i]!.concurrency}`]) as Drawn & {
      tooltip: { formatter: (p: { seriesIndex: number; dataIndex: number }) => string };
    };
    expect(large.animation).toBe(false);
    expect(large.series[0]!.label!.show).toBe(false);
    // The line without its symbols, the points after it as one batched scatter of the same name (one legend entry).
    expect(large.series.map((s) => [s.type, s.name, s.showSymbol, s.large])).toEqual([
      ['line', 'K', false, undefined],
      ['scatter', 'K', undefined, true],
    ]);
    expect(large.tooltip.formatter({ seriesIndex: 1, dataIndex: 4 })).toBe('K<br/>c=5');

    const points = Array.from({ length: LARGE_CHART_POINTS + 1 }, (_, i) => ({ id: `p${i}`, label: `P${i}`, x: i, y: i }));
    const texts = { ...TEXTS, configs: 'C', front: 'F', recommended: 'R' };
    const many = paretoOption(THEME, texts, points, [], undefined, () => []) as Drawn;
    expect([many.animation, many.series[0]!.large]).toEqual([false, true]);
    const few = paretoOption(THEME, texts, points.slice(0, 10), [], undefined, () => []) as Drawn;
    expect([few.animation, few.series[0]!.large]).toEqual([undefined, undefined]);
  });
});
