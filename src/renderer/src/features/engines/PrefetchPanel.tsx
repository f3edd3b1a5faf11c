import { Icon } from '../../components/Icon';
import { ProgressBar, ProgressHead } from '../../components/ProgressBar';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore } from '../../store';

/** A prefetch the launch panel started: which model, and its job once the core answered. */
export interface PrefetchStart {
  model: string;
  jobId: string | null;
  error: string | null;
}

/** The "Prefetch weights" button, then the download's files done/total, its newest line and its outcome. */
export function PrefetchPanel({
  started,
  disabled,
  reason,
  onPrefetch,
}: {
  started: PrefetchStart | null;
  disabled: boolean;
  /** Why the button cannot be used, when that is not the model field's own error. */
  reason: string | null;
  onPrefetch: () => void;
}) {
  const job = useAppStore((s) => (started?.jobId ? s.prefetchJobs[started.jobId] : undefined));
  const running = started !== null && started.error === null && !job?.outcome;
  const total = job?.total ?? null;
  const done = job?.done ?? 0;
  const percent = total ? Math.min(100, (done / total) * 100) : 0;
  const count = total === null ? t('engines.prefetch.listing') : t('engines.prefetch.progress', { done, total });
  return (
    <div className="prefetch">
      <div className="prefetch-head">
        <button type="button" className="btn btn-secondary btn-small" onClick={onPrefetch} disabled={disabled || running}>
          {running ? <Spinner size={12} /> : <Icon name="download" size={13} />}
          {t('engines.prefetch.button')}
        </button>
        <span className="field-hint">{reason ?? t('engines.prefetch.hint')}</span>
      </div>
      {started?.error && (
        <p className="form-error" role="alert">
          {started.error}
        </p>
      )}
      {started?.jobId && (
        <div className="progress-group">
          <ProgressHead mono caption={t('engines.prefetch.title', { model: started.model })} detail={count} />
          <ProgressBar label={t('engines.prefetch.progressLabel')} percent={job?.outcome?.ok ? 100 : percent} max={total ?? undefined} value={total === null ? undefined : done} valueText={count} />
          {job?.line && !job.outcome && <p className="prefetch-line mono">{job.line}</p>}
          {job?.outcome &&
            (job.outcome.ok ? (
              <p className="form-success" role="status">
                {t('engines.prefetch.succeeded', { path: job.outcome.localPath ?? '' })}
              </p>
            ) : (
              <p className="form-error" role="alert">
                {t('engines.prefetch.failed', { message: job.outcome.message })}
              </p>
            ))}
        </div>
      )}
    </div>
  );
}

/** One line near Launch: whether the chosen model's weights were prefetched. Nothing waits on it. */
export function PrefetchState({ started, model }: { started: PrefetchStart | null; model: string }) {
  const job = useAppStore((s) => (started?.jobId ? s.prefetchJobs[started.jobId] : undefined));
  let text = t('engines.prefetch.state.none');
  let tone = 'muted';
  if (started && started.model === model && started.jobId) {
    if (job?.outcome) {
      text = job.outcome.ok ? t('engines.prefetch.state.cached') : t('engines.prefetch.state.failed');
      tone = job.outcome.ok ? 'form-success' : 'field-error';
    } else {
      text = job?.total != null ? t('engines.prefetch.state.running', { done: job.done, total: job.total }) : t('engines.prefetch.state.listing');
    }
  }
  return (
    <p className={`prefetch-state ${tone}`} data-testid="prefetch-state">
      {text}
    </p>
  );
}
