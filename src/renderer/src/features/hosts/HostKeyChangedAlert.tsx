import { useId, useState } from 'react';
import type { ErrorInfo } from '../../../../shared/contract';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import { presentedHostKey } from '../../store';
import { hostPort } from './format';
import { ReplaceHostKeyDialog } from './ReplaceHostKeyDialog';

/**
 * The refusal for a host (or a jump host on the way) whose key no longer matches the stored one, or is revoked.
 * It keeps the core's OpenSSH warning verbatim and offers no way to accept the key. For a changed key alone, a
 * separate danger action leads to a confirmation that must be typed before the stored key is replaced.
 */
export function HostKeyChangedAlert({ error, hostId, hostLabel }: { error: ErrorInfo; hostId: string; hostLabel: string }) {
  const titleId = useId();
  const [replacing, setReplacing] = useState(false);
  const key = presentedHostKey(error.details);
  const presented = typeof error.details?.fingerprint === 'string' ? error.details.fingerprint : null;
  const expected = typeof error.details?.expectedFingerprint === 'string' ? error.details.expectedFingerprint : null;
  const revoked = error.code === 'HOST_KEY_REVOKED';
  const jump = key?.role === 'jump';
  const title = revoked ? (jump ? t('hostKeyRevoked.titleJump') : t('hostKeyRevoked.title')) : jump ? t('hostKeyChanged.titleJump') : t('hostKeyChanged.title');
  return (
    <div className="alert alert-danger" role="alert" aria-labelledby={titleId}>
      <Icon name="shield" size={18} className="alert-icon" />
      <div className="alert-content">
        <p id={titleId} className="alert-title">
          {title}
        </p>
        {jump && key && <p className="hop-note hop-note-danger">{t('hostKeyChanged.jumpNote', { target: hostPort(key.host, key.port), label: hostLabel })}</p>}
        <p>{revoked ? t('hostKeyRevoked.body') : t('hostKeyChanged.body')}</p>
        {(presented || expected) && (
          <dl className="alert-fingerprints">
            {presented && (
              <>
                <dt>{t('hostKeyChanged.presented')}</dt>
                <dd className="mono">{presented}</dd>
              </>
            )}
            {expected && (
              <>
                <dt>{t('hostKeyChanged.expected')}</dt>
                <dd className="mono">{expected}</dd>
              </>
            )}
          </dl>
        )}
        <pre className="alert-pre mono-block">{error.message}</pre>
        {revoked ? (
          <p className="alert-hint">{t('hostKeyRevoked.noWayOn')}</p>
        ) : (
          <div className="alert-actions">
            <p className="alert-hint">{t('hostKeyChanged.fix')}</p>
            {key && (
              <button type="button" className="btn btn-danger-outline btn-small" onClick={() => setReplacing(true)}>
                <Icon name="key" size={13} />
                {t('hostKeyChanged.replace')}
              </button>
            )}
          </div>
        )}
      </div>
      {replacing && key && <ReplaceHostKeyDialog hostId={hostId} hostLabel={hostLabel} hostKey={key} onClose={() => setReplacing(false)} />}
    </div>
  );
}
