import { Checkbox } from '../../components/Checkbox';
import { TextField } from '../../components/Field';
import { t } from '../../i18n';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import type { CandidateDraft, WizardDraft } from '../../study-draft/draft';
import { layoutFieldsOf, layoutOnEngines, withLayout, type LayoutFields, type SizeKnob } from '../../study-draft/layout-draft';
import { refusalText } from '../studies/study-words';

/**
 * One candidate of a parallelism stage: the layout's sizes as typed fields, then for every chosen engine the GPUs a
 * server takes and, when the pre-flight would refuse the layout there, its reason in the pre-flight's own words.
 */

/** The size fields in the order studies write layouts, with their labels in the current language. */
function sizeFields(): readonly { knob: SizeKnob; label: string }[] {
  return [
    { knob: 'tensorParallelSize', label: t('wizard.layout.tp') },
    { knob: 'pipelineParallelSize', label: t('wizard.layout.pp') },
    { knob: 'dataParallelSize', label: t('wizard.layout.dp') },
    { knob: 'expertParallelSize', label: t('wizard.layout.ep') },
    { knob: 'decodeContextParallelSize', label: t('wizard.layout.dcp') },
  ];
}

export function LayoutCandidateRow({
  draft,
  candidate,
  prefix,
  error,
  onChange,
  onRemove,
}: {
  draft: Pick<WizardDraft, 'engines' | 'modelId'>;
  candidate: CandidateDraft;
  prefix: string;
  error: (field: string) => string | undefined;
  onChange: (next: CandidateDraft, field: string) => void;
  onRemove: () => void;
}) {
  const fields = layoutFieldsOf(candidate);
  if (!fields) return null;
  const set = (next: LayoutFields) => onChange(withLayout(candidate, next), `${prefix}.config`);
  const onEngines = layoutOnEngines(draft, fields);
  return (
    <li className="wizard-candidate wizard-layout" aria-label={t('wizard.candidate.name', { id: candidate.id })}>
      <div className="wizard-grow">
        <div className="wizard-grid wizard-grid-candidate">
          <TextField label={t('wizard.candidate.id')} value={candidate.id} onValueChange={(value) => onChange({ ...candidate, id: value }, `${prefix}.id`)} error={error(`${prefix}.id`)} className="mono-input" />
          <TextField label={t('wizard.candidate.label')} value={candidate.label} onValueChange={(value) => onChange({ ...candidate, label: value }, `${prefix}.label`)} error={error(`${prefix}.label`)} />
        </div>
        <div className="wizard-grid wizard-grid-layout">
          {sizeFields().map(({ knob, label }) => (
            <TextField
              key={knob}
              label={label}
              labelNote={knob === 'tensorParallelSize' ? undefined : t('wizard.optional')}
              inputMode="numeric"
              value={fields.sizes[knob]}
              onValueChange={(value) => set({ ...fields, sizes: { ...fields.sizes, [knob]: value } })}
            />
          ))}
          <TextField
            label={t('wizard.layout.a2a')}
            labelNote={t('wizard.optional')}
            value={fields.moeAllToAllBackend}
            onValueChange={(value) => set({ ...fields, moeAllToAllBackend: value })}
            className="mono-input"
            spellCheck={false}
          />
        </div>
        <Checkbox label={t('wizard.layout.dpAttention')} hint={t('wizard.layout.dpAttentionHint')} checked={fields.dpAttention} onChange={(on) => set({ ...fields, dpAttention: on })} />
        {error(`${prefix}.config`) && <p className="field-error">{error(`${prefix}.config`)}</p>}
        {onEngines && onEngines.length > 0 && (
          <ul className="wizard-layout-engines" aria-label={t('wizard.layout.onEngines', { id: candidate.id })}>
            {onEngines.map((e) => {
              const engine = `${ENGINE_ADAPTERS[e.engine].displayName} ${e.version}`;
              return (
                <li key={e.engine} className={e.refusal ? 'field-error' : 'field-hint'}>
                  {e.refusal ? t('wizard.layout.refused', { engine, reason: refusalText(e.refusal) }) : e.gpus === 1 ? t('wizard.layout.gpusOne', { engine }) : t('wizard.layout.gpus', { engine, n: e.gpus })}
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <button type="button" className="btn btn-ghost btn-small" aria-label={t('wizard.candidate.remove', { id: candidate.id })} onClick={onRemove}>
        {t('wizard.removeShort')}
      </button>
    </li>
  );
}
