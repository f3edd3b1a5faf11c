import { useId, type ReactNode } from 'react';

/** A labelled native select whose error is tied to it, like TextField. */
export function WizardSelect({
  label,
  value,
  options,
  onValueChange,
  error,
  hint,
  className,
}: {
  label: string;
  value: string;
  options: readonly { value: string; label: string }[];
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
}) {
  const id = useId();
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <select id={id} className="input" value={value} aria-invalid={error ? true : undefined} aria-describedby={describedBy} onChange={(event) => onValueChange(event.target.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : (
        hint && (
          <p id={`${id}-hint`} className="field-hint">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

/** A labelled multi-line input (JSON settings, descriptions). */
export function WizardTextArea({
  label,
  value,
  onValueChange,
  error,
  hint,
  rows = 3,
  mono = false,
  labelNote,
}: {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  rows?: number;
  mono?: boolean;
  labelNote?: string;
}) {
  const id = useId();
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className={`field${mono ? ' mono-input' : ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
        {labelNote && <span className="field-note"> {labelNote}</span>}
      </label>
      <textarea
        id={id}
        className="input wizard-textarea"
        rows={rows}
        value={value}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        onChange={(event) => onValueChange(event.target.value)}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : (
        hint && (
          <p id={`${id}-hint`} className="field-hint">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

/** Mutually exclusive choices shown as the app's segmented control, with a legend for the group's name. */
export function WizardRadioGroup<V extends string>({
  legend,
  value,
  options,
  onValueChange,
}: {
  legend: string;
  value: V;
  options: readonly { value: V; label: string; hint?: string }[];
  onValueChange: (value: V) => void;
}) {
  const name = useId();
  return (
    <fieldset className="wizard-fieldset">
      <legend className="field-label">{legend}</legend>
      <div className="wizard-choices">
        {options.map((option) => (
          <label key={option.value} className={`wizard-choice${option.value === value ? ' is-selected' : ''}`}>
            <input type="radio" name={name} value={option.value} checked={option.value === value} onChange={() => onValueChange(option.value)} />
            <span className="wizard-choice-text">
              <span className="wizard-choice-label">{option.label}</span>
              {option.hint && <span className="field-hint">{option.hint}</span>}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
