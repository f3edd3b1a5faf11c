import { useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ErrorInfo } from '../../../../shared/contract';
import { isSlurmCluster, type Host } from '../../../../shared/model/host';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { useCountdown } from '../../components/use-countdown';
import { t } from '../../i18n';
import { selectHostView, useAppStore, type HostBadgeState, type HostOperation, type ReceivedHostState } from '../../store';
import { ClusterView } from './ClusterView';
import { ConnectionLog } from './ConnectionLog';
import { EditHostDialog } from './EditHostDialog';
import { hostPort, hostTarget } from './format';
import { HostKeyChangedAlert } from './HostKeyChangedAlert';
import { InventoryView } from './InventoryView';
import { RemoveHostDialog } from './RemoveHostDialog';
import { ResolvedHostPanel } from './ResolvedHostPanel';

const BADGE_TONE: Record<HostBadgeState, BadgeTone> = {
  idle: 'neutral',
  connecting: 'info',
  ready: 'success',
  reconnecting: 'warning',
  failed: 'danger',
  'awaiting-key': 'attention',
  'awaiting-input': 'attention',
};

/**
 * The state badge, in the words the Connect button answers: not connected (Connect), connected and held
 * (Disconnect), or connected only until unused, as after an inventory read (Keep connected). While reconnecting it
 * names the attempt and counts down to it.
 */
function StateBadge({ badge, held, connection }: { badge: HostBadgeState; held: boolean; connection: ReceivedHostState | undefined }) {
  const reconnecting = badge === 'reconnecting' && connection?.state === 'reconnecting';
  const retryAt = reconnecting && connection.retryInSeconds !== undefined ? connection.receivedAt + connection.retryInSeconds * 1000 : null;
  const secondsLeft = useCountdown(retryAt);
  let text = badge === 'ready' && !held ? t('host.state.readyUntilUnused') : t(`host.state.${badge}`);
  if (reconnecting && connection.attempt !== undefined) {
    text =
      secondsLeft !== null && secondsLeft > 0
        ? t('host.state.reconnectingIn', { attempt: connection.attempt, seconds: secondsLeft })
        : t('host.state.reconnectingNow', { attempt: connection.attempt });
  }
  return (
    <Badge tone={BADGE_TONE[badge]} dot title={reconnecting ? connection.message : undefined}>
      <span className="visually-hidden">{t('host.statePrefix')} </span>
      {text}
    </Badge>
  );
}

/** What the host connects with, beyond the target: its alias, jump host, key and saved password. */
function HostFacts({ host }: { host: Host }) {
  const facts: { icon: 'terminal' | 'route' | 'key' | 'lock'; text: string; title?: string }[] = [];
  if (host.alias) facts.push({ icon: 'terminal', text: t('host.fact.alias', { alias: host.alias }), title: t('host.fact.aliasTitle') });
  if (host.proxyJump) facts.push({ icon: 'route', text: t('host.fact.via', { jump: host.proxyJump }), title: t('host.fact.viaTitle') });
  if (host.identityFile) facts.push({ icon: 'key', text: host.identityFile, title: host.identityFile });
  if (host.hasSavedPassword) facts.push({ icon: 'lock', text: t('host.fact.password') });
  if (facts.length === 0) return null;
  return (
    <ul className="host-facts">
      {facts.map((f) => (
        <li key={f.text} className="host-fact" title={f.title}>
          <Icon name={f.icon} size={12} />
          <span>{f.text}</span>
        </li>
      ))}
    </ul>
  );
}

function HostError({ error, operation, host, awaitingKeyDecision }: { error: ErrorInfo; operation: HostOperation | null; host: Host; awaitingKeyDecision: boolean }) {
  if (error.code === 'HOST_KEY_CHANGED' || error.code === 'HOST_KEY_REVOKED') return <HostKeyChangedAlert error={error} hostId={host.id} hostLabel={host.label} />;
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
        <p className="alert-title">{t(operation === 'connect' ? 'host.error.connectTitle' : operation === 'cluster' ? 'host.error.clusterTitle' : 'host.error.title')}</p>
        <p className="alert-message">{error.message}</p>
        <p className="alert-code">{t('host.error.code', { code: error.code })}</p>
      </div>
    </div>
  );
}

/**
 * One host: who and where, its connection state and log, the last inventory or why it could not be read. A Slurm
 * cluster's login node shows the cluster (partitions, node types, accounts) in place of the login node's own GPUs.
 */
