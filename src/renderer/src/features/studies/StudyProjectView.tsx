import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { GuideReadingPanel } from './GuideReadingPanel';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { ConfirmDangerDialog } from '../../components/ConfirmDangerDialog';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { canEditStudy, useAppStore, type OpenStudy, type StudyStatus } from '../../store';
import { useRunCommand } from '../shell/commands-context';
import { ResultsTab } from './ResultsTab';
import type { PresetComparison } from '../../../../shared/study/rank';
import { PlanPanel } from './PlanPanel';
import { RecommendationCard } from './RecommendationCard';
import { ReportPanel } from './ReportPanel';
import { RunMonitor } from './RunMonitor';
import { RerunDialog } from './RerunDialog';
import { VersusOriginal } from './VersusOriginal';
import { engineName } from './study-format';
import { errorText } from './study-errors';
import { runAction } from './study-format';
import { studyTextOf } from './study-words';

const TABS = ['plan', 'run', 'results', 'recommendation', 'report'] as const;
/** `versus`: a re-run against its original, only on a study that has one. */
type TabId = (typeof TABS)[number] | 'versus';

const STATUS_TONE: Record<StudyStatus, BadgeTone> = { draft: 'neutral', running: 'info', done: 'success', failed: 'danger', cancelled: 'warning' };

function initialTab(study: OpenStudy): TabId {
  const { status } = study.project.state;
  if (status === 'done') return 'recommendation';
  if (status === 'draft') return 'plan';
  return 'run';
}

function CancelDialog({ name, onClose }: { name: string; onClose: () => void }) {
  const cancelOpenStudy = useAppStore((s) => s.cancelOpenStudy);
  return (
    <ConfirmDangerDialog
      title={t('studies.cancel.title')}
      icon="alert"
      cancelLabel={t('studies.cancel.keep')}
      confirmLabel={t('studies.cancel.confirm')}
      failureMessage={errorText}
      onConfirm={cancelOpenStudy}
      onClose={onClose}
    >
      <p>{t('studies.cancel.body', { name })}</p>
    </ConfirmDangerDialog>
  );
}

