import { useId } from 'react';
import { t } from '../../i18n';
import type { EngineMode } from '../../store';

export const ENGINE_MODES: readonly EngineMode[] = ['env', 'docker'];

export function modeLabel(mode: EngineMode): string {
  return mode === 'docker' ? t('engines.mode.docker') : t('engines.mode.env');
}

/** Where an engine runs: its Python environment or its official docker image; a mode that cannot be used says why. */
export function ModeChoice({
  value,
  onChange,
  unavailable,
}: {
  value: EngineMode;
  onChange: (mode: EngineMode) => void;
  /** Mode → why it cannot be chosen here. */
  unavailable: Partial<Record<EngineMode, string>>;
}) {
  const name = useId();
  const reasonId = useId();
  const reasons = ENGINE_MODES.flatMap((mode) => (unavailable[mode] ? [{ mode, text: unavailable[mode] }] : []));
  return (
    <fieldset className="field">
      <legend className="field-label">{t('engines.mode.label')}</legend>
      <div className="segmented">
        {ENGINE_MODES.map((mode) => {
          const disabled = Boolean(unavailable[mode]);
          return (
            <label key={mode} className={`segment${value === mode ? ' is-selected' : ''}${disabled ? ' is-disabled' : ''}`}>
              <input
                type="radio"
                name={name}
                value={mode}
                checked={value === mode}
                disabled={disabled}
                aria-describedby={disabled ? `${reasonId}-${mode}` : undefined}
                onChange={() => onChange(mode)}
              />
              {modeLabel(mode)}
            </label>
          );
        })}
      </div>
      {reasons.map(({ mode, text }) => (
        <p key={mode} id={`${reasonId}-${mode}`} className="field-hint">
          {text}
        </p>
      ))}
    </fieldset>
  );
}
