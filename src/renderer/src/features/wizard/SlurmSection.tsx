import { useId } from 'react';
import { TextField } from '../../components/Field';
import { SelectField } from '../../components/SelectField';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import type { ClusterInventory } from '../../../../shared/model/cluster';
import { KNOWN_GPUS, KNOWN_GPU_IDS, knownGpuForGresType, type KnownGpuId } from '../../../../shared/study/slurm-plan';
import {
  accountQos,
  chosenPartition,
  knownGpuIdOf,
  partitionAccounts,
  partitionGpuTypes,
  slurmField,
  withGpuType,
  withPartition,
  type SlurmDraft,
  type SlurmField,
} from '../../study-draft/slurm-draft';
import { formatHoursMinutes } from '../hosts/format';
import { WizardRadioGroup } from './wizard-fields';

/** The wizard's read of a cluster host (`hosts:cluster`). */
export type ClusterReadState = { status: 'loading' } | { status: 'ok'; cluster: ClusterInventory } | { status: 'failed'; message: string };

export interface SlurmSectionProps {
  hostId: string;
  slurm: SlurmDraft;
  read: ClusterReadState | undefined;
  /** Changes the host's Slurm settings; `field` is marked as touched (null: a choice that leaves errors unshown). */
  onChange: (field: SlurmField | null, update: (s: SlurmDraft) => SlurmDraft) => void;
  error: (field: string) => string | undefined;
  onRetry: () => void;
}

const OTHER_GPU = 'other';

/**
 * A cluster host's Slurm settings: partition, account and QOS from the cluster and the user's associations, the GPU
 * type the partition's nodes offer, the GPU the plan assumes, GPUs per node, the time limit per job and how many
 * jobs wait in the queue at once. The fields stay usable while the cluster cannot be read (typed, not chosen).
 */
export function SlurmSection({ hostId, slurm, read, onChange, error, onRetry }: SlurmSectionProps) {
  const titleId = useId();
  const cluster = read?.status === 'ok' ? read.cluster : null;
  const err = (field: SlurmField) => error(slurmField(hostId, field));
  return (
    <section className="wizard-slurm" aria-labelledby={titleId}>
      <h3 id={titleId} className="field-label">
        {t('wizard.slurm.title')}
      </h3>
      <p className="field-hint">{t('wizard.slurm.intro')}</p>
      {(read === undefined || read.status === 'loading') && (
        <p className="host-progress" role="status">
          <Spinner />
          {t('wizard.slurm.reading')}
        </p>
      )}
      {read?.status === 'failed' && (
        <div className="form-error" role="alert">
          <p>{t('wizard.slurm.readFailed', { message: read.message })}</p>
          <button type="button" className="btn btn-secondary btn-small" onClick={onRetry}>
            {t('wizard.slurm.retry')}
          </button>
        </div>
      )}
      <div className="wizard-grid">
        {cluster ? (
          <ClusterChoices cluster={cluster} slurm={slurm} onChange={onChange} err={err} />
        ) : (
          <>
            <TextField label={t('wizard.slurm.partition')} value={slurm.partition} onValueChange={(v) => onChange('partition', (s) => ({ ...s, partition: v }))} error={err('partition')} labelNote={t('wizard.optional')} />
            <TextField label={t('wizard.slurm.account')} value={slurm.account} onValueChange={(v) => onChange('account', (s) => ({ ...s, account: v }))} error={err('account')} labelNote={t('wizard.optional')} />
            <TextField label={t('wizard.slurm.qos')} value={slurm.qos} onValueChange={(v) => onChange('qos', (s) => ({ ...s, qos: v }))} error={err('qos')} labelNote={t('wizard.optional')} />
            <TextField label={t('wizard.slurm.gpuType')} value={slurm.gpuType} onValueChange={(v) => onChange('gpuType', (s) => ({ ...s, gpuType: v.trim(), gpu: s.gpu ?? knownGpuOf(v) }))} error={err('gpuType')} hint={t('wizard.slurm.gpuTypeHint')} />
          </>
        )}
        <PlanningGpu slurm={slurm} onChange={onChange} error={err('gpu')} />
        <TextField
          label={t('wizard.slurm.gpusPerNode')}
          inputMode="numeric"
          value={slurm.gpusPerNode}
          onValueChange={(v) => onChange('gpusPerNode', (s) => ({ ...s, gpusPerNode: v }))}
          error={err('gpusPerNode')}
          hint={t('wizard.slurm.gpusPerNodeHint')}
        />
        <TextField
          label={t('wizard.slurm.maxQueuedJobs')}
          inputMode="numeric"
          value={slurm.maxQueuedJobs}
          onValueChange={(v) => onChange('maxQueuedJobs', (s) => ({ ...s, maxQueuedJobs: v }))}
          error={err('maxQueuedJobs')}
          hint={t('wizard.slurm.maxQueuedJobsHint')}
        />
      </div>
      <TimeLimit cluster={cluster} slurm={slurm} onChange={onChange} error={err('timeLimitMinutes')} />
    </section>
  );
}

