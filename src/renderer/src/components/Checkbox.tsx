import { useId, type ReactNode } from 'react';

export interface CheckboxProps {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  disabled?: boolean;
  name?: string;
}

/** A labelled checkbox; its hint is tied to it with aria-describedby. */
export function Checkbox({ label, checked, onChange, hint, disabled, name }: CheckboxProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="checkbox">
      <input
        id={id}
        type="checkbox"
        name={name}
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={hint ? hintId : undefined}
      />
      <div className="checkbox-text">
        <label htmlFor={id}>{label}</label>
        {hint && (
          <p id={hintId} className="field-hint">
            {hint}
          </p>
        )}
      </div>
    </div>
  );
}
