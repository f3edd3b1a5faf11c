import { useRef, useState } from 'react';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore, type PresentedHostKey } from '../../store';
import { hostPort } from './format';

/** How many trailing characters of the new fingerprint the user must type. */
export const CONFIRM_LENGTH = 8;

/** The text that unlocks the replacement: the end of the new fingerprint, which the user must have looked at. */
export function replaceConfirmation(fingerprint: string): string {
  return fingerprint.slice(-CONFIRM_LENGTH);
}

/**
 * The one deliberate way past a changed host key: the user reads both fingerprints and types the end of the new
 * one. Only then is hosts:replaceHostKey called, with exactly the fingerprint shown.
 */
export function ReplaceHostKeyDialog({
  hostId,
  hostLabel,
  hostKey,
  onClose,
}: {
  hostId: string;
  hostLabel: string;
  hostKey: PresentedHostKey;
  onClose: () => void;
}) {
  const replaceHostKey = useAppStore((s) => s.replaceHostKey);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const expected = replaceConfirmation(hostKey.fingerprint);
  const matches = typed.trim() === expected;
  const target = hostPort(hostKey.host, hostKey.port);
  const jump = hostKey.role === 'jump';

  async function confirm() {
    if (!matches || busy) return;
    setBusy(true);
    setError(null);
    try {
      await replaceHostKey(hostId, hostKey.fingerprint);
      onClose();
    } catch (e) {
      setError(t('replaceKey.failed', { message: toErrorInfo(e).message }));
      setBusy(false);
    }
  }

  return (
    <Modal
      title={jump ? t('replaceKey.titleJump', { target }) : t('replaceKey.title', { target })}
      tone="danger"
      icon={<Icon name="shield" size={18} />}
      dismissOnBackdrop={false}
      initialFocus={cancelRef}
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {t('replaceKey.cancel')}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => void confirm()} disabled={!matches || busy}>
            {busy && <Spinner />}
            {t('replaceKey.confirm')}
          </button>
        </>
      }
    >
      <p className="danger-callout">{t('replaceKey.warning')}</p>
      <p>{jump ? t('replaceKey.introJump', { label: hostLabel, target }) : t('replaceKey.intro', { target })}</p>
      <dl className="key-facts">
        <dt>{t('hostKey.role')}</dt>
        <dd>
          <span className={`hop-badge hop-${hostKey.role}`}>{jump ? t('hostKey.role.jump') : t('hostKey.role.target')}</span>
        </dd>
        <dt>{t('hostKey.keyType')}</dt>
        <dd className="mono">{hostKey.keyType}</dd>
        {hostKey.expectedFingerprint && (
          <>
            <dt>{t('replaceKey.stored')}</dt>
            <dd className="mono fingerprint fingerprint-old">{hostKey.expectedFingerprint}</dd>
          </>
        )}
        <dt>{t('replaceKey.new')}</dt>
        <dd className="mono fingerprint">
          {hostKey.fingerprint.slice(0, -CONFIRM_LENGTH)}
          <mark className="fingerprint-tail">{expected}</mark>
        </dd>
      </dl>
      <form
        className="form form-compact"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void confirm();
        }}
      >
        <TextField
          className="mono-input"
          label={t('replaceKey.typeLabel', { count: CONFIRM_LENGTH })}
          value={typed}
          onValueChange={setTyped}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          hint={t('replaceKey.typeHint')}
        />
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
