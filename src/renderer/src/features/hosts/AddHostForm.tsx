import { useId, useState, type FormEvent } from 'react';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { TextField } from '../../components/Field';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import {
  EMPTY_FORM,
  FIELD_ORDER,
  issuesToFieldErrors,
  validateAddHost,
  type AddHostField,
  type AddHostFormValues,
  type AuthMethod,
  type FieldErrors,
} from './add-host-form-model';

/** Fields that only count for one way of signing in. */
const FIELD_METHOD: Partial<Record<AddHostField, AuthMethod>> = { identityFile: 'key', password: 'password' };

export function AddHostForm() {
  const addHost = useAppStore((s) => s.addHost);
  const [values, setValues] = useState<AddHostFormValues>(EMPTY_FORM);
  const [touched, setTouched] = useState<ReadonlySet<AddHostField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const titleId = useId();
  const methodName = useId();

  const { errors: liveErrors } = validateAddHost(values);

  function visibleError(field: AddHostField): string | undefined {
    const method = FIELD_METHOD[field];
    if (method && method !== values.method) return undefined;
    if (serverErrors[field]) return serverErrors[field];
    return touched.has(field) || submitted ? liveErrors[field] : undefined;
  }

  function touch(field: AddHostField) {
    setTouched((prev) => (prev.has(field) ? prev : new Set(prev).add(field)));
  }

  function change(field: AddHostField, value: string) {
    setValues((prev) => ({ ...prev, [field]: value }));
    touch(field);
    setNotice(null);
    setServerErrors((prev) => {
      if (!(field in prev)) return prev;
      const { [field]: _cleared, ...rest } = prev;
      return rest;
    });
  }

  function focusField(form: HTMLFormElement, field: AddHostField) {
    const element = form.elements.namedItem(field);
    if (element instanceof HTMLInputElement) element.focus();
  }

  function focusFirst(form: HTMLFormElement, errors: FieldErrors) {
    const first = FIELD_ORDER.find((field) => errors[field] && (!FIELD_METHOD[field] || FIELD_METHOD[field] === values.method));
    if (first) focusField(form, first);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (submitting) return;
    setSubmitted(true);
    setFormError(null);
    setNotice(null);
    const { input, errors } = validateAddHost(values);
    if (!input) {
      focusFirst(form, errors);
      return;
    }
    setSubmitting(true);
    try {
      const host = await addHost(input);
      setValues({ ...EMPTY_FORM, method: values.method });
      setTouched(new Set());
      setSubmitted(false);
      setServerErrors({});
      setNotice(t('addHost.added', { label: host.label }));
      focusField(form, 'address');
    } catch (error) {
      const info = toErrorInfo(error);
      if (info.code === 'BAD_INPUT' && info.issues?.length) {
        const { errors: fieldErrors, other } = issuesToFieldErrors(info.issues);
        setServerErrors(fieldErrors);
        if (other.length > 0) setFormError(t('addHost.failed', { message: other.map((i) => `${i.path}: ${i.message}`).join('; ') }));
        focusFirst(form, fieldErrors);
      } else {
        setFormError(t('addHost.failed', { message: info.message }));
      }
    } finally {
      setSubmitting(false);
    }
  }

  const field = (name: AddHostField) => ({
    value: values[name],
    onValueChange: (value: string) => change(name, value),
    error: visibleError(name),
    name,
  });

  return (
    <section className="card add-host" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        <Icon name="plus" />
        {t('addHost.title')}
      </h2>
      <form className="form" onSubmit={submit} noValidate>
        <TextField
          {...field('label')}
          label={t('addHost.label')}
          labelNote={t('addHost.optional')}
          placeholder={t('addHost.labelHint')}
          autoComplete="off"
        />
        <div className="field-row">
          <TextField
            {...field('address')}
            className="grow"
            label={t('addHost.address')}
            placeholder={t('addHost.addressPlaceholder')}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            required
          />
          <TextField {...field('port')} className="port" label={t('addHost.port')} inputMode="numeric" autoComplete="off" required />
        </div>
        <TextField
          {...field('user')}
          label={t('addHost.user')}
          placeholder={t('addHost.userPlaceholder')}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          required
        />
        <fieldset className="field">
          <legend className="field-label">{t('addHost.auth')}</legend>
          <div className="segmented">
            {(['key', 'password'] as const).map((method) => (
              <label key={method} className={`segment${values.method === method ? ' is-selected' : ''}`}>
                <input
                  type="radio"
                  name={methodName}
                  value={method}
                  checked={values.method === method}
                  onChange={() => {
                    setValues((prev) => ({ ...prev, method }));
                    setServerErrors({});
                  }}
                />
                <Icon name={method === 'key' ? 'key' : 'terminal'} size={14} />
                {t(method === 'key' ? 'addHost.auth.key' : 'addHost.auth.password')}
              </label>
            ))}
          </div>
        </fieldset>
        {values.method === 'key' ? (
          <TextField
            {...field('identityFile')}
            className="mono-input"
            label={t('addHost.identityFile')}
            placeholder={t('addHost.identityFilePlaceholder')}
            autoComplete="off"
            spellCheck={false}
            required
          />
        ) : (
          <TextField
            {...field('password')}
            label={t('addHost.password')}
            type="password"
            autoComplete="off"
            hint={t('addHost.passwordHint')}
            required
          />
        )}
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
        <button type="submit" className="btn btn-primary btn-block" disabled={submitting}>
          {submitting ? <Spinner /> : <Icon name="plus" size={14} />}
          {submitting ? t('addHost.submitting') : t('addHost.submit')}
        </button>
        <p className="form-notice" role="status" aria-live="polite">
          {notice}
        </p>
      </form>
    </section>
  );
}
