import { TextField } from '../../components/Field';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { WorkloadSchema } from '../../../../shared/bench/workload';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import { StudyDefinitionSchema, objectiveOf, type StudyDefinitionInput } from '../../../../shared/study/study';
import type { ClusterInventory } from '../../../../shared/model/cluster';
import { SlurmJobsTable } from '../studies/SlurmJobsTable';
import { WizardTextArea } from './wizard-fields';
import { workloadDescription } from '../studies/study-words';
import type { StepProps } from './WizardSteps';
import type { PlanView } from '../../store';
import type { WizardIssue } from '../../study-draft/assemble';
import { WIZARD_STEPS, type WizardStep } from '../../study-draft/draft';
import { trialProblemText } from '../studies/study-words';
import { layoutText } from '../studies/study-format';
import { PROJECT_SUFFIX } from '../../../../shared/project-document';

/** "1 h 05 min", "12 min", "45 s": GPU time at a glance. */
export function formatGpuTime(seconds: number): string {
  if (seconds < 60) return t('wizard.review.gpuTime.seconds', { s: Math.round(seconds) });
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return t('wizard.review.gpuTime.minutes', { m: minutes });
  return t('wizard.review.gpuTime.hoursMinutes', { h: Math.floor(minutes / 60), mm: String(minutes % 60).padStart(2, '0') });
}

function workloadText(w: unknown): string {
  const parsed = WorkloadSchema.safeParse(w);
  if (!parsed.success) return t('wizard.review.incomplete');
  return parsed.data.label ?? workloadDescription(parsed.data);
}

function configText(config: object | undefined): string {
  const entries = Object.entries(config ?? {});
  return entries.length === 0 ? '' : ` · ${entries.map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ')}`;
}

/** "hpc: Slurm jobs in short, account research, QOS normal; nodes of 2 × NVIDIA H100 80GB HBM3 (gpu:h100)". */
function slurmLine(host: string, s: NonNullable<StudyDefinitionInput['hosts'][number]['slurm']>): string {
  const theDefault = t('wizard.review.slurmDefault');
  return t('wizard.review.slurm', {
    host,
    partition: s.partition ?? theDefault,
    account: s.account ?? theDefault,
    qos: s.qos ?? theDefault,
    count: s.gpusPerNode ?? '?',
    gpu: s.gpu?.name ?? '?',
    gres: s.gpuType ? `gpu:${s.gpuType}` : 'gpu',
  });
}

