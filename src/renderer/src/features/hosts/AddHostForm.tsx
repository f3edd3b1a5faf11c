import { useId, useState, type FormEvent } from 'react';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import {
  EMPTY_HOST_FORM,
  FIELD_ORDER,
  fieldApplies,
  focusField,
  issuesToFieldErrors,
  validateAddHost,
  type FieldErrors,
  type HostField,
  type HostFormValues,
  type HostSource,
} from './host-form-model';
import { HostFormFields } from './HostFormFields';

export function AddHostForm() {
  const addHost = useAppStore((s) => s.addHost);
  const sshConfig = useAppStore((s) => s.sshConfig);
  const loadSshConfigAliases = useAppStore((s) => s.loadSshConfigAliases);
  const [values, setValues] = useState<HostFormValues>(EMPTY_HOST_FORM);
  const [touched, setTouched] = useState<ReadonlySet<HostField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const titleId = useId();

  const { errors: liveErrors } = validateAddHost(values);

  function visibleError(field: HostField): string | undefined {
    if (!fieldApplies(field, values.source)) return undefined;
    if (serverErrors[field]) return serverErrors[field];
    return touched.has(field) || submitted ? liveErrors[field] : undefined;
  }

  function changeSlurmCluster(slurmCluster: boolean) {
    setValues((prev) => ({ ...prev, slurmCluster }));
    setNotice(null);
  }

  function change(field: HostField, value: string) {
    setValues((prev) => ({ ...prev, [field]: value }));
    setTouched((prev) => (prev.has(field) ? prev : new Set(prev).add(field)));
    setNotice(null);
    setServerErrors((prev) => {
      if (!(field in prev)) return prev;
      const { [field]: _cleared, ...rest } = prev;
      return rest;
    });
  }

  function changeSource(source: HostSource) {
    setValues((prev) => ({ ...prev, source }));
    setServerErrors({});
    if (source === 'alias' && sshConfig.status === 'idle') void loadSshConfigAliases();
  }

  function focusFirst(form: HTMLFormElement, errors: FieldErrors) {
    const first = FIELD_ORDER.find((field) => errors[field] && fieldApplies(field, values.source));
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
      setValues({ ...EMPTY_HOST_FORM, source: values.source });
      setTouched(new Set());
      setSubmitted(false);
      setServerErrors({});
      setNotice(t('addHost.added', { label: host.label }));
      focusField(form, values.source);
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

  return (
    <section className="card add-host" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        <Icon name="plus" />
        {t('addHost.title')}
      </h2>
      <form className="form" onSubmit={submit} noValidate>
        <HostFormFields
          mode="add"
          values={values}
          onChange={change}
          onSlurmClusterChange={changeSlurmCluster}
          onSourceChange={changeSource}
          error={visibleError}
          aliasOptions={sshConfig.aliases}
        />
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
