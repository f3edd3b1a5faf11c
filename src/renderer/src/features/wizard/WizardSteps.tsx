import { TextField } from '../../components/Field';
import { ExtraArgsField } from '../../components/ExtraArgsField';
import { SelectField } from '../../components/SelectField';
import { Checkbox } from '../../components/Checkbox';
import { t } from '../../i18n';
import { CONSTANT_RATE_SWEEP, WORKLOAD_PRESETS } from '../../../../shared/bench/workload';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import type { EngineId } from '../../../../shared/engines/types';
import { isSlurmCluster, type Host } from '../../../../shared/model/host';
import { formatGpuSummary, type Gpu } from '../../../../shared/model/inventory';
import {
  DEMO_GPUS,
  PRECISIONS,
  SLO_METRICS,
  defaultSloBound,
  demoGpuName,
  rowKey,
  suggestedVariants,
  withFreshStages,
  workloadDraft,
  type CandidateDraft,
  type DatasetKind,
  type DemoGpu,
  type HostDraft,
  type StageDraft,
  type WizardDraft,
  type WorkloadDraft,
} from '../../study-draft/draft';
import { ArrivalFields } from './ArrivalFields';
import { SlurmSection, type ClusterReadState } from './SlurmSection';
import { emptySlurmDraft, slurmField } from '../../study-draft/slurm-draft';
import { WizardRadioGroup, WizardTextArea } from './wizard-fields';
import { StartFromCommand, type FromCommandState } from './StartFromCommand';
import { ConfigFilesField } from './ConfigFilesField';
import { attachFile, detachFile } from '../../study-draft/draft-files';
import { CONFIG_FILE_FIELDS, type ConfigFile, type ConfigFileField } from '../../../../shared/engines/config-files';
import { GoalBasis } from './GoalBasis';
import { LayoutCandidateRow } from './LayoutCandidateRow';
import { presetName } from '../studies/study-words';
import { isLayoutStage, layoutCandidate, layoutFieldsOf, layoutStage } from '../../study-draft/layout-draft';

export interface StepProps {
  draft: WizardDraft;
  /** Changes the draft; `field` is marked as touched, so its error shows from now on. */
  change: (field: string | null, update: (d: WizardDraft) => WizardDraft) => void;
  /** The field's error, once it is shown. */
  error: (field: string) => string | undefined;
}

function replaceAt<T>(items: readonly T[], index: number, item: T): T[] {
  return items.map((x, i) => (i === index ? item : x));
}

/** The file fields at least one of the engines can take (all engines when none is named). */
function fileFieldsOf(engines: readonly EngineId[] | undefined): ConfigFileField[] {
  const list = engines && engines.length > 0 ? engines : (Object.keys(ENGINE_ADAPTERS) as EngineId[]);
  return CONFIG_FILE_FIELDS.filter((field) => list.some((engine) => !('unsupported' in ENGINE_ADAPTERS[engine].fileFlags[field])));
}

// ---------- 1. Model ----------

export function ModelStep({ draft, change, error, fromCommand, onFromCommand }: StepProps & { fromCommand: FromCommandState; onFromCommand: (state: FromCommandState) => void }) {
  const suggestions = suggestedVariants(draft.modelId).filter((s) => !draft.variants.some((v) => v.model === s.model || v.id === s.id));
  return (
    <div className="form form-compact">
      <StartFromCommand change={change} state={fromCommand} onState={onFromCommand} />
      <TextField
        label={t('wizard.model.id')}
        value={draft.modelId}
        onValueChange={(value) => change('modelId', (d) => ({ ...d, modelId: value }))}
        error={error('modelId')}
        hint={t('wizard.model.idHint')}
        placeholder="Qwen/Qwen3-8B"
        className="mono-input"
        spellCheck={false}
      />
      <SelectField
        label={t('wizard.model.precision')}
        value={draft.precision}
        options={[{ value: '', label: t('wizard.model.precisionUnstated') }, ...PRECISIONS.map((p) => ({ value: p, label: p }))]}
        onValueChange={(value) => change('precision', (d) => ({ ...d, precision: value as WizardDraft['precision'] }))}
        error={error('precision')}
        hint={t('wizard.model.precisionHint')}
      />
      <section className="wizard-subsection" aria-labelledby="wizard-variants-title">
        <h3 id="wizard-variants-title" className="section-title">
          {t('wizard.variants.title')}
        </h3>
        <p className="field-hint">{t('wizard.variants.hint')}</p>
        {suggestions.length > 0 && (
          <div className="wizard-suggestions" role="group" aria-label={t('wizard.variants.suggested')}>
            <span className="field-hint">{t('wizard.variants.suggested')}</span>
            {suggestions.map((s) => (
              <button
                key={s.id}
                type="button"
                className="btn btn-secondary btn-small"
                onClick={() => change(null, (d) => ({ ...d, variants: [...d.variants, { key: rowKey(), ...s }] }))}
              >
                {t('wizard.variants.addSuggested', { model: s.model })}
              </button>
            ))}
          </div>
        )}
        {draft.variants.map((v, i) => {
          const set = (field: string, patch: Partial<typeof v>) => change(`variants.${i}.${field}`, (d) => ({ ...d, variants: replaceAt(d.variants, i, { ...v, ...patch }) }));
          return (
            <fieldset key={v.key} className="wizard-row-card">
              <legend className="wizard-row-legend">{t('wizard.variants.legend', { n: i + 1 })}</legend>
              <div className="wizard-grid">
                <TextField label={t('wizard.variants.id')} value={v.id} onValueChange={(value) => set('id', { id: value })} error={error(`variants.${i}.id`)} />
                <TextField label={t('wizard.variants.model')} value={v.model} onValueChange={(value) => set('model', { model: value })} error={error(`variants.${i}.model`)} className="mono-input" />
                <TextField label={t('wizard.variants.label')} labelNote={t('wizard.optional')} value={v.label} onValueChange={(value) => set('label', { label: value })} error={error(`variants.${i}.label`)} />
                <SelectField
                  label={t('wizard.variants.precision')}
                  value={v.precision}
                  options={[{ value: '', label: t('wizard.model.precisionUnstated') }, ...PRECISIONS.map((p) => ({ value: p, label: p }))]}
                  onValueChange={(value) => set('precision', { precision: value as typeof v.precision })}
                  error={error(`variants.${i}.precision`)}
                />
              </div>
              <div className="wizard-row-actions">
                <Checkbox label={t('wizard.variants.blockScaled')} hint={t('wizard.variants.blockScaledHint')} checked={v.fp8BlockScaled} onChange={(checked) => set('fp8BlockScaled', { fp8BlockScaled: checked })} />
                <button type="button" className="btn btn-ghost btn-small" onClick={() => change(null, (d) => ({ ...d, variants: d.variants.filter((_, j) => j !== i) }))}>
                  {t('wizard.variants.remove', { n: i + 1 })}
                </button>
              </div>
            </fieldset>
          );
        })}
        <div>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => change(null, (d) => ({ ...d, variants: [...d.variants, { key: rowKey(), id: '', model: '', label: '', precision: '', fp8BlockScaled: false }] }))}
          >
            {t('wizard.variants.add')}
          </button>
        </div>
      </section>
    </div>
  );
}

