import { useState } from 'react';
import { t } from '../../i18n';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import { joinArgs } from '../../../../shared/engines/argv-text';
import { parseServeCommand, type ParsedServeCommand } from '../../../../shared/engines/command-parse';
import { WizardTextArea } from './wizard-fields';
import { draftFromCommand, droppedAddress } from './start-from-command';
import type { StepProps } from './WizardSteps';

/** "Start from my command": the serve command the user runs today fills the study's engine, version, model and baseline. */
export function StartFromCommand({ change }: Pick<StepProps, 'change'>) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<ParsedServeCommand | { error: string } | null>(null);

  const read = () => {
    const parsed = parseServeCommand(text);
    setResult(parsed);
    if (!('error' in parsed)) change('modelId', (d) => draftFromCommand(d, parsed));
  };

  return (
    <section className="wizard-subsection" aria-labelledby="wizard-from-command-title">
      <h3 id="wizard-from-command-title" className="section-title">
        {t('wizard.fromCommand.title')}
      </h3>
      <WizardTextArea label={t('wizard.fromCommand.label')} value={text} onValueChange={setText} hint={t('wizard.fromCommand.hint')} rows={4} mono />
      <div>
        <button type="button" className="btn btn-secondary btn-small" disabled={text.trim() === ''} onClick={read}>
          {t('wizard.fromCommand.read')}
        </button>
      </div>
      {result && 'error' in result && (
        <p className="form-error" role="alert">
          {t('wizard.fromCommand.failed', { message: result.error })}
        </p>
      )}
      {result && !('error' in result) && <ReadSummary parsed={result} />}
    </section>
  );
}

function ReadSummary({ parsed }: { parsed: ParsedServeCommand }) {
  const engine = ENGINE_ADAPTERS[parsed.engine].displayName;
  const address = droppedAddress(parsed);
  return (
    <div className="wizard-from-command" role="status" aria-label={t('wizard.fromCommand.resultLabel')}>
      <p>{t('wizard.fromCommand.read.summary', { engine, version: parsed.version, model: parsed.config.model })}</p>
      <p className="field-hint">{t(`wizard.fromCommand.versionFrom.${parsed.versionFrom}`)}</p>
      {parsed.refused.length > 0 && (
        <div className="wizard-problems">
          <p className="field-label">{t('wizard.fromCommand.refused')}</p>
          <ul>
            {parsed.refused.map((r) => (
              <li key={`${r.flag}:${r.message}`}>{r.message}</li>
            ))}
          </ul>
        </div>
      )}
      {parsed.config.extraArgs.length > 0 && (
        <>
          <p className="field-label">{t('wizard.fromCommand.verbatim')}</p>
          <p>
            <code>{joinArgs(parsed.config.extraArgs)}</code>
          </p>
        </>
      )}
      {address.length > 0 && <p className="field-hint">{t('wizard.fromCommand.addressDropped', { address: address.join(', ') })}</p>}
      {parsed.warnings.length > 0 && (
        <>
          <p className="field-label">{t('wizard.fromCommand.warnings')}</p>
          <ul>
            {parsed.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
