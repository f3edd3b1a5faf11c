import { useCallback, useId, useMemo, useState } from 'react';
import { Badge } from '../../components/Badge';
import { t } from '../../i18n';
import { SelectField } from '../../components/SelectField';
import { formatMetric } from '../../components/metric-text';
import { metricBarsOption, spreadOption } from './charts';
import { compareTrials, configDiff, LATENCY_NAMES, percentileSpread, SAME_WITHIN_PCT, type CompareCell, type CompareColumn, type CompareRow, type LatencyName } from './compare-model';
import { formatDelta, metricTitle } from './compare-format';
import { EChart, type ChartTheme } from '../../components/EChart';
import type { MetricStat } from '../../../../shared/study/run-stats';
import { intervalText, statTitle } from '../../components/stat-text';
import './compare.css';

export type { CompareColumn } from './compare-model';

function verdictText(cell: CompareCell): string {
  return cell.verdict ? t(`compare.verdict.${cell.verdict}`) : '';
}

function CellValue({ row, cell, stat }: { row: CompareRow; cell: CompareCell; stat: MetricStat | undefined }) {
  const interval = intervalText(row.metric.key, stat ?? null);
  return (
    <>
      <span className="compare-value">{formatMetric(row.metric.key, cell.value)}</span>
      {stat && (
        <span className="compare-interval muted" title={statTitle(row.metric.key, stat)}>
          {[interval, t('compare.runCount', { count: stat.runs })].filter(Boolean).join(' · ')}
        </span>
      )}
      {cell.verdict !== null && cell.delta !== null && (
        // The word says it too: colour alone must not carry better or worse.
        <span className={`compare-delta is-${cell.verdict}`} title={t('compare.deltaTitle', { pct: SAME_WITHIN_PCT })}>
          <span className="compare-delta-number">{formatDelta(cell.delta, cell.deltaPct)}</span> <span className="compare-verdict">{verdictText(cell)}</span>
        </span>
      )}
    </>
  );
}

