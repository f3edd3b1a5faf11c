import { useEffect, useRef, useState } from 'react';
import * as echarts from 'echarts/core';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { Icon } from './Icon';
import { t } from '../i18n';

// Only what the comparison draws; the canvas renderer because getDataURL can only make a PNG from a canvas.
echarts.use([BarChart, LineChart, ScatterChart, GridComponent, LegendComponent, TitleComponent, TooltipComponent, CanvasRenderer]);

export type ThemeMode = 'light' | 'dark';

/** The app's colours as the charts use them, read from the stylesheet's variables so both themes match the page. */
export interface ChartTheme {
  mode: ThemeMode;
  text: string;
  muted: string;
  border: string;
  background: string;
  better: string;
  worse: string;
  palette: string[];
}

const PALETTES: Record<ThemeMode, string[]> = {
  light: ['#5046e5', '#0f8b8d', '#d97706', '#c2410c', '#7c3aed', '#0369a1', '#65a30d', '#be185d', '#475569', '#a16207'],
  dark: ['#8b86ff', '#2dd4bf', '#fbbf24', '#fb923c', '#c084fc', '#38bdf8', '#a3e635', '#f472b6', '#94a3b8', '#facc15'],
};

function themeMode(): ThemeMode {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
}

export function readChartTheme(mode: ThemeMode = themeMode()): ChartTheme {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const dark = mode === 'dark';
  return {
    mode,
    text: read('--text', dark ? '#ececef' : '#1b1b1f'),
    muted: read('--text-muted', dark ? '#a9a9b3' : '#55555f'),
    border: read('--border', dark ? '#2a2a30' : '#e2e2e6'),
    background: read('--bg-elev', dark ? '#18181b' : '#ffffff'),
    better: read('--success-text', dark ? '#6ddc98' : '#17693a'),
    worse: read('--danger-text', dark ? '#ff9d9a' : '#a31d1d'),
    palette: PALETTES[mode],
  };
}

/** The document's theme, following changes to `data-theme` wherever they come from. */
export function useThemeMode(): ThemeMode {
  const [mode, setMode] = useState<ThemeMode>(themeMode);
  useEffect(() => {
    const observer = new MutationObserver(() => setMode(themeMode()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return mode;
}

function downloadDataUrl(url: string, fileName: string) {
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
}

/** A file name from a title: "Mean TTFT by run" → "mean-ttft-by-run.png". */
export function pngFileName(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || 'chart'}.png`;
}

export interface EChartProps {
  /** Names the figure for assistive technology and the exported file. */
  title: string;
  /** Built again when the theme changes; keep it stable (useCallback) so the chart is not redrawn on every render. */
  option: (theme: ChartTheme) => EChartsCoreOption;
  height?: number;
}

/** One echarts chart: drawn into its own box, resized with it, redrawn on theme changes, disposed on unmount. */
export function EChart({ title, option, height = 320 }: EChartProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<EChartsType | null>(null);
  const mode = useThemeMode();

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    const chart = echarts.init(box, undefined, { renderer: 'canvas' });
    chartRef.current = chart;
    const observer = new ResizeObserver(() => chart.resize());
    observer.observe(box);
    return () => {
      observer.disconnect();
      chart.dispose();
      chartRef.current = null;
    };
  }, []);

  useEffect(() => {
    chartRef.current?.setOption(option(readChartTheme(mode)), { notMerge: true });
  }, [option, mode]);

  function exportPng() {
    const chart = chartRef.current;
    if (!chart) return;
    downloadDataUrl(chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: readChartTheme(mode).background }), pngFileName(title));
  }

  return (
    <figure className="compare-chart" aria-label={title}>
      <div className="compare-chart-tools">
        <button type="button" className="btn btn-ghost btn-small" aria-label={t('compare.chart.exportLabel', { title })} onClick={exportPng}>
          <Icon name="download" size={13} />
          {t('compare.chart.export')}
        </button>
      </div>
      <div ref={boxRef} className="compare-chart-canvas" role="img" aria-label={title} style={{ height }} />
    </figure>
  );
}
