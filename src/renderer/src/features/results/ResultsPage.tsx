import { useEffect, useId, useMemo, useRef, useState, type DragEvent } from 'react';
import { metricOf } from '../../../../shared/results/metrics';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { Badge } from '../../components/Badge';
import { ConfirmDangerDialog } from '../../components/ConfirmDangerDialog';
import { TextField } from '../../components/Field';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { SortableHeader } from '../../components/SortableHeader';
import { Spinner } from '../../components/Spinner';
import { CompareSelected } from '../compare/CompareSelected';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import { SelectField } from '../../components/SelectField';
import { formatMetric } from '../../components/metric-text';
import { COLUMNS, engineLabel, filterEntries, formatDateTime, gpuLabel, sortEntries, type Column, type ResultFilter, type SortOrder } from './results-table';
import { droppedFiles, readFilesAsText, type NamedFile } from './read-dropped-files';
import { ResultDetails } from './ResultDetails';
import './results.css';

interface ImportReport {
  added: number;
  files: number;
  errors: string[];
  warnings: string[];
}

function importSummary(report: ImportReport): string {
  if (report.added === 0) return t('results.import.nothing');
  const results = report.added === 1 ? t('results.import.resultsOne') : t('results.import.resultsMany', { count: report.added });
  const files = report.files === 1 ? t('results.import.filesOne') : t('results.import.filesMany', { count: report.files });
  return t('results.import.summary', { results, files });
}

