import { useEffect } from 'react';
import { Badge } from '../../components/Badge';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore, type OpenStudy } from '../../store';
import type { ClusterInventory } from '../../../../shared/model/cluster';
import { trialGpuCount, type Trial } from '../../../../shared/study/study';
import { studyObjective } from '../../../../shared/study/objective';
import { metricOf } from '../../../../shared/results/metrics';
import { formatMetric } from '../../components/metric-text';
import { metricTitle } from '../compare/compare-format';
import { metricInfo } from '../compare/compare-model';
import { TRIAL_TONE } from './RunMonitor';
import { engineName, formatDuration, layoutText, slurmJobText, stageLabel, workloadLabel } from './study-format';
import { trialLabelsOf, trialProblemText } from './study-words';
import { SlurmJobsTable } from './SlurmJobsTable';

/** What the study would run first, with the planner's verdicts, each server's GPUs and the time estimates. */
export function PlanPanel({ study }: { study: OpenStudy }) {
  const loadStudyPlan = useAppStore((s) => s.loadStudyPlan);
  const hosts = useAppStore((s) => s.hosts);
  const clusterByHost = useAppStore((s) => s.clusterByHost);
  const { plan, project } = study;

  useEffect(() => {
    if (plan.status === 'idle') void loadStudyPlan();
  }, [plan.status, loadStudyPlan]);

  const hostLabel = (hostId: string) => hosts.find((h) => h.id === hostId)?.label ?? hostId;
  const labelOf = trialLabelsOf(project);

  if (plan.status === 'loading' && !plan.data) {
    return (
      <p className="empty-line" role="status">
        <Spinner /> {t('studies.plan.loading')}
      </p>
    );
  }
  if (plan.status === 'failed' && plan.error) {
    return (
      <div className="alert alert-danger" role="alert">
        <Icon name="alert" size={16} />
        <div className="alert-content">
          <p className="alert-title">{t('studies.plan.failed')}</p>
          <p className="alert-message">{plan.error.message}</p>
          <div className="alert-actions">
            <button type="button" className="btn btn-secondary btn-small" onClick={() => void loadStudyPlan()}>
              {t('studies.plan.retry')}
            </button>
          </div>
        </div>
      </div>
    );
  }
  if (!plan.data) return null;
  const { trials, estimate, gpus } = plan.data;
  // Once the study has run, each planned trial shows what came of it: a finished study's plan is history, not a promise.
  const ran = project.state.status === 'draft' || project.state.trials.length === 0 ? null : new Map(project.state.trials.map((tr) => [tr.id, tr]));
  const objective = studyObjective(project.study.goal).metric;
  const info = metricInfo(objective);
  const objectiveName = info ? t('compare.metricWithUnit', { title: metricTitle(info), unit: info.unit }) : objective;
  return (
    <div className="study-plan">
      <p className="study-note">{project.study.strategy === 'grid' ? t('studies.plan.noteGrid') : t('studies.plan.noteGreedy')}</p>
      {ran && <p className="study-note">{t(project.state.status === 'running' ? 'studies.plan.running' : 'studies.plan.ran')}</p>}
      <dl className="study-facts" aria-label={t('studies.plan.summary')}>
        <div>
          <dt>{t('studies.plan.trials')}</dt>
          <dd>{estimate.trials}</dd>
        </div>
        <div>
          <dt>{t('studies.plan.rejected')}</dt>
          <dd>{estimate.rejected}</dd>
        </div>
        <div>
          <dt>{t('studies.plan.launches')}</dt>
          <dd>{estimate.launches}</dd>
        </div>
        <div>
          <dt>{t('studies.plan.repeats')}</dt>
          <dd>{estimate.expectedRepeats}</dd>
        </div>
        <div>
          <dt>{t('studies.plan.gpuTime')}</dt>
          <dd>{formatDuration(estimate.gpuSeconds)}</dd>
        </div>
        {estimate.wallSeconds !== undefined && (
          <div>
            <dt>{t('studies.plan.wallTime')}</dt>
            <dd>{formatDuration(estimate.wallSeconds)}</dd>
          </div>
        )}
        {estimate.peakGpus !== undefined && (
          <div>
            <dt>{t('studies.plan.peakGpus')}</dt>
            <dd>{estimate.peakGpus}</dd>
          </div>
        )}
      </dl>
      <section className="study-section" aria-label={t('studies.plan.gpus')}>
        <h3 className="section-title">{t('studies.plan.gpus')}</h3>
        {gpus.length === 0 ? (
          <p className="empty-line">{t('studies.plan.noGpus')}</p>
        ) : (
          <ul className="study-gpus">
            {gpus.map((gpu) => (
              <li key={`${gpu.hostId}/${gpu.index}`} className="study-gpu">
                <Icon name="chip" size={14} />
                <span>{t('studies.plan.gpu', { host: hostLabel(gpu.hostId), index: gpu.index, name: gpu.name, memory: Math.round(gpu.memoryMiB / 1024) })}</span>
                {gpu.computeCapability && <span className="muted">{t('studies.plan.sm', { cc: gpu.computeCapability })}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <SlurmJobsTable study={project.study} trials={trials} estimate={estimate} cluster={clusterOfStudy(project.study, clusterByHost)} />
      <section className="study-section">
        <h3 className="section-title">{t('studies.plan.trialsTitle')}</h3>
        <div className="study-table-wrap">
          <table className="table study-table" aria-label={t('studies.plan.tableLabel')}>
            <thead>
              <tr>
                <th scope="col">{t('studies.col.stage')}</th>
                <th scope="col">{t('studies.col.trial')}</th>
                <th scope="col">{t('studies.col.engine')}</th>
                <th scope="col">{t('studies.col.workload')}</th>
                <th scope="col">{t('studies.col.layout')}</th>
                <th scope="col" className="num">
                  {t('studies.col.estimate')}
                </th>
                <th scope="col">{t(ran ? 'studies.col.outcome' : 'studies.col.verdict')}</th>
              </tr>
            </thead>
            <tbody>
              {trials.map((trial) => (
                <tr key={trial.id} className={trial.status === 'rejected' ? 'is-rejected' : undefined}>
                  <td>{stageLabel(project, trial.stageId)}</td>
                  <td>{labelOf(trial)}</td>
                  <td className="nowrap">
                    {engineName(trial.engine)} {trial.version}
                  </td>
                  <td>{workloadLabel(project, trial.workloadId)}</td>
                  <td className="nowrap">{layoutText(trial.config, trialGpuCount(project.study, trial))}</td>
                  <td className="num">{estimate.perTrialSeconds[trial.id] !== undefined ? formatDuration(estimate.perTrialSeconds[trial.id]!) : '—'}</td>
                  <td>
                    {ran ? (
                      <Outcome planned={trial} ran={ran.get(trial.id)} objective={objective} objectiveName={objectiveName} />
                    ) : trial.status === 'rejected' ? (
                      <span className="study-verdict">
                        <Badge tone="danger">{t('studies.trial.rejected')}</Badge>
                        <span className="study-reason">{trialProblemText(trial)}</span>
                      </span>
                    ) : (
                      <Badge tone="success">{t('studies.plan.ok')}</Badge>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}

/** What came of a planned trial once the study ran: its state, and its objective or why it did not finish. */
function Outcome({ planned, ran, objective, objectiveName }: { planned: Trial; ran: Trial | undefined; objective: string; objectiveName: string }) {
  // Refused before launch in the plan, or never reached (the study stopped first, or a later plan replaced it).
  const trial = ran ?? planned;
  if (trial.status === 'planned') return <Badge tone="neutral">{t('studies.plan.notRun')}</Badge>;
  const value = trial.status === 'done' ? metricOf(trial, objective) : null;
  const detail = trial.status === 'rejected' || trial.status === 'failed' ? trialProblemText(trial) : value !== null ? `${objectiveName}: ${formatMetric(objective, value)}` : null;
  const job = trial.slurmJob ? slurmJobText(trial.slurmJob) : null;
  return (
    <span className="study-verdict">
      <Badge tone={TRIAL_TONE[trial.status]} dot>
        {t(`studies.trial.${trial.status}`)}
      </Badge>
      {detail && <span className="study-reason">{detail}</span>}
      {job && <span className="study-reason">{job}</span>}
    </span>
  );
}

/** The cluster a study's jobs go to, as the Hosts page last read it, if it did. */
function clusterOfStudy(study: OpenStudy['project']['study'], clusterByHost: Record<string, ClusterInventory>): ClusterInventory | undefined {
  const host = study.hosts.find((h) => h.slurm);
  return host ? clusterByHost[host.hostId] : undefined;
}
