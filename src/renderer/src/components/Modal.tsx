import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface ModalProps {
  title: ReactNode;
  /** Called on Escape and, unless `dismissOnBackdrop` is false, on a click on the backdrop. */
  onClose: () => void;
  /** False for dialogs a stray click must not close, such as a question the core is waiting on. */
  dismissOnBackdrop?: boolean;
  size?: 'default' | 'wide';
  /** The control focused when the dialog opens; the first focusable one otherwise. */
  initialFocus?: RefObject<HTMLElement | null>;
  tone?: 'default' | 'danger';
  icon?: ReactNode;
  children: ReactNode;
  footer: ReactNode;
}

/**
 * A modal dialog: role="dialog" with aria-modal, named by its title and described by its body; Tab cycles
 * inside it, Escape closes it, and focus returns to where it was when the dialog closes.
 */
export function Modal({ title, onClose, dismissOnBackdrop = true, size = 'default', initialFocus, tone = 'default', icon, children, footer }: ModalProps) {
  const titleId = useId();
  const bodyId = useId();
  const panelRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);

  useEffect(() => {
    onCloseRef.current = onClose;
  }, [onClose]);

  useEffect(() => {
    const previouslyFocused = document.activeElement as HTMLElement | null;
    const panel = panelRef.current;
    const target = initialFocus?.current ?? panel?.querySelector<HTMLElement>(FOCUSABLE) ?? panel;
    target?.focus();
    return () => {
      if (previouslyFocused && previouslyFocused.isConnected) previouslyFocused.focus();
    };
    // Focus moves once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (event.key !== 'Tab' || !panelRef.current) return;
    const focusables = [...panelRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (focusables.length === 0) {
      event.preventDefault();
      return;
    }
    const first = focusables[0]!;
    const last = focusables[focusables.length - 1]!;
    const active = document.activeElement;
    if (event.shiftKey && (active === first || !panelRef.current.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !panelRef.current.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(event) => {
        if (dismissOnBackdrop && event.target === event.currentTarget) onCloseRef.current();
      }}
    >
      <div
        ref={panelRef}
        className={`modal modal-${tone}${size === 'wide' ? ' modal-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={bodyId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <div className="modal-header">
          {icon && <span className="modal-icon">{icon}</span>}
          <h2 id={titleId} className="modal-title">
            {title}
          </h2>
        </div>
        <div id={bodyId} className="modal-body">
          {children}
        </div>
        <div className="modal-footer">{footer}</div>
      </div>
    </div>,
    document.body,
  );
}
