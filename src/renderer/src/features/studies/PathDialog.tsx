import { useId, useState, type FormEvent } from 'react';
import { TextField } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { errorText } from './study-errors';

/** Where a copied example goes by default: the app's data folder, under studies/. */
export function defaultProjectPath(dataDir: string | undefined, fileName: string): string {
  if (!dataDir) return '';
  const sep = dataDir.includes('\\') && !dataDir.includes('/') ? '\\' : '/';
  return `${dataDir.replace(/[\\/]+$/, '')}${sep}studies${sep}${fileName}`;
}

/** A path typed by hand: the browser has no native file dialog, and the core reads paths on its own machine. */
export function PathDialog({
  title,
  intro,
  submitLabel,
  initialPath,
  onSubmit,
  onClose,
}: {
  title: string;
  intro: string;
  submitLabel: string;
  initialPath: string;
  onSubmit: (path: string) => Promise<void>;
  onClose: () => void;
}) {
  const [path, setPath] = useState(initialPath);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const formId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = path.trim();
    if (!trimmed) {
      setError(t('studies.path.required'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await onSubmit(trimmed);
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  return (
    <Modal
      title={title}
      size="wide"
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {t('studies.dialog.cancel')}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
            {busy && <Spinner />}
            {submitLabel}
          </button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={(event) => void submit(event)} noValidate>
        <p className="muted">{intro}</p>
        <TextField label={t('studies.path.label')} value={path} onValueChange={setPath} error={error} hint={t('studies.path.hint')} className="mono" spellCheck={false} autoComplete="off" />
      </form>
    </Modal>
  );
}
