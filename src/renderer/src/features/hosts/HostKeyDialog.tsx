import { useRef } from 'react';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore } from '../../store';
import { hostPort } from './format';

/**
 * Asks the user to decide on an unknown host key, showing what OpenSSH would: host, key type and the SHA256
 * fingerprint. Accepting stores exactly that key and reads the inventory again; Cancel stores nothing.
 */
export function HostKeyDialog() {
  const prompt = useAppStore((s) => s.hostKeyPrompt);
  const acceptHostKey = useAppStore((s) => s.acceptHostKey);
  const dismiss = useAppStore((s) => s.dismissHostKeyPrompt);
  const cancelRef = useRef<HTMLButtonElement>(null);
  if (!prompt) return null;
  const { key } = prompt;
  const target = hostPort(key.host, key.port);

  return (
    <Modal
      title={t('hostKey.title')}
      icon={<Icon name="key" size={18} />}
      onClose={() => {
        if (!prompt.accepting) dismiss();
      }}
      initialFocus={cancelRef}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={dismiss} disabled={prompt.accepting}>
            {t('hostKey.cancel')}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void acceptHostKey()} disabled={prompt.accepting}>
            {prompt.accepting && <Spinner />}
            {prompt.accepting ? t('hostKey.accepting') : t('hostKey.accept')}
          </button>
        </>
      }
    >
      <p>{t('hostKey.intro', { target })}</p>
      <dl className="key-facts">
        <dt>{t('hostKey.host')}</dt>
        <dd className="mono">{target}</dd>
        <dt>{t('hostKey.keyType')}</dt>
        <dd className="mono">{key.keyType}</dd>
        <dt>{t('hostKey.fingerprint')}</dt>
        <dd className="mono fingerprint">{key.fingerprint}</dd>
      </dl>
      <p className="muted">{t('hostKey.explain')}</p>
      {prompt.error && (
        <p className="form-error" role="alert">
          {t('hostKey.acceptFailed', { message: prompt.error.message })}
        </p>
      )}
    </Modal>
  );
}

