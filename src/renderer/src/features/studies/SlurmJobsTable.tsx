import { Fragment, useId } from 'react';
import { t } from '../../i18n';
import type { ClusterInventory } from '../../../../shared/model/cluster';
import type { PlanEstimate } from '../../../../shared/study/planner';
import { plannedSlurmJobs, slurmHostOf } from '../../../../shared/study/slurm-plan';
import type { StudyDefinition, Trial } from '../../../../shared/study/study';
import { formatHoursMinutes } from '../hosts/format';
import { formatDuration } from './study-format';

export interface SlurmJobsTableProps {
  study: StudyDefinition;
  trials: readonly Trial[];
  estimate: Pick<PlanEstimate, 'perServerSeconds'>;
  /** The cluster as last read, for the partition's MaxTime; the limits stand uncapped without it. */
  cluster?: ClusterInventory | undefined;
}

function Named({ value }: { value: string | null }) {
  return value === null ? <span className="muted">{t('studies.slurmJobs.default')}</span> : <span className="mono">{value}</span>;
}

/** A configuration's label may break after each `=` of its settings (VLLM_ATTENTION_BACKEND=<wbr>FLASHINFER). */
function BreakAfterEquals({ text }: { text: string }) {
  const parts = text.split('=');
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && (
            <>
              =<wbr />
            </>
          )}
        </Fragment>
      ))}
    </>
  );
}

/**
 * The batch jobs a cluster study's plan submits (`plannedSlurmJobs`): one per server configuration, with its
 * configuration and name, GRES request, partition, time limit and trials. The account and QOS are the host's, the same
 * for every job, so they are said once above the table. Nothing for a study of plain boxes.
 */
export function SlurmJobsTable({ study, trials, estimate, cluster }: SlurmJobsTableProps) {
  const titleId = useId();
  const host = slurmHostOf(study);
  if (!host) return null;
  const jobs = plannedSlurmJobs(study, trials, estimate, cluster);
  const orDefault = (value: string | undefined) => value ?? t('studies.slurmJobs.default');
  return (
    <section className="study-section" aria-labelledby={titleId}>
      <h3 id={titleId} className="section-title">
        {t('studies.slurmJobs.title')}
      </h3>
      <p className="field-hint">{t('studies.slurmJobs.note', { n: host.slurm.maxQueuedJobs })}</p>
      <p className="field-hint">{t('studies.slurmJobs.accountQos', { account: orDefault(host.slurm.account), qos: orDefault(host.slurm.qos) })}</p>
      {/* Focusable: in a narrow window the table scrolls sideways, and the keyboard must reach what it hides. */}
      <div className="study-table-wrap" tabIndex={0}>
        <table className="table study-table slurm-jobs-table" aria-label={t('studies.slurmJobs.label')}>
          <thead>
            <tr>
              <th scope="col">{t('studies.slurmJobs.col.job')}</th>
              <th scope="col">{t('studies.slurmJobs.col.gres')}</th>
              <th scope="col">{t('studies.slurmJobs.col.partition')}</th>
              <th scope="col" className="num">
                {t('studies.slurmJobs.col.time')}
              </th>
              <th scope="col" className="num">
                {t('studies.slurmJobs.col.trials')}
              </th>
              <th scope="col" className="num">
                {t('studies.slurmJobs.col.workloads')}
              </th>
              <th scope="col" className="num">
                {t('studies.slurmJobs.col.estimate')}
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.serverKey}>
                <th scope="row" className="slurm-job">
                  <span className="slurm-job-config">
                    <BreakAfterEquals text={job.label} />
                  </span>
                  <span className="slurm-job-name mono">{job.name}</span>
                </th>
                <td className="mono nowrap">{job.gres}</td>
                <td>
                  <Named value={job.partition} />
                </td>
                <td className="num">
                  {formatHoursMinutes(job.timeLimitMinutes)}
                  {job.cappedByPartition ? (
                    <span className="muted slurm-job-time-note">
                      <span className="slurm-job-time-sep"> · </span>
                      {t('studies.slurmJobs.capped')}
                    </span>
                  ) : job.timeLimitFrom === 'estimate' ? (
                    <span className="muted slurm-job-time-note">
                      <span className="slurm-job-time-sep"> · </span>
                      {t('studies.slurmJobs.fromEstimate')}
                    </span>
                  ) : null}
                </td>
                <td className="num">{job.trials}</td>
                <td className="num">{job.workloads}</td>
                <td className="num nowrap">{formatDuration(job.estimatedMinutes * 60)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
