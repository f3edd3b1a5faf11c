import { useRef, useState } from 'react';
import { TextField } from '../../components/Field';
import { formattingLocale, t } from '../../i18n';
import { configFileNameOf, configFileOf, configFileProblem, MAX_CONFIG_FILE_BYTES, UNNAMED_CONFIG_FILE, type ConfigFile, type ConfigFileField } from '../../../../shared/engines/config-files';
import type { FileRefs } from '../../study-draft/draft-files';
import { WizardTextArea } from './wizard-fields';

/**
 * The files an engine's base settings or a candidate name (chat template, options file): each shown with its name,
 * size and short checksum, attached from a file on this machine (read here, as text) or from pasted text, replaced or
 * removed. The project keeps the text; the launch copies it to the box.
 */

const FIELD_TEXT: Record<ConfigFileField, { label: 'wizard.files.chatTemplate' | 'wizard.files.optionsFile'; hint: 'wizard.files.chatTemplateHint' | 'wizard.files.optionsFileHint' }> = {
  chatTemplate: { label: 'wizard.files.chatTemplate', hint: 'wizard.files.chatTemplateHint' },
  optionsFile: { label: 'wizard.files.optionsFile', hint: 'wizard.files.optionsFileHint' },
};

export function sizeText(bytes: number): string {
  const number = (n: number) => new Intl.NumberFormat(formattingLocale(), { maximumFractionDigits: 1 }).format(n);
  if (bytes < 1024) return t('wizard.files.bytes', { n: bytes });
  if (bytes < 1024 * 1024) return t('wizard.files.kib', { n: number(bytes / 1024) });
  return t('wizard.files.mib', { n: number(bytes / 1024 / 1024) });
}

/** Why a name and text cannot be attached, in the reader's language; undefined when they can. */
function problemText(name: string, content: string): string | undefined {
  const problem = configFileProblem(name, content);
  if (problem?.problem === 'name') return t('wizard.files.badName');
  if (problem?.problem === 'not-text') return t('wizard.files.notText', { name });
  if (problem?.problem === 'too-large') return t('wizard.files.tooLarge', { name, size: sizeText(problem.bytes) });
  return undefined;
}

export function ConfigFilesField({
  fields,
  refs,
  files,
  errorOf,
  onAttach,
  onRemove,
}: {
  /** The fields this engine (or a candidate, for any engine) can take. */
  fields: readonly ConfigFileField[];
  refs: FileRefs | undefined;
  files: readonly ConfigFile[];
  /** The draft's problem with a field, once shown. */
  errorOf: (field: ConfigFileField) => string | undefined;
  onAttach: (field: ConfigFileField, file: ConfigFile) => void;
  onRemove: (field: ConfigFileField) => void;
}) {
  return (
    <div className="wizard-files">
      {fields.map((field) => (
        <FileSlot key={field} field={field} file={files.find((f) => f.name === refs?.[field])} named={refs?.[field]} error={errorOf(field)} onAttach={(file) => onAttach(field, file)} onRemove={() => onRemove(field)} />
      ))}
      <p className="field-hint">{t('wizard.files.copied')}</p>
    </div>
  );
}

function FileSlot({
  field,
  file,
  named,
  error,
  onAttach,
  onRemove,
}: {
  field: ConfigFileField;
  file: ConfigFile | undefined;
  /** The name the settings use, also when the draft has no such file (the definition then names the problem). */
  named: string | undefined;
  error: string | undefined;
  onAttach: (file: ConfigFile) => void;
  onRemove: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [pasting, setPasting] = useState<{ name: string; text: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const label = t(FIELD_TEXT[field].label);
  const fieldWord = label.toLowerCase();

  const attach = (name: string, content: string): boolean => {
    const refused = problemText(name, content);
    if (refused !== undefined) {
      setProblem(refused);
      return false;
    }
    setProblem(null);
    onAttach(configFileOf(name, content) as ConfigFile);
    return true;
  };

  async function chosen(list: FileList | null) {
    const picked = list?.[0];
    if (input.current) input.current.value = '';
    if (!picked) return;
    // Not read at all when it is larger than a file may be (its UTF-8 text is at least as large as its bytes).
    if (picked.size > MAX_CONFIG_FILE_BYTES) {
      setProblem(t('wizard.files.tooLarge', { name: picked.name, size: sizeText(picked.size) }));
      return;
    }
    try {
      attach(configFileNameOf(picked.name, field), await picked.text());
    } catch (e) {
      setProblem(t('wizard.files.unreadable', { name: picked.name, message: (e as Error).message }));
    }
  }

  return (
    <div className="wizard-file" role="group" aria-label={label}>
      <span className="field-label">{label}</span>
      <input ref={input} type="file" hidden aria-label={t('wizard.files.chooseFor', { field: fieldWord })} onChange={(event) => void chosen(event.target.files)} />
      <div className="wizard-file-row">
        {named !== undefined ? (
          <>
            <span className="wizard-file-summary mono">
              {file ? t('wizard.files.summary', { name: file.name, size: sizeText(file.size), sha: file.sha256.slice(0, 12) }) : named}
            </span>
            <button type="button" className="btn btn-ghost btn-small" aria-label={t('wizard.files.replaceFor', { field: fieldWord, name: named })} onClick={() => input.current?.click()}>
              {t('wizard.files.replace')}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-small"
              aria-label={t('wizard.files.removeFor', { field: fieldWord, name: named })}
              onClick={() => {
                setProblem(null);
                onRemove();
              }}
            >
              {t('wizard.files.remove')}
            </button>
          </>
        ) : (
          <>
            <button type="button" className="btn btn-small" aria-label={t('wizard.files.chooseFor', { field: fieldWord })} onClick={() => input.current?.click()}>
              {t('wizard.files.choose')}
            </button>
            {pasting === null && (
              <button type="button" className="btn btn-ghost btn-small" onClick={() => setPasting({ name: UNNAMED_CONFIG_FILE[field], text: '' })}>
                {t('wizard.files.paste')}
              </button>
            )}
          </>
        )}
      </div>
      {pasting !== null && named === undefined && (
        <div className="wizard-file-paste">
          <TextField label={t('wizard.files.pasteName')} value={pasting.name} onValueChange={(name) => setPasting({ ...pasting, name })} className="mono-input" spellCheck={false} />
          <WizardTextArea label={t('wizard.files.pasteText')} mono rows={6} value={pasting.text} onValueChange={(text) => setPasting({ ...pasting, text })} />
          <div className="wizard-file-row">
            <button type="button" className="btn btn-small" disabled={pasting.text.trim() === ''} onClick={() => attach(pasting.name.trim(), pasting.text) && setPasting(null)}>
              {t('wizard.files.pasteAttach')}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-small"
              onClick={() => {
                setPasting(null);
                setProblem(null);
              }}
            >
              {t('wizard.files.pasteCancel')}
            </button>
          </div>
        </div>
      )}
      {(problem ?? error) && <p className="field-error">{problem ?? error}</p>}
      <p className="field-hint">{t(FIELD_TEXT[field].hint)}</p>
    </div>
  );
}
