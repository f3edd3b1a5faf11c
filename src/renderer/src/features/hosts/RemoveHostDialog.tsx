import { useRef, useState } from 'react';
import type { Host } from '../../../../shared/model/host';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';

export function RemoveHostDialog({ host, onClose }: { host: Host; onClose: () => void }) {
  const removeHost = useAppStore((s) => s.removeHost);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await removeHost(host.id);
      onClose();
    } catch (e) {
      setError(t('removeHost.failed', { message: toErrorInfo(e).message }));
      setBusy(false);
    }
  }

  return (
    <Modal
      title={t('removeHost.title', { label: host.label })}
      tone="danger"
      icon={<Icon name="trash" size={18} />}
      onClose={() => {
        if (!busy) onClose();
      }}
      initialFocus={cancelRef}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {t('removeHost.cancel')}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => void confirm()} disabled={busy}>
            {busy && <Spinner />}
            {t('removeHost.confirm')}
          </button>
        </>
      }
    >
      {host.kind === 'demo' ? (
        <p>{t('removeHost.demoBody')}</p>
      ) : (
        <>
          <p>{t('removeHost.body')}</p>
          <p className="muted">{t('removeHost.kept')}</p>
        </>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
