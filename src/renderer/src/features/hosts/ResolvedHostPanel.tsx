import { useId } from 'react';
import type { ErrorInfo } from '../../../../shared/contract';
import type { Host } from '../../../../shared/model/host';
import type { ResolvedHostView } from '../../../../shared/model/ssh-resolve';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { resolvedAddress, ResolvedHostFacts } from './ResolvedHostFacts';
import { useResolvedHost } from './use-resolved-host';

const RESOLVER_NAME: Record<ResolvedHostView['source'], 'resolved.source.openssh' | 'resolved.source.builtin'> = {
  'ssh -G': 'resolved.source.openssh',
  'built-in': 'resolved.source.builtin',
};

/** What a saved host's settings are made of: a change to any of them (an edit) resolves the host again. */
function resolutionRevision(host: Host): string {
  return JSON.stringify([host.updatedAt, host.alias, host.address, host.port, host.user, host.identityFile, host.proxyJump]);
}

function ResolveError({ error, label }: { error: ErrorInfo; label: string }) {
  // SSH_CONFIG_INVALID carries ssh's own words ("… line 12: Bad configuration option: …"): shown as they are.
  const badConfig = error.code === 'SSH_CONFIG_INVALID';
  return (
    <div className="alert alert-danger" role="alert">
      <Icon name="alert" size={16} className="alert-icon" />
      <div className="alert-content">
        <p className="alert-title">{badConfig ? t('resolved.error.configTitle') : t('resolved.error.title', { label })}</p>
        <p className={badConfig ? 'alert-message mono' : 'alert-message'}>{error.message}</p>
        {badConfig && <p className="alert-hint">{t('resolved.error.configHint')}</p>}
        <p className="alert-code">{t('host.error.code', { code: error.code })}</p>
      </div>
    </div>
  );
}

function ResolveWarnings({ warnings }: { warnings: string[] }) {
  const titleId = useId();
  if (warnings.length === 0) return null;
  return (
    <div className="alert resolved-warnings" role="note" aria-labelledby={titleId}>
      <Icon name="alert" size={16} className="alert-icon" />
      <div className="alert-content">
        <p id={titleId} className="alert-title">
          {t('resolved.warnings')}
        </p>
        <ul className="resolved-warning-list">
          {warnings.map((warning, index) => (
            <li key={`${index}-${warning}`}>{warning}</li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * "Resolved as": how a saved SSH host will be reached, as the core resolves it (`ssh -G` where OpenSSH is installed,
 * else the built-in reader), asked when shown, after an edit and on Refresh.
 */
export function ResolvedHostPanel({ host }: { host: Host }) {
  const { view, error, loading, refresh } = useResolvedHost(host.id, resolutionRevision(host));
  const titleId = useId();

  return (
    <section className="resolved" aria-labelledby={titleId} aria-busy={loading}>
      <header className="resolved-header">
        <div className="resolved-heading">
          <h4 id={titleId} className="resolved-title">
            <Icon name="route" size={14} />
            {t('resolved.title')}
          </h4>
          {view && <p className="resolved-source">{t('resolved.resolvedBy', { resolver: t(RESOLVER_NAME[view.source]) })}</p>}
        </div>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          aria-label={t('resolved.refreshOf', { label: host.label })}
          aria-disabled={loading || undefined}
          onClick={() => {
            if (!loading) refresh();
          }}
        >
          {loading ? <Spinner size={12} /> : <Icon name="refresh" size={13} />}
          {t('resolved.refresh')}
        </button>
      </header>
      <div className="resolved-body">
        <p className="resolved-progress" role="status">
          {loading && (
            <>
              <Spinner size={12} />
              {view ? t('resolved.refreshing') : t('resolved.loading')}
            </>
          )}
        </p>
        {error && <ResolveError error={error} label={host.label} />}
        {view && (
          <>
            <ResolveWarnings warnings={view.warnings} />
            <p className="resolved-address mono">{resolvedAddress(view)}</p>
            <ResolvedHostFacts view={view} label={host.label} />
          </>
        )}
      </div>
    </section>
  );
}
