import { useEffect, useId, useState } from 'react';
import { getAdapter } from '../../../../shared/engines';
import { Icon } from '../../components/Icon';
import { ConfirmDangerDialog } from '../../components/ConfirmDangerDialog';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore, type InstalledEngine } from '../../store';
import { formatDate } from './format';
import { InstallPanel } from './InstallPanel';
import { LaunchPanel } from './LaunchPanel';
import { modeLabel } from './ModeChoice';
import { SelectField } from '../../components/SelectField';
import { ServersOnBox } from './ServersOnBox';
import './engines.css';

export const DEMO_LAB_ID = 'demo-lab';

function RemoveEngineDialog({ hostId, item, onClose }: { hostId: string; item: InstalledEngine; onClose: () => void }) {
  const removeEngine = useAppStore((s) => s.removeEngine);
  const name = getAdapter(item.engine).displayName;
  return (
    <ConfirmDangerDialog
      title={t('engines.remove.title', { engine: name, version: item.version })}
      cancelLabel={t('engines.remove.cancel')}
      confirmLabel={t('engines.remove.confirm')}
      failureMessage={(e) => t('engines.remove.failed', { message: toErrorInfo(e).message })}
      onConfirm={() => removeEngine({ hostId, engine: item.engine, version: item.version })}
      onClose={onClose}
    >
      <p>{t('engines.remove.body', { dir: item.dir })}</p>
    </ConfirmDangerDialog>
  );
}

function InstalledEngines({ hostId }: { hostId: string }) {
  const list = useAppStore((s) => s.installedByHost[hostId]);
  const load = useAppStore((s) => s.loadInstalled);
  const [removing, setRemoving] = useState<InstalledEngine | null>(null);
  const titleId = useId();

  useEffect(() => {
    void load(hostId);
  }, [hostId, load]);

  const items = list?.items ?? [];
  return (
    <section className="card engines-card" aria-labelledby={titleId}>
      <div className="engines-card-head">
        <h2 id={titleId} className="card-title">
          <Icon name="layers" />
          {t('engines.installed.title')}
        </h2>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void load(hostId)} disabled={list?.status === 'loading'}>
          {list?.status === 'loading' ? <Spinner size={12} /> : <Icon name="refresh" size={13} />}
          {t('engines.installed.refresh')}
        </button>
      </div>
      {list?.status === 'failed' && (
        <p className="form-error" role="alert">
          {t('engines.installed.loadFailed', { message: list.error?.message ?? '' })}
        </p>
      )}
      {items.length === 0 ? (
        <p className="muted">{list?.status === 'loaded' ? t('engines.installed.empty') : t('engines.installed.loading')}</p>
      ) : (
        <table className="engines-table">
          <thead>
            <tr>
              <th scope="col">{t('engines.installed.engine')}</th>
              <th scope="col">{t('engines.installed.version')}</th>
              <th scope="col">{t('engines.installed.verified')}</th>
              <th scope="col">{t('engines.installed.mode')}</th>
              <th scope="col">{t('engines.installed.tool')}</th>
              <th scope="col">{t('engines.installed.date')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('engines.installed.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <tr key={`${item.engine}-${item.version}-${item.mode}`}>
                <td>{getAdapter(item.engine).displayName}</td>
                <td>{item.version}</td>
                <td>{item.verifiedVersion}</td>
                <td title={item.mode === 'docker' ? item.dir : undefined}>{modeLabel(item.mode)}</td>
                <td>{item.tool}</td>
                <td>{formatDate(item.installedAt)}</td>
                <td>
                  {/* engines:remove deletes an environment folder; a pulled image is left to docker. */}
                  {item.mode === 'env' && (
                    <button
                      type="button"
                      className="btn btn-danger-outline btn-small"
                      aria-label={t('engines.remove.buttonOf', { engine: getAdapter(item.engine).displayName, version: item.version })}
                      onClick={() => setRemoving(item)}
                    >
                      <Icon name="trash" size={13} />
                      {t('engines.remove.button')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {removing && <RemoveEngineDialog hostId={hostId} item={removing} onClose={() => setRemoving(null)} />}
    </section>
  );
}

/** Engines per host: what is installed, installing and removing versions, the servers on the box, and launching one. */
export function EnginesPage() {
  const hosts = useAppStore((s) => s.hosts);
  const [picked, setPicked] = useState<string | null>(null);
  const hostId =
    picked && hosts.some((h) => h.id === picked) ? picked : (hosts.find((h) => h.id === DEMO_LAB_ID)?.id ?? hosts[0]?.id ?? null);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1 className="page-title">{t('engines.title')}</h1>
          <p className="page-subtitle">{t('engines.subtitle')}</p>
        </div>
        {hosts.length > 0 && hostId && (
          <div className="page-actions engines-host-picker">
            <SelectField
              label={t('engines.host')}
              value={hostId}
              options={hosts.map((h) => ({ value: h.id, label: h.label }))}
              onValueChange={setPicked}
            />
          </div>
        )}
      </header>
      {!hostId ? (
        <p className="muted">{t('engines.noHosts')}</p>
      ) : (
        <div className="engines-layout" key={hostId}>
          <div className="engines-main">
            <InstalledEngines hostId={hostId} />
            <ServersOnBox hostId={hostId} />
            <LaunchPanel hostId={hostId} />
          </div>
          <aside className="engines-side">
            <InstallPanel hostId={hostId} />
          </aside>
        </div>
      )}
    </div>
  );
}
