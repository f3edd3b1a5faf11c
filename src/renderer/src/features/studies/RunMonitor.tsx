import { useEffect, useMemo, useState } from 'react';
import type { Trial } from '../../../../shared/study/study';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { ProgressBar } from '../../components/ProgressBar';
import { t } from '../../i18n';
import { LogView } from '../../logs/LogView';
import { useAppStore, type OpenStudy } from '../../store';
import { GpuMemoryCharts } from './GpuMemoryCharts';
import { TrialLogs } from './TrialLogs';
import { selectedTrial } from './trial-selection';
import { engineName, formatClock, formatDuration, groupByStage, progressOf, slurmJobText, timelineOf, workloadLabel, type Timeline } from './study-format';
import { DecisionText } from './RecommendationCard';
import { trialLabelsOf, trialProblemText } from './study-words';

export const TRIAL_TONE: Record<Trial['status'], BadgeTone> = {
  planned: 'neutral',
  rejected: 'warning',
  running: 'info',
  done: 'success',
  failed: 'danger',
  cancelled: 'warning',
};

/** The current time, ticking once a second while `ticking`, so elapsed time and ETA move on their own. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

interface Selection {
  selectedId: string | null;
  onSelect: (trialId: string) => void;
}

function TimelineView({ timeline, labelOf, selectedId, onSelect }: { timeline: Timeline; labelOf: (trial: Trial) => string } & Selection) {
  const rows = timeline.lanes.length;
  return (
    <figure className="study-timeline" aria-label={t('studies.timeline.label')}>
      <div className="study-timeline-scale" aria-hidden="true">
        <span>{formatClock(new Date(timeline.startMs).toISOString())}</span>
        <span>{formatClock(new Date(timeline.endMs).toISOString())}</span>
      </div>
      <div className="study-timeline-body" style={{ ['--timeline-rows' as string]: rows }}>
        <ul className="study-timeline-lanes" aria-label={t('studies.timeline.lanes')}>
          {timeline.lanes.map((lane) => (
            // A long host name is cut short, never the GPU: every row of one host would otherwise read the same.
            <li key={lane.key} className="study-timeline-lane" title={lane.label}>
              <span className="study-timeline-host">{lane.host}</span>
              {lane.gpu !== null && <span className="study-timeline-gpu">{` · ${t('studies.timeline.gpuOnly', { gpu: lane.gpu })}`}</span>}
            </li>
          ))}
        </ul>
        <ul className="study-timeline-track" aria-label={t('studies.timeline.bars')}>
          {timeline.lanes.map((lane, i) => (
            <li key={lane.key} className="study-timeline-stripe" style={{ top: `${(i / rows) * 100}%`, height: `${100 / rows}%` }} aria-hidden="true" />
          ))}
          {timeline.bars.map(({ trial, left, width, lane, lanes, primary, layout }) => {
            const text = t('studies.timeline.bar', { label: labelOf(trial), status: t(`studies.trial.${trial.status}`), layout });
            const selected = trial.id === selectedId;
            const where = { left: `${left}%`, width: `${width}%`, top: `${(lane / rows) * 100}%`, height: `${(lanes / rows) * 100}%` };
            const className = `study-bar is-${trial.status}${selected ? ' is-selected' : ''}`;
            if (!primary) return <li key={`${trial.id}@${lane}`} className={className} style={where} aria-hidden="true" />;
            return (
              <li
                key={trial.id}
                className={className}
                style={where}
                title={`${text}${trial.startedAt ? ` · ${formatClock(trial.startedAt)}` : ''}${trial.finishedAt ? `–${formatClock(trial.finishedAt)}` : ''}`}
                aria-label={text}
              >
                <span className="study-bar-text" aria-hidden="true">
                  {layout}
                </span>
                <button
                  type="button"
                  className="study-bar-select"
                  aria-label={t('studies.timeline.select', { label: labelOf(trial) })}
                  aria-pressed={selected}
                  onClick={() => onSelect(trial.id)}
                />
              </li>
            );
          })}
        </ul>
      </div>
      <figcaption className="study-legend">
        {(['running', 'done', 'failed', 'cancelled'] as const).map((status) => (
          <span key={status} className="study-legend-item">
            <span className={`study-legend-swatch is-${status}`} aria-hidden="true" />
            {t(`studies.trial.${status}`)}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function TrialRow({ trial, label, workload, selected, onSelect }: { trial: Trial; label: string; workload: string; selected: boolean; onSelect: (trialId: string) => void }) {
  const detail = trial.status === 'rejected' || trial.status === 'failed' ? trialProblemText(trial) : null;
  return (
    <li className={`study-trial${selected ? ' is-selected' : ''}`}>
      <button type="button" className="study-trial-select" aria-pressed={selected} onClick={() => onSelect(trial.id)}>
        <Badge tone={TRIAL_TONE[trial.status]} dot>
          {t(`studies.trial.${trial.status}`)}
        </Badge>
        <span className="study-trial-label">{label}</span>
        <span className="study-trial-meta muted">
          {engineName(trial.engine)} {trial.version} · {workload}
          {trial.repeat > 1 ? ` · ${t('studies.trial.repeat', { n: trial.repeat })}` : ''}
        </span>
        {detail && <span className="study-trial-detail">{detail}</span>}
        {trial.slurmJob && <span className="study-trial-job muted">{slurmJobText(trial.slurmJob)}</span>}
      </button>
    </li>
  );
}

/**
 * How far a stage got: a trial refused before launch never runs, so it is settled, counted apart ("6 of 6 finished,
 * 1 refused"), as the study's progress leaves it out.
 */
