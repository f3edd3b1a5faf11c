import { useEffect, useRef, useState } from 'react';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';
import type * as EchartsModule from './echarts-runtime';
import { Icon } from './Icon';
import { Spinner } from './Spinner';
import { whenNearWindow } from './near-window';
import { t } from '../i18n';
import { retryImport } from './retry-import';

type EchartsRuntime = typeof EchartsModule;
let runtime: Promise<EchartsRuntime> | null = null;

/** echarts, fetched the first time a chart is shown (a chunk of its own), then kept. */
export function loadEcharts(): Promise<EchartsRuntime> {
  // A failed fetch is retried, and not kept: the next chart asks again.
  runtime ??= retryImport(() => import('./echarts-runtime')).catch((error: unknown) => {
    runtime = null;
    throw error;
  });
  return runtime;
}

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

/**
 * One echarts chart: drawn into its own box, resized with it, redrawn on theme changes, disposed on unmount. echarts
 * is loaded and the chart drawn only when the box comes near the window: charts below a long table cost nothing until
 * the reader scrolls to them. The box keeps its height meanwhile, a spinner over it.
 */
export function EChart({ title, option, height = 320 }: EChartProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<EChartsType | null>(null);
  const mode = useThemeMode();
  const [drawn, setDrawn] = useState(false);
  // echarts could not be fetched (after retries): said over the box, with a way to ask again.
  const [loadFailure, setLoadFailure] = useState<string | null>(null);
  const [loadAttempt, setLoadAttempt] = useState(0);
  // The option and theme the chart holds, and the latest asked for: the first drawing reads the latest.
  const latest = useRef({ option, mode });
  const shown = useRef<{ option: EChartProps['option']; mode: ThemeMode } | null>(null);

  const draw = (chart: EChartsType) => {
    const wanted = latest.current;
    if (shown.current?.option === wanted.option && shown.current.mode === wanted.mode) return;
    chart.setOption(wanted.option(readChartTheme(wanted.mode)), { notMerge: true });
    shown.current = wanted;
  };

  useEffect(() => {
    const box = boxRef.current;
    if (!box) return;
    let disposed = false;
    let observer: ResizeObserver | null = null;
    // Fetched ahead, while the box is still far; a failure here is reported by the drawing below.
    loadEcharts().catch(() => undefined);
    const stopWatching = whenNearWindow(box, () => {
      void loadEcharts().then(({ init }) => {
        if (disposed) return;
        const chart = init(box, undefined, { renderer: 'canvas' });
        chartRef.current = chart;
        draw(chart);
        // A ResizeObserver reports the size it starts with: redraw only on a change, not a second time at once.
        let size = { width: box.clientWidth, height: box.clientHeight };
        observer = new ResizeObserver(() => {
          if (box.clientWidth === size.width && box.clientHeight === size.height) return;
          size = { width: box.clientWidth, height: box.clientHeight };
          chart.resize();
        });
        observer.observe(box);
        setDrawn(true);
      }, (error: unknown) => {
        if (!disposed) setLoadFailure(error instanceof Error ? error.message : String(error));
      });
    });
    return () => {
      disposed = true;
      stopWatching();
      observer?.disconnect();
      chartRef.current?.dispose();
      chartRef.current = null;
      shown.current = null;
    };
    // Once per mount (and per retry of a failed load): draw reads the latest option from refs.
  }, [loadAttempt]);

  useEffect(() => {
    latest.current = { option, mode };
    if (chartRef.current) draw(chartRef.current);
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
      {/* echarts owns the box's children, so the placeholder lies over it rather than in it. */}
      <div ref={boxRef} className="compare-chart-canvas" role="img" aria-label={title} aria-busy={!drawn} style={{ height }} />
      {!drawn && loadFailure === null && (
        <span className="compare-chart-loading muted">
          <Spinner />
          {t('compare.chart.loading')}
        </span>
      )}
      {!drawn && loadFailure !== null && (
        <span className="compare-chart-loading compare-chart-failed" role="alert">
          {t('compare.chart.loadFailed', { reason: loadFailure })}
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => {
              setLoadFailure(null);
              setLoadAttempt((n) => n + 1);
            }}
          >
            {t('app.pageRetry')}
          </button>
        </span>
      )}
    </figure>
  );
}