// ---------- 2. Hardware ----------

export interface InventoryState {
  status: 'loading' | 'ok' | 'failed';
  gpus: Gpu[];
  /** The box said it is the simulated GPU box (a test box reached over SSH): its GPUs are named as simulated. */
  simulated?: boolean;
  message?: string;
}

function demoIndices(count: string): string[] {
  const n = Math.min(8, Math.max(1, Math.floor(Number(count)) || 1));
  return Array.from({ length: n }, (_, i) => String(i));
}

export function HardwareStep({
  draft,
  change,
  error,
  hosts,
  inventories,
  clusters,
  onReadCluster,
}: StepProps & { hosts: Host[] | null; inventories: Record<string, InventoryState>; clusters: Record<string, ClusterReadState>; onReadCluster: (hostId: string) => void }) {
  const toggleHost = (host: Host, on: boolean) =>
    change('hosts', (d) => {
      if (!on) return { ...d, hosts: d.hosts.filter((h) => h.hostId !== host.id) };
      // A cluster's login node has no GPUs to tick: its jobs ask Slurm for them.
      if (isSlurmCluster(host)) return { ...d, hosts: [...d.hosts, { hostId: host.id, gpus: null, allGpus: null, slurm: emptySlurmDraft() }] };
      const all = host.kind === 'demo' ? demoIndices(d.demoCount) : null;
      return { ...d, hosts: [...d.hosts, { hostId: host.id, gpus: all, allGpus: all }] };
    });
  const setHost = (hostId: string, update: (h: HostDraft) => HostDraft) =>
    change(`hosts.${hostId}.gpus`, (d) => ({ ...d, hosts: d.hosts.map((h) => (h.hostId === hostId ? update(h) : h)) }));
  return (
    <div className="form form-compact">
      <fieldset className="wizard-fieldset">
        <legend className="field-label">{t('wizard.hardware.hosts')}</legend>
        {hosts === null && <p className="muted">{t('wizard.hardware.loading')}</p>}
        {hosts?.length === 0 && <p className="muted">{t('wizard.hardware.noHosts')}</p>}
        <ul className="wizard-host-list">
          {hosts?.map((host) => {
            const chosen = draft.hosts.find((h) => h.hostId === host.id);
            const inventory = inventories[host.id];
            const isDemo = host.kind === 'demo';
            const demoName = demoGpuName(draft.demoGpu);
            return (
              <li key={host.id} className="wizard-host">
                <Checkbox
                  label={host.label}
                  hint={isDemo ? t('wizard.hardware.demoHint') : host.address}
                  checked={chosen !== undefined}
                  onChange={(on) => toggleHost(host, on)}
                />
                {chosen && isDemo && (
                  <div className="wizard-host-body">
                    <div className="wizard-grid">
                      <SelectField
                        label={t('wizard.hardware.demoGpu')}
                        value={draft.demoGpu}
                        options={DEMO_GPUS.map((g) => ({ value: g, label: demoGpuName(g) }))}
                        onValueChange={(value) => change('demoGpu', (d) => ({ ...d, demoGpu: value as DemoGpu }))}
                        error={error('demoGpu')}
                      />
                      <TextField
                        label={t('wizard.hardware.demoCount')}
                        inputMode="numeric"
                        value={draft.demoCount}
                        onValueChange={(value) =>
                          change('demoCount', (d) => ({
                            ...d,
                            demoCount: value,
                            hosts: d.hosts.map((h) => (h.hostId === host.id ? { ...h, gpus: demoIndices(value), allGpus: demoIndices(value) } : h)),
                          }))
                        }
                        error={error('demoCount')}
                      />
                    </div>
                    <GpuChecks
                      hostLabel={host.label}
                      gpus={(chosen.allGpus ?? []).map((index) => ({ index, text: t('wizard.hardware.simulatedGpu', { index, name: demoName }) }))}
                      chosen={chosen}
                      onChange={(gpus) => setHost(host.id, (h) => ({ ...h, gpus }))}
                      error={error(`hosts.${host.id}.gpus`)}
                    />
                  </div>
                )}
                {chosen?.slurm && (
                  <div className="wizard-host-body">
                    <SlurmSection
                      hostId={host.id}
                      slurm={chosen.slurm}
                      read={clusters[host.id]}
                      onChange={(field, update) =>
                        change(field && slurmField(host.id, field), (d) => ({ ...d, hosts: d.hosts.map((h) => (h.hostId === host.id && h.slurm ? { ...h, slurm: update(h.slurm) } : h)) }))
                      }
                      error={error}
                      onRetry={() => onReadCluster(host.id)}
                    />
                  </div>
                )}
                {chosen && !isDemo && !chosen.slurm && (
                  <div className="wizard-host-body">
                    {(inventory === undefined || inventory.status === 'loading') && <p className="muted">{t('wizard.hardware.inventoryLoading')}</p>}
                    {inventory?.status === 'failed' && (
                      <p className="field-hint" role="status">
                        {t('wizard.hardware.inventoryFailed', { message: inventory.message ?? '' })}
                      </p>
                    )}
                    {inventory?.status === 'ok' && (
                      <GpuChecks
                        hostLabel={host.label}
                        gpus={inventory.gpus.map((g) => {
                          const gpu = `${t('wizard.hardware.gpuIndex', { index: g.index })} · ${formatGpuSummary(g)}`;
                          return { index: String(g.index), text: inventory.simulated ? t('wizard.hardware.gpuSimulated', { gpu }) : gpu };
                        })}
                        chosen={chosen}
                        onChange={(gpus) => setHost(host.id, (h) => ({ ...h, gpus }))}
                        error={error(`hosts.${host.id}.gpus`)}
                      />
                    )}
                  </div>
                )}
              </li>
            );
          })}
        </ul>
        {error('hosts') && <p className="field-error">{error('hosts')}</p>}
      </fieldset>
      <TextField
        label={t('wizard.hardware.gpusPerTrial')}
        inputMode="numeric"
        value={draft.gpusPerTrial}
        onValueChange={(value) => change('gpusPerTrial', (d) => ({ ...d, gpusPerTrial: value }))}
        error={error('gpusPerTrial')}
        hint={t('wizard.hardware.gpusPerTrialHint')}
      />
    </div>
  );
}

