import { useEffect, useMemo, useState } from 'react';
import { compareStudies, type DiffRow, type DiffSide, type StudyDiff } from '../../../../shared/study/study-diff';
import type { Change } from '../../../../shared/study/verdict';
import type { ProjectFile } from '../../../../shared/study/study';
import { useApi } from '../../api/context';
import { Badge, type BadgeTone } from '../../components/Badge';
import { fixedNumber, formatMetric } from '../../components/metric-text';
import { SelectField } from '../../components/SelectField';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { formatSigned, metricTitle } from '../compare/compare-format';
import { metricInfo } from '../compare/compare-model';
import { toErrorInfo } from '../../store';
import { errorText } from './study-errors';
import { stageLabel } from './study-format';

const VERDICT_TONE: Record<DiffRow['metrics'][number]['verdict'], BadgeTone> = { better: 'success', 'no-difference': 'neutral', worse: 'danger', inconclusive: 'warning' };

/** "+1.2% [−0.8, +3.3]" in the UI's numbers, real minus signs. */
export function changeText(change: Change): string {
  return `${formatSigned(change.pct, 1)}% [${formatSigned(change.low, 1)}, ${formatSigned(change.high, 1)}]`;
}

function metricName(key: string): string {
  const info = metricInfo(key);
  return info ? metricTitle(info) : key;
}

function sideText(side: DiffSide, value: number | undefined, metric: string): string {
  if (side.outcome !== 'measured') return t(`studies.versus.outcome.${side.outcome}`);
  return value === undefined ? '—' : t('studies.versus.value', { value: formatMetric(metric, value), runs: fixedNumber(0).format(side.runs) });
}

/**
 * A re-run against the study it repeats (its `rerunOf`): the original read with studies:rerunOriginal, both compared
 * by `compareStudies` (the decision rule's statistics), one metric at a time; regressions listed first and marked in
 * the table. The open project changes with every state event, so the comparison follows a running re-run.
 */
export function VersusOriginal({ path, project }: { path: string; project: ProjectFile }) {
  const api = useApi();
  const [original, setOriginal] = useState<ProjectFile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [metric, setMetric] = useState<string | null>(null);
  // Bumped by "Try again": the original may have been put back since.
  const [attempt, setAttempt] = useState(0);
  const originalName = project.study.rerunOf?.name ?? '';
  const originalPath = project.study.rerunOf?.path ?? '';

  useEffect(() => {
    let current = true;
    api.call('studies:rerunOriginal', { path }).then(
      (read) => {
        if (!current) return;
        setOriginal(read.project);
        setError(null);
      },
      (e: unknown) => {
        if (!current) return;
        // The core's sentence is English; where the original is not found, say so in the UI's language first.
        const missing = toErrorInfo(e).code === 'NOT_FOUND' ? `${t('studies.versus.originalMissing', { name: originalName, path: originalPath })} ` : '';
        setError(`${missing}${errorText(e)}`);
      },
    );
    return () => {
      current = false;
    };
    // Read once per project (and on "Try again"); the original does not change while this one runs.
  }, [api, path, attempt, originalName, originalPath]);

  const diff = useMemo(() => (original ? compareStudies(original, project) : null), [original, project]);

  if (error) {
    return (
      <div className="versus">
        <p className="form-error" role="alert">
          {error}
        </p>
        <div>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() => {
              setError(null);
              setAttempt((n) => n + 1);
            }}
          >
            {t('studies.versus.retry')}
          </button>
        </div>
      </div>
    );
  }
  if (!original || !diff) {
    return (
      <p className="muted" role="status">
        <Spinner /> {t('studies.versus.loading')}
      </p>
    );
  }
  const shown = metric ?? diff.metrics[0] ?? '';
  return (
    <section className="versus" aria-label={t('studies.tab.versus')}>
      <p className="muted">{t('studies.versus.intro', { name: original.study.name, margin: fixedNumber(1).format(diff.marginPct) })}</p>
      {/* "No regression" only once something was compared: a re-run not run yet has said nothing. */}
      {diff.rows.length > 0 && <Regressions project={project} diff={diff} />}
      {diff.rows.length === 0 ? (
        <p className="muted">{t('studies.versus.empty')}</p>
      ) : (
        <>
          <SelectField label={t('studies.versus.metric')} value={shown} options={diff.metrics.map((m) => ({ value: m, label: metricName(m) }))} onValueChange={setMetric} className="versus-metric" />
          <VersusTable project={project} diff={diff} metric={shown} />
        </>
      )}
      <OneSide title={t('studies.versus.onlyOriginal', { count: diff.onlyOriginal.length })} sides={diff.onlyOriginal} />
      <OneSide title={t('studies.versus.onlyRerun', { count: diff.onlyRerun.length })} sides={diff.onlyRerun} />
    </section>
  );
}