function knownGpuOf(gpuType: string) {
  const known = knownGpuForGresType(gpuType);
  return known ? KNOWN_GPUS[known] : null;
}

function ClusterChoices({ cluster, slurm, onChange, err }: { cluster: ClusterInventory; slurm: SlurmDraft; onChange: SlurmSectionProps['onChange']; err: (field: SlurmField) => string | undefined }) {
  const partition = chosenPartition(cluster, slurm);
  const defaultPartition = cluster.partitions.find((p) => p.isDefault);
  const partitionOptions = [
    { value: '', label: defaultPartition ? t('wizard.slurm.partitionDefault', { name: defaultPartition.name }) : t('wizard.slurm.partitionDefaultUnknown') },
    ...cluster.partitions.map((p) => {
      const name = p.isDefault ? t('wizard.slurm.partitionIsDefault', { name: p.name }) : p.name;
      return { value: p.name, label: p.state === 'UP' ? name : t('wizard.slurm.partitionState', { name, state: t(`cluster.partitionState.${p.state}`) }) };
    }),
  ];
  const accounting = cluster.user.associations.length > 0;
  const accounts = partitionAccounts(cluster, partition);
  const qos = accountQos(cluster, partition, slurm.account);
  const types = partitionGpuTypes(cluster, partition?.name ?? null);
  // A saved choice the cluster no longer offers stays visible rather than silently changing.
  const keep = (values: string[], value: string) => (value && !values.includes(value) ? [...values, value] : values);
  return (
    <>
      {/* Above the fields, so it does not leave the partition alone on its row of the grid. */}
      {!accounting && (
        <p className="field-hint wizard-slurm-wide">{t('wizard.slurm.noAccounting', { message: cluster.accounting.message ?? t('wizard.slurm.noAccountingMessage') })}</p>
      )}
      <SelectField
        label={t('wizard.slurm.partition')}
        value={slurm.partition}
        options={keep(partitionOptions.map((o) => o.value), slurm.partition).map((value) => partitionOptions.find((o) => o.value === value) ?? { value, label: value })}
        onValueChange={(v) => onChange('partition', (s) => withPartition(s, cluster, v))}
        error={err('partition')}
      />
      {accounting ? (
        <>
          <SelectField
            label={t('wizard.slurm.account')}
            value={slurm.account}
            options={[
              { value: '', label: cluster.user.defaultAccount ? t('wizard.slurm.accountDefault', { name: cluster.user.defaultAccount }) : t('wizard.slurm.accountDefaultUnknown') },
              ...keep(accounts, slurm.account).map((a) => ({ value: a, label: a })),
            ]}
            onValueChange={(v) => onChange('account', (s) => ({ ...s, account: v, qos: s.qos && !accountQos(cluster, partition, v).includes(s.qos) ? '' : s.qos }))}
            error={err('account')}
          />
          <SelectField
            label={t('wizard.slurm.qos')}
            value={slurm.qos}
            options={[{ value: '', label: t('wizard.slurm.qosDefault') }, ...keep(qos, slurm.qos).map((q) => ({ value: q, label: q }))]}
            onValueChange={(v) => onChange('qos', (s) => ({ ...s, qos: v }))}
            error={err('qos')}
          />
        </>
      ) : (
        <>
          <TextField label={t('wizard.slurm.account')} value={slurm.account} onValueChange={(v) => onChange('account', (s) => ({ ...s, account: v }))} error={err('account')} labelNote={t('wizard.optional')} />
          <TextField label={t('wizard.slurm.qos')} value={slurm.qos} onValueChange={(v) => onChange('qos', (s) => ({ ...s, qos: v }))} error={err('qos')} labelNote={t('wizard.optional')} />
        </>
      )}
      <SelectField
        label={t('wizard.slurm.gpuType')}
        value={slurm.gpuType}
        options={[{ value: '', label: t('wizard.slurm.gpuTypeAny') }, ...keep(types.map((x) => x.type), slurm.gpuType).map((type) => ({ value: type, label: type }))]}
        onValueChange={(v) => onChange('gpuType', (s) => withGpuType(s, cluster, v))}
        error={err('gpuType')}
        hint={types.length === 0 ? t('wizard.slurm.noGpuTypes') : t('wizard.slurm.gpuTypeHint')}
      />
    </>
  );
}

