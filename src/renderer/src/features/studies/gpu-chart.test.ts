import { describe, expect, it } from 'vitest';
import { clusterNodePlace, type GpuMemorySample } from '../../../../shared/study/gpu-memory';
import type { StudyState, Trial } from '../../../../shared/study/study';
import type { ChartTheme } from '../../components/EChart';
import { gpuChartsOf, gpuMemoryOption, type GpuChartTexts } from './gpu-chart';

const THEME: ChartTheme = { mode: 'light', text: '#111', muted: '#555', border: '#ddd', background: '#fff', better: '#070', worse: '#a00', palette: ['#00f', '#0aa', '#f80'] };
const TEXTS: GpuChartTexts = {
  title: 'GPU memory · box · GPU 0, 1',
  xName: 'Time',
  yName: 'Memory used (MiB)',
  total: 'Total memory',
  gpu: (i) => `GPU ${i}`,
  time: (ms) => `t${ms}`,
  mib: (v) => `${v} MiB`,
};
const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const sample = (hostId: string, s: number, used: number[], total = 81559): GpuMemorySample => ({ hostId, at: at(s), gpus: used.map((usedMiB, index) => ({ index, usedMiB, totalMiB: total })) });

type Option = {
  series: { name: string; data: [number, number][]; lineStyle: { type?: string } }[];
  yAxis: { name: string; min: number; max?: number };
  xAxis: { type: string; name: string };
  title: { text: string };
  legend: object;
  tooltip: { trigger: string; formatter: (p: { seriesName: string; marker: string; value: [number, number] }[]) => string };
};

describe('gpuMemoryOption', () => {
  it('draws one line per GPU shown, MiB over time, the total dashed and as the axis top', () => {
    const samples = [sample('box', 0, [0, 0, 500]), sample('box', 2, [40000, 38000, 500]), sample('box', 4, [73864, 70000, 500])];
    const option = gpuMemoryOption(THEME, TEXTS, samples, [0, 1]) as Option;
    expect(option.series.map((s) => s.name)).toEqual(['GPU 0', 'GPU 1', 'Total memory']);
    expect(option.series[0]!.data).toEqual([
      [T0, 0],
      [T0 + 2000, 40000],
      [T0 + 4000, 73864],
    ]);
    expect(option.series[1]!.data.map(([, v]) => v)).toEqual([0, 38000, 70000]);
    expect(option.series[2]!.data.map(([, v]) => v)).toEqual([81559, 81559, 81559]);
    expect(option.series[2]!.lineStyle.type).toBe('dashed');
    expect(option.series[0]!.lineStyle.type).toBeUndefined();
    expect(option.yAxis).toMatchObject({ name: 'Memory used (MiB)', min: 0, max: 81559 });
    expect(option.xAxis).toMatchObject({ type: 'time', name: 'Time' });
    expect(option.title.text).toBe(TEXTS.title);
    expect(option.legend).toBeDefined();
    expect(option.tooltip.trigger).toBe('axis');
    expect(option.tooltip.formatter([{ seriesName: 'GPU <0>', marker: '•', value: [T0, 73864] }])).toBe(`t${T0}<br/>•GPU &#60;0&#62;: 73864 MiB`);
  });

  it('leaves a GPU missing from a sample out of that point, and has no axis top without samples', () => {
    const option = gpuMemoryOption(THEME, TEXTS, [sample('box', 0, [10]), { hostId: 'box', at: at(2), gpus: [{ index: 1, usedMiB: 5, totalMiB: 81559 }] }], [0]) as Option;
    expect(option.series[0]!.data).toEqual([[T0, 10]]);
    expect(option.series[1]!.data).toEqual([[T0, 81559]]);
    const empty = gpuMemoryOption(THEME, TEXTS, [], [0]) as Option;
    expect(empty.yAxis.max).toBeUndefined();
    expect(empty.series[0]!.data).toEqual([]);
  });
});

describe('gpuChartsOf', () => {
  const trial = (id: string, hostId: string | undefined, gpus: string[] | undefined) => ({ id, status: 'done', ...(hostId ? { hostId } : {}), ...(gpus ? { gpus } : {}) }) as unknown as Trial;
  it('gives one chart per host with the GPUs trials of any size ran on, and one per host that has samples but no trial yet', () => {
    const state = { status: 'running', decisions: [], trials: [trial('a', 'box', ['0', '1', '2', '3']), trial('b', 'box', ['4', '5']), trial('c', 'box', ['0', '1']), trial('d', undefined, undefined)] } as StudyState;
    const charts = gpuChartsOf(state, { box: [sample('box', 0, [1, 2, 3, 4, 5, 6, 7, 8])], other: [sample('other', 0, [1, 2])], idle: [] });
    expect(charts).toEqual([
      { key: 'box', hostId: 'box', gpus: [0, 1, 2, 3, 4, 5] },
      { key: 'other', hostId: 'other', gpus: [0, 1] },
    ]);
  });

  it("gives each node of a cluster its chart, since every node has a GPU 0", () => {
    const onNode = (id: string, node: string, gpus: string[]) => ({ ...trial(id, 'hpc', gpus), slurmJob: { jobId: id, state: 'RUNNING', node } }) as Trial;
    const state = { status: 'running', decisions: [], trials: [onNode('1', 'gpu1', ['0']), onNode('2', 'gpu2', ['0']), onNode('3', 'gpu1', ['1'])] } as StudyState;
    expect(gpuChartsOf(state, {}).map((c) => [c.hostId, c.gpus])).toEqual([
      [clusterNodePlace('hpc', 'gpu1'), [0, 1]],
      [clusterNodePlace('hpc', 'gpu2'), [0]],
    ]);
  });
});
