import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { HF_TOKEN_REF } from '../../../../shared/model/model-prefetch';
import { Badge } from '../../components/Badge';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore, type SecretEntry } from '../../store';
import { formatDate } from './format';

/** The stored `hf-token` entry (its name and when it was set), or null; the value never reaches the renderer. */
export function useHfToken(): SecretEntry | null {
  return useAppStore((s) => s.secretsList.items.find((item) => item.ref === HF_TOKEN_REF) ?? null);
}

/** Whether a Hugging Face token is stored, and setting, replacing or removing it; the value is write-only. */
export function HfTokenControl() {
  const secrets = useAppStore((s) => s.secretsList);
  const loadSecrets = useAppStore((s) => s.loadSecrets);
  const setSecret = useAppStore((s) => s.setSecret);
  const removeSecret = useAppStore((s) => s.removeSecret);
  const token = useHfToken();
  const titleId = useId();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState<'save' | 'remove' | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void loadSecrets();
  }, [loadSecrets]);

  async function save() {
    if (value.trim() === '') {
      setError(t('engines.hfToken.required'));
      return;
    }
    setBusy('save');
    setError(null);
    try {
      await setSecret(HF_TOKEN_REF, value.trim());
      setValue('');
      setEditing(false);
    } catch (e) {
      setError(t('engines.hfToken.saveFailed', { message: toErrorInfo(e).message }));
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    setBusy('remove');
    setError(null);
    try {
      await removeSecret(HF_TOKEN_REF);
    } catch (e) {
      setError(t('engines.hfToken.removeFailed', { message: toErrorInfo(e).message }));
    } finally {
      setBusy(null);
    }
  }

  // The control sits inside the launch form: Enter saves the token instead of launching.
  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    void save();
  }

  function cancel() {
    setEditing(false);
    setValue('');
    setError(null);
  }

  return (
    <div className="hf-token" role="group" aria-labelledby={titleId}>
      <div className="hf-token-head">
        <span id={titleId} className="field-label">
          <Icon name="key" size={14} />
          {t('engines.hfToken.title')}
        </span>
        <span data-testid="hf-token-state">
          <Badge tone={token ? 'success' : 'neutral'} dot>
            {token ? t('engines.hfToken.set') : t('engines.hfToken.notSet')}
          </Badge>
        </span>
        {token?.setAt && <span className="muted">{t('engines.hfToken.setAt', { date: formatDate(token.setAt) })}</span>}
        {!editing && (
          <span className="hf-token-actions">
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setEditing(true)} disabled={busy !== null}>
              <Icon name="pencil" size={13} />
              {token ? t('engines.hfToken.replaceButton') : t('engines.hfToken.setButton')}
            </button>
            {token && (
              <button type="button" className="btn btn-danger-outline btn-small" onClick={() => void remove()} disabled={busy !== null}>
                {busy === 'remove' ? <Spinner size={12} /> : <Icon name="trash" size={13} />}
                {t('engines.hfToken.removeButton')}
              </button>
            )}
          </span>
        )}
      </div>
      <p className="field-hint">{t('engines.hfToken.explain')}</p>
      {secrets.status === 'failed' && <p className="field-error">{t('engines.hfToken.loadFailed', { message: secrets.error?.message ?? '' })}</p>}
      {editing && (
        <div className="hf-token-edit" onKeyDown={onKeyDown}>
          <TextField
            className="grow"
            type="password"
            label={t('engines.hfToken.input')}
            value={value}
            onValueChange={setValue}
            autoComplete="off"
            spellCheck={false}
            autoFocus
          />
          <button type="button" className="btn btn-primary btn-small" onClick={() => void save()} disabled={busy !== null}>
            {busy === 'save' ? <Spinner size={12} /> : <Icon name="lock" size={13} />}
            {t('engines.hfToken.save')}
          </button>
          <button type="button" className="btn btn-ghost btn-small" onClick={cancel} disabled={busy !== null}>
            {t('engines.hfToken.cancel')}
          </button>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
