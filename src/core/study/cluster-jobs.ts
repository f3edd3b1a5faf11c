import { ServelabError } from '../../shared/contract';
import type { SlurmJobState } from '../../shared/model/slurm-job';
import type { StudySlurm } from '../../shared/study/study';
import type { BoxTransport } from '../box/box-transport';
import { delay } from '../jobs/client-provider';
import { removeMailboxes, submitAgentJob, waitForAgent, type AgentJob, type AgentWait, type SlurmJobBox } from '../cluster/job-box';
import { cancelSlurmJobs, observeSlurmJobs } from '../cluster/slurm-jobs';

/** A study's batch job that runs: its agent's box on the node, the GPUs Slurm gave it, and how it ends. */
export interface HeldJob {
  job: AgentJob;
  box: SlurmJobBox;
  node: string;
  gpus: string[];
  /** Aborted when Slurm ends the job before the study let it go (time limit, node failure, preemption, scancel). */
  signal: AbortSignal;
  /** Slurm's state when it ended the job early; undefined while it runs or after the study let it go. */
  endedEarly(): SlurmJobState | undefined;
  /** Lets the job go: its agent ends, and with it the job; Slurm's final state. */
  finish(): Promise<SlurmJobState>;
}

export type JobStart = { kind: 'held'; held: HeldJob } | { kind: 'ended'; job: AgentJob; state: SlurmJobState };

export interface ClusterJobsOptions {
  login: BoxTransport;
  hostId: string;
  slurm: StudySlurm;
  /** How often Slurm is asked about the study's jobs (default 5 s). */
  pollMs?: number;
  /** A job's state or reason changed while it waits or runs. */
  onState?: (job: AgentJob, state: SlurmJobState) => void;
  /** Study cancel: waits for a queue place end, jobs being waited for are let go. */
  signal?: AbortSignal;
}

const DEFAULT_POLL_MS = 5000;
/** Failed looks at a waiting job's state in a row before its wait fails. */
const WAIT_ATTEMPTS = 6;
/** What a look at the queue fails with when the login node or slurmctld is briefly away. */
const RETRIED_CODES: ReadonlySet<string> = new Set(['REMOTE_COMMAND_FAILED', 'CONNECT_FAILED', 'TIMEOUT']);

/**
 * A study's batch jobs on one cluster: at most `maxQueuedJobs` of them in the queue (pending or running) at once, each
 * job's agent the box its server and benchmarks run on, a watch on the running ones so a job Slurm ends is noticed
 * even while nothing is asked of its agent, and scancel of every job the study still has when it is cancelled.
 */
export class ClusterJobs {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  /** Jobs submitted or adopted and not yet seen ended, by id. */
  private readonly live = new Map<string, AgentJob>();
  private readonly watched = new Map<string, (state: SlurmJobState) => void>();
  private watching: Promise<void> | undefined;
  private readonly pollMs: number;

  constructor(private readonly opts: ClusterJobsOptions) {
    this.free = opts.slurm.maxQueuedJobs;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
  }

