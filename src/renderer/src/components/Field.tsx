import type { InputHTMLAttributes } from 'react';
import { FieldFrame, type FieldFrameProps } from './FieldFrame';

export interface TextFieldProps extends FieldFrameProps, Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value' | 'className'> {
  value: string;
  onValueChange: (value: string) => void;
}

/** A labelled input whose hint and error are tied to it with aria-describedby. */
export function TextField({ label, value, onValueChange, error, hint, labelNote, className, ...rest }: TextFieldProps) {
  return (
    <FieldFrame label={label} labelNote={labelNote} hint={hint} error={error} className={className}>
      {(control) => <input {...control} className="input" value={value} onChange={(event) => onValueChange(event.target.value)} {...rest} />}
    </FieldFrame>
  );
}
