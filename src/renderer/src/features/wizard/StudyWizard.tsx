import { useEffect, useMemo, useRef, useState, type JSX, type KeyboardEvent } from 'react';
import { useApi } from '../../api';
import { Modal } from '../../components/Modal';
import { t, type PlainMessageKey } from '../../i18n';
import { assembledOf, effectivePathOf, sessionIsDemoHost, toErrorInfo, useAppStore, wizardDirty, type WizardSession } from '../../store';
import type { Host } from '../../../../shared/model/host';
import { NO_COMMAND, type FromCommandState } from './StartFromCommand';
import { EnginesStep, GoalStep, HardwareStep, ModelStep, StagesStep, StrategyStep, WorkloadsStep, type InstalledByHost, type InventoryState, type StepProps } from './WizardSteps';
import { ReviewStep } from './ReviewStep';
import type { ClusterReadState } from './SlurmSection';
import { presetFromCluster } from '../../study-draft/slurm-draft';
import {
  WIZARD_STEPS,
  boxGpuCount,
  demoGpuName,
  slugOf,
  suggestedName,
  withFreshStages,
  type WizardDraft,
  type WizardStep,
} from '../../study-draft/draft';
import './wizard.css';
import { PROJECT_EXTENSION, PROJECT_SUFFIX } from '../../../../shared/project-document';

export interface StudyWizardProps {
  /** Called with the project file's path once the study was written. */
  onCreated: (path: string) => void;
  onCancel: () => void;
}

const STEP_TITLES: Record<WizardStep, PlainMessageKey> = {
  model: 'wizard.step.model',
  hardware: 'wizard.step.hardware',
  goal: 'wizard.step.goal',
  engines: 'wizard.step.engines',
  stages: 'wizard.step.stages',
  workloads: 'wizard.step.workloads',
  strategy: 'wizard.step.strategy',
  review: 'wizard.step.review',
};

const STEP_INTROS: Record<WizardStep, PlainMessageKey> = {
  model: 'wizard.intro.model',
  hardware: 'wizard.intro.hardware',
  goal: 'wizard.intro.goal',
  engines: 'wizard.intro.engines',
  stages: 'wizard.intro.stages',
  workloads: 'wizard.intro.workloads',
  strategy: 'wizard.intro.strategy',
  review: 'wizard.intro.review',
};

const STAGES_INDEX = WIZARD_STEPS.indexOf('stages');


/** Guides the user from a model to a complete study definition, saves it and shows what it would run. */
export function StudyWizard(props: StudyWizardProps): JSX.Element | null {
  const session = useAppStore((s) => s.wizard);
  const startWizard = useAppStore((s) => s.startWizard);
  // The session lives in the store; one is started when the wizard is shown without one.
  useEffect(() => {
    if (!session) startWizard();
  }, [session, startWizard]);
  if (!session) return null;
  return <WizardView {...props} session={session} />;
}

