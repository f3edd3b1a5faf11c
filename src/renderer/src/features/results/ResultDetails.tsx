import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import type { ResultProvenance } from '../../../../shared/results/bench-result';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { Badge } from '../../components/Badge';
import { copyText } from '../../components/clipboard';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { LogBuffer } from '../../logs/log-buffer';
import { LogView } from '../../logs/LogView';
import { formatMetric } from '../../components/metric-text';
import { metricSpec } from '../../../../shared/results/metrics';
import { metricTitle } from '../compare/compare-format';
import { engineLabel, formatDateTime, gpuLabel, shellJoin } from './results-table';

type Fact = [label: string, value: ReactNode];

function requestRate(rate: NonNullable<ResultProvenance['workload']>['requestRate']): string {
  if (rate === 'inf') return t('results.prov.requestRateInf');
  if (rate === 'trace') return t('results.prov.requestRateTrace');
  return t('results.prov.requestRateValue', { rate: String(rate) });
}

/** The stored tail of a run's client log, in the same pane as live logs. */
function LogTail({ text }: { text: string }) {
  const buffer = useMemo(() => LogBuffer.fromText(text), [text]);
  return <LogView buffer={buffer} title={t('results.details.logTail')} label={t('results.details.logLabel')} height={240} />;
}

/** Every provenance field the entry has, in reading order; absent ones are left out. */
function provenanceFacts(entry: ResultEntry): Fact[] {
  const p = entry.result.provenance ?? {};
  const facts: (Fact | null)[] = [];
  const add = (label: string, value: ReactNode | undefined | null) => facts.push(value === undefined || value === null || value === '' ? null : [label, value]);
  add(t('results.prov.engine'), engineLabel(entry));
  add(t('results.prov.model'), p.model);
  add(t('results.prov.modelRevision'), p.modelRevision);
  add(t('results.prov.tokenizer'), p.tokenizer);
  add(t('results.prov.gpu'), gpuLabel(entry));
  add(t('results.prov.driver'), p.gpu?.driver);
  add(t('results.prov.cuda'), p.gpu?.cuda);
  add(t('results.prov.host'), p.host);
  if (p.simulated) add(t('results.prov.simulated'), t('results.prov.simulatedYes'));
  add(t('results.prov.client'), [p.client?.name, p.client?.version].filter(Boolean).join(' '));
  add(t('results.prov.backend'), p.client?.backend);
  add(t('results.prov.endpoint'), p.client?.endpoint);
  add(t('results.prov.label'), p.client?.label);
  add(t('results.prov.dataset'), p.dataset?.name);
  add(t('results.prov.datasetPath'), p.dataset?.path);
  add(t('results.prov.datasetSha256'), p.dataset?.sha256);
  const w = p.workload;
  if (w) {
    add(t('results.prov.numPrompts'), w.numPrompts);
    if (w.requestRate !== undefined) add(t('results.prov.requestRate'), requestRate(w.requestRate));
    add(t('results.prov.burstiness'), w.burstiness);
    if (w.maxConcurrency !== undefined) add(t('results.prov.maxConcurrency'), w.maxConcurrency ?? t('results.prov.unbounded'));
    if (w.rampUp) {
      const none = t('results.none');
      add(t('results.prov.rampUp'), t('results.prov.rampUpValue', { strategy: w.rampUp.strategy, start: w.rampUp.startRps ?? none, end: w.rampUp.endRps ?? none }));
    }
    add(t('results.prov.randomInputLen'), w.randomInputLen);
    add(t('results.prov.randomOutputLen'), w.randomOutputLen);
    add(t('results.prov.randomRangeRatio'), w.randomRangeRatio);
    if (w.sharegptOutputLen !== undefined) add(t('results.prov.sharegptOutputLen'), w.sharegptOutputLen ?? t('results.none'));
  }
  add(t('results.prov.clientDate'), p.timestamps?.clientDate);
  add(t('results.prov.startedAt'), p.timestamps?.startedAt);
  add(t('results.prov.finishedAt'), p.timestamps?.finishedAt);
  for (const [key, value] of Object.entries(p.metadata ?? {})) add(t('results.prov.metadata', { key }), value);
  return facts.filter((f): f is Fact => f !== null);
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="result-section" aria-labelledby={id}>
      <h3 id={id} className="result-section-title">
        {title}
      </h3>
      {children}
    </section>
  );
}

function CommandBlock({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="command-box">
      <code className="command-text mono-block">{text}</code>
      <button type="button" className="btn btn-ghost btn-small" onClick={() => void copyText(text).then(setCopied)}>
        <Icon name={copied ? 'check' : 'copy'} size={13} />
        {copied ? t('engines.copied') : t('engines.copy')}
      </button>
    </div>
  );
}

/** A catalogue metric by its name and unit ("Mean TTFT (ms)"; a count has none); null for a number the catalogue lacks. */
function metricHeading(key: string): string | null {
  const spec = metricSpec(key);
  if (!spec) return null;
  const title = metricTitle({ key, title: spec.name, unit: spec.unit, better: spec.better ?? 'higher' });
  const isCount = spec.better === null && spec.decimals === 0;
  return isCount ? title : t('compare.metricWithUnit', { title, unit: spec.unit });
}