function ConfigDiffTable({ columns }: { columns: readonly CompareColumn[] }) {
  const rows = useMemo(() => configDiff(columns), [columns]);
  const hasEnv = rows.some((r) => r.key.startsWith('env.'));
  return (
    <section className="compare-section" aria-label={t('compare.configDiff.label')}>
      <h3 className="compare-section-title">{t('compare.configDiff.title')}</h3>
      {rows.length === 0 ? (
        <p className="muted">{t('compare.configDiff.none')}</p>
      ) : (
        <div className="compare-table-wrap">
          <table className="table compare-table compare-diff" aria-label={t('compare.configDiff.label')}>
            <thead>
              <tr>
                <th scope="col">{t('compare.configDiff.setting')}</th>
                {columns.map((c) => (
                  <th key={c.id} scope="col">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <th scope="row" className="mono">
                    {row.key}
                  </th>
                  {row.values.map((value, i) => (
                    <td key={columns[i]!.id} className="mono">
                      {value ?? <span className="muted">{t('compare.configDiff.unset')}</span>}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hasEnv && <p className="field-hint">{t('compare.configDiff.envNote')}</p>}
    </section>
  );
}

function MetricBars({ rows, labels }: { rows: readonly CompareRow[]; labels: ReadonlyMap<string, string> }) {
  const [metricKey, setMetricKey] = useState(rows[0]?.metric.key ?? '');
  const row = rows.find((r) => r.metric.key === metricKey) ?? rows[0];
  const title = row ? t('compare.chart.bars', { metric: row.metric.title }) : '';
  const option = useCallback(
    (theme: ChartTheme) => {
      const r = row!;
      const yName = t('compare.metricWithUnit', { title: r.metric.title, unit: r.metric.unit });
      return metricBarsOption(theme, { title, xName: t('compare.chart.runs'), yName }, r, labels, (index) => {
        const cell = r.cells[index]!;
        const label = labels.get(cell.columnId) ?? cell.columnId;
        const lines = [t('compare.chart.valueLine', { label, value: formatMetric(r.metric.key, cell.value), unit: r.metric.unit })];
        if (cell.verdict !== null && cell.delta !== null) lines.push(t('compare.chart.deltaLine', { delta: formatDelta(cell.delta, cell.deltaPct), verdict: verdictText(cell) }));
        else if (cell.value !== null) lines.push(t('compare.baselineMark'));
        return lines;
      });
    },
    [row, labels, title],
  );
  if (!row) return null;
  return (
    <div className="compare-chart-block">
      <SelectField label={t('compare.chart.metricSelect')} value={row.metric.key} options={rows.map((r) => ({ value: r.metric.key, label: t('compare.metricWithUnit', { title: r.metric.title, unit: r.metric.unit }) }))} onValueChange={setMetricKey} />
      <EChart title={title} option={option} />
    </div>
  );
}

function PercentileBars({ columns }: { columns: readonly CompareColumn[] }) {
  const available = (Object.keys(LATENCY_NAMES) as LatencyName[]).filter((m) => percentileSpread(columns, m).some((s) => s.p50 !== null || s.p90 !== null || s.p99 !== null));
  const [latency, setLatency] = useState<LatencyName>(available[0] ?? 'ttft');
  const chosen = available.includes(latency) ? latency : available[0];
  const name = chosen ? LATENCY_NAMES[chosen] : '';
  const title = t('compare.chart.spread', { latency: name });
  const option = useCallback(
    (theme: ChartTheme) =>
      spreadOption(theme, { title, xName: t('compare.chart.runs'), yName: t('compare.chart.spreadAxis', { latency: name }) }, percentileSpread(columns, chosen ?? 'ttft'), (value) => formatMetric('p99', value)),
    [columns, chosen, name, title],
  );
  if (!chosen) return <p className="muted">{t('compare.chart.noSpread')}</p>;
  return (
    <div className="compare-chart-block">
      <SelectField label={t('compare.chart.latencySelect')} value={chosen} options={available.map((m) => ({ value: m, label: LATENCY_NAMES[m] }))} onValueChange={(v) => setLatency(v as LatencyName)} />
      <EChart title={title} option={option} />
    </div>
  );
}

export interface CompareViewProps {
  /** Trials of a study, entries of the results library, or both. */
  columns: readonly CompareColumn[];
  /** The column the deltas are measured against; the first when absent or not among the columns. */
  defaultBaselineId?: string | undefined;
  /** The heading; null where the container already titles the comparison (a dialog), which names it instead. */
  title?: string | null;
  /** Shows a close button when given. */
  onClose?: () => void;
}

/** Metrics in rows and runs in columns, each with its change against a chosen baseline; the settings that differ; charts. */
export function CompareView({ columns, defaultBaselineId, title = t('compare.title'), onClose }: CompareViewProps) {
  const headingId = useId();
  const [chosenBaseline, setBaseline] = useState(defaultBaselineId);
  const measured = useMemo(() => columns.filter((c) => !c.published), [columns]);
  const baselineId: string | undefined = measured.some((c) => c.id === chosenBaseline) ? chosenBaseline : (measured[0] ?? columns[0])?.id;
  // Metric names in the UI's language; the maths stays language-free.
  const rows = useMemo(() => compareTrials(columns, baselineId).map((row) => ({ ...row, metric: { ...row.metric, title: metricTitle(row.metric) } })), [columns, baselineId]);
  const labels = useMemo(() => new Map(columns.map((c) => [c.id, c.label])), [columns]);

  return (
    <section className="compare-view" aria-labelledby={title === null ? undefined : headingId} aria-label={title === null ? t('compare.title') : undefined}>
      <header className="compare-head">
        {title !== null && (
          <h2 id={headingId} className="compare-title">
            {title}
          </h2>
        )}
        {columns.length > 0 && (
          <SelectField label={t('compare.baseline')} value={baselineId ?? ''} options={measured.map((c) => ({ value: c.id, label: c.label }))} onValueChange={setBaseline} />
        )}
        {onClose && (
          <button type="button" className="btn btn-secondary btn-small compare-close" onClick={onClose}>
            {t('compare.close')}
          </button>
        )}
      </header>

      {columns.length < 2 && <p className="muted">{t('compare.needTwo')}</p>}
      {rows.length === 0 ? (
        <p className="muted">{t('compare.noMetrics')}</p>
      ) : (
        <div className="compare-table-wrap">
          <table className="table compare-table" aria-label={t('compare.tableLabel')}>
            <thead>
              <tr>
                <th scope="col">{t('compare.metric')}</th>
                {columns.map((c) => (
                  <th key={c.id} scope="col" className={`num${c.published ? ' is-published' : ''}`}>
                    <span className="compare-col-label">{c.label}</span>{' '}
                    {c.id === baselineId && <Badge tone="accent">{t('compare.baselineMark')}</Badge>}
                    {c.published && (
                      <span className="compare-published" title={t('compare.published.title', { title: c.published.title, file: c.published.file, line: c.published.line })}>
                        <Badge tone="info">{t('compare.published.badge')}</Badge> <span className="muted">{t('compare.published.source', { file: c.published.file, line: c.published.line })}</span>
                      </span>
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.metric.key}>
                  <th scope="row">{t('compare.metricWithUnit', { title: row.metric.title, unit: row.metric.unit })}</th>
                  {row.cells.map((cell) => (
                    <td key={cell.columnId} className={`num${columns.find((c) => c.id === cell.columnId)?.published ? ' is-published' : ''}`}>
                      <CellValue row={row} cell={cell} stat={columns.find((c) => c.id === cell.columnId)?.stats?.[row.metric.key]} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <ConfigDiffTable columns={columns} />

      {rows.length > 0 && (
        <section className="compare-section" aria-label={t('compare.charts.title')}>
          <h3 className="compare-section-title">{t('compare.charts.title')}</h3>
          <div className="compare-charts">
            <MetricBars rows={rows} labels={labels} />
            <PercentileBars columns={columns} />
          </div>
        </section>
      )}
    </section>
  );
}
