import { useRef } from 'react';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore } from '../../store';
import { hostPort } from './format';

/**
 * Asks the user to decide on an unknown host key, showing what OpenSSH would: host, key type and the SHA256
 * fingerprint, and whether the key belongs to a jump host on the way or to the box itself. Accepting stores
 * exactly that key and repeats the request (which may bring the next hop's key); Cancel stores nothing.
 */
export function HostKeyDialog() {
  const prompt = useAppStore((s) => s.hostKeyPrompts[0] ?? null);
  const host = useAppStore((s) => (prompt ? s.hosts.find((h) => h.id === prompt.hostId) : undefined));
  const waiting = useAppStore((s) => s.hostKeyPrompts.length);
  const acceptHostKey = useAppStore((s) => s.acceptHostKey);
  const dismiss = useAppStore((s) => s.dismissHostKeyPrompt);
  const cancelRef = useRef<HTMLButtonElement>(null);
  if (!prompt) return null;
  const { key } = prompt;
  const target = hostPort(key.host, key.port);
  const jump = key.role === 'jump';
  const label = host?.label ?? prompt.hostId;

  return (
    <Modal
      // A new decision is a new dialog: focus goes back to Cancel for each one.
      key={`${prompt.hostId}-${key.fingerprint}`}
      title={jump ? t('hostKey.titleJump') : t('hostKey.title')}
      icon={<Icon name={jump ? 'route' : 'key'} size={18} />}
      onClose={() => {
        if (!prompt.accepting) dismiss(prompt.hostId);
      }}
      dismissOnBackdrop={false}
      initialFocus={cancelRef}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={() => dismiss(prompt.hostId)} disabled={prompt.accepting}>
            {t('hostKey.cancel')}
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void acceptHostKey(prompt.hostId)} disabled={prompt.accepting}>
            {prompt.accepting && <Spinner />}
            {prompt.accepting ? t('hostKey.accepting') : jump ? t('hostKey.acceptJump') : t('hostKey.accept')}
          </button>
        </>
      }
    >
      {jump ? (
        <p className="hop-note">
          <Icon name="route" size={14} />
          <span>{t('hostKey.jumpNote', { label })}</span>
        </p>
      ) : null}
      <p>{jump ? t('hostKey.introJump', { target }) : t('hostKey.intro', { target })}</p>
      <dl className="key-facts">
        <dt>{t('hostKey.role')}</dt>
        <dd>
          <span className={`hop-badge hop-${key.role}`}>{jump ? t('hostKey.role.jump') : t('hostKey.role.target')}</span>
        </dd>
        <dt>{t('hostKey.host')}</dt>
        <dd className="mono">
          {target}
          {key.alias && key.alias !== key.host && <span className="key-alias"> {t('hostKey.alias', { alias: key.alias })}</span>}
        </dd>
        <dt>{t('hostKey.keyType')}</dt>
        <dd className="mono">{key.keyType}</dd>
        <dt>{t('hostKey.fingerprint')}</dt>
        <dd className="mono fingerprint">{key.fingerprint}</dd>
      </dl>
      <p className="muted">{t('hostKey.explain')}</p>
      {waiting > 1 && <p className="muted">{t('hostKey.more', { count: waiting - 1 })}</p>}
      {prompt.error && (
        <p className="form-error" role="alert">
          {t('hostKey.acceptFailed', { message: prompt.error.message })}
        </p>
      )}
    </Modal>
  );
}