export function HostCard({ hostId }: { hostId: string }) {
  const view = useAppStore(useShallow((s) => selectHostView(s, hostId)));
  const readInventory = useAppStore((s) => s.readInventory);
  const readCluster = useAppStore((s) => s.readCluster);
  const connectHost = useAppStore((s) => s.connectHost);
  const disconnectHost = useAppStore((s) => s.disconnectHost);
  const [dialog, setDialog] = useState<'remove' | 'edit' | null>(null);
  const [logOpen, setLogOpen] = useState(false);
  const [resolvedOpen, setResolvedOpen] = useState(false);
  const titleId = useId();
  const logId = useId();
  const resolvedId = useId();
  const { host } = view;
  if (!host) return null;

  const isDemo = host.kind === 'demo';
  const isCluster = isSlurmCluster(host);
  const hasInventory = Boolean(isCluster ? view.cluster : view.inventory);
  const readLabel = isCluster
    ? t(hasInventory ? 'host.refreshClusterOf' : 'host.readClusterOf', { label: host.label })
    : t(hasInventory ? 'host.refreshOf' : 'host.readInventoryOf', { label: host.label });
  const target = hostPort(host.address, host.port);
  const busy = view.loading || view.holdPending;
  // Open for an operation (an inventory read), not held: the button keeps it open rather than connects.
  const keepOpen = !view.held && view.badge === 'ready';

  return (
    <article className="card host-card" aria-labelledby={titleId} aria-busy={busy}>
      <header className="host-header">
        <div className="host-identity">
          <div className="host-title-row">
            <h3 id={titleId} className="host-title">
              {host.label}
            </h3>
            {isDemo && (
              <Badge tone="warning" title={t('host.simulatedTitle')}>
                {t('host.simulated')}
              </Badge>
            )}
            {isCluster && (
              <Badge tone="info" title={t('host.slurmTitle')}>
                {t('host.slurm')}
              </Badge>
            )}
            <StateBadge badge={view.badge} held={view.held} connection={view.connection} />
          </div>
          <p className="host-address">{isDemo ? t('host.demoTarget') : <span className="mono">{hostTarget(host)}</span>}</p>
          {!isDemo && <HostFacts host={host} />}
        </div>
        <div className="host-actions">
          <button
            type="button"
            className={`btn ${view.held ? 'btn-secondary' : 'btn-ghost btn-outline'}`}
            aria-label={view.held ? t('host.disconnectOf', { label: host.label }) : keepOpen ? t('host.keepConnectedOf', { label: host.label }) : t('host.connectOf', { label: host.label })}
            aria-disabled={view.holdPending || undefined}
            onClick={() => {
              if (view.holdPending) return;
              void (view.held ? disconnectHost(host.id) : connectHost(host.id));
            }}
          >
            {view.holdPending ? <Spinner /> : <Icon name={view.held ? 'power' : 'plug'} size={14} />}
            {view.held ? t('host.disconnect') : keepOpen ? t('host.keepConnected') : t('host.connect')}
          </button>
          <button
            type="button"
            className={`btn ${hasInventory ? 'btn-secondary' : 'btn-primary'}`}
            aria-label={readLabel}
            aria-disabled={view.loading || undefined}
            onClick={() => {
              if (!view.loading) void (isCluster ? readCluster(host.id) : readInventory(host.id));
            }}
          >
            {view.loading ? <Spinner /> : <Icon name="refresh" size={14} />}
            {hasInventory ? t('host.refresh') : isCluster ? t('host.readCluster') : t('host.readInventory')}
          </button>
          <span className="host-actions-divider" aria-hidden="true" />
          {!isDemo && (
            <button
              type="button"
              className={`btn btn-ghost btn-icon${resolvedOpen ? ' is-on' : ''}`}
              aria-label={t('host.resolvedOf', { label: host.label })}
              title={t('host.resolved')}
              aria-expanded={resolvedOpen}
              aria-controls={resolvedId}
              onClick={() => setResolvedOpen((open) => !open)}
            >
              <Icon name="route" size={15} />
            </button>
          )}
          <button
            type="button"
            className={`btn btn-ghost btn-icon${logOpen ? ' is-on' : ''}`}
            aria-label={t('host.logOf', { label: host.label })}
            title={t('host.log')}
            aria-expanded={logOpen}
            aria-controls={logId}
            onClick={() => setLogOpen((open) => !open)}
          >
            <Icon name="log" size={15} />
          </button>
          {!isDemo && (
            <button type="button" className="btn btn-ghost btn-icon" aria-label={t('host.editOf', { label: host.label })} title={t('host.edit')} onClick={() => setDialog('edit')}>
              <Icon name="pencil" size={15} />
            </button>
          )}
          <button
            type="button"
            className="btn btn-ghost btn-icon"
            aria-label={t('host.removeOf', { label: host.label })}
            title={t('host.remove')}
            onClick={() => setDialog('remove')}
          >
            <Icon name="trash" size={15} />
          </button>
        </div>
      </header>

      <div className="host-body">
        {(view.loading || (view.holdPending && !view.held)) && (
          <p className="host-progress" role="status">
            <Spinner />
            {isDemo ? t('host.readingDemo') : isCluster && view.loading ? t('host.readingCluster', { target }) : t('host.connecting', { target })}
          </p>
        )}
        {!busy && view.error && <HostError error={view.error} operation={view.errorOperation} host={host} awaitingKeyDecision={view.awaitingKeyDecision} />}
        {isCluster && view.cluster && <ClusterView cluster={view.cluster} label={host.label} />}
        {!isCluster && view.inventory && <InventoryView inventory={view.inventory} label={host.label} />}
        {!hasInventory && !busy && !view.error && <p className="empty-line">{isCluster ? t('host.clusterNotRead') : t('host.notRead')}</p>}
      </div>

      {!isDemo && (
        <div id={resolvedId} className="host-resolved" hidden={!resolvedOpen}>
          {resolvedOpen && <ResolvedHostPanel host={host} />}
        </div>
      )}

      <div id={logId} className="host-log" hidden={!logOpen}>
        {logOpen && <ConnectionLog hostId={host.id} label={host.label} />}
      </div>

      {dialog === 'remove' && <RemoveHostDialog host={host} onClose={() => setDialog(null)} />}
      {dialog === 'edit' && <EditHostDialog host={host} onClose={() => setDialog(null)} />}
    </article>
  );
}