/** Before the first run of a project written elsewhere: what it will run, to accept or not (remembered by the core). */
function TrustDialog({ runs, onConfirm, onClose }: { runs: string[]; onConfirm: () => Promise<void>; onClose: () => void }) {
  return (
    <ConfirmDangerDialog
      title={t('studies.trust.title')}
      icon="alert"
      cancelLabel={t('studies.trust.keep')}
      confirmLabel={t('studies.trust.confirm')}
      failureMessage={errorText}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      <p>{t('studies.trust.body')}</p>
      <ul className="trust-runs mono-block">
        {runs.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </ConfirmDangerDialog>
  );
}

/** An open project: its status and run controls, then Plan, Run, Results, Recommendation and Report as tabs. */
export function StudyProjectView({ study }: { study: OpenStudy }) {
  const closeStudyProject = useAppStore((s) => s.closeStudyProject);
  const runOpenStudy = useAppStore((s) => s.runOpenStudy);
  const checkOpenStudyTrust = useAppStore((s) => s.checkOpenStudyTrust);
  const [trustPrompt, setTrustPrompt] = useState<{ runs: string[]; hash: string } | null>(null);
  const editOpenStudy = useAppStore((s) => s.editOpenStudy);
  const tabRequest = useAppStore((s) => s.studyTabRequest);
  const runCommand = useRunCommand();
  const clearStudyTabRequest = useAppStore((s) => s.clearStudyTabRequest);
  const [tab, setTab] = useState<TabId>(() => tabRequest?.tab ?? initialTab(study));
  // Set by the recommendation's compare buttons: the Results tab then opens with that comparison shown.
  const [comparison, setComparison] = useState<{ kind: PresetComparison; seq: number } | null>(null);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [rerunning, setRerunning] = useState(false);
  const [starting, setStarting] = useState(false);
  const [runError, setRunError] = useState<string | null>(null);
  const tabRefs = useRef<Partial<Record<TabId, HTMLButtonElement | null>>>({});
  const baseId = useId();
  const { project, path, live } = study;
  const { state } = project;
  const own = studyTextOf(project);
  const name = own.name;
  const action = runAction(state, live);
  const editable = canEditStudy(project) && !live;
  const rerunOf = project.study.rerunOf;
  const tabs: readonly TabId[] = rerunOf ? [...TABS, 'versus'] : TABS;

  // Export report… from the menu or its shortcut shows the report, where the exports are.
  const [seenRequest, setSeenRequest] = useState(tabRequest?.seq ?? 0);
  if (tabRequest && tabRequest.seq !== seenRequest) {
    setSeenRequest(tabRequest.seq);
    setComparison(null);
    setTab(tabRequest.tab);
  }
  useEffect(() => {
    if (!tabRequest) return;
    tabRefs.current[tabRequest.tab]?.focus();
    clearStudyTabRequest();
  }, [tabRequest, clearStudyTabRequest]);

  async function start() {
    setStarting(true);
    setRunError(null);
    try {
      const check = await checkOpenStudyTrust();
      if (check && !check.trusted) {
        setTrustPrompt({ runs: check.runs, hash: check.hash });
        return;
      }
      await runOpenStudy();
      setTab('run');
    } catch (e) {
      setRunError(errorText(e));
    } finally {
      setStarting(false);
    }
  }

  function onTabKey(event: KeyboardEvent<HTMLDivElement>) {
    const at = tabs.indexOf(tab);
    let next: TabId | undefined;
    if (event.key === 'ArrowRight') next = tabs[(at + 1) % tabs.length];
    else if (event.key === 'ArrowLeft') next = tabs[(at - 1 + tabs.length) % tabs.length];
    else if (event.key === 'Home') next = tabs[0];
    else if (event.key === 'End') next = tabs[tabs.length - 1];
    if (!next) return;
    event.preventDefault();
    setComparison(null);
    setTab(next);
    tabRefs.current[next]?.focus();
  }

  // The report is read again whenever the state changes, so its preview follows the run.
  const revision = `${state.status}:${state.trials.filter((tr) => tr.finishedAt).length}:${state.decisions.length}`;
  const statusLabel = state.status === 'running' && !live ? t('studies.status.interrupted') : t(`studies.status.${state.status}`);
  // Numbers from the simulated box (the demo lab, or a test box over SSH) are never to be read as real ones.
  const simulated = state.trials.some((tr) => tr.result?.result.provenance?.simulated === true);

  return (
    <div className="page study-page">
      <button type="button" className="btn btn-ghost btn-small study-back" onClick={closeStudyProject}>
        <Icon name="chevron" size={13} className="study-back-icon" />
        {t('studies.back')}
      </button>
      <header className="page-header study-header">
        <div className="study-header-text">
          <h1 className="page-title">
            {name}
            <Badge tone={state.status === 'running' && !live ? 'warning' : STATUS_TONE[state.status]} dot>
              <span data-testid="study-status">{statusLabel}</span>
            </Badge>
            {simulated && (
              <Badge tone="warning" title={t('studies.simulatedTitle')}>
                {t('studies.simulated')}
              </Badge>
            )}
          </h1>
          <p className="page-subtitle mono study-path-line" title={path}>
            {path}
          </p>
          {rerunOf && (
            <p className="study-description study-rerun-of" title={rerunOf.path}>
              {t('studies.rerunOf', { name: rerunOf.name, versions: rerunOf.engines.map((e) => `${engineName(e.engine)} ${e.version}`).join(', ') })}
            </p>
          )}
        </div>
        <div className="page-actions">
          {editable && (
            <button type="button" className="btn btn-secondary" onClick={editOpenStudy}>
              <Icon name="pencil" size={14} />
              {t('studies.edit')}
            </button>
          )}
          {runCommand && (
            <button type="button" className="btn btn-secondary" onClick={() => runCommand('saveAs')} disabled={live}>
              {t('studies.saveAs')}
            </button>
          )}
          {state.status === 'done' && !live && (
            <button type="button" className="btn btn-secondary" onClick={() => setRerunning(true)}>
              <Icon name="refresh" size={14} />
              {t('studies.rerun')}
            </button>
          )}
          {action && (
            <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={starting}>
              {starting ? <Spinner /> : <Icon name={action === 'resume' ? 'refresh' : 'power'} size={14} />}
              {action === 'resume' ? t('studies.resume') : t('studies.run')}
            </button>
          )}
          {live && (
            <button type="button" className="btn btn-danger-outline" onClick={() => setConfirmingCancel(true)}>
              {t('studies.cancel')}
            </button>
          )}
        </div>
      </header>
      {action === 'resume' && (
        <p className="study-note study-resume-note" role="note">
          <Icon name="info" size={14} />
          {state.status === 'running' ? t('studies.resumeNote.interrupted') : t('studies.resumeNote.stopped')}
        </p>
      )}
      {runError && (
        <p className="form-error" role="alert">
          {runError}
        </p>
      )}
      <GuideReadingPanel project={project} />
      {state.message && state.status !== 'running' && (
        <p className={state.status === 'failed' ? 'form-error' : 'study-note'}>{state.message}</p>
      )}

      <div className="study-tabs" role="tablist" aria-label={t('studies.tabs')} onKeyDown={onTabKey}>
        {tabs.map((id) => (
          <button
            key={id}
            ref={(element) => {
              tabRefs.current[id] = element;
            }}
            type="button"
            role="tab"
            id={`${baseId}-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`${baseId}-panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            className={`study-tab${tab === id ? ' is-active' : ''}`}
            onClick={() => {
              if (id !== tab) setComparison(null);
              setTab(id);
            }}
          >
            {t(`studies.tab.${id}`)}
          </button>
        ))}
      </div>
      <div className="study-panel" role="tabpanel" id={`${baseId}-panel-${tab}`} aria-labelledby={`${baseId}-tab-${tab}`}>
        {/* What the study sets out to do, read with its plan: not repeated above the results it led to. */}
        {tab === 'plan' && own.description && <p className="study-description study-plan-description">{own.description}</p>}
        {tab === 'plan' && <PlanPanel study={study} />}
        {tab === 'run' && <RunMonitor study={study} />}
        {tab === 'results' && <ResultsTab key={comparison?.seq ?? 0} project={project} {...(comparison ? { initialComparison: comparison.kind } : {})} />}
        {tab === 'recommendation' && (
          <RecommendationCard
            project={project}
            onCompare={(kind) => {
              setComparison((c) => ({ kind, seq: (c?.seq ?? 0) + 1 }));
              setTab('results');
            }}
          />
        )}
        {tab === 'report' && <ReportPanel path={path} revision={revision} />}
        {tab === 'versus' && <VersusOriginal path={path} project={project} />}
      </div>
      {rerunning && <RerunDialog path={path} project={project} onClose={() => setRerunning(false)} />}
      {confirmingCancel && <CancelDialog name={name} onClose={() => setConfirmingCancel(false)} />}
      {trustPrompt && (
        <TrustDialog
          runs={trustPrompt.runs}
          onConfirm={async () => {
            await runOpenStudy(trustPrompt.hash);
            setTab('run');
          }}
          onClose={() => setTrustPrompt(null)}
        />
      )}
    </div>
  );
}
