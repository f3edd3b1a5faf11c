// The run monitor's GPU memory chart: one chart per host, one line per GPU the study used there (MiB used over time) and
// the GPUs' total memory as a dashed line that is also the axis's top. Pure: texts and formats come from the caller.
import type { EChartsCoreOption } from 'echarts/core';
import { gpuPlaceOf, type GpuMemorySample } from '../../../../shared/study/gpu-memory';
import type { StudyState } from '../../../../shared/study/study';
import { themedAxis } from '../compare/charts';
import type { ChartTheme } from '../../components/EChart';

export interface GpuChartTexts {
  title: string;
  xName: string;
  yName: string;
  total: string;
  gpu: (index: number) => string;
  /** A time on the axis and in the tooltip. */
  time: (ms: number) => string;
  /** A MiB amount ("73,864 MiB"). */
  mib: (value: number) => string;
}

/** A chart's worth of GPUs: those of one host the study's servers ran on, or all its GPUs before any server ran. */
export interface GpuHostChart {
  key: string;
  /** The host, or a cluster node of it (`gpuPlaceOf`). */
  hostId: string;
  gpus: number[];
}

/**
 * One chart per host: the GPUs trials ran on there (servers of different sizes share a host, so a chart per server
 * would repeat GPUs), or every sampled GPU of a host no trial has run on yet.
 */
export function gpuChartsOf(state: StudyState, samples: Record<string, GpuMemorySample[]>): GpuHostChart[] {
  const used = new Map<string, Set<number>>();
  for (const trial of state.trials) {
    const place = gpuPlaceOf(trial);
    if (!place || !trial.gpus) continue;
    const gpus = trial.gpus.map(Number).filter((n) => Number.isInteger(n));
    if (gpus.length === 0) continue;
    const set = used.get(place) ?? new Set<number>();
    for (const g of gpus) set.add(g);
    used.set(place, set);
  }
  for (const [hostId, list] of Object.entries(samples)) {
    if (used.has(hostId) || list.length === 0) continue;
    used.set(hostId, new Set(list.flatMap((s) => s.gpus.map((g) => g.index))));
  }
  return [...used]
    .map(([hostId, gpus]) => ({ key: hostId, hostId, gpus: [...gpus].sort((a, b) => a - b) }))
    .sort((a, b) => a.key.localeCompare(b.key));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface AxisParam {
  seriesName: string;
  marker: string;
  value: [number, number];
}

/** The option for one host's chart from its samples. */
export function gpuMemoryOption(theme: ChartTheme, texts: GpuChartTexts, samples: readonly GpuMemorySample[], gpus: readonly number[]): EChartsCoreOption {
  const points = (index: number) =>
    samples.flatMap((s) => {
      const gpu = s.gpus.find((g) => g.index === index);
      return gpu ? [[Date.parse(s.at), gpu.usedMiB] as [number, number]] : [];
    });
  const totals = samples.flatMap((s) => {
    const shown = s.gpus.filter((g) => gpus.includes(g.index));
    return shown.length > 0 ? [[Date.parse(s.at), Math.max(...shown.map((g) => g.totalMiB))] as [number, number]] : [];
  });
  const maxTotal = totals.length > 0 ? Math.max(...totals.map(([, total]) => total)) : undefined;
  const axis = themedAxis(theme);
  return {
    backgroundColor: 'transparent',
    color: theme.palette,
    // Samples arrive every 2 s: redrawing without animation keeps the chart still while it grows.
    animation: false,
    textStyle: { color: theme.text, fontFamily: 'inherit' },
    title: { text: texts.title, left: 8, top: 4, textStyle: { color: theme.text, fontSize: 13, fontWeight: 600 } },
    legend: { type: 'scroll', bottom: 4, textStyle: { color: theme.muted }, pageTextStyle: { color: theme.muted } },
    tooltip: {
      trigger: 'axis',
      confine: true,
      backgroundColor: theme.background,
      borderColor: theme.border,
      textStyle: { color: theme.text },
      formatter: (params: AxisParam[]) => {
        const first = params[0];
        if (!first) return '';
        const lines = params.map((p) => `${p.marker}${escapeHtml(p.seriesName)}: ${escapeHtml(texts.mib(p.value[1]))}`);
        return [escapeHtml(texts.time(first.value[0])), ...lines].join('<br/>');
      },
    },
    grid: { left: 76, right: 24, top: 40, bottom: 64, containLabel: false },
    xAxis: { ...axis, type: 'time', name: texts.xName, nameGap: 28, axisLabel: { ...axis.axisLabel, formatter: (value: number) => texts.time(value), hideOverlap: true }, splitLine: { show: false } },
    yAxis: { ...axis, type: 'value', name: texts.yName, nameGap: 60, min: 0, ...(maxTotal !== undefined ? { max: maxTotal } : {}) },
    series: [
      ...gpus.map((index) => ({ type: 'line', name: texts.gpu(index), data: points(index), showSymbol: false, lineStyle: { width: 2 } })),
      { type: 'line', name: texts.total, data: totals, showSymbol: false, lineStyle: { type: 'dashed', width: 1.5, color: theme.muted }, itemStyle: { color: theme.muted } },
    ],
  };
}