function ImportSummary({ report, onDismiss }: { report: ImportReport; onDismiss: () => void }) {
  const problems = report.errors.length > 0;
  return (
    <div className={`import-summary ${problems ? 'has-errors' : ''}`} role="status" aria-label={t('results.import.summaryLabel')}>
      <div className="import-summary-head">
        <Icon name={problems ? 'alert' : 'check'} size={15} />
        <p className="import-summary-title">{importSummary(report)}</p>
        <button type="button" className="btn btn-ghost btn-small" onClick={onDismiss}>
          {t('results.import.dismiss')}
        </button>
      </div>
      {(report.errors.length > 0 || report.warnings.length > 0) && (
        <ul className="import-problems">
          {report.errors.map((line, i) => (
            <li key={`e${i}`} className="import-problem is-error">
              <span className="import-problem-kind">{t('results.import.error')}</span>
              <span className="mono">{line}</span>
            </li>
          ))}
          {report.warnings.map((line, i) => (
            <li key={`w${i}`} className="import-problem is-warning">
              <span className="import-problem-kind">{t('results.import.warning')}</span>
              <span className="mono">{line}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Cell({ column, entry }: { column: Column; entry: ResultEntry }) {
  const none = <span className="muted">{t('results.none')}</span>;
  if (column.metric) return <td className="num">{formatMetric(column.metric, metricOf(entry, column.metric))}</td>;
  switch (column.id) {
    case 'kind':
      return <td>{t(`results.kind.${entry.kind}`)}</td>;
    case 'status':
      return (
        <td>
          <Badge tone={entry.status === 'ok' ? 'success' : 'danger'} dot>
            {t(`results.status.${entry.status}`)}
          </Badge>
        </td>
      );
    case 'engine':
      return <td className="nowrap">{engineLabel(entry) ?? none}</td>;
    case 'model':
      return <td>{entry.result.provenance?.model ?? none}</td>;
    case 'gpu':
      return <td>{gpuLabel(entry) ?? none}</td>;
    case 'added':
      return <td className="nowrap">{formatDateTime(entry.addedAt)}</td>;
    default:
      return null;
  }
}

function RemoveResultsDialog({ ids, onClose }: { ids: string[]; onClose: () => void }) {
  const removeResults = useAppStore((s) => s.removeResults);
  return (
    <ConfirmDangerDialog
      title={ids.length === 1 ? t('results.remove.titleOne') : t('results.remove.title', { count: ids.length })}
      cancelLabel={t('results.remove.cancel')}
      confirmLabel={t('results.remove.confirm')}
      failureMessage={(e) => t('results.remove.failed', { message: toErrorInfo(e).message })}
      onConfirm={() => removeResults(ids)}
      onClose={onClose}
    >
      <p>{t('results.remove.body')}</p>
    </ConfirmDangerDialog>
  );
}

// Functions, not constants: worded when the page renders, in the language chosen by then.
const kindOptions = () => [
  { value: 'all', label: t('results.filter.all') },
  { value: 'measured', label: t('results.kind.measured') },
  { value: 'imported', label: t('results.kind.imported') },
];
const statusOptions = () => [
  { value: 'all', label: t('results.filter.all') },
  { value: 'ok', label: t('results.status.ok') },
  { value: 'failed', label: t('results.status.failed') },
];

/** The results library: every run, sortable and filterable, with each entry's provenance; files dropped here are imported. */
export function ResultsPage() {
  const results = useAppStore((s) => s.results);
  const load = useAppStore((s) => s.resultsLoad);
  const loadResults = useAppStore((s) => s.loadResults);
  const importResultFiles = useAppStore((s) => s.importResultFiles);
  const selectedId = useAppStore((s) => s.selectedResultId);
  const selectResult = useAppStore((s) => s.selectResult);
  const showPage = useAppStore((s) => s.showPage);

  const [filter, setFilter] = useState<ResultFilter>({ text: '', kind: 'all', status: 'all' });
  const [order, setOrder] = useState<SortOrder>({ column: 'added', direction: 'descending' });
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const [removing, setRemoving] = useState<string[] | null>(null);
  const [importing, setImporting] = useState(false);
  const [report, setReport] = useState<ImportReport | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  // The GPUs the imported runs' server held, as typed: a result file does not say, and per-GPU numbers need it.
  const [importGpus, setImportGpus] = useState('');
  const gpuCount = importGpus.trim() === '' ? undefined : /^\d+$/.test(importGpus.trim()) && Number(importGpus) >= 1 && Number(importGpus) <= 512 ? Number(importGpus) : null;
  const dragDepth = useRef(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const tableId = useId();

  useEffect(() => {
    void loadResults();
  }, [loadResults]);

  const shown = useMemo(() => sortEntries(filterEntries(results, filter), order), [results, filter, order]);
  const selected = selectedId ? results.find((r) => r.id === selectedId) : undefined;
  const existing = useMemo(() => new Set(results.map((r) => r.id)), [results]);
  // Checks of entries that left the library (removed elsewhere) no longer count.
  const checkedIds = [...checked].filter((id) => existing.has(id));
  const allShownChecked = shown.length > 0 && shown.every((e) => checked.has(e.id));

  function sortBy(column: Column['id']) {
    setOrder((o) => (o.column === column ? { column, direction: o.direction === 'ascending' ? 'descending' : 'ascending' } : { column, direction: column === 'added' ? 'descending' : 'ascending' }));
  }

  function toggle(id: string, on: boolean) {
    setChecked((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  async function importFiles(files: NamedFile[], problems: string[] = []) {
    if (files.length === 0 && problems.length === 0) return;
    if (gpuCount === null) return;
    setImporting(true);
    setImportError(null);
    try {
      const read = await readFilesAsText(files);
      const errors = [...problems, ...read.problems];
      if (read.files.length === 0) {
        setReport({ added: 0, files: 0, errors, warnings: [] });
        return;
      }
      const answer = await importResultFiles(read.files, gpuCount);
      const sources = new Set(answer.added.map((e) => e.result.source?.file ?? e.id));
      setReport({ added: answer.added.length, files: sources.size, errors: [...errors, ...answer.errors], warnings: answer.warnings });
    } catch (e) {
      setReport(null);
      setImportError(t('results.import.failed', { message: toErrorInfo(e).message }));
    } finally {
      setImporting(false);
    }
  }

  function onDragEnter(event: DragEvent) {
    if (!event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    dragDepth.current += 1;
    setDragging(true);
  }

  function onDragLeave() {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  }

  function onDrop(event: DragEvent) {
    event.preventDefault();
    dragDepth.current = 0;
    setDragging(false);
    const pending = droppedFiles(event.dataTransfer);
    void pending.then(({ files, problems }) => importFiles(files, problems));
  }

  const total = results.length;
  return (
    <div
      className={`page results-page${dragging ? ' is-dragging' : ''}`}
      onDragEnter={onDragEnter}
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) event.preventDefault();
      }}
      onDragLeave={onDragLeave}
      onDrop={onDrop}
    >
      <header className="page-header">
        <div>
          <h1 className="page-title">
            {t('results.title')}
            {total > 0 && <span className="page-count">{total === 1 ? t('results.countOne') : t('results.count', { count: total })}</span>}
          </h1>
          <p className="page-subtitle">{t('results.subtitle')}</p>
        </div>
        <div className="page-actions">
          <CompareSelected entries={results.filter((r) => checkedIds.includes(r.id))} />
          <button type="button" className="btn btn-danger-outline" disabled={checkedIds.length === 0} onClick={() => setRemoving(checkedIds)}>
            <Icon name="trash" size={14} />
            {t('results.removeSelected', { count: checkedIds.length })}
          </button>
          <TextField
            className="results-import-gpus"
            label={t('results.import.gpus')}
            hint={t('results.import.gpusHint')}
            inputMode="numeric"
            value={importGpus}
            onValueChange={setImportGpus}
            error={gpuCount === null ? t('results.import.gpusInvalid') : undefined}
          />
          <button type="button" className="btn btn-primary" disabled={importing || gpuCount === null} onClick={() => inputRef.current?.click()}>
            {importing ? <Spinner /> : <Icon name="download" size={14} />}
            {importing ? t('results.import.busy') : t('results.import.button')}
          </button>
          <input
            ref={inputRef}
            type="file"
            multiple
            className="visually-hidden"
            tabIndex={-1}
            aria-label={t('results.import.input')}
            onChange={(event) => {
              const files = [...(event.target.files ?? [])].map((file) => ({ name: file.name, file }));
              event.target.value = '';
              void importFiles(files);
            }}
          />
        </div>
      </header>

      {importError && (
        <p className="form-error" role="alert">
          {importError}
        </p>
      )}
      {report && <ImportSummary report={report} onDismiss={() => setReport(null)} />}

      {load.status === 'failed' && (
        <div className="alert alert-danger" role="alert">
          <Icon name="alert" size={16} className="alert-icon" />
          <div className="alert-content">
            <p className="alert-message">{t('results.loadFailed', { message: load.error?.message ?? '' })}</p>
            <div className="alert-actions">
              <button type="button" className="btn btn-secondary btn-small" onClick={() => void loadResults()}>
                {t('results.retry')}
              </button>
            </div>
          </div>
        </div>
      )}

      {total === 0 ? (
        load.status === 'loading' || load.status === 'idle' ? (
          <p className="muted">{t('results.loading')}</p>
        ) : load.status === 'loaded' ? (
          <EmptyState icon="chart" title={t('results.empty.title')} body={t('results.empty.body')}>
            <div className="empty-actions">
              <button type="button" className="btn btn-secondary" onClick={() => showPage('engines')}>
                <Icon name="layers" size={14} />
                {t('results.empty.toEngines')}
              </button>
            </div>
          </EmptyState>
        ) : null
      ) : (
        <>
          <div className="results-filters">
            <TextField
              className="grow"
              label={t('results.filter.text')}
              value={filter.text}
              placeholder={t('results.filter.textPlaceholder')}
              onValueChange={(text) => setFilter((f) => ({ ...f, text }))}
              type="search"
            />
            <SelectField label={t('results.filter.kind')} value={filter.kind} options={kindOptions()} onValueChange={(kind) => setFilter((f) => ({ ...f, kind: kind as ResultFilter['kind'] }))} />
            <SelectField
              label={t('results.filter.status')}
              value={filter.status}
              options={statusOptions()}
              onValueChange={(status) => setFilter((f) => ({ ...f, status: status as ResultFilter['status'] }))}
            />
            <p className="results-shown muted" aria-live="polite">
              {t('results.shown', { shown: shown.length, total })}
            </p>
          </div>
          <div className="results-table-wrap">
            <table className="table results-table" id={tableId} aria-label={t('results.tableLabel')}>
              <thead>
                <tr>
                  <th scope="col" className="results-check">
                    <input
                      type="checkbox"
                      aria-label={t('results.selectAll')}
                      checked={allShownChecked}
                      disabled={shown.length === 0}
                      onChange={(event) => {
                        const on = event.target.checked;
                        setChecked((s) => {
                          const next = new Set(s);
                          for (const e of shown) {
                            if (on) next.add(e.id);
                            else next.delete(e.id);
                          }
                          return next;
                        });
                      }}
                    />
                  </th>
                  {COLUMNS.map((column) => (
                    <SortableHeader key={column.id} label={t(column.label)} sorted={order.column === column.id ? order.direction : null} numeric={column.metric !== undefined} onSort={() => sortBy(column.id)} />
                  ))}
                </tr>
              </thead>
              <tbody>
                {shown.map((entry) => (
                  <tr
                    key={entry.id}
                    className={entry.id === selectedId ? 'is-selected' : undefined}
                    data-result-id={entry.id}
                    onClick={(event) => {
                      if ((event.target as HTMLElement).closest('input, button')) return;
                      selectResult(entry.id);
                    }}
                  >
                    <td className="results-check">
                      <input type="checkbox" aria-label={t('results.select', { title: entry.title })} checked={checked.has(entry.id)} onChange={(event) => toggle(entry.id, event.target.checked)} />
                    </td>
                    <td className="results-title">
                      <button type="button" className="link-button" aria-label={t('results.open', { title: entry.title })} onClick={() => selectResult(entry.id)}>
                        {entry.title}
                      </button>
                      {entry.result.provenance?.simulated && (
                        <Badge tone="warning" title={t('results.simulatedTitle')}>
                          {t('results.simulated')}
                        </Badge>
                      )}
                    </td>
                    {COLUMNS.slice(1).map((column) => (
                      <Cell key={column.id} column={column} entry={entry} />
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {shown.length === 0 && <p className="muted results-no-match">{t('results.noMatch')}</p>}
          </div>
        </>
      )}

      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <Icon name="download" size={22} />
          {t('results.import.drop')}
        </div>
      )}
      {selected && <ResultDetails key={selected.id} entry={selected} onClose={() => selectResult(null)} onRemove={() => setRemoving([selected.id])} />}
      {removing && (
        <RemoveResultsDialog ids={removing} onClose={() => setRemoving(null)} />
      )}
    </div>
  );
}
