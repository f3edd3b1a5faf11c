import { TextField } from '../../components/Field';
import { t } from '../../i18n';
import type { ObjectiveBasis } from '../../../../shared/study/study';
import type { StepProps } from './WizardSteps';
import { WizardRadioGroup } from './wizard-fields';

/**
 * What a throughput goal compares on: per server, per GPU, or on a GPU budget filled with whole replicas of each
 * configuration (`shared/study/objective.ts`). A latency goal has no choice: the note says why.
 */
export function GoalBasis({ draft, change, error, boxGpus }: StepProps & { /** The box's GPUs, the budget's default; null while unknown. */ boxGpus: number | null }) {
  if (draft.goal === 'latency') return <p className="field-hint">{t('wizard.goal.basisLatency')}</p>;
  return (
    <>
      <WizardRadioGroup<ObjectiveBasis>
        legend={t('wizard.goal.basis')}
        value={draft.basis}
        options={[
          { value: 'server', label: t('wizard.goal.basisServer'), hint: t('wizard.goal.basisServerHint') },
          { value: 'per-gpu', label: t('wizard.goal.basisPerGpu'), hint: t('wizard.goal.basisPerGpuHint') },
          { value: 'gpu-budget', label: t('wizard.goal.basisBudget'), hint: t('wizard.goal.basisBudgetHint') },
        ]}
        onValueChange={(basis) => change('basis', (d) => ({ ...d, basis }))}
      />
      {draft.basis === 'gpu-budget' && (
        <TextField
          label={t('wizard.goal.gpuBudget')}
          inputMode="numeric"
          value={draft.gpuBudget}
          placeholder={boxGpus !== null ? String(boxGpus) : undefined}
          onValueChange={(value) => change('gpuBudget', (d) => ({ ...d, gpuBudget: value }))}
          error={error('gpuBudget')}
          hint={boxGpus !== null ? t('wizard.goal.gpuBudgetHint', { count: boxGpus }) : t('wizard.goal.gpuBudgetHintUnknown')}
        />
      )}
    </>
  );
}