export function stageCountText(trials: readonly Trial[]): string {
  const refused = trials.filter((tr) => tr.status === 'rejected').length;
  const finished = trials.filter((tr) => tr.status === 'done' || tr.status === 'failed' || tr.status === 'cancelled').length;
  const total = trials.length - refused;
  return refused === 0 ? t('studies.run.stageCount', { finished, total }) : t('studies.run.stageCountRefused', { finished, total, refused });
}

/**
 * Progress, the current phase, the timeline per GPU, the trials by stage, the selected trial's server log and
 * benchmark output (the newest running trial unless one is chosen), GPU memory per host and the study's log.
 */
export function RunMonitor({ study }: { study: OpenStudy }) {
  const hosts = useAppStore((s) => s.hosts);
  const [chosenId, setChosenId] = useState<string | null>(null);
  const { state } = study.project;
  const now = useNow(state.status === 'running');
  const progress = progressOf(state, now);
  const hostLabel = (hostId: string) => hosts.find((h) => h.id === hostId)?.label ?? hostId;
  const timeline = timelineOf(state, hostLabel, now);
  const groups = groupByStage(study.project);
  const labelOf = useMemo(() => trialLabelsOf(study.project), [study.project]);
  const percent = progress.total > 0 ? Math.round((progress.finished / progress.total) * 100) : 0;
  const selected = selectedTrial(state.trials, chosenId);
  const following = chosenId === null || !state.trials.some((tr) => tr.id === chosenId);
  const selectedId = selected?.id ?? null;

  return (
    <div className="study-run">
      <section className="study-progress" aria-label={t('studies.run.progressLabel')}>
        <div className="study-progress-head">
          <span className="study-progress-count" data-testid="study-progress">
            {t('studies.run.finished', { finished: progress.finished, total: progress.total })}
          </span>
          <span className="study-progress-times muted">
            {progress.elapsedSeconds !== null && t('studies.run.elapsed', { time: formatDuration(progress.elapsedSeconds) })}
            {progress.etaSeconds !== null && ` · ${t('studies.run.eta', { time: formatDuration(progress.etaSeconds) })}`}
          </span>
        </div>
        <ProgressBar label={t('studies.run.progressBar')} percent={percent} max={progress.total} value={progress.finished} />
        <p className="study-phase" role="status" aria-label={t('studies.run.phaseLabel')}>
          {study.phase ?? (state.message || (state.status === 'draft' ? t('studies.run.notStarted') : '\u00a0'))}
        </p>
      </section>

      <section className="study-section">
        <h3 className="section-title">{t('studies.timeline.title')}</h3>
        {timeline ? <TimelineView timeline={timeline} labelOf={labelOf} selectedId={selectedId} onSelect={setChosenId} /> : <p className="empty-line">{t('studies.timeline.empty')}</p>}
      </section>

      <section className="study-section">
        <h3 className="section-title">{t('studies.run.trialsTitle')}</h3>
        {groups.length === 0 ? (
          <p className="empty-line">{t('studies.run.noTrials')}</p>
        ) : (
          <div className="study-stages">
            {groups.map((group) => (
              <section key={group.stageId} className="study-stage" aria-label={group.label}>
                <header className="study-stage-head">
                  <h4 className="study-stage-title">{group.label}</h4>
                  <span className="muted">{stageCountText(group.trials)}</span>
                </header>
                {group.decision && (
                  <p className="study-decision">
                    <Icon name={group.decision.winner ? 'check' : 'info'} size={13} />
                    <DecisionText project={study.project} decision={group.decision} />
                  </p>
                )}
                <ul className="study-trials">
                  {group.trials.map((trial) => (
                    <TrialRow key={trial.id} trial={trial} label={labelOf(trial)} workload={workloadLabel(study.project, trial.workloadId)} selected={trial.id === selectedId} onSelect={setChosenId} />
                  ))}
                </ul>
              </section>
            ))}
          </div>
        )}
      </section>

      <TrialLogs study={study} trial={selected} following={following} onFollow={() => setChosenId(null)} />

      <GpuMemoryCharts study={study} hostLabel={hostLabel} />

      <LogView buffer={study.log} title={t('studies.log.title')} label={t('studies.log.label')} emptyText={t('studies.log.empty')} headingLevel={3} />
    </div>
  );
}
