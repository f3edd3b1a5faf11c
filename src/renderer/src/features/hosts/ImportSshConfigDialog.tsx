import { useEffect, useId, useRef, useState } from 'react';
import type { SshConfigAliasView } from '../../../../shared/model/host';
import { Badge } from '../../components/Badge';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import { hostPort } from './format';

function AliasRow({
  alias,
  added,
  checked,
  onToggle,
}: {
  alias: SshConfigAliasView;
  added: boolean;
  checked: boolean;
  onToggle: (checked: boolean) => void;
}) {
  const id = useId();
  const target = `${alias.user ? `${alias.user}@` : ''}${hostPort(alias.hostName, alias.port)}`;
  return (
    <li className={`alias-row${checked ? ' is-selected' : ''}${added ? ' is-added' : ''}`}>
      <input id={id} type="checkbox" checked={checked} disabled={added} onChange={(event) => onToggle(event.target.checked)} />
      <label htmlFor={id} className="alias-main">
        <span className="alias-name mono">{alias.alias}</span>{' '}
        <span className="alias-target mono">{target}</span>
      </label>
      <span className="alias-extra">
        {alias.proxyJump && (
          <span className="alias-jump" title={t('import.viaTitle', { jump: alias.proxyJump })}>
            <Icon name="route" size={13} />
            <span className="mono">{alias.proxyJump}</span>
          </span>
        )}
        {added && <Badge tone="neutral">{t('import.alreadyAdded')}</Badge>}
      </span>
    </li>
  );
}

/**
 * Offers the concrete `Host` entries of ~/.ssh/config with what they resolve to, and adds the chosen ones as
 * hosts that refer to their alias, so later edits to the config apply at the next connect.
 */
export function ImportSshConfigDialog({ onClose }: { onClose: () => void }) {
  const sshConfig = useAppStore((s) => s.sshConfig);
  const hosts = useAppStore((s) => s.hosts);
  const load = useAppStore((s) => s.loadSshConfigAliases);
  const addHost = useAppStore((s) => s.addHost);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [failures, setFailures] = useState<{ alias: string; message: string }[]>([]);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    // The config may have changed since the last look: read it afresh each time the dialog opens.
    void load();
  }, [load]);

  const addedAliases = new Set(hosts.map((h) => h.alias).filter((a): a is string => a !== null));
  const available = sshConfig.aliases.filter((a) => !addedAliases.has(a.alias));
  const chosen = available.filter((a) => selected.has(a.alias));
  const allChosen = available.length > 0 && chosen.length === available.length;

  function toggle(alias: string, on: boolean) {
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(alias);
      else next.delete(alias);
      return next;
    });
  }

  async function importChosen() {
    setBusy(true);
    setFailures([]);
    const failed: { alias: string; message: string }[] = [];
    // One at a time: each add resolves the alias in the core and reports its own problem.
    for (const { alias } of chosen) {
      try {
        await addHost({ alias });
        setSelected((prev) => {
          const next = new Set(prev);
          next.delete(alias);
          return next;
        });
      } catch (error) {
        failed.push({ alias, message: toErrorInfo(error).message });
      }
    }
    setBusy(false);
    if (failed.length === 0) onClose();
    else setFailures(failed);
  }

  const loading = sshConfig.status === 'loading' || sshConfig.status === 'idle';
  let body;
  if (loading && sshConfig.aliases.length === 0) {
    body = (
      <p className="host-progress" role="status">
        <Spinner />
        {t('import.loading')}
      </p>
    );
  } else if (sshConfig.status === 'failed') {
    body = (
      <p className="form-error" role="alert">
        {t('import.failed', { message: sshConfig.error?.message ?? '' })}
      </p>
    );
  } else if (sshConfig.aliases.length === 0) {
    body = (
      <EmptyState compact icon="terminal" iconSize={20} title={t('import.empty.title')} body={t('import.empty.body')}>
        <p className="code-block">{sshConfig.configPath}</p>
      </EmptyState>
    );
  } else {
    body = (
      <>
        <div className="alias-toolbar">
          <label className="alias-select-all">
            <input
              type="checkbox"
              checked={allChosen}
              disabled={available.length === 0 || busy}
              onChange={(event) => setSelected(event.target.checked ? new Set(available.map((a) => a.alias)) : new Set())}
            />
            {t('import.selectAll')}
          </label>
          <span className="muted">{t('import.count', { selected: chosen.length, total: available.length })}</span>
        </div>
        <ul className="alias-list" aria-label={t('import.listLabel')}>
          {sshConfig.aliases.map((alias) => (
            <AliasRow
              key={alias.alias}
              alias={alias}
              added={addedAliases.has(alias.alias)}
              checked={!addedAliases.has(alias.alias) && selected.has(alias.alias)}
              onToggle={(on) => toggle(alias.alias, on)}
            />
          ))}
        </ul>
      </>
    );
  }

  return (
    <Modal
      title={t('import.title')}
      icon={<Icon name="download" size={18} />}
      size="wide"
      initialFocus={cancelRef}
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {t('import.cancel')}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void importChosen()} disabled={busy || chosen.length === 0}>
            {busy ? <Spinner /> : <Icon name="plus" size={14} />}
            {chosen.length === 0 ? t('import.submitNone') : chosen.length === 1 ? t('import.submitOne') : t('import.submit', { count: chosen.length })}
          </button>
        </>
      }
    >
      {sshConfig.configPath && sshConfig.aliases.length > 0 && (
        <p className="muted">
          {t('import.intro')} <span className="mono">{sshConfig.configPath}</span>
        </p>
      )}
      {body}
      {failures.length > 0 && (
        <div className="form-error" role="alert">
          <p>{t('import.someFailed')}</p>
          <ul className="failure-list">
            {failures.map((f) => (
              <li key={f.alias}>
                <span className="mono">{f.alias}</span>: {f.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </Modal>
  );
}
