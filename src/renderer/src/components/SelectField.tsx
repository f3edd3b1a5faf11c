import { FieldFrame, type FieldFrameProps } from './FieldFrame';

/** A labelled native select; its hint and error are tied to it like TextField's. */
export function SelectField({
  label,
  value,
  options,
  onValueChange,
  disabled,
  error,
  hint,
  className,
}: Omit<FieldFrameProps, 'labelNote'> & {
  value: string;
  options: readonly { value: string; label: string }[];
  onValueChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <FieldFrame label={label} hint={hint} error={error} className={className}>
      {(control) => (
        <select {...control} className="input" value={value} disabled={disabled} onChange={(event) => onValueChange(event.target.value)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}
