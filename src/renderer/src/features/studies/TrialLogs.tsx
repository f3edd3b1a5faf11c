import { useEffect, useId } from 'react';
import type { Trial } from '../../../../shared/study/study';
import { t } from '../../i18n';
import { useAppStore, type OpenStudy } from '../../store';
import { LogBuffer } from '../../logs/log-buffer';
import { LogView } from '../../logs/LogView';
import { trialLabelsOf } from './study-words';

/** What a pane shows before its first line: never appended to. */
const NO_LINES = new LogBuffer();

/**
 * The selected trial's server log (the log of its server, shared by every trial of that server) and benchmark
 * output, side by side in fixed-height panes. Lines stream in from the run; a trial that is not streaming (finished,
 * or of a study opened from disk) has its logs read from the project once.
 */
export function TrialLogs({ study, trial, following, onFollow }: { study: OpenStudy; trial: Trial | null; following: boolean; onFollow: () => void }) {
  const loadTrialLogs = useAppStore((s) => s.loadTrialLogs);
  const titleId = useId();
  const trialId = trial?.id ?? null;
  const running = trial?.status === 'running' && study.live;

  useEffect(() => {
    if (trialId !== null && !running) void loadTrialLogs(trialId);
  }, [trialId, running, loadTrialLogs]);

  const load = trialId !== null ? study.trialLogs[trialId] : undefined;
  const serverLines = trial?.serverId !== undefined ? (study.serverLogs[trial.serverId] ?? NO_LINES) : NO_LINES;
  const benchLines = trialId !== null ? (study.benchLogs[trialId] ?? NO_LINES) : NO_LINES;

  return (
    <section className="study-section study-trial-logs" aria-labelledby={titleId}>
      <header className="study-trial-logs-head">
        <h3 id={titleId} className="section-title">
          {trial ? t('studies.monitor.logsOf', { label: trialLabelsOf(study.project)(trial) }) : t('studies.monitor.title')}
        </h3>
        <p className="study-trial-logs-status muted" role="status">
          {load?.status === 'loading'
            ? t('studies.monitor.loading')
            : load?.status === 'failed'
              ? t('studies.monitor.loadFailed', { message: load.error?.message ?? '' })
              : load?.truncated
                ? t('studies.monitor.truncated')
                : trial
                  ? ''
                  : t('studies.monitor.noTrial')}
        </p>
        {trial &&
          (following ? (
            <span className="muted study-trial-logs-note">{trial.status === 'running' ? t('studies.monitor.following') : t('studies.monitor.latest')}</span>
          ) : (
            <button type="button" className="btn btn-ghost btn-small" onClick={onFollow}>
              {t('studies.monitor.follow')}
            </button>
          ))}
      </header>
      <div className="study-trial-logs-panes">
        <LogView key={`server:${trial?.serverId ?? ''}`} buffer={serverLines} title={t('studies.monitor.serverLog')} label={t('studies.monitor.serverLogLabel')} height={260} />
        <LogView key={`bench:${trialId ?? ''}`} buffer={benchLines} title={t('studies.monitor.benchLog')} label={t('studies.monitor.benchLogLabel')} height={260} />
      </div>
    </section>
  );
}