/** Numbers by name and unit; the name the client stored them under stays in the tooltip. Unknown ones by that name. */
function NumberList({ numbers }: { numbers: Record<string, number | null | undefined> }) {
  return (
    <dl className="result-metrics">
      {Object.entries(numbers).map(([key, value]) => {
        const heading = metricHeading(key);
        return (
          <div key={key} className="result-metric">
            <dt className={heading ? undefined : 'mono'} title={key}>
              {heading ?? key}
            </dt>
            <dd>{formatMetric(key, value)}</dd>
          </div>
        );
      })}
    </dl>
  );
}

/** Everything behind one entry's numbers: metrics as stored, provenance, the commands, the source and the log. */
export function ResultDetails({ entry, onClose, onRemove }: { entry: ResultEntry; onClose: () => void; onRemove: () => void }) {
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  const [showLog, setShowLog] = useState(entry.status === 'failed');
  const { result } = entry;
  const p = result.provenance;
  const facts = provenanceFacts(entry);
  const hasMetrics = Object.keys(result.metrics).length > 0;

  useEffect(() => {
    closeRef.current?.focus();
  }, [entry.id]);

  return (
    <aside
      className="result-drawer"
      aria-label={t('results.details.label')}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <header className="result-drawer-header">
        <div className="result-drawer-heading">
          <h2 id={titleId} className="result-drawer-title">
            {entry.title}
          </h2>
          <div className="result-drawer-badges">
            <Badge tone={entry.kind === 'measured' ? 'accent' : 'neutral'}>{t(`results.kind.${entry.kind}`)}</Badge>
            <Badge tone={entry.status === 'ok' ? 'success' : 'danger'} dot>
              {t(`results.status.${entry.status}`)}
            </Badge>
            {p?.simulated && (
              <Badge tone="warning" title={t('results.simulatedTitle')}>
                {t('results.simulated')}
              </Badge>
            )}
            <span className="muted">{t('results.details.added', { date: formatDateTime(entry.addedAt) })}</span>
          </div>
        </div>
        <button ref={closeRef} type="button" className="btn btn-ghost btn-icon" aria-label={t('results.details.close')} title={t('results.details.close')} onClick={onClose}>
          <Icon name="plus" className="icon-close" />
        </button>
      </header>
      <div className="result-drawer-body">
        {entry.error && (
          <div className="alert alert-danger" role="alert">
            <Icon name="alert" size={16} className="alert-icon" />
            <div className="alert-content">
              <p className="alert-title">{t('results.details.error')}</p>
              <pre className="alert-pre mono-block">{entry.error}</pre>
            </div>
          </div>
        )}
        <Section title={t('results.details.metrics')}>
          {hasMetrics ? <NumberList numbers={result.metrics} /> : <p className="muted">{t('results.details.noMetrics')}</p>}
        </Section>
        {Object.keys(result.extra).length > 0 && (
          <Section title={t('results.details.extra')}>
            <NumberList numbers={result.extra} />
          </Section>
        )}
        <Section title={t('results.details.provenance')}>
          {facts.length > 0 ? (
            <dl className="result-facts">
              {facts.map(([label, value]) => (
                <div key={label} className="result-fact">
                  <dt>{label}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          ) : (
            <p className="muted">{t('results.details.noProvenance')}</p>
          )}
        </Section>
        {entry.command && (
          <Section title={t('results.details.clientCommand')}>
            <CommandBlock text={entry.command} />
          </Section>
        )}
        {p?.serverArgv && p.serverArgv.length > 0 && (
          <Section title={t('results.details.serverCommand')}>
            <CommandBlock text={shellJoin(p.serverArgv)} />
          </Section>
        )}
        {p?.serverEnvNames && p.serverEnvNames.length > 0 && (
          <Section title={t('results.details.envNames')}>
            <ul className="result-env-names">
              {p.serverEnvNames.map((name) => (
                <li key={name} className="mono">
                  {name}
                </li>
              ))}
            </ul>
          </Section>
        )}
        {result.source && (
          <Section title={t('results.details.source')}>
            <p>
              <span className="mono">{`${result.source.file}#${result.source.index + 1}:${result.source.line}`}</span>{' '}
              <span className="muted">{t('results.details.sourceFormat', { format: result.source.format })}</span>
            </p>
          </Section>
        )}
        {entry.logTail && (
          <div className="result-log">
            <button type="button" className="btn btn-ghost btn-small" aria-expanded={showLog} onClick={() => setShowLog((v) => !v)}>
              <Icon name="chevron" size={12} className={showLog ? 'chevron-open' : undefined} />
              {showLog ? t('results.details.hideLog') : t('results.details.showLog')}
            </button>
            {showLog && <LogTail text={entry.logTail} />}
          </div>
        )}
      </div>
      <footer className="result-drawer-footer">
        <button type="button" className="btn btn-danger-outline btn-small" onClick={onRemove}>
          <Icon name="trash" size={13} />
          {t('results.details.remove')}
        </button>
      </footer>
    </aside>
  );
}