function Regressions({ project, diff }: { project: ProjectFile; diff: StudyDiff }) {
  if (diff.regressions.length === 0) return <p className="study-note">{t('studies.versus.regressionsNone')}</p>;
  return (
    <div className="alert alert-danger versus-regressions" role="note">
      <p>
        <strong>{t('studies.versus.regressions', { count: diff.regressions.length })}</strong>
      </p>
      <ul>
        {diff.regressions.map((r) => {
          const label = `${stageLabel(project, r.stageId)} · ${r.label}`;
          return r.kind === 'worse' ? (
            <li key={`${r.key} ${r.metric}`}>{t('studies.versus.regressionItem', { label, workload: r.workloadId, metric: metricName(r.metric), change: changeText(r.change) })}</li>
          ) : (
            <li key={r.key}>{t('studies.versus.regressionLost', { label, workload: r.workloadId, outcome: t(`studies.versus.outcome.${r.outcome}`) })}</li>
          );
        })}
      </ul>
    </div>
  );
}

function VersusTable({ project, diff, metric }: { project: ProjectFile; diff: StudyDiff; metric: string }) {
  // A row's regression on the metric shown (or the whole configuration lost) marks it; one on another metric, its edge.
  const regressedOn = new Set(diff.regressions.map((r) => (r.kind === 'worse' ? `${r.key} ${r.metric}` : r.key)));
  const regressed = new Set(diff.regressions.map((r) => r.key));
  return (
    <div className="study-table-wrap">
      <table className="table study-table versus-table">
        <caption className="visually-hidden">{t('studies.versus.table')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('studies.versus.col.config')}</th>
            <th scope="col">{t('studies.versus.col.workload')}</th>
            <th scope="col">{t('studies.versus.col.original')}</th>
            <th scope="col">{t('studies.versus.col.rerun')}</th>
            <th scope="col">{t('studies.versus.col.change')}</th>
            <th scope="col">{t('studies.versus.col.verdict')}</th>
          </tr>
        </thead>
        <tbody>
          {diff.rows.map((row) => {
            const m = row.metrics.find((x) => x.metric === metric);
            const isRegression = regressedOn.has(row.key) || regressedOn.has(`${row.key} ${metric}`);
            return (
              <tr key={row.key} className={isRegression ? 'versus-regression' : regressed.has(row.key) ? 'versus-regressed' : undefined} data-testid="versus-row">
                <th scope="row">
                  <span className="muted">{stageLabel(project, row.stageId)}</span> {row.rerun.label}
                  {!row.sameConfig && (
                    <>
                      {' '}
                      <Badge tone="warning" title={t('studies.versus.otherConfigTitle')}>
                        {t('studies.versus.otherConfig')}
                      </Badge>
                    </>
                  )}
                </th>
                <td className="mono">{row.workloadId}</td>
                <td>
                  {sideText(row.original, m?.original, metric)}
                  <div className="muted small">{row.original.version}</div>
                </td>
                <td>
                  {sideText(row.rerun, m?.rerun, metric)}
                  <div className="muted small">{row.rerun.version}</div>
                </td>
                <td className="mono">{m ? changeText(m.change) : '—'}</td>
                <td>
                  {m ? (
                    <Badge tone={VERDICT_TONE[m.verdict]}>
                      {isRegression ? `${t('studies.versus.regression')}: ` : ''}
                      {t(`studies.versus.verdict.${m.verdict}`)}
                    </Badge>
                  ) : (
                    isRegression && <Badge tone="danger">{t('studies.versus.regression')}</Badge>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function OneSide({ title, sides }: { title: string; sides: StudyDiff['onlyOriginal'] }) {
  if (sides.length === 0) return null;
  return (
    <details className="versus-only">
      <summary>{title}</summary>
      <ul>
        {sides.map((s) => (
          <li key={s.key}>
            <span className="mono">{s.key}</span> — {s.label}
          </li>
        ))}
      </ul>
    </details>
  );
}
