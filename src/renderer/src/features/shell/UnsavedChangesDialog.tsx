import { useRef } from 'react';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore } from '../../store';

/** Asked before something would replace the wizard while it holds unsaved changes: save, discard, or stay. */
export function UnsavedChangesDialog() {
  const leave = useAppStore((s) => s.wizardLeave);
  const resolve = useAppStore((s) => s.resolveWizardLeave);
  const saveRef = useRef<HTMLButtonElement>(null);
  if (!leave) return null;
  const cancel = () => {
    if (!leave.saving) void resolve('cancel');
  };
  return (
    <Modal
      title={t('wizard.leave.title')}
      icon={<Icon name="alert" size={18} />}
      initialFocus={saveRef}
      dismissOnBackdrop={false}
      onClose={cancel}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={cancel} disabled={leave.saving}>
            {t('wizard.leave.cancel')}
          </button>
          <button type="button" className="btn btn-danger-outline" onClick={() => void resolve('discard')} disabled={leave.saving}>
            {t('wizard.leave.discard')}
          </button>
          <button ref={saveRef} type="button" className="btn btn-primary" onClick={() => void resolve('save')} disabled={leave.saving}>
            {leave.saving && <Spinner />}
            {t('wizard.leave.save')}
          </button>
        </>
      }
    >
      <p>{t('wizard.leave.body')}</p>
      {leave.error !== null && (
        <p className="form-error" role="alert">
          {leave.error ? t('wizard.leave.saveFailed', { reason: leave.error }) : t('wizard.leave.fixFirst')}
        </p>
      )}
    </Modal>
  );
}
