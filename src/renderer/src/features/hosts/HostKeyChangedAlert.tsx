import { useId } from 'react';
import type { ErrorInfo } from '../../../../shared/contract';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';

/**
 * The refusal for a host whose key no longer matches the stored one (or is revoked). It keeps the core's
 * OpenSSH-style warning verbatim and deliberately offers no way to accept the key from here.
 */
export function HostKeyChangedAlert({ error }: { error: ErrorInfo }) {
  const titleId = useId();
  const presented = typeof error.details?.fingerprint === 'string' ? error.details.fingerprint : null;
  const expected = typeof error.details?.expectedFingerprint === 'string' ? error.details.expectedFingerprint : null;
  const revoked = error.code === 'HOST_KEY_REVOKED';
  return (
    <div className="alert alert-danger" role="alert" aria-labelledby={titleId}>
      <Icon name="shield" size={18} className="alert-icon" />
      <div className="alert-content">
        <p id={titleId} className="alert-title">
          {revoked ? t('hostKeyRevoked.title') : t('hostKeyChanged.title')}
        </p>
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
        <pre className="alert-pre">{error.message}</pre>
        {!revoked && <p className="alert-hint">{t('hostKeyChanged.fix')}</p>}
      </div>
    </div>
  );
}
