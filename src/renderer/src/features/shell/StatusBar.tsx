import { useSyncExternalStore } from 'react';
import { useApi } from '../../api/context';
import { t } from '../../i18n';
import { hasUnsavedChanges, runningStudyCount, useAppStore, type AppState } from '../../store';
import { openProjectName } from './window-title';

/** Installs, prefetches and benchmarks the user started that have not ended. */
function selectActivity(state: AppState): { installs: number; prefetches: number; benchmarks: number } {
  return {
    installs: Object.values(state.installJobs).filter((j) => j.done === null).length,
    prefetches: Object.values(state.prefetchJobs).filter((j) => j.outcome === null).length,
    benchmarks: Object.values(state.benchRuns).filter((r) => r.outcome === null).length,
  };
}

function selectOpenTrials(state: AppState): { done: number; total: number } | null {
  const study = state.openStudy;
  if (!study || state.wizard || !study.live) return null;
  const { trials } = study.project.state;
  return { done: trials.filter((tr) => tr.finishedAt).length, total: trials.length };
}

/**
 * One line along the bottom of the window: the link to the core, the open project and whether it has unsaved
 * changes, and what is running. A polite live region, of a fixed height, so a change never moves the page.
 */
export function StatusBar() {
  const api = useApi();
  const status = useSyncExternalStore(api.onStatus, api.status);
  const version = useAppStore((s) => s.appInfo?.version ?? null);
  const project = useAppStore(openProjectName);
  const unsaved = useAppStore(hasUnsavedChanges);
  const running = useAppStore((s) => runningStudyCount(s.studyStatusByPath));
  const trialsDone = useAppStore((s) => selectOpenTrials(s)?.done ?? 0);
  const trialsTotal = useAppStore((s) => selectOpenTrials(s)?.total ?? 0);
  const installs = useAppStore((s) => selectActivity(s).installs);
  const prefetches = useAppStore((s) => selectActivity(s).prefetches);
  const benchmarks = useAppStore((s) => selectActivity(s).benchmarks);
  const transport = api.kind === 'ipc' ? t('connection.ipc') : t('connection.websocket');
  return (
    <footer className="status-bar" role="status" aria-live="polite" aria-label={t('statusBar.label')}>
      <span className="status-bar-item connection" data-testid="status-connection">
        <span className={`status-dot status-${status}`} aria-hidden="true" />
        <span className="visually-hidden">{t('connection.status', { status: t(`connection.state.${status}`) })} </span>
        <span>{transport}</span>
        {status !== 'open' && <span className="status-bar-warning">{t(`connection.state.${status}`)}</span>}
        {version && <span className="connection-version">{t('app.version', { version })}</span>}
      </span>
      {project && (
        <span className="status-bar-item status-bar-project" data-testid="status-project">
          <span className="status-bar-project-name" title={project}>
            {project}
          </span>
          {unsaved && (
            <span className="status-bar-unsaved">
              <span aria-hidden="true">•</span> {t('statusBar.unsaved')}
            </span>
          )}
        </span>
      )}
      <span className="status-bar-spacer" />
      {running > 0 && (
        <span className="status-bar-item" data-testid="status-studies">
          {running === 1 ? t('studies.nav.runningOne') : t('studies.nav.running', { count: running })}
          {trialsTotal > 0 && <span className="status-bar-muted">{t('statusBar.trials', { done: trialsDone, total: trialsTotal })}</span>}
        </span>
      )}
      {installs > 0 && <span className="status-bar-item">{t('statusBar.installs', { count: installs })}</span>}
      {prefetches > 0 && <span className="status-bar-item">{t('statusBar.prefetches', { count: prefetches })}</span>}
      {benchmarks > 0 && <span className="status-bar-item">{t('statusBar.benchmarks', { count: benchmarks })}</span>}
    </footer>
  );
}