/** The GPU the plan assumes: a known GPU (preset when the GRES type names one), or the study's own facts kept as they are. */
function PlanningGpu({ slurm, onChange, error }: { slurm: SlurmDraft; onChange: SlurmSectionProps['onChange']; error: string | undefined }) {
  const known = knownGpuIdOf(slurm.gpu);
  const value = slurm.gpu === null ? '' : (known ?? OTHER_GPU);
  const named = knownGpuForGresType(slurm.gpuType);
  const options = [
    ...(slurm.gpu === null ? [{ value: '', label: t('wizard.slurm.gpuChoose') }] : []),
    ...KNOWN_GPU_IDS.map((id) => ({ value: id, label: KNOWN_GPUS[id].name })),
    ...(value === OTHER_GPU && slurm.gpu ? [{ value: OTHER_GPU, label: slurm.gpu.name }] : []),
  ];
  return (
    <SelectField
      label={t('wizard.slurm.gpu')}
      value={value}
      options={options}
      onValueChange={(v) => {
        if (v === '' || v === OTHER_GPU) return;
        onChange('gpu', (s) => ({ ...s, gpu: KNOWN_GPUS[v as KnownGpuId] }));
      }}
      error={error}
      hint={named && known === named ? t('wizard.slurm.gpuNamed', { type: slurm.gpuType }) : t('wizard.slurm.gpuHint')}
    />
  );
}

function TimeLimit({ cluster, slurm, onChange, error }: { cluster: ClusterInventory | null; slurm: SlurmDraft; onChange: SlurmSectionProps['onChange']; error: string | undefined }) {
  const partition = cluster ? chosenPartition(cluster, slurm) : null;
  const limit = partition ? (partition.maxTimeMinutes === null ? t('wizard.slurm.maxTimeUnlimited') : t('wizard.slurm.maxTime', { time: formatHoursMinutes(partition.maxTimeMinutes) })) : null;
  return (
    <div className="wizard-slurm-time">
      <WizardRadioGroup
        legend={t('wizard.slurm.timeLimit')}
        value={slurm.timeLimit}
        options={[
          { value: 'estimate', label: t('wizard.slurm.timeFromEstimate'), hint: t('wizard.slurm.timeFromEstimateHint') },
          { value: 'minutes', label: t('wizard.slurm.timeMinutes') },
        ]}
        onValueChange={(v) => onChange(null, (s) => ({ ...s, timeLimit: v }))}
      />
      {slurm.timeLimit === 'minutes' && (
        <TextField
          label={t('wizard.slurm.timeLimitMinutes')}
          inputMode="numeric"
          value={slurm.timeLimitMinutes}
          onValueChange={(v) => onChange('timeLimitMinutes', (s) => ({ ...s, timeLimitMinutes: v }))}
          error={error}
          hint={limit ?? undefined}
        />
      )}
      {slurm.timeLimit === 'estimate' && limit && <p className="field-hint">{limit}</p>}
    </div>
  );
}