function GpuChecks({
  hostLabel,
  gpus,
  chosen,
  onChange,
  error,
}: {
  hostLabel: string;
  gpus: { index: string; text: string }[];
  chosen: HostDraft;
  onChange: (gpus: string[]) => void;
  error: string | undefined;
}) {
  if (gpus.length === 0) return <p className="muted">{t('wizard.hardware.noGpus')}</p>;
  const ticked = chosen.gpus ?? [];
  return (
    <fieldset className="wizard-fieldset">
      <legend className="field-hint">{t('wizard.hardware.gpusOf', { host: hostLabel })}</legend>
      <div className="wizard-gpu-list">
        {gpus.map((g) => (
          <Checkbox
            key={g.index}
            label={g.text}
            checked={ticked.includes(g.index)}
            onChange={(on) => onChange(on ? [...ticked, g.index] : ticked.filter((x) => x !== g.index))}
          />
        ))}
      </div>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

// ---------- 3. Goal ----------

export function GoalStep({ draft, change, error, boxGpus }: StepProps & { boxGpus: number | null }) {
  return (
    <div className="form form-compact">
      <WizardRadioGroup
        legend={t('wizard.goal.kind')}
        value={draft.goal}
        options={[
          { value: 'latency', label: t('wizard.goal.latency'), hint: t('wizard.goal.latencyHint') },
          { value: 'throughput', label: t('wizard.goal.throughput'), hint: t('wizard.goal.throughputHint') },
        ]}
        onValueChange={(value) =>
          change('goal', (d) => {
            // An untouched primary workload follows the goal: the reference studies measure latency at concurrency 4, throughput unbounded.
            const untouched = d.primary.presetId === (d.goal === 'latency' ? 'sharegpt-c4' : 'sharegpt-1000-unbounded');
            const next = WORKLOAD_PRESETS.find((w) => w.id === (value === 'latency' ? 'sharegpt-c4' : 'sharegpt-1000-unbounded'));
            return { ...d, goal: value, ...(untouched ? { primary: workloadDraft(next) } : {}) };
          })
        }
      />
      <GoalBasis draft={draft} change={change} error={error} boxGpus={boxGpus} />
      <section className="wizard-subsection" aria-labelledby="wizard-slos-title">
        <h3 id="wizard-slos-title" className="section-title">
          {t('wizard.slo.title')}
        </h3>
        <p className="field-hint">{t('wizard.slo.hint')}</p>
        {draft.slos.map((s, i) => {
          const set = (field: string, patch: Partial<typeof s>) => change(`slos.${i}.${field}`, (d) => ({ ...d, slos: replaceAt(d.slos, i, { ...s, ...patch }) }));
          return (
            <fieldset key={s.key} className="wizard-row-card">
              <legend className="wizard-row-legend">{t('wizard.slo.legend', { n: i + 1 })}</legend>
              <div className="wizard-grid wizard-grid-4">
                <SelectField
                  label={t('wizard.slo.metric')}
                  value={s.metric}
                  options={SLO_METRICS.map((m) => ({ value: m, label: m }))}
                  onValueChange={(value) => set('metric', { metric: value, bound: defaultSloBound(value) })}
                  error={error(`slos.${i}.metric`)}
                />
                <SelectField
                  label={t('wizard.slo.bound')}
                  value={s.bound}
                  options={[
                    { value: 'max', label: t('wizard.slo.max') },
                    { value: 'min', label: t('wizard.slo.min') },
                  ]}
                  onValueChange={(value) => set('bound', { bound: value as 'max' | 'min' })}
                />
                <TextField label={t('wizard.slo.value')} inputMode="decimal" value={s.value} onValueChange={(value) => set('value', { value })} error={error(`slos.${i}.value`)} />
                <div className="wizard-row-end">
                  <button type="button" className="btn btn-ghost btn-small" onClick={() => change(null, (d) => ({ ...d, slos: d.slos.filter((_, j) => j !== i) }))}>
                    {t('wizard.slo.remove', { n: i + 1 })}
                  </button>
                </div>
              </div>
            </fieldset>
          );
        })}
        <div>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => change(null, (d) => ({ ...d, slos: [...d.slos, { key: rowKey(), metric: 'p99_ttft_ms', bound: 'max', value: '' }] }))}
          >
            {t('wizard.slo.add')}
          </button>
        </div>
      </section>
      <TextField
        label={t('wizard.goal.margin')}
        inputMode="decimal"
        value={draft.marginPct}
        onValueChange={(value) => change('marginPct', (d) => ({ ...d, marginPct: value }))}
        error={error('marginPct')}
        hint={t('wizard.goal.marginHint')}
      />
      <TextField
        label={t('wizard.goal.repeatBudget')}
        inputMode="numeric"
        value={draft.repeatBudget}
        onValueChange={(value) => change('repeatBudget', (d) => ({ ...d, repeatBudget: value }))}
        error={error('repeatBudget')}
        hint={t('wizard.goal.repeatBudgetHint')}
      />
    </div>
  );
}

// ---------- 4. Engines ----------

/** Installed engine versions per chosen host: `engine@version/mode`; null while loading or when it failed. */
export type InstalledByHost = Record<string, Set<string> | null>;

export function EnginesStep({ draft, change, error, installed, hostLabel }: StepProps & { installed: InstalledByHost; hostLabel: (id: string) => string }) {
  const chosenHosts = draft.hosts.map((h) => h.hostId);
  const installedOn = (engine: EngineId, version: string, mode: string) => chosenHosts.filter((h) => installed[h]?.has(`${engine}@${version}/${mode}`));
  return (
    <div className="form form-compact">
      {draft.engines.map((e, i) => {
        const adapter = ENGINE_ADAPTERS[e.engine];
        const name = adapter.displayName;
        const set = (field: string, patch: Partial<typeof e>) => change(`engines.${e.engine}.${field}`, (d) => ({ ...d, engines: replaceAt(d.engines, i, { ...e, ...patch }) }));
        const on = installedOn(e.engine, e.version, e.mode);
        const missing = chosenHosts.filter((h) => !on.includes(h));
        return (
          <fieldset key={e.engine} className="wizard-row-card">
            <legend className="visually-hidden">{name}</legend>
            <Checkbox
              label={t('wizard.engines.use', { engine: name })}
              checked={e.enabled}
              onChange={(enabled) =>
                change('engines', (d) => ({
                  ...d,
                  engines: replaceAt(d.engines, i, { ...e, enabled }),
                  tuned: enabled ? [...new Set([...d.tuned, e.engine])] : d.tuned.filter((x) => x !== e.engine),
                }))
              }
            />
            {e.enabled && (
              <div className="wizard-host-body">
                <div className="wizard-grid">
                  <SelectField
                    label={t('wizard.engines.version', { engine: name })}
                    value={e.version}
                    options={adapter.knownVersions.map((v) => {
                      const everywhere = chosenHosts.length > 0 && installedOn(e.engine, v, e.mode).length === chosenHosts.length;
                      return { value: v, label: everywhere ? t('wizard.engines.versionInstalled', { version: v }) : t('wizard.engines.versionToInstall', { version: v }) };
                    })}
                    onValueChange={(value) => set('version', { version: value })}
                    error={error(`engines.${e.engine}.version`)}
                  />
                  <SelectField
                    label={t('wizard.engines.mode', { engine: name })}
                    value={e.mode}
                    options={[
                      { value: 'env', label: t('wizard.engines.modeEnv') },
                      { value: 'docker', label: t('wizard.engines.modeDocker') },
                    ]}
                    onValueChange={(value) => set('mode', { mode: value as 'env' | 'docker' })}
                  />
                </div>
                <p className="field-hint" data-testid={`wizard-install-${e.engine}`}>
                  {on.length > 0 && t('wizard.engines.installedOn', { hosts: on.map(hostLabel).join(', ') })}
                  {on.length > 0 && missing.length > 0 && ' · '}
                  {missing.length > 0 && t('wizard.engines.willInstall', { hosts: missing.map(hostLabel).join(', ') })}
                </p>
                <TextField
                  label={t('wizard.engines.maxModelLen', { engine: name })}
                  labelNote={t('wizard.optional')}
                  inputMode="numeric"
                  value={e.maxModelLen}
                  onValueChange={(value) => set('maxModelLen', { maxModelLen: value })}
                  error={error(`engines.${e.engine}.maxModelLen`)}
                />
                <ExtraArgsField
                  label={t('wizard.engines.extraArgs', { engine: name })}
                  labelNote={t('wizard.optional')}
                  engine={e.engine}
                  version={e.version.trim()}
                  value={e.extraArgs}
                  onValueChange={(value) => set('extraArgs', { extraArgs: value })}
                  error={error(`engines.${e.engine}.extraArgs`)}
                  hint={t('wizard.engines.extraArgsHint', { engine: name, version: e.version.trim() })}
                />
                <ConfigFilesField
                  fields={fileFieldsOf([e.engine])}
                  refs={e.files}
                  files={draft.files}
                  errorOf={(field) => error(`engines.${e.engine}.files.${field}`)}
                  onAttach={(field, file) => change(`engines.${e.engine}.files.${field}`, (d) => attachFile(d, { kind: 'engine', engine: e.engine }, field, file))}
                  onRemove={(field) => change(`engines.${e.engine}.files.${field}`, (d) => detachFile(d, { kind: 'engine', engine: e.engine }, field))}
                />
                <WizardTextArea
                  label={t('wizard.engines.settings', { engine: name })}
                  labelNote={t('wizard.optional')}
                  mono
                  rows={2}
                  value={e.settings}
                  onValueChange={(value) => set('settings', { settings: value })}
                  error={error(`engines.${e.engine}.settings`)}
                  hint={t('wizard.engines.settingsHint')}
                />
              </div>
            )}
          </fieldset>
        );
      })}
      {error('engines') && <p className="field-error">{error('engines')}</p>}
    </div>
  );
}

// ---------- 5. Stages ----------

export function StagesStep({ draft, change, error, onReset }: StepProps & { onReset: () => void }) {
  const enabled = draft.engines.filter((e) => e.enabled);
  const edit = (update: (d: WizardDraft) => WizardDraft, field: string | null = null) => change(field, (d) => ({ ...update(d), stagesEdited: true }));
  const setStage = (i: number, stage: StageDraft, field: string | null = null) => edit((d) => ({ ...d, stages: replaceAt(d.stages, i, stage) }), field);
  const move = (i: number, by: number) =>
    edit((d) => {
      const stages = [...d.stages];
      const [item] = stages.splice(i, 1);
      stages.splice(i + by, 0, item!);
      return { ...d, stages };
    });
  return (
    <div className="form form-compact">
      <fieldset className="wizard-fieldset">
        <legend className="field-label">{t('wizard.stages.tuned')}</legend>
        <div className="wizard-inline">
          {enabled.map((e) => (
            <Checkbox
              key={e.engine}
              label={ENGINE_ADAPTERS[e.engine].displayName}
              checked={draft.tuned.includes(e.engine)}
              onChange={(on) =>
                change('tuned', (d) =>
                  withFreshStages({ ...d, tuned: on ? d.engines.filter((x) => x.engine === e.engine || d.tuned.includes(x.engine)).map((x) => x.engine) : d.tuned.filter((x) => x !== e.engine) }),
                )
              }
            />
          ))}
        </div>
        <p className="field-hint">{t('wizard.stages.tunedHint')}</p>
      </fieldset>
      {draft.stagesEdited && (
        <div className="wizard-inline">
          <p className="field-hint">{t('wizard.stages.edited')}</p>
          <button type="button" className="btn btn-secondary btn-small" onClick={onReset}>
            {t('wizard.stages.reset')}
          </button>
        </div>
      )}
      {draft.stages.length === 0 && <p className="muted">{t('wizard.stages.none')}</p>}
      <ol className="wizard-stage-list">
        {draft.stages.map((stage, i) => (
          <li key={stage.key}>
            <section className="wizard-row-card" aria-label={t('wizard.stages.stageName', { n: i + 1, label: stage.label })}>
              <div className="wizard-stage-head">
                <span className="wizard-stage-number">{i + 1}</span>
                <div className="wizard-grid wizard-grow">
                  <TextField label={t('wizard.stages.label')} value={stage.label} onValueChange={(value) => setStage(i, { ...stage, label: value }, `stages.${i}.label`)} error={error(`stages.${i}.label`)} />
                  <TextField label={t('wizard.stages.id')} value={stage.id} onValueChange={(value) => setStage(i, { ...stage, id: value }, `stages.${i}.id`)} error={error(`stages.${i}.id`)} className="mono-input" />
                </div>
                <div className="wizard-stage-tools">
                  <button type="button" className="btn btn-ghost btn-small" disabled={i === 0} onClick={() => move(i, -1)} aria-label={t('wizard.stages.up', { label: stage.label })}>
                    ↑
                  </button>
                  <button type="button" className="btn btn-ghost btn-small" disabled={i === draft.stages.length - 1} onClick={() => move(i, 1)} aria-label={t('wizard.stages.down', { label: stage.label })}>
                    ↓
                  </button>
                  <button
                    type="button"
                    className="btn btn-ghost btn-small"
                    aria-label={t('wizard.stages.remove', { label: stage.label })}
                    onClick={() => edit((d) => ({ ...d, stages: d.stages.filter((_, j) => j !== i) }))}
                  >
                    {t('wizard.removeShort')}
                  </button>
                </div>
              </div>
              <p className="field-hint">
                {stage.engines ? t('wizard.stages.engines', { engines: stage.engines.map((x) => ENGINE_ADAPTERS[x].displayName).join(', ') }) : t('wizard.stages.allEngines')}
              </p>
              {isLayoutStage(stage) && <p className="field-hint">{t('wizard.stages.layoutHint')}</p>}
              <ul className="wizard-candidates">
                {stage.candidates.map((c, j) =>
                  isLayoutStage(stage) ? (
                    <LayoutCandidateRow
                      key={c.key}
                      draft={draft}
                      candidate={c}
                      prefix={`stages.${i}.candidates.${j}`}
                      error={error}
                      onChange={(next, field) => setStage(i, { ...stage, candidates: replaceAt(stage.candidates, j, next) }, field)}
                      onRemove={() => setStage(i, { ...stage, candidates: stage.candidates.filter((_, k) => k !== j) })}
                    />
                  ) : (
                  <CandidateRow
                    key={c.key}
                    candidate={c}
                    prefix={`stages.${i}.candidates.${j}`}
                    variants={draft.variants.map((v) => v.id).filter(Boolean)}
                    error={error}
                    onChange={(next, field) => setStage(i, { ...stage, candidates: replaceAt(stage.candidates, j, next) }, field)}
                    onRemove={() => setStage(i, { ...stage, candidates: stage.candidates.filter((_, k) => k !== j) })}
                    fileFields={fileFieldsOf(stage.engines)}
                    files={draft.files}
                    onAttach={(field, file) => edit((d) => attachFile(d, { kind: 'candidate', stageKey: stage.key, candidateKey: c.key }, field, file), `stages.${i}.candidates.${j}.files.${field}`)}
                    onDetach={(field) => edit((d) => detachFile(d, { kind: 'candidate', stageKey: stage.key, candidateKey: c.key }, field), `stages.${i}.candidates.${j}.files.${field}`)}
                  />
                  ),
                )}
              </ul>
              {error(`stages.${i}.candidates`) && <p className="field-error">{error(`stages.${i}.candidates`)}</p>}
              <div>
                {isLayoutStage(stage) ? (
                  <button type="button" className="btn btn-secondary btn-small" onClick={() => setStage(i, { ...stage, candidates: [...stage.candidates, nextLayout(stage)] })}>
                    {t('wizard.stages.addLayout', { label: stage.label })}
                  </button>
                ) : (
                  <button
                    type="button"
                    className="btn btn-secondary btn-small"
                    onClick={() => setStage(i, { ...stage, candidates: [...stage.candidates, { key: rowKey(), id: `c${stage.candidates.length + 1}`, label: t('wizard.stages.newCandidate'), config: '{}', variant: '' }] })}
                  >
                    {t('wizard.stages.addCandidate', { label: stage.label })}
                  </button>
                )}
              </div>
            </section>
          </li>
        ))}
      </ol>
      <div>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          onClick={() =>
            edit((d) => ({
              ...d,
              stages: [
                ...d.stages,
                { key: rowKey(), id: `stage-${d.stages.length + 1}`, label: t('wizard.stages.newStage'), engines: undefined, candidates: [{ key: rowKey(), id: 'c1', label: t('wizard.stages.newCandidate'), config: '{}', variant: '' }] },
              ],
            }))
          }
        >
          {t('wizard.stages.addStage')}
        </button>
        <button type="button" className="btn btn-secondary btn-small" onClick={() => edit((d) => ({ ...d, stages: [...d.stages, layoutStage(t('wizard.stages.layoutStage'), d.stages)] }))}>
          {t('wizard.stages.addLayoutStage')}
        </button>
      </div>
    </div>
  );
}

/** The next layout to offer: twice the largest tensor-parallel size so far, a new candidate id. */
function nextLayout(stage: StageDraft): CandidateDraft {
  const tps = stage.candidates.map((c) => Number(layoutFieldsOf(c)?.sizes.tensorParallelSize || 1));
  const next = layoutCandidate(Math.min(64, 2 * Math.max(1, ...tps)));
  return stage.candidates.some((c) => c.id === next.id) ? { ...next, id: `${next.id}-${stage.candidates.length + 1}` } : next;
}

function CandidateRow({
  candidate,
  prefix,
  variants,
  error,
  onChange,
  onRemove,
  fileFields,
  files,
  onAttach,
  onDetach,
}: {
  candidate: CandidateDraft;
  prefix: string;
  variants: string[];
  error: (field: string) => string | undefined;
  onChange: (next: CandidateDraft, field: string) => void;
  onRemove: () => void;
  fileFields: readonly ConfigFileField[];
  files: readonly ConfigFile[];
  onAttach: (field: ConfigFileField, file: ConfigFile) => void;
  onDetach: (field: ConfigFileField) => void;
}) {
  return (
    <li className="wizard-candidate" aria-label={t('wizard.candidate.name', { id: candidate.id })}>
      <div className="wizard-candidate-body">
        <div className="wizard-grid wizard-grid-candidate">
          <TextField label={t('wizard.candidate.id')} value={candidate.id} onValueChange={(value) => onChange({ ...candidate, id: value }, `${prefix}.id`)} error={error(`${prefix}.id`)} className="mono-input" />
          <TextField label={t('wizard.candidate.label')} value={candidate.label} onValueChange={(value) => onChange({ ...candidate, label: value }, `${prefix}.label`)} error={error(`${prefix}.label`)} />
          <TextField
            label={t('wizard.candidate.config')}
            value={candidate.config}
            onValueChange={(value) => onChange({ ...candidate, config: value }, `${prefix}.config`)}
            error={error(`${prefix}.config`)}
            className="mono-input"
            spellCheck={false}
          />
          {(variants.length > 0 || candidate.variant) && (
            <SelectField
              label={t('wizard.candidate.variant')}
              value={candidate.variant}
              options={[{ value: '', label: t('wizard.candidate.noVariant') }, ...[...new Set([...variants, ...(candidate.variant ? [candidate.variant] : [])])].map((v) => ({ value: v, label: v }))]}
              onValueChange={(value) => onChange({ ...candidate, variant: value }, `${prefix}.variant`)}
              error={error(`${prefix}.variant`)}
            />
          )}
        </div>
        <ConfigFilesField fields={fileFields} refs={candidate.files} files={files} errorOf={(field) => error(`${prefix}.files.${field}`)} onAttach={onAttach} onRemove={onDetach} />
      </div>
      <button type="button" className="btn btn-ghost btn-small" aria-label={t('wizard.candidate.remove', { id: candidate.id })} onClick={onRemove}>
        {t('wizard.removeShort')}
      </button>
    </li>
  );
}

// ---------- 6. Workloads ----------

const CUSTOM = 'custom';

function WorkloadFields({ w, prefix, error, onChange }: { w: WorkloadDraft; prefix: string; error: (field: string) => string | undefined; onChange: (next: WorkloadDraft, field: string) => void }) {
  const set = (field: keyof WorkloadDraft, value: string) => onChange({ ...w, [field]: value }, `${prefix}.${field}`);
  return (
    <div className="wizard-grid">
      <TextField label={t('wizard.workload.id')} value={w.id} onValueChange={(value) => set('id', value)} error={error(`${prefix}.id`)} className="mono-input" />
      <TextField
        label={t('wizard.workload.label')}
        labelNote={t('wizard.optional')}
        value={w.label}
        onValueChange={(value) => set('label', value)}
        error={error(`${prefix}.label`)}
        hint={t('wizard.workload.labelHint')}
      />
      <SelectField
        label={t('wizard.workload.dataset')}
        value={w.kind}
        options={[
          { value: 'sharegpt', label: t('wizard.workload.sharegpt') },
          { value: 'random', label: t('wizard.workload.random') },
          { value: 'custom', label: t('wizard.workload.customFile') },
        ]}
        onValueChange={(value) => onChange({ ...w, kind: value as DatasetKind }, `${prefix}.kind`)}
      />
      {w.kind !== 'random' && (
        <TextField
          label={t('wizard.workload.path')}
          labelNote={w.kind === 'sharegpt' ? t('wizard.optional') : undefined}
          value={w.path}
          onValueChange={(value) => set('path', value)}
          error={error(`${prefix}.path`)}
          className="mono-input"
        />
      )}
      {w.kind === 'random' && (
        <TextField label={t('wizard.workload.inputLen')} inputMode="numeric" value={w.inputLen} onValueChange={(value) => set('inputLen', value)} error={error(`${prefix}.inputLen`)} />
      )}
      <TextField
        label={t('wizard.workload.outputLen')}
        labelNote={w.kind === 'random' ? undefined : t('wizard.optional')}
        inputMode="numeric"
        value={w.outputLen}
        onValueChange={(value) => set('outputLen', value)}
        error={error(`${prefix}.outputLen`)}
      />
      <TextField label={t('wizard.workload.prompts')} inputMode="numeric" value={w.numPrompts} onValueChange={(value) => set('numPrompts', value)} error={error(`${prefix}.numPrompts`)} />
      <TextField
        label={t('wizard.workload.concurrency')}
        labelNote={t('wizard.workload.blankUnbounded')}
        inputMode="numeric"
        value={w.maxConcurrency}
        onValueChange={(value) => set('maxConcurrency', value)}
        error={error(`${prefix}.maxConcurrency`)}
      />
      <ArrivalFields w={w} prefix={prefix} error={error} onChange={onChange} />
      <TextField label={t('wizard.workload.seed')} labelNote={t('wizard.optional')} inputMode="numeric" value={w.seed} onValueChange={(value) => set('seed', value)} error={error(`${prefix}.seed`)} />
    </div>
  );
}

export function WorkloadsStep({ draft, change, error }: StepProps) {
  return (
    <div className="form form-compact">
      <section className="wizard-subsection" aria-labelledby="wizard-primary-title">
        <h3 id="wizard-primary-title" className="section-title">
          {t('wizard.workload.primary')}
        </h3>
        <SelectField
          label={t('wizard.workload.primaryPreset')}
          value={draft.primary.presetId || CUSTOM}
          options={[...WORKLOAD_PRESETS.map((p) => ({ value: p.id, label: presetName(p) })), { value: CUSTOM, label: t('wizard.workload.custom') }]}
          onValueChange={(value) =>
            change('primary.preset', (d) => ({ ...d, primary: value === CUSTOM ? { ...d.primary, presetId: '' } : workloadDraft(WORKLOAD_PRESETS.find((p) => p.id === value)) }))
          }
          hint={t('wizard.workload.primaryHint')}
        />
        <WorkloadFields w={draft.primary} prefix="primary" error={error} onChange={(next, field) => change(field, (d) => ({ ...d, primary: next }))} />
      </section>
      <section className="wizard-subsection" aria-labelledby="wizard-scenarios-title">
        <h3 id="wizard-scenarios-title" className="section-title">
          {t('wizard.workload.scenarios')}
        </h3>
        <p className="field-hint">{t('wizard.workload.scenariosHint')}</p>
        <div className="wizard-preset-list">
          {WORKLOAD_PRESETS.map((p) => (
            <Checkbox
              key={p.id}
              label={presetName(p)}
              checked={draft.generalisationPresets.includes(p.id)}
              onChange={(on) =>
                change('generalisation', (d) => ({ ...d, generalisationPresets: on ? [...d.generalisationPresets, p.id] : d.generalisationPresets.filter((x) => x !== p.id) }))
              }
            />
          ))}
        </div>
        <fieldset className="wizard-fieldset">
          <legend className="field-label">{t('wizard.workload.sweep')}</legend>
          <p className="field-hint">{t('wizard.workload.sweepHint')}</p>
          <div className="wizard-preset-list">
            {CONSTANT_RATE_SWEEP.map((p) => (
              <Checkbox
                key={p.id}
                label={t('wizard.workload.sweepRate', { rate: p.requestRate ?? 0 })}
                checked={draft.generalisationPresets.includes(p.id)}
                onChange={(on) =>
                  change('generalisation', (d) => ({ ...d, generalisationPresets: on ? [...d.generalisationPresets, p.id] : d.generalisationPresets.filter((x) => x !== p.id) }))
                }
              />
            ))}
          </div>
        </fieldset>
        {draft.generalisationCustom.map((w, i) => (
          <fieldset key={w.key} className="wizard-row-card">
            <legend className="wizard-row-legend">{t('wizard.workload.customLegend', { n: i + 1 })}</legend>
            <WorkloadFields
              w={w}
              prefix={`custom.${i}`}
              error={error}
              onChange={(next, field) => change(field, (d) => ({ ...d, generalisationCustom: replaceAt(d.generalisationCustom, i, next) }))}
            />
            <div className="wizard-row-actions">
              <span />
              <button type="button" className="btn btn-ghost btn-small" onClick={() => change(null, (d) => ({ ...d, generalisationCustom: d.generalisationCustom.filter((_, j) => j !== i) }))}>
                {t('wizard.workload.removeCustom', { n: i + 1 })}
              </button>
            </div>
          </fieldset>
        ))}
        <div>
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() => change(null, (d) => ({ ...d, generalisationCustom: [...d.generalisationCustom, { ...workloadDraft(undefined), id: `scenario-${d.generalisationCustom.length + 1}` }] }))}
          >
            {t('wizard.workload.addCustom')}
          </button>
        </div>
      </section>
    </div>
  );
}

