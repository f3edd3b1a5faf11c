import type { KeyboardEvent } from 'react';
import { t } from '../../i18n';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import { joinArgs } from '../../../../shared/engines/argv-text';
import { parseServeCommand, type ParsedServeCommand } from '../../../../shared/engines/command-parse';
import { WizardTextArea } from './wizard-fields';
import { draftFromCommand, droppedAddress, droppedDocker } from './start-from-command';
import type { StepProps } from './WizardSteps';

/**
 * The pasted text and what was read from it. The wizard keeps it in memory while it is open, so going to another
 * step and back loses neither; it is never part of the draft, since the text may hold credentials.
 */
export interface FromCommandState {
  text: string;
  read: { text: string; result: ParsedServeCommand | { error: string } } | null;
}

export const NO_COMMAND: FromCommandState = { text: '', read: null };

/** "Start from my command": the serve command the user runs today fills the study's engine, version, model and baseline. */
export function StartFromCommand({ change, state, onState }: Pick<StepProps, 'change'> & { state: FromCommandState; onState: (state: FromCommandState) => void }) {
  const { text, read: last } = state;
  const read = () => {
    if (text.trim() === '') return;
    const parsed = parseServeCommand(text);
    onState({ text, read: { text, result: parsed } });
    if (!('error' in parsed)) change('modelId', (d) => draftFromCommand(d, parsed));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter is a new line in the command; Ctrl+Enter (⌘+Enter) reads it.
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.nativeEvent.isComposing) return;
    event.preventDefault();
    read();
  };
  const result = last?.result;

  return (
    <section className="wizard-subsection" aria-labelledby="wizard-from-command-title">
      <h3 id="wizard-from-command-title" className="section-title">
        {t('wizard.fromCommand.title')}
      </h3>
      <WizardTextArea label={t('wizard.fromCommand.label')} value={text} onValueChange={(value) => onState({ ...state, text: value })} onKeyDown={onKeyDown} hint={t('wizard.fromCommand.hint')} rows={4} mono />
      <div>
        <button type="button" className="btn btn-secondary btn-small" disabled={text.trim() === ''} onClick={read} aria-keyshortcuts="Control+Enter Meta+Enter">
          {t('wizard.fromCommand.read')}
        </button>
      </div>
      {last && last.text !== text && <p className="field-hint">{t('wizard.fromCommand.changed')}</p>}
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
  const docker = droppedDocker(parsed);
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
      {parsed.credentials.length > 0 && (
        <p className="field-hint" role="note">
          {t('wizard.fromCommand.credentials', { names: parsed.credentials.join(', ') })}
        </p>
      )}
      {address.length > 0 && <p className="field-hint">{t('wizard.fromCommand.addressDropped', { address: address.join(', ') })}</p>}
      {docker !== undefined && (
        <p className="field-hint">
          {t('wizard.fromCommand.dockerDropped', { engine })} <code>{docker}</code>
        </p>
      )}
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
