import { TextField } from '../../components/Field';
import { SelectField } from '../../components/SelectField';
import { t } from '../../i18n';
import { ARRIVAL_KINDS, RAMP_STRATEGIES, type ArrivalKind, type RampStrategy } from '../../../../shared/bench/arrival';
import type { WorkloadDraft } from '../../study-draft/draft';

/**
 * How a workload's requests arrive: the kind, then only the numbers that kind reads (arrival.ts). The hint says what
 * the benchmark client really does with each, a constant rate's client version included.
 */
export function ArrivalFields({
  w,
  prefix,
  error,
  onChange,
}: {
  w: WorkloadDraft;
  prefix: string;
  error: (field: string) => string | undefined;
  onChange: (next: WorkloadDraft, field: string) => void;
}) {
  const set = (field: keyof WorkloadDraft, value: string) => onChange({ ...w, [field]: value }, `${prefix}.${field}`);
  const paced = w.arrival === 'poisson' || w.arrival === 'gamma' || w.arrival === 'constant';
  return (
    <>
      <SelectField
        label={t('wizard.workload.arrival')}
        value={w.arrival}
        options={ARRIVAL_KINDS.map((kind) => ({ value: kind, label: t(`wizard.workload.arrival.${kind}`) }))}
        onValueChange={(value) => onChange({ ...w, arrival: value as ArrivalKind }, `${prefix}.arrival`)}
        // A constant rate the client version cannot send is refused on its burstiness (`inf`), which has no field here.
        error={error(`${prefix}.arrival`) ?? (w.arrival === 'constant' ? error(`${prefix}.burstiness`) : undefined)}
        hint={t(`wizard.workload.arrivalHint.${w.arrival}`)}
      />
      {paced && (
        <TextField label={t('wizard.workload.rate')} inputMode="decimal" value={w.requestRate} onValueChange={(value) => set('requestRate', value)} error={error(`${prefix}.requestRate`)} />
      )}
      {w.arrival === 'ramp' && (
        <>
          <SelectField
            label={t('wizard.workload.rampStrategy')}
            value={w.rampStrategy}
            options={RAMP_STRATEGIES.map((s) => ({ value: s, label: t(s === 'linear' ? 'wizard.workload.rampLinear' : 'wizard.workload.rampExponential') }))}
            onValueChange={(value) => onChange({ ...w, rampStrategy: value as RampStrategy }, `${prefix}.rampStrategy`)}
            error={error(`${prefix}.rampStrategy`)}
          />
          <TextField label={t('wizard.workload.rampStart')} inputMode="numeric" value={w.rampStart} onValueChange={(value) => set('rampStart', value)} error={error(`${prefix}.rampStart`)} />
          <TextField label={t('wizard.workload.rampEnd')} inputMode="numeric" value={w.rampEnd} onValueChange={(value) => set('rampEnd', value)} error={error(`${prefix}.rampEnd`)} />
        </>
      )}
      {(w.arrival === 'gamma' || w.arrival === 'ramp') && (
        <TextField
          label={t('wizard.workload.burstiness')}
          labelNote={w.arrival === 'ramp' ? t('wizard.workload.burstinessRampNote') : undefined}
          inputMode="decimal"
          value={w.burstiness}
          onValueChange={(value) => set('burstiness', value)}
          error={error(`${prefix}.burstiness`)}
        />
      )}
    </>
  );
}
