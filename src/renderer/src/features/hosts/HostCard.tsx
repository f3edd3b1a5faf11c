import { useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ErrorInfo } from '../../../../shared/contract';
import type { Host } from '../../../../shared/model/host';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { selectHostView, useAppStore, type HostBadgeState } from '../../store';
import { hostPort, hostTarget } from './format';
import { HostKeyChangedAlert } from './HostKeyChangedAlert';
import { InventoryView } from './InventoryView';
import { RemoveHostDialog } from './RemoveHostDialog';

const BADGE_TONE: Record<HostBadgeState, BadgeTone> = { idle: 'neutral', connecting: 'info', ready: 'success', failed: 'danger', 'awaiting-key': 'warning' };

function authText(host: Host): string {
  if (host.auth.method === 'key') return t('host.auth.key', { path: host.auth.identityFile });
  return host.auth.hasSavedPassword ? t('host.auth.password') : t('host.auth.passwordMissing');
}

function HostError({ error, awaitingKeyDecision }: { error: ErrorInfo; awaitingKeyDecision: boolean }) {
  if (error.code === 'HOST_KEY_CHANGED' || error.code === 'HOST_KEY_REVOKED') return <HostKeyChangedAlert error={error} />;
  if (error.code === 'HOST_KEY_UNKNOWN') {
    return (
      <div className="alert alert-neutral">
        <Icon name="key" size={16} className="alert-icon" />
        <p className="alert-content">{awaitingKeyDecision ? t('host.keyPending') : t('host.keyNotAccepted')}</p>
      </div>
    );
  }
  return (
    <div className="alert alert-danger" role="alert">
      <Icon name="alert" size={16} className="alert-icon" />
      <div className="alert-content">
        <p className="alert-title">{t('host.error.title')}</p>
        <p className="alert-message">{error.message}</p>
        <p className="alert-code">{t('host.error.code', { code: error.code })}</p>
      </div>
    </div>
  );
}

/** One host: who and where, its connection state, the last inventory or why it could not be read. */
export function HostCard({ hostId }: { hostId: string }) {
  const view = useAppStore(useShallow((s) => selectHostView(s, hostId)));
  const readInventory = useAppStore((s) => s.readInventory);
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const titleId = useId();
  const { host } = view;
  if (!host) return null;

  const hasInventory = Boolean(view.inventory);
  const readLabel = hasInventory ? t('host.refreshOf', { label: host.label }) : t('host.readInventoryOf', { label: host.label });
  const stateText = t(`host.state.${view.badge}`);

  return (
    <article className="card host-card" aria-labelledby={titleId} aria-busy={view.loading}>
      <header className="host-header">
        <div className="host-identity">
          <div className="host-title-row">
            <h3 id={titleId} className="host-title">
              {host.label}
            </h3>
            <Badge tone={BADGE_TONE[view.badge]} dot>
              <span className="visually-hidden">{t('host.statePrefix')} </span>
              {stateText}
            </Badge>
          </div>
          <p className="host-address">
            <span className="mono">{hostTarget(host)}</span>
            <span className="host-auth">{authText(host)}</span>
          </p>
        </div>
        <div className="host-actions">
          <button
            type="button"
            className={`btn ${hasInventory ? 'btn-secondary' : 'btn-primary'}`}
            aria-label={readLabel}
            aria-disabled={view.loading || undefined}
            onClick={() => {
              if (!view.loading) void readInventory(host.id);
            }}
          >
            {view.loading ? <Spinner /> : <Icon name="refresh" size={14} />}
            {hasInventory ? t('host.refresh') : t('host.readInventory')}
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-icon"
            aria-label={t('host.removeOf', { label: host.label })}
            title={t('host.remove')}
            onClick={() => setConfirmingRemove(true)}
          >
            <Icon name="trash" size={15} />
          </button>
        </div>
      </header>

      <div className="host-body">
        {view.loading && (
          <p className="host-progress" role="status">
            <Spinner />
            {t('host.connecting', { target: hostPort(host.address, host.port) })}
          </p>
        )}
        {!view.loading && view.error && <HostError error={view.error} awaitingKeyDecision={view.awaitingKeyDecision} />}
        {view.inventory ? (
          <InventoryView inventory={view.inventory} label={host.label} />
        ) : (
          !view.loading && !view.error && <p className="empty-line">{t('host.notRead')}</p>
        )}
      </div>

      {confirmingRemove && <RemoveHostDialog host={host} onClose={() => setConfirmingRemove(false)} />}
    </article>
  );
}
