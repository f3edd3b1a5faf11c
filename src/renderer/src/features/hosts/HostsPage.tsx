import { useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { selectHostIds, toErrorInfo, useAppStore } from '../../store';
import { AddHostForm } from './AddHostForm';
import { HostCard } from './HostCard';
import { HostKeyDialog } from './HostKeyDialog';
import { ImportSshConfigDialog } from './ImportSshConfigDialog';
import { GettingStarted } from '../welcome/GettingStarted';
import './hosts.css';

function HostList() {
  const hostIds = useAppStore(useShallow(selectHostIds));
  const load = useAppStore((s) => s.hostsLoad);
  const loadHosts = useAppStore((s) => s.loadHosts);
  const listId = useId();

  if (load.status === 'failed' && hostIds.length === 0) {
    return (
      <div className="alert alert-danger" role="alert">
        <Icon name="alert" size={16} className="alert-icon" />
        <div className="alert-content">
          <p>{t('hosts.loadFailed', { message: load.error?.message ?? '' })}</p>
          <button type="button" className="btn btn-secondary btn-small" onClick={() => void loadHosts()}>
            {t('hosts.retry')}
          </button>
        </div>
      </div>
    );
  }
  if (hostIds.length === 0 && (load.status === 'loading' || load.status === 'idle')) {
    return (
      <p className="host-progress" role="status">
        <Spinner />
        {t('hosts.loading')}
      </p>
    );
  }
  if (hostIds.length === 0) {
    return (
      <EmptyState icon="server" title={t('hosts.empty.title')} body={t('hosts.empty.body')} />
    );
  }
  return (
    <section aria-labelledby={listId}>
      <h2 id={listId} className="visually-hidden">
        {t('hosts.listLabel')}
      </h2>
      <ul className="host-list">
        {hostIds.map((id) => (
          <li key={id}>
            <HostCard hostId={id} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Shown once the demo lab was removed: brings it back. */
function RestoreDemoLabButton() {
  const hasDemo = useAppStore((s) => s.hosts.some((h) => h.kind === 'demo'));
  const loaded = useAppStore((s) => s.hostsLoad.status === 'loaded');
  const restoreDemoLab = useAppStore((s) => s.restoreDemoLab);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (hasDemo || !loaded) return null;
  return (
    <>
      <button
        type="button"
        className="btn btn-secondary"
        aria-disabled={busy || undefined}
        onClick={() => {
          if (busy) return;
          setBusy(true);
          setError(null);
          restoreDemoLab()
            .catch((e: unknown) => setError(t('hosts.restoreDemoLabFailed', { message: toErrorInfo(e).message })))
            .finally(() => setBusy(false));
        }}
      >
        {busy ? <Spinner /> : <Icon name="server" size={14} />}
        {t('hosts.restoreDemoLab')}
      </button>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

export function HostsPage() {
  const count = useAppStore((s) => s.hosts.length);
  const [importing, setImporting] = useState(false);
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1 className="page-title">
            {t('hosts.title')}
            {count > 0 && <span className="page-count">{count === 1 ? t('hosts.countOne') : t('hosts.count', { count })}</span>}
          </h1>
          <p className="page-subtitle">{t('hosts.subtitle')}</p>
        </div>
        <div className="page-actions">
          <RestoreDemoLabButton />
          <button type="button" className="btn btn-secondary" onClick={() => setImporting(true)}>
            <Icon name="download" size={14} />
            {t('hosts.import')}
          </button>
        </div>
      </header>
      <GettingStarted />
      <div className="hosts-layout">
        <div className="hosts-main">
          <HostList />
        </div>
        <aside className="hosts-side">
          <AddHostForm />
        </aside>
      </div>
      <HostKeyDialog />
      {importing && <ImportSshConfigDialog onClose={() => setImporting(false)} />}
    </div>
  );
}