  /** A place in the queue, held until `release` is called; null when the study is cancelled first. */
  async place(): Promise<{ release(): void } | null> {
    const signal = this.opts.signal;
    while (this.free === 0) {
      if (signal?.aborted) return null;
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
    if (signal?.aborted) return null;
    this.free--;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.free++;
        this.waiting.shift()?.();
      },
    };
  }

  /** Submits a job for one server configuration: `gpus` GPUs of the study's type, `timeLimitMinutes`, its mailbox `dir`. */
  async submit(name: string, gpus: number, timeLimitMinutes: number, dir: string): Promise<AgentJob> {
    const s = this.opts.slurm;
    const job = await submitAgentJob(this.opts.login, {
      name,
      dir,
      ...(s.partition !== undefined ? { partition: s.partition } : {}),
      ...(s.account !== undefined ? { account: s.account } : {}),
      ...(s.qos !== undefined ? { qos: s.qos } : {}),
      gpus: { type: s.gpuType ?? null, count: gpus },
      timeLimitMinutes,
    });
    this.live.set(job.jobId, job);
    return job;
  }

  /** A job the run holds without having submitted it (an interrupted run's, an install job): cancelled with the rest. */
  track(job: AgentJob): void {
    this.live.set(job.jobId, job);
  }

  /** A tracked job Slurm reported ended: nothing left to cancel. */
  forget(jobId: string): void {
    this.live.delete(jobId);
  }

  /**
   * Waits until the job runs and its agent answers (reporting its pending state and reason as they change), then
   * watches it; or Slurm's state when it ended first. A job of an earlier run of the study is waited for the same way.
   */
  async start(job: AgentJob): Promise<JobStart> {
    this.live.set(job.jobId, job);
    const waited = await this.waitForAgent(job);
    if (waited.kind === 'ended') {
      this.live.delete(job.jobId);
      return { kind: 'ended', job, state: waited.state };
    }
    const abort = new AbortController();
    let early: SlurmJobState | undefined;
    let letGo = false;
    this.watched.set(job.jobId, (state) => {
      if (letGo || state.phase !== 'ended') return;
      early = state;
      this.watched.delete(job.jobId);
      this.live.delete(job.jobId);
      abort.abort(new ServelabError('REMOTE_COMMAND_FAILED', `Slurm ended job ${job.jobId} (${state.state}${state.reason ? `, ${state.reason}` : ''}).`, { details: { slurmJob: state } }));
    });
    this.watch();
    const held: HeldJob = {
      job,
      box: waited.box,
      node: waited.node,
      gpus: waited.gpus,
      signal: abort.signal,
      endedEarly: () => early,
      finish: async () => {
        letGo = true;
        this.watched.delete(job.jobId);
        try {
          const final = await waited.box.finish();
          // Still listed when its end was not confirmed: the run's final cancel takes it.
          if (final.phase !== 'pending' && final.phase !== 'running') this.live.delete(job.jobId);
          return final;
        } finally {
          waited.box.release();
        }
      },
    };
    return { kind: 'held', held };
  }

  /**
   * waitForAgent, asked again after a failed look at the queue (a dropped connection, squeue timing out on a busy
   * controller): a job may wait hours in the queue, and one such moment must not fail its trials. Gives up after
   * WAIT_ATTEMPTS failures in a row.
   */
  private async waitForAgent(job: AgentJob): Promise<AgentWait> {
    for (let failures = 0; ; ) {
      try {
        return await waitForAgent(this.opts.login, job, {
          hostId: this.opts.hostId,
          ...(this.opts.signal ? { signal: this.opts.signal } : {}),
          pollMs: Math.min(this.pollMs, 2000),
          onState: (state) => this.opts.onState?.(job, state),
        });
      } catch (error) {
        failures++;
        if (this.opts.signal?.aborted || failures >= WAIT_ATTEMPTS || !(error instanceof ServelabError) || !RETRIED_CODES.has(error.code)) throw error;
        await delay(this.pollMs * failures, this.opts.signal);
      }
    }
  }

  /** Slurm's states of jobs an earlier run left (from the project's trials), in one round trip. */
  observe(jobIds: readonly string[]): Promise<SlurmJobState[]> {
    return observeSlurmJobs(this.opts.login, jobIds);
  }

  /** scancel of the given jobs, waiting until they left the queue. */
  async cancel(jobIds: readonly string[]): Promise<void> {
    if (jobIds.length === 0) return;
    await cancelSlurmJobs(this.opts.login, jobIds);
    const dirs = jobIds.map((id) => this.live.get(id)?.dir).filter((dir): dir is string => dir !== undefined);
    for (const id of jobIds) this.live.delete(id);
    await removeMailboxes(this.opts.login, dirs).catch(() => undefined);
  }

  /**
   * scancel of every job this run submitted or took over and has not seen end. Not by name: projects of the same study
   * name share the prefix, and one project's cancel must not end another's jobs.
   */
  async cancelAll(): Promise<void> {
    const known = [...this.live.values()];
    this.live.clear();
    this.watched.clear();
    if (known.length === 0) return;
    await cancelSlurmJobs(this.opts.login, known.map((job) => job.jobId));
    await removeMailboxes(this.opts.login, known.map((job) => job.dir)).catch(() => undefined);
  }

  /** One observation of every watched job per poll, while any is watched. */
  private watch(): void {
    if (this.watching) return;
    this.watching = (async () => {
      while (this.watched.size > 0) {
        await delay(this.pollMs).catch(() => {});
        const ids = [...this.watched.keys()];
        if (ids.length === 0) break;
        const states = await this.observe(ids).catch(() => [] as SlurmJobState[]);
        for (const state of states) this.watched.get(state.jobId)?.(state);
      }
    })().finally(() => {
      this.watching = undefined;
      if (this.watched.size > 0) this.watch();
    });
  }
}

/** Whether Slurm, not the study, ended a job: anything but the agent's own clean end. */
export function endedBySlurm(state: SlurmJobState): boolean {
  return state.phase === 'ended' && state.state !== 'COMPLETED';
}
