import { useId, type KeyboardEvent, type ReactNode } from 'react';
import { FieldFrame } from '../../components/FieldFrame';

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
  onKeyDown,
}: {
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  onKeyDown?: (event: KeyboardEvent<HTMLTextAreaElement>) => void;
  error?: string | undefined;
  hint?: ReactNode;
  rows?: number;
  mono?: boolean;
  labelNote?: string;
}) {
  return (
    <FieldFrame label={label} labelNote={labelNote} hint={hint} error={error} className={mono ? 'mono-input' : undefined}>
      {(control) => <textarea {...control} className="input wizard-textarea" rows={rows} value={value} spellCheck={false} onChange={(event) => onValueChange(event.target.value)} onKeyDown={onKeyDown} />}
    </FieldFrame>
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