function WizardView({ onCreated, onCancel, session }: StudyWizardProps & { session: WizardSession }): JSX.Element {
  const api = useApi();
  const updateWizard = useAppStore((s) => s.updateWizard);
  const saveWizard = useAppStore((s) => s.saveWizard);
  const set =
    <K extends keyof WizardSession>(key: K) =>
    (value: WizardSession[K] | ((previous: WizardSession[K]) => WizardSession[K])) =>
      updateWizard(key, value);
  const setDraft = set('draft');
  const setStepIndex = set('stepIndex');
  const setReached = set('reached');
  const setTouched = set('touched');
  const setRevealed = set('revealed');
  const setCoreIssues = set('coreIssues');
  const setPath = set('path');
  const setPathTouched = set('pathTouched');
  const { draft, stepIndex, reached, touched, revealed, coreIssues, plan, saved } = session;
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [fromCommand, setFromCommand] = useState<FromCommandState>(NO_COMMAND);
  const [hosts, setHosts] = useState<Host[] | null>(null);
  const [hostsError, setHostsError] = useState<string | null>(null);
  const [inventories, setInventories] = useState<Record<string, InventoryState>>({});
  const [clusters, setClusters] = useState<Record<string, ClusterReadState>>({});
  const [installed, setInstalled] = useState<InstalledByHost>({});
  const headingRef = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);
  const requested = useRef(new Set<string>());

  const step = WIZARD_STEPS[stepIndex]!;
  const isDemoHost = sessionIsDemoHost(session);
  const assembled = assembledOf(session);
  const issues = useMemo(() => [...assembled.issues, ...coreIssues.filter((c) => !assembled.issues.some((i) => i.field === c.field))], [assembled, coreIssues]);
  const stepIssues = issues.filter((i) => i.step === step);
  const stepValid = stepIssues.length === 0;

  useEffect(() => {
    let live = true;
    api.call('hosts:list', {}).then(
      (list) => {
        if (!live) return;
        setHosts(list);
        updateWizard('demoHostIds', list.filter((h) => h.kind === 'demo').map((h) => h.id));
        updateWizard('hostLabels', Object.fromEntries(list.map((h) => [h.id, h.label])));
      },
      (e: unknown) => {
        if (!live) return;
        setHosts([]);
        setHostsError(toErrorInfo(e).message);
      },
    );
    api.call('app:info', {}).then(
      (info) => live && updateWizard('dataDir', info.dataDir),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, updateWizard]);

  // A cluster host's partitions, node types and accounts; what the user has not chosen is filled in from them. No
  // answer yet reads as loading.
  const readCluster = (hostId: string) => {
    api.call('hosts:cluster', { hostId }).then(
      (cluster) => {
        setClusters((s) => ({ ...s, [hostId]: { status: 'ok', cluster } }));
        setDraft((d) => ({ ...d, hosts: d.hosts.map((h) => (h.hostId === hostId && h.slurm ? { ...h, slurm: presetFromCluster(h.slurm, cluster) } : h)) }));
      },
      (e: unknown) => setClusters((s) => ({ ...s, [hostId]: { status: 'failed', message: toErrorInfo(e).message } })),
    );
  };
  const readClusterAgain = (hostId: string) => {
    setClusters((s) => ({ ...s, [hostId]: { status: 'loading' } }));
    readCluster(hostId);
  };

  // Each chosen host's GPUs and installed engines (a cluster: its Slurm settings' choices), asked for once per host.
  useEffect(() => {
    for (const chosen of draft.hosts) {
      const hostId = chosen.hostId;
      if (requested.current.has(hostId)) continue;
      requested.current.add(hostId);
      // A login node runs no engine and has no GPUs of its own (the core refuses it as a box).
      if (chosen.slurm) {
        readCluster(hostId);
        continue;
      }
      api.call('engines:list', { hostId }).then(
        (items) => setInstalled((s) => ({ ...s, [hostId]: new Set(items.map((i) => `${i.engine}@${i.version}/${i.mode}`)) })),
        () => setInstalled((s) => ({ ...s, [hostId]: null })),
      );
      if (isDemoHost(hostId)) continue;
      api.call('hosts:inventory', { hostId }).then(
        (inventory) => {
          setInventories((s) => ({ ...s, [hostId]: { status: 'ok', gpus: inventory.gpus, simulated: inventory.simulated } }));
          const all = inventory.gpus.map((g) => String(g.index));
          // A subset already chosen (a saved draft opened again) stays chosen.
          setDraft((d) => ({ ...d, hosts: d.hosts.map((h) => (h.hostId === hostId && h.allGpus === null ? { ...h, gpus: h.gpus ?? all, allGpus: all } : h)) }));
        },
        (e: unknown) => setInventories((s) => ({ ...s, [hostId]: { status: 'failed', gpus: [], message: toErrorInfo(e).message } })),
      );
    }
  }, [api, draft.hosts]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    headingRef.current?.focus();
  }, [stepIndex]);

  const gpuName = (d: WizardDraft): string | null => {
    const first = d.hosts[0];
    if (!first) return null;
    if (isDemoHost(first.hostId)) return demoGpuName(d.demoGpu);
    if (first.slurm) return first.slurm.gpu ? first.slurm.gpu.name.replace(/^NVIDIA\s+/, '').split(/[\s-]+/)[0]! : null;
    const gpu = inventories[first.hostId]?.gpus[0];
    return gpu ? gpu.name.replace(/^NVIDIA\s+/, '').split(/\s+/)[0]! : null;
  };

  const change: StepProps['change'] = (field, update) => {
    setDraft((d) => update(d));
    if (field) setTouched((s) => (s.has(field) ? s : new Set([...s, field])));
    if (coreIssues.length > 0) setCoreIssues([]);
  };

  const error = (field: string): string | undefined => {
    const issue = issues.find((i) => i.field === field);
    if (!issue) return undefined;
    return touched.has(field) || revealed.has(issue.step) ? issue.message : undefined;
  };

  const goTo = (index: number) => {
    const target = WIZARD_STEPS[index]!;
    setDraft((d) => {
      let next = index >= STAGES_INDEX ? withFreshStages(d) : d;
      if (target === 'review' && !next.name.trim() && !touched.has('name')) next = { ...next, name: suggestedName(next, gpuName(next)) };
      return next;
    });
    setStepIndex(index);
    setReached((r) => Math.max(r, index));
  };

  const next = () => {
    if (!stepValid) {
      setRevealed((s) => new Set([...s, step]));
      return;
    }
    if (stepIndex < WIZARD_STEPS.length - 1) goTo(stepIndex + 1);
  };

  const dirty = wizardDirty(session);
  const requestCancel = () => (dirty ? setConfirmCancel(true) : onCancel());

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (confirmCancel) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      requestCancel();
      return;
    }
    if (event.key !== 'Enter' || event.shiftKey || event.ctrlKey || event.altKey || event.metaKey || event.nativeEvent.isComposing) return;
    // Enter in a text box moves on; buttons, selects and multi-line fields keep their own meaning.
    if (!(event.target instanceof HTMLInputElement) || step === 'review') return;
    event.preventDefault();
    next();
  };

  const effectivePath = effectivePathOf(session);

  const create = async () => {
    const target = effectivePath.trim();
    const upToDate = saved !== null && saved.path === target && saved.json === JSON.stringify(assembled.parsed);
    if (upToDate || (await saveWizard())) onCreated(target);
  };

  const hostLabel = (id: string) => hosts?.find((h) => h.id === id)?.label ?? id;
  const stepProps: StepProps = { draft, change, error };
  const stepsWithIssues = new Set(issues.map((i) => i.step));

  return (
    <section className="wizard" aria-labelledby="wizard-title" onKeyDown={onKeyDown}>
      <header className="wizard-header">
        <h1 id="wizard-title" className="page-title">
          {session.editing ? t('wizard.title.edit') : t('wizard.title')}
        </h1>
        <button type="button" className="btn btn-ghost" onClick={requestCancel}>
          {t('wizard.cancel')}
        </button>
      </header>
      <div className="wizard-layout">
        <nav className="wizard-steps" aria-label={t('wizard.stepsLabel')}>
          <ol>
            {WIZARD_STEPS.map((s, i) => (
              <li key={s}>
                <button
                  type="button"
                  className={`wizard-step-link${i === stepIndex ? ' is-current' : ''}`}
                  aria-current={i === stepIndex ? 'step' : undefined}
                  disabled={i > reached}
                  onClick={() => goTo(i)}
                >
                  <span className={`wizard-step-number${i < stepIndex && !stepsWithIssues.has(s) ? ' is-done' : ''}`} aria-hidden="true">
                    {i + 1}
                  </span>
                  <span>{t(STEP_TITLES[s])}</span>
                  {i <= reached && i !== stepIndex && stepsWithIssues.has(s) && <span className="visually-hidden">{t('wizard.stepNeedsAttention')}</span>}
                  {i <= reached && i !== stepIndex && stepsWithIssues.has(s) && (
                    <span className="wizard-step-flag" aria-hidden="true">
                      !
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ol>
        </nav>
        <div className="wizard-body card">
          <h2 ref={headingRef} tabIndex={-1} className="wizard-step-title">
            {t('wizard.stepOf', { n: stepIndex + 1, total: WIZARD_STEPS.length })} · {t(STEP_TITLES[step])}
          </h2>
          <p className="page-subtitle">{t(STEP_INTROS[step])}</p>
          {hostsError && step === 'hardware' && (
            <p className="form-error" role="alert">
              {t('wizard.hardware.loadFailed', { message: hostsError })}
            </p>
          )}
          <div className="wizard-step-content">
            {step === 'model' && <ModelStep {...stepProps} fromCommand={fromCommand} onFromCommand={setFromCommand} />}
            {step === 'hardware' && <HardwareStep {...stepProps} hosts={hosts} inventories={inventories} clusters={clusters} onReadCluster={readClusterAgain} />}
            {step === 'goal' && <GoalStep {...stepProps} boxGpus={boxGpuCount(draft, isDemoHost)} />}
            {step === 'engines' && <EnginesStep {...stepProps} installed={installed} hostLabel={hostLabel} />}
            {step === 'stages' && (
              <StagesStep {...stepProps} onReset={() => setDraft((d) => withFreshStages({ ...d, stagesEdited: false, stagesSource: '' }))} />
            )}
            {step === 'workloads' && <WorkloadsStep {...stepProps} />}
            {step === 'strategy' && <StrategyStep {...stepProps} />}
            {step === 'review' && (
              <ReviewStep
                {...stepProps}
                definition={assembled.definition}
                issues={issues}
                hostLabel={hostLabel}
                path={effectivePath}
                onPathChange={(value) => {
                  setPathTouched(true);
                  setPath(value);
                }}
                canChooseFile={api.kind === 'ipc'}
                onChooseFile={async () => {
                  try {
                    const chosen = await api.call('dialogs:saveFile', { title: t('wizard.review.saveTitle'), defaultName: `${slugOf(draft.name)}${PROJECT_SUFFIX}`, extensions: [PROJECT_EXTENSION] });
                    if (chosen.path) {
                      setPathTouched(true);
                      setPath(chosen.path);
                    }
                  } catch {
                    // The browser build has no native dialog; the path field stays the way to choose.
                  }
                }}
                plan={plan}
                currentJson={assembled.parsed ? JSON.stringify(assembled.parsed) : null}
                onSaveDraft={() => void saveWizard()}
                onCreate={() => void create()}
                editing={session.editing !== null}
                onGoToStep={(s) => goTo(WIZARD_STEPS.indexOf(s))}
                clusterOf={(hostId) => {
                  const read = clusters[hostId];
                  return read?.status === 'ok' ? read.cluster : undefined;
                }}
              />
            )}
          </div>
          {!stepValid && step !== 'review' && (
            <div className="wizard-problems" role="status">
              <p className="field-label">{t('wizard.fixToContinue')}</p>
              <ul>
                {stepIssues.map((i) => (
                  <li key={`${i.field}:${i.message}`}>{i.message}</li>
                ))}
              </ul>
            </div>
          )}
          <footer className="wizard-footer">
            <button type="button" className="btn btn-secondary" disabled={stepIndex === 0} onClick={() => goTo(stepIndex - 1)}>
              {t('wizard.back')}
            </button>
            {step !== 'review' && (
              <button type="button" className="btn btn-primary" disabled={!stepValid} onClick={next}>
                {t('wizard.next')}
              </button>
            )}
          </footer>
        </div>
      </div>
      {confirmCancel && (
        <Modal
          title={t('wizard.discard.title')}
          onClose={() => setConfirmCancel(false)}
          footer={
            <>
              <button type="button" className="btn btn-secondary" onClick={() => setConfirmCancel(false)}>
                {t('wizard.discard.keep')}
              </button>
              <button type="button" className="btn btn-danger" onClick={onCancel}>
                {t('wizard.discard.confirm')}
              </button>
            </>
          }
        >
          <p>{t('wizard.discard.body')}</p>
        </Modal>
      )}
    </section>
  );
}
