import type { ReactNode } from 'react';

/**
 * A progress bar: `role="progressbar"` with its accessible name and values, filled to `percent`. Without a known
 * total, leave `value`/`max` out so a screen reader hears "busy" rather than a made-up fraction.
 */
export function ProgressBar({
  label,
  percent,
  value,
  max,
  valueText,
}: {
  label: string;
  /** 0–100: how far the fill reaches. */
  percent: number;
  value?: number | undefined;
  max?: number | undefined;
  /** Said instead of the numbers, when they alone do not tell (files listed so far, …). */
  valueText?: string | undefined;
}) {
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={value} aria-valuetext={valueText}>
      <div className="progress-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}

/** The line above a progress bar: what is going on, and on the right how far it is (a percentage, "3 of 8"). */
export function ProgressHead({ caption, detail, mono = false }: { caption: ReactNode; detail?: ReactNode; mono?: boolean }) {
  return (
    <div className="progress-head">
      <span className={mono ? 'mono' : undefined}>{caption}</span>
      {detail !== undefined && detail !== null && detail !== false && <span className="muted">{detail}</span>}
    </div>
  );
}
