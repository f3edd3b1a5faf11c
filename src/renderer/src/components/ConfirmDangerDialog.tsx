import { useRef, useState, type ReactNode } from 'react';
import { Icon, type IconName } from './Icon';
import { Modal } from './Modal';
import { Spinner } from './Spinner';

/**
 * The confirmation before anything is removed or stopped: the safe choice has the focus, the dialog cannot be
 * closed while the action runs, and a failure stays in the dialog with the core's reason so the user can try again.
 */
export function ConfirmDangerDialog({
  title,
  icon = 'trash',
  cancelLabel,
  confirmLabel,
  failureMessage,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  icon?: IconName;
  cancelLabel: string;
  confirmLabel: string;
  /** Turns the failure into the sentence shown in the dialog. */
  failureMessage: (error: unknown) => string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (e) {
      setError(failureMessage(e));
      setBusy(false);
    }
  }

  return (
    <Modal
      title={title}
      tone="danger"
      icon={<Icon name={icon} size={18} />}
      onClose={() => {
        if (!busy) onClose();
      }}
      initialFocus={cancelRef}
      footer={
        <>
          <button ref={cancelRef} type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            {cancelLabel}
          </button>
          <button type="button" className="btn btn-danger" onClick={() => void confirm()} disabled={busy}>
            {busy && <Spinner />}
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
