import { useId, useRef, useState, type FormEvent } from 'react';
import type { Host } from '../../../../shared/model/host';
import { Checkbox } from '../../components/Checkbox';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore } from '../../store';
import {
  FIELD_ORDER,
  fieldApplies,
  focusField,
  issuesToFieldErrors,
  validateUpdateHost,
  valuesFromHost,
  type FieldErrors,
  type HostField,
  type HostFormValues,
} from './host-form-model';
import { HostFormFields } from './HostFormFields';

/**
 * Changes a stored host. A field emptied here is sent as null, so the ssh config (or the default) decides it
 * again; a saved password can be replaced or forgotten, never shown.
 */
export function EditHostDialog({ host, onClose }: { host: Host; onClose: () => void }) {
  const updateHost = useAppStore((s) => s.updateHost);
  const [values, setValues] = useState<HostFormValues>(() => valuesFromHost(host));
  const [forgetPassword, setForgetPassword] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<HostField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const formId = useId();

  const { errors: liveErrors, changed } = validateUpdateHost(host, values, { forgetPassword });

  function visibleError(field: HostField): string | undefined {
    if (serverErrors[field]) return serverErrors[field];
    return touched.has(field) || submitted ? liveErrors[field] : undefined;
  }

  function changeSlurmCluster(slurmCluster: boolean) {
    setValues((prev) => ({ ...prev, slurmCluster }));
  }

  function change(field: HostField, value: string) {
    setValues((prev) => ({ ...prev, [field]: value }));
    setTouched((prev) => (prev.has(field) ? prev : new Set(prev).add(field)));
    setServerErrors((prev) => {
      if (!(field in prev)) return prev;
      const { [field]: _cleared, ...rest } = prev;
      return rest;
    });
  }

  function focusFirst(errors: FieldErrors) {
    const first = FIELD_ORDER.find((field) => errors[field] && fieldApplies(field, values.source));
    if (first && formRef.current) focusField(formRef.current, first);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    setFormError(null);
    const { input, errors } = validateUpdateHost(host, values, { forgetPassword });
    if (!input) {
      focusFirst(errors);
      return;
    }
    setBusy(true);
    try {
      await updateHost(input);
      onClose();
    } catch (error) {
      const info = toErrorInfo(error);
      if (info.code === 'BAD_INPUT' && info.issues?.length) {
        const { errors: fieldErrors, other } = issuesToFieldErrors(info.issues);
        setServerErrors(fieldErrors);
        if (other.length > 0) setFormError(t('editHost.failed', { message: other.map((i) => `${i.path}: ${i.message}`).join('; ') }));
        focusFirst(fieldErrors);
      } else {
        setFormError(t('editHost.failed', { message: info.message }));
      }
      setBusy(false);
    }
  }

  return (
    <Modal
      title={t('editHost.title', { label: host.label })}
      icon={<Icon name="pencil" size={18} />}
      onClose={() => {
        if (!busy) onClose();
      }}
      dismissOnBackdrop={false}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {t('editHost.cancel')}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy || !changed}>
            {busy && <Spinner />}
            {busy ? t('editHost.saving') : t('editHost.save')}
          </button>
        </>
      }
    >
      <p className="muted">{t('editHost.intro')}</p>
      <form id={formId} ref={formRef} className="form form-compact" onSubmit={submit} noValidate>
        <HostFormFields mode="edit" values={values} onChange={change} onSlurmClusterChange={changeSlurmCluster} error={visibleError} />
        {host.hasSavedPassword && (
          <Checkbox
            name="forgetPassword"
            label={t('editHost.forgetPassword')}
            hint={t('editHost.forgetPasswordHint')}
            checked={forgetPassword}
            onChange={setForgetPassword}
          />
        )}
        {formError && (
          <p className="form-error" role="alert">
            {formError}
          </p>
        )}
      </form>
    </Modal>
  );
}
