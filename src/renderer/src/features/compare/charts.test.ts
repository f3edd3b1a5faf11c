import { describe, expect, it } from 'vitest';
import { paretoOption, spreadOption } from './charts';
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
});
