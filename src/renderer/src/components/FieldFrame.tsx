import { useId, type ReactNode } from 'react';

/** What the control inside a FieldFrame puts on itself, so its label, hint and error belong to it. */
export interface FieldControlProps {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

export interface FieldFrameProps {
  label: string;
  /** Shown after the label, e.g. "optional". */
  labelNote?: string | undefined;
  /** Shown under the control while there is no error, and announced with it. */
  hint?: ReactNode;
  /** Shown under the control instead of the hint, announced with it; marks the control invalid. */
  error?: string | undefined;
  /** Classes besides `field`. */
  className?: string | undefined;
}

/**
 * The scaffold of every labelled control: the label tied to the control, and the hint or the error under it tied
 * with aria-describedby. The control itself is the caller's: an input, a select, a textarea.
 */
export function FieldFrame({ label, labelNote, hint, error, className, children }: FieldFrameProps & { children: (control: FieldControlProps) => ReactNode }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const showHint = Boolean(hint) && !error;
  const control: FieldControlProps = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? errorId : showHint ? hintId : undefined };
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id} className="field-label">
        {label}
        {labelNote && <span className="field-note"> {labelNote}</span>}
      </label>
      {children(control)}
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
      {showHint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
    </div>
  );
}
