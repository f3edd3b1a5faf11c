import { useId } from 'react';
import type { SshConfigAliasView } from '../../../../shared/model/host';
import { Checkbox } from '../../components/Checkbox';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { t } from '../../i18n';
import type { HostField, HostFormValues, HostSource } from './host-form-model';

export interface HostFormFieldsProps {
  mode: 'add' | 'edit';
  values: HostFormValues;
  onChange: (field: HostField, value: string) => void;
  onSlurmClusterChange: (slurmCluster: boolean) => void;
  /** Add mode only: switch between a typed address and an ~/.ssh/config alias. */
  onSourceChange?: (source: HostSource) => void;
  error: (field: HostField) => string | undefined;
  /** Offered as suggestions for the alias field. */
  aliasOptions?: SshConfigAliasView[];
}

/** The connection fields shared by the add form and the edit dialog. */
export function HostFormFields({ mode, values, onChange, onSlurmClusterChange, onSourceChange, error, aliasOptions = [] }: HostFormFieldsProps) {
  const sourceName = useId();
  const aliasListId = useId();
  const isAlias = values.source === 'alias';
  const optionalNote = t('hostForm.optional');

  const field = (name: HostField) => ({
    name,
    value: values[name],
    onValueChange: (value: string) => onChange(name, value),
    error: error(name),
  });
  const plain = { autoComplete: 'off', autoCapitalize: 'off', spellCheck: false } as const;

  return (
    <>
      {mode === 'add' && onSourceChange && (
        <fieldset className="field">
          <legend className="field-label">{t('hostForm.source')}</legend>
          <div className="segmented">
            {(['address', 'alias'] as const).map((source) => (
              <label key={source} className={`segment${values.source === source ? ' is-selected' : ''}`}>
                <input type="radio" name={sourceName} value={source} checked={values.source === source} onChange={() => onSourceChange(source)} />
                <Icon name={source === 'address' ? 'server' : 'terminal'} size={14} />
                {t(source === 'address' ? 'hostForm.source.address' : 'hostForm.source.alias')}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <TextField {...field('label')} label={t('hostForm.label')} labelNote={mode === 'add' ? optionalNote : undefined} placeholder={t('hostForm.labelHint')} autoComplete="off" />
      {isAlias ? (
        mode === 'add' ? (
          <>
            <TextField
              {...field('alias')}
              {...plain}
              className="mono-input"
              label={t('hostForm.alias')}
              placeholder={t('hostForm.aliasPlaceholder')}
              list={aliasOptions.length > 0 ? aliasListId : undefined}
              hint={t('hostForm.aliasHint')}
              required
            />
            {aliasOptions.length > 0 && (
              <datalist id={aliasListId}>
                {aliasOptions.map((a) => (
                  <option key={a.alias} value={a.alias}>
                    {a.hostName}
                  </option>
                ))}
              </datalist>
            )}
          </>
        ) : (
          <div className="field">
            <span className="field-label">{t('hostForm.alias')}</span>
            <p className="readonly-value mono">{values.alias}</p>
            <p className="field-hint">{t('hostForm.aliasFixed')}</p>
          </div>
        )
      ) : (
        <TextField {...field('address')} {...plain} label={t('hostForm.address')} placeholder={t('hostForm.addressPlaceholder')} required />
      )}
      <div className="field-row">
        <TextField
          {...field('user')}
          {...plain}
          className="grow"
          label={t('hostForm.user')}
          labelNote={optionalNote}
          placeholder={isAlias ? t('hostForm.fromConfig') : t('hostForm.userPlaceholder')}
        />
        <TextField {...field('port')} className="port" label={t('hostForm.port')} inputMode="numeric" autoComplete="off" placeholder={isAlias ? '' : '22'} />
      </div>
      <TextField
        {...field('identityFile')}
        {...plain}
        className="mono-input"
        label={t('hostForm.identityFile')}
        labelNote={optionalNote}
        placeholder={t('hostForm.identityFilePlaceholder')}
        hint={t('hostForm.identityFileHint')}
      />
      <TextField
        {...field('proxyJump')}
        {...plain}
        className="mono-input"
        label={t('hostForm.proxyJump')}
        labelNote={optionalNote}
        placeholder={t('hostForm.proxyJumpPlaceholder')}
        hint={t('hostForm.proxyJumpHint')}
      />
      <TextField
        {...field('password')}
        label={mode === 'edit' ? t('hostForm.newPassword') : t('hostForm.password')}
        labelNote={optionalNote}
        type="password"
        autoComplete="new-password"
        hint={t('hostForm.passwordHint')}
      />
      <Checkbox name="slurmCluster" label={t('hostForm.slurm')} hint={t('hostForm.slurmHint')} checked={values.slurmCluster} onChange={onSlurmClusterChange} />
    </>
  );
}