// ---------- 7. Strategy ----------

export function StrategyStep({ draft, change, error }: StepProps) {
  return (
    <div className="form form-compact">
      <WizardRadioGroup
        legend={t('wizard.strategy.kind')}
        value={draft.strategy}
        options={[
          { value: 'greedy', label: t('wizard.strategy.greedy'), hint: t('wizard.strategy.greedyHint') },
          { value: 'grid', label: t('wizard.strategy.grid'), hint: t('wizard.strategy.gridHint') },
        ]}
        onValueChange={(value) => change('strategy', (d) => ({ ...d, strategy: value }))}
      />
      <div className="wizard-grid">
        <TextField
          label={t('wizard.strategy.repeats')}
          inputMode="numeric"
          value={draft.repeats}
          onValueChange={(value) => change('repeats', (d) => ({ ...d, repeats: value }))}
          error={error('repeats')}
          hint={t('wizard.strategy.repeatsHint')}
        />
        <TextField
          label={t('wizard.strategy.parallelism')}
          labelNote={t('wizard.optional')}
          inputMode="numeric"
          value={draft.parallelism}
          onValueChange={(value) => change('parallelism', (d) => ({ ...d, parallelism: value }))}
          error={error('parallelism')}
          hint={t('wizard.strategy.parallelismHint')}
        />
        <SelectField
          label={t('wizard.strategy.client')}
          value={draft.clientVersion}
          options={ENGINE_ADAPTERS.vllm.knownVersions.map((v) => ({ value: v, label: v }))}
          onValueChange={(value) => change('clientVersion', (d) => ({ ...d, clientVersion: value }))}
          error={error('clientVersion')}
          hint={t('wizard.strategy.clientHint')}
        />
        <TextField
          label={t('wizard.strategy.readiness')}
          inputMode="numeric"
          value={draft.readinessTimeout}
          onValueChange={(value) => change('readinessTimeout', (d) => ({ ...d, readinessTimeout: value }))}
          error={error('readinessTimeout')}
        />
      </div>
    </div>
  );
}