function Summary({ definition, hostLabel }: { definition: StudyDefinitionInput; hostLabel: (id: string) => string }) {
  const d = definition;
  const objective = objectiveOf(d.goal.kind);
  const rows: [string, string[]][] = [
    [t('wizard.step.model'), [`${d.model.id}${d.model.precision ? ` (${d.model.precision})` : ''}`, ...(d.model.variants ?? []).map((v) => t('wizard.review.variant', { id: v.id, model: v.model }))]],
    [
      t('wizard.step.hardware'),
      [
        ...d.hosts.map((h) => (h.slurm ? slurmLine(hostLabel(h.hostId), h.slurm) : `${hostLabel(h.hostId)}: ${h.gpus ? t('wizard.review.gpus', { gpus: h.gpus.join(', ') }) : t('wizard.review.allGpus')}`)),
        ...(d.demoLab ? [t('wizard.review.demoLab', { count: d.demoLab.count ?? 1, gpu: d.demoLab.gpu.toUpperCase() })] : []),
        (d.gpusPerTrial ?? 1) === 1 ? t('wizard.review.gpusPerTrialOne') : t('wizard.review.gpusPerTrial', { n: d.gpusPerTrial ?? 1 }),
      ],
    ],
    [
      t('wizard.step.goal'),
      [
        objective.better === 'lower' ? t('wizard.review.objectiveLatency', { unit: objective.unit }) : t('wizard.review.objectiveThroughput', { unit: objective.unit }),
        ...(d.goal.basis === 'per-gpu' ? [t('wizard.review.basisPerGpu')] : d.goal.basis === 'gpu-budget' ? [t('wizard.review.basisBudget', { n: d.goal.gpuBudget ?? '?' })] : []),
        ...(d.goal.slos ?? []).map((s) => (s.max !== undefined ? `${s.metric} ≤ ${s.max}` : `${s.metric} ≥ ${String(s.min)}`)),
        t('wizard.review.margin', { pct: d.goal.marginPct ?? 1 }),
      ],
    ],
    [t('wizard.step.engines'), d.engines.map((e) => `${ENGINE_ADAPTERS[e.engine].displayName} ${e.version} (${e.mode === 'docker' ? t('wizard.engines.modeDocker') : t('wizard.engines.modeEnv')})${configText(e.config)}`)],
    [
      t('wizard.step.stages'),
      (d.stages ?? []).length === 0
        ? [t('wizard.review.noStages')]
        : (d.stages ?? []).map((s, i) => {
            const words = { n: i + 1, label: s.label, engines: s.engines ? s.engines.map((x) => ENGINE_ADAPTERS[x].displayName).join(', ') : t('wizard.stages.allEnginesShort') };
            return s.candidates.length === 1 ? t('wizard.review.stageOne', words) : t('wizard.review.stage', { ...words, count: s.candidates.length });
          }),
    ],
    [
      t('wizard.step.workloads'),
      [t('wizard.review.primary', { text: workloadText(d.workloads.primary) }), ...(d.workloads.generalisation ?? []).map((w) => t('wizard.review.scenario', { text: workloadText(w) }))],
    ],
    [
      t('wizard.step.strategy'),
      [
        (d.repeats ?? 1) === 1
          ? t('wizard.review.strategyOne', { strategy: d.strategy === 'grid' ? t('wizard.strategy.grid') : t('wizard.strategy.greedy') })
          : t('wizard.review.strategy', { strategy: d.strategy === 'grid' ? t('wizard.strategy.grid') : t('wizard.strategy.greedy'), repeats: d.repeats ?? 1 }),
        d.parallelism !== undefined ? t('wizard.review.parallelism', { n: d.parallelism }) : t('wizard.review.parallelismAuto'),
        t('wizard.review.client', { version: d.clientVersion ?? '' }),
      ],
    ],
  ];
  return (
    <dl className="wizard-summary" aria-label={t('wizard.review.summary')}>
      {rows.map(([title, lines]) => (
        <div key={title} className="wizard-summary-row">
          <dt>{title}</dt>
          <dd>
            <ul>
              {lines.map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function PlanPanel({
  plan,
  currentJson,
  hostLabel,
  gpusPerTrial,
  clusterOf,
}: {
  plan: PlanView;
  currentJson: string | null;
  hostLabel: (id: string) => string;
  gpusPerTrial: number;
  clusterOf: (hostId: string) => ClusterInventory | undefined;
}) {
  if (plan.status === 'idle') return null;
  if (plan.status === 'saving' || plan.status === 'planning') {
    return (
      <p className="host-progress" role="status">
        <Spinner />
        {plan.status === 'saving' ? t('wizard.review.saving') : t('wizard.review.planning')}
      </p>
    );
  }
  if (plan.status === 'failed') {
    return (
      <p className="form-error" role="alert">
        {t('wizard.review.saveFailed', { message: plan.message })}
      </p>
    );
  }
  const stale = plan.json !== currentJson;
  if (plan.status === 'planFailed') {
    return (
      <p className="form-error" role="alert">
        {t('wizard.review.planFailed', { message: plan.message })}
      </p>
    );
  }
  const { estimate, trials, gpus } = plan.plan;
  // The definition the plan was made of (the draft may have changed since).
  const planned = StudyDefinitionSchema.safeParse(JSON.parse(plan.json));
  const clusterHost = planned.success ? planned.data.hosts.find((h) => h.slurm) : undefined;
  // Each server's layout and GPUs once, as it will be placed: "TP1 · 1 GPU; TP8 · 8 GPUs".
  const layouts = [...new Set(trials.filter((trial) => trial.status !== 'rejected').map((trial) => layoutText(trial.config, trial.gpuCount ?? gpusPerTrial)))];
  const rejections = new Map<string, { label: string; engine: string; reason: string }>();
  for (const trial of trials) {
    if (trial.status !== 'rejected') continue;
    const reason = trialProblemText(trial) ?? t('wizard.review.noReason');
    const engine = `${ENGINE_ADAPTERS[trial.engine].displayName} ${trial.version}`;
    rejections.set(`${engine}|${trial.label}|${reason}`, { label: trial.label, engine, reason });
  }
  return (
    <section className="wizard-plan" aria-label={t('wizard.review.plan')} role="region">
      <h3 className="section-title">{t('wizard.review.plan')}</h3>
      {stale && <p className="field-hint">{t('wizard.review.stale')}</p>}
      <dl className="wizard-plan-facts">
        <div>
          <dt>{t('wizard.review.trials')}</dt>
          <dd data-testid="plan-trials">{estimate.trials}</dd>
        </div>
        <div>
          <dt>{t('wizard.review.launches')}</dt>
          <dd data-testid="plan-launches">{estimate.launches}</dd>
        </div>
        <div>
          <dt>{t('wizard.review.gpuTime')}</dt>
          <dd data-testid="plan-gpu-time">{formatGpuTime(estimate.gpuSeconds)}</dd>
        </div>
        {estimate.wallSeconds !== undefined && (
          <div>
            <dt>{t('wizard.review.wallTime')}</dt>
            <dd data-testid="plan-wall-time">{formatGpuTime(estimate.wallSeconds)}</dd>
          </div>
        )}
        {estimate.peakGpus !== undefined && (
          <div>
            <dt>{t('wizard.review.peakGpus')}</dt>
            <dd data-testid="plan-peak-gpus">{estimate.peakGpus}</dd>
          </div>
        )}
        <div>
          <dt>{t('wizard.review.rejected')}</dt>
          <dd data-testid="plan-rejected">{estimate.rejected}</dd>
        </div>
      </dl>
      <p className="field-hint">{t('wizard.review.planNote')}</p>
      {layouts.length > 0 && <p className="field-hint">{t('wizard.review.layouts', { layouts: layouts.join('; ') })}</p>}
      {gpus.length > 0 && (
        <p className="field-hint">{t('wizard.review.planGpus', { gpus: gpus.map((g) => `${hostLabel(g.hostId)} GPU ${g.index} · ${g.name}${g.computeCapability ? ` (sm ${g.computeCapability})` : ''}`).join('; ') })}</p>
      )}
      {planned.success && clusterHost && <SlurmJobsTable study={planned.data} trials={trials} estimate={estimate} cluster={clusterOf(clusterHost.hostId)} />}
      {rejections.size > 0 && (
        <div className="wizard-rejections">
          <h4 className="field-label">{t('wizard.review.rejections')}</h4>
          <ul aria-label={t('wizard.review.rejections')}>
            {[...rejections.values()].map((r) => (
              <li key={`${r.engine}|${r.label}|${r.reason}`}>
                <span className="wizard-rejection-what">
                  {r.engine} · {r.label}
                </span>
                <span className="wizard-rejection-why">{r.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

export function ReviewStep({
  draft,
  change,
  error,
  definition,
  issues,
  hostLabel,
  path,
  onPathChange,
  canChooseFile,
  onChooseFile,
  plan,
  currentJson,
  onSaveDraft,
  onCreate,
  editing = false,
  onGoToStep,
  clusterOf = () => undefined,
}: StepProps & {
  definition: StudyDefinitionInput;
  issues: WizardIssue[];
  hostLabel: (id: string) => string;
  path: string;
  onPathChange: (value: string) => void;
  canChooseFile: boolean;
  onChooseFile: () => void;
  plan: PlanView;
  currentJson: string | null;
  onSaveDraft: () => void;
  onCreate: () => void;
  /** The study exists already (a draft opened again): the last button saves it and opens it. */
  editing?: boolean;
  onGoToStep: (step: WizardStep) => void;
  /** A cluster host's last read, for its partitions' time limits. */
  clusterOf?: (hostId: string) => ClusterInventory | undefined;
}) {
  const busy = plan.status === 'saving' || plan.status === 'planning';
  const pathError = !path.trim() ? t('wizard.review.pathRequired') : !path.trim().endsWith(PROJECT_SUFFIX) ? t('wizard.review.pathExtension') : undefined;
  const elsewhere = issues.filter((i) => i.step !== 'review');
  const blocked = issues.length > 0 || pathError !== undefined || busy;
  return (
    <div className="form form-compact">
      <TextField label={t('wizard.review.name')} value={draft.name} onValueChange={(value) => change('name', (d) => ({ ...d, name: value }))} error={error('name')} />
      <WizardTextArea
        label={t('wizard.review.description')}
        labelNote={t('wizard.optional')}
        value={draft.description}
        onValueChange={(value) => change('description', (d) => ({ ...d, description: value }))}
        error={error('description')}
      />
      <Summary definition={definition} hostLabel={hostLabel} />
      {elsewhere.length > 0 && (
        <div className="wizard-problems" role="status">
          <p className="field-label">{t('wizard.review.fixFirst')}</p>
          <ul>
            {elsewhere.map((i) => (
              <li key={`${i.field}:${i.message}`}>
                {i.message}{' '}
                <button type="button" className="btn btn-ghost btn-small" onClick={() => onGoToStep(i.step)}>
                  {t('wizard.review.goTo', { n: WIZARD_STEPS.indexOf(i.step) + 1 })}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="wizard-path-row">
        <TextField
          label={t('wizard.review.path')}
          value={path}
          onValueChange={onPathChange}
          error={error('path') ?? pathError}
          hint={t('wizard.review.pathHint')}
          className="mono-input grow"
          spellCheck={false}
        />
        {canChooseFile && (
          <button type="button" className="btn btn-secondary" onClick={onChooseFile}>
            {t('wizard.review.choose')}
          </button>
        )}
      </div>
      <div className="wizard-review-actions">
        <button type="button" className="btn btn-secondary" disabled={blocked} onClick={onSaveDraft}>
          {t('wizard.review.saveDraft')}
        </button>
        <button type="button" className="btn btn-primary" disabled={blocked} onClick={onCreate}>
          {editing ? t('wizard.review.saveAndOpen') : t('wizard.review.create')}
        </button>
      </div>
      <PlanPanel plan={plan} currentJson={currentJson} hostLabel={hostLabel} gpusPerTrial={definition.gpusPerTrial ?? 1} clusterOf={clusterOf} />
    </div>
  );
}
