import { ServelabError } from '../../shared/contract';
import type { Workload } from '../../shared/bench/workload';
import { trialGpuCount, type StudyDefinition, type StudyState, type Trial, type StageDecision } from '../../shared/study/study';
import { estimatePlan, planEngineStage, planGrid, type PlanEstimate } from '../../shared/study/planner';
import type { GpuFacts, PlanContext } from '../../shared/study/plan-context';
import { applyStep, nextStudyStep } from '../../shared/study/study-loop';
import { warmupWorkload } from '../../shared/bench/warmup';
import { shellCommand } from '../../shared/shell-quote';
import type { BoxTransport } from '../box/box-transport';
import { collectInventory } from '../inventory/collect';
import { boxCommandRunner } from '../inventory/collect-over-ssh';
import type { ProbeInventory } from '../inventory/parse-probe';
import { EngineInstaller } from '../engines/engine-installer';
import { launchServer, stopRecordedServer, type RunningServer } from '../engines/server-launcher';
import type { PlacedConfigFile } from '../engines/config-file-upload';
import { BOX_FILES_ROOT } from '../../shared/engines/config-files';
import { listServerRecords } from '../engines/server-records';
import { prefetchModel } from '../engines/model-prefetch';
import { prepareMeasurement, type ShareGptSource } from '../bench/measure';
import { DatasetStore, SHAREGPT_FILE, SHAREGPT_URL } from '../bench/dataset-store';
import { newRunId } from '../bench/bench-handlers';
import type { StudyProject } from './project-store';
import type { HeldLock } from '../util/lock-file';
import { removeAbandonedTemps } from '../util/atomic-write';
import { newResultId } from '../results/results-library';
import type { ResultEntry } from '../../shared/results/result-entry';
import { GpuAllocator } from './gpu-allocator';
import { placementHosts, type GpuSet } from '../../shared/study/gpu-placement';
import type { GpuTopology } from '../../shared/model/inventory';
import { launchOrder } from '../../shared/study/schedule-simulation';
import { launchReason } from '../../shared/study/launch-reason';
import { TrialLogFiles } from './trial-log-files';
import { GpuMemoryFile } from './gpu-memory-file';
import { GpuMemorySampler, type GpuSamplerHost } from './gpu-memory-sampler';
import { clusterNodePlace, type GpuMemorySample } from '../../shared/study/gpu-memory';
import type { LogVerdict } from '../../shared/engines/types';
import type { RunFailure, ServerDeath } from '../../shared/study/trial-problem';
import { failureRecord, nvlinkWarningWords } from '../../shared/study/report/problem-words';
import { nvlinkWarning } from '../../shared/study/preflight';
import { reportText } from '../../shared/study/report/text';
import type { ClusterInventory } from '../../shared/model/cluster';
import type { SlurmJobState } from '../../shared/model/slurm-job';
import type { StudySlurm } from '../../shared/study/study';
import { ClusterJobs, endedBySlurm, type HeldJob, type JobStart } from './cluster-jobs';
import { newMailboxDir, removeMailboxes, SlurmJobBox, submitAgentJob, waitForAgent, type AgentJob } from '../cluster/job-box';
import { findSlurmJobsInDirs } from '../cluster/slurm-jobs';
import { KNOWN_GPUS, clusterPlanContext, jobPartition, jobTimeLimitMinutes, slurmJobName, slurmJobPrefix } from '../../shared/study/slurm-plan';

export type StudyBox = BoxTransport & { release(): void };

/**
 * The states in which Slurm, not the study, ended a job (a study's own cancel is CANCELLED, its agent's end COMPLETED):
 * job_state_string in src/common/slurm_protocol_defs.c (slurm-22-05-8-1).
 */
const SLURM_END_CAUSES: ReadonlySet<string> = new Set(['TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'FAILED']);

/** The time limit of a job that installs an engine on a cluster (a pip install of a large wheel set). */
const INSTALL_JOB_MINUTES = 120;

/** Where one server runs: a box's GPUs the allocator gave, or a Slurm job's node. */
interface ServerSite {
  hostId: string;
  gpus: string[];
  box: BoxTransport;
  /** Where the weights are fetched: the box itself, or a cluster's login node (which has the internet). */
  prefetchBox: BoxTransport;
  /** Whose inventory the results' provenance reads: the host, or the job's node. */
  inventoryKey: string;
  /** How the log names the place. */
  where: string;
  /** Aborted when the place goes away under the server (Slurm ended its job). */
  signal?: AbortSignal;
}

/**
 * The GPUs a study may use, host by host, and each host's GPU links where its inventory has them: the demo lab as the
 * study configures it (its GPUs are all NVLink-connected, so it needs no matrix), a Slurm cluster host as one node of
 * the study's GPU type (`clusterPlanContext`: its login node has no GPUs and is no box), other hosts from their
 * inventory. Reads only; nothing is installed or configured.
 */
export async function studyHardware(study: StudyDefinition, deps: Pick<StudyRunnerDeps, 'box' | 'isDemo' | 'hostLabel'>): Promise<PlanContext> {
  const gpus: GpuFacts[] = [];
  const topology: Record<string, GpuTopology> = {};
  for (const host of study.hosts) {
    if (deps.isDemo(host.hostId) && study.demoLab) {
      const gpu = KNOWN_GPUS[study.demoLab.gpu];
      for (let i = 0; i < study.demoLab.count; i++) {
        if (!host.gpus || host.gpus.includes(String(i))) gpus.push({ hostId: host.hostId, index: String(i), ...gpu });
      }
      continue;
    }
    if (host.slurm) {
      gpus.push(...clusterPlanContext(host.hostId, host.slurm).gpus);
      continue;
    }
    const box = await deps.box(host.hostId);
    try {
      const inventory = await collectInventory(boxCommandRunner(box));
      const usable = inventory.gpus.filter((g) => !host.gpus || host.gpus.includes(String(g.index)));
      if (usable.length === 0) throw new ServelabError('NOT_FOUND', `${deps.hostLabel(host.hostId)} has no usable GPU (${inventory.gpuMessage ?? inventory.gpuStatus}).`);
      for (const g of usable) gpus.push({ hostId: host.hostId, index: String(g.index), name: g.name, memoryMiB: g.memoryTotalMiB, computeCapability: g.computeCapability });
      if (inventory.gpuTopology) topology[host.hostId] = inventory.gpuTopology;
    } finally {
      box.release();
    }
  }
  return { gpus, ...(Object.keys(topology).length > 0 ? { topology } : {}) };
}

/** What the study runs first — the engine stage, or the whole grid — with pre-flight verdicts and an estimate. */
export async function previewPlan(study: StudyDefinition, deps: Pick<StudyRunnerDeps, 'box' | 'isDemo' | 'hostLabel'>): Promise<{ trials: Trial[]; estimate: PlanEstimate; gpus: GpuFacts[] }> {
  const ctx = await studyHardware(study, deps);
  const trials = study.strategy === 'grid' ? planGrid(study, ctx) : planEngineStage(study, ctx);
  return { trials, estimate: estimatePlan(study, trials, ctx), gpus: ctx.gpus };
}

export interface StudyRunnerDeps {
  box(hostId: string): Promise<StudyBox>;
  /** A Slurm cluster's login node (hosts marked `scheduler: 'slurm'`): where jobs are submitted, never where they run. */
  loginBox?(hostId: string): Promise<StudyBox>;
  isCluster?(hostId: string): boolean;
  /** The cluster's last reading (partitions' time limits), when the app has one. */
  clusterInventory?(hostId: string): ClusterInventory | null;
  /** How often a study's Slurm jobs are observed (default 5 s). */
  slurmPollMs?: number;
  isDemo(hostId: string): boolean;
  hostLabel(hostId: string): string;
  resolveSecret?: (secretRef: string) => Promise<string | null>;
  /** Each measured trial's entry, for the results library. */
  onResult?: (entry: ResultEntry) => void;
  /** How often each host's GPU memory is sampled while the study runs (default 2 s). */
  gpuSampleIntervalMs?: number;
}

/** Whose words a log line is: the runner's (installs, launches), a server's own log, or a benchmark's output. */
export type StudyLogSource = 'study' | 'server' | 'bench';

export type StudyEvent =
  | { kind: 'phase'; text: string }
  | { kind: 'trial'; trial: Trial }
  | { kind: 'decision'; decision: StageDecision }
  /** Server lines carry the server (its trials are those with that `serverId`); bench lines the trial measured. */
  | { kind: 'log'; text: string; source?: StudyLogSource; serverId?: string; trialId?: string }
  | { kind: 'gpu'; sample: GpuMemorySample }
  | { kind: 'state'; state: StudyState };

export interface RunStudyOptions {
  signal?: AbortSignal;
  /** The project's run lock when the caller took it already (`StudyProject.lockRun`); it stays the caller's. */
  runLock?: HeldLock;
  onEvent?: (event: StudyEvent) => void;
}

/**
 * Runs (or resumes) a study: sets up every host (engines, the benchmark client, models, ShareGPT), then plans and runs
 * stage after stage (greedy) or the whole grid, on the hosts' GPUs (each server as many as its layout needs, on one
 * host, never sharing one), launching each distinct server config once for all of its workloads and repeats, deciding after each stage, and ends with the generalisation pass and the
 * recommendation. Every trial change is saved to the project (atomically) and journalled, so a kill -9 loses nothing
 * finished: on resume, finished trials are kept and trials that were in flight are cleaned up and run again. The
 * project's run lock keeps a second process (the app and `servelab run`) from resuming a study that still runs.
 */
export async function runStudy(project: StudyProject, deps: StudyRunnerDeps, opts: RunStudyOptions = {}): Promise<StudyState> {
  // One run per project across processes: a second one refuses here, before it touches anything.
  const lock = opts.runLock ?? (await project.lockRun());
  try {
    // The state as the lock's previous holder left it (the file may have changed since it was opened), without the
    // temp file of a save it was killed in.
    await project.reload();
    await removeAbandonedTemps(project.path);
    return await new StudyRun(project, deps, opts).execute();
  } finally {
    if (!opts.runLock) await lock.release();
  }
}

class StudyRun {
  private readonly study: StudyDefinition;
  private state: StudyState;
  private readonly boxes = new Map<string, StudyBox>();
  private readonly live = new Set<RunningServer>();
  /** host + model → whether its weights are on the box. */
  private readonly prefetched = new Map<string, Promise<boolean>>();
  private ctx: PlanContext = { gpus: [] };
  private allocator: GpuAllocator | undefined;
  /** Each host's inventory, read once per run for the results' provenance. */
  private readonly inventories = new Map<string, Promise<ProbeInventory | null>>();
  private readonly logFiles: TrialLogFiles;
  private readonly gpuFile: GpuMemoryFile;
  private sampler: GpuMemorySampler | undefined;
  /** Trials an earlier run left unfinished and this run runs again: their launches say so in the journal. */
  private readonly interrupted = new Set<string>();
  /** The study's cluster, when its host is a Slurm cluster's login node: its trials run as batch jobs there. */
  private cluster: { hostId: string; login: StudyBox; slurm: StudySlurm; jobs: ClusterJobs } | undefined;
  /** Jobs an earlier run left pending or running, by server config: this run takes them over instead of submitting. */
  private readonly adoptable = new Map<string, AgentJob & { servers: Set<string> }>();
  private jobsCancelled = false;
  /** Per cluster node: its GPU sampler, the job whose box it reads through, and the study's jobs running there. */
  private readonly nodeSamplers = new Map<string, { sampler: GpuMemorySampler; via: HeldJob; holders: HeldJob[] }>();

  constructor(
    private readonly project: StudyProject,
    private readonly deps: StudyRunnerDeps,
    private readonly opts: RunStudyOptions,
  ) {
    this.study = project.file.study;
    this.state = structuredClone(project.file.state);
    this.logFiles = new TrialLogFiles(project.logsDir, (file, error) => this.emit({ kind: 'log', text: `Could not write ${file}: ${error.message}\n` }));
    this.gpuFile = new GpuMemoryFile(project.gpuMemoryPath, (error) => this.emit({ kind: 'log', text: `Could not write ${project.gpuMemoryPath}: ${error.message}\n` }));
  }

  private emit(event: StudyEvent): void {
    this.opts.onEvent?.(event);
  }

  private phase(text: string): void {
    this.emit({ kind: 'phase', text });
    void this.project.journal({ event: 'phase', text }).catch(() => {});
  }

  private get cancelled(): boolean {
    return this.opts.signal?.aborted === true;
  }

  async execute(): Promise<StudyState> {
    if (this.state.status === 'done') return this.state;
    // A state still marked running was left by a run that did not finish (killed, crashed): this run resumes it.
    const resuming = this.state.status !== 'draft';
    const onAbort = () => {
      // Servers are stopped here so that a cancel also ends launches still waiting for readiness.
      for (const server of this.live) void server.stop().catch(() => {});
    };
    this.opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      this.state = { ...this.state, status: 'running', startedAt: this.state.startedAt ?? new Date().toISOString() };
      delete this.state.message;
      await this.save({ event: 'study-started' });
      await this.setUpHosts();
      this.startGpuSampler();
      await this.cleanUpInterrupted(resuming);
      await this.runSteps();
      if (this.cancelled) return await this.finish('cancelled', 'Cancelled; servers stopped.');
      return await this.finish('done');
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return await this.finish(this.cancelled ? 'cancelled' : 'failed', this.cancelled ? 'Cancelled; servers stopped.' : message);
    } finally {
      this.opts.signal?.removeEventListener('abort', onAbort);
      await Promise.all([...this.live].map((s) => s.stop().catch(() => {})));
      await this.cancelJobs();
      await this.stopMonitoring();
      for (const box of this.boxes.values()) box.release();
      this.cluster?.login.release();
    }
  }

  /**
   * A study leaves no job in the queue (nothing would come back for them): scancel of every job the run holds (after
   * a cancel or failure, or a job whose let-go could not be confirmed), done before the final state is saved, so
   * whoever reads the end finds the queue clear.
   */
  private async cancelJobs(): Promise<void> {
    if (!this.cluster || this.jobsCancelled) return;
    this.jobsCancelled = true;
    await this.cluster.jobs.cancelAll().catch((error: unknown) => this.emit({ kind: 'log', text: `Could not cancel the study's Slurm jobs: ${(error as Error).message}\n` }));
  }

  private async finish(status: StudyState['status'], message?: string): Promise<StudyState> {
    await this.cancelJobs();
    // Logs and samples are on disk before the final state says the study ended, so a reader finds them complete.
    await this.stopMonitoring();
    const trials = this.state.trials.map((t) => (t.status === 'running' || (status !== 'done' && t.status === 'planned' && this.cancelled) ? { ...t, status: 'cancelled' as const } : t));
    this.state = { ...this.state, trials, status, finishedAt: new Date().toISOString(), ...(message ? { message } : {}) };
    await this.save({ event: 'study-finished', status, ...(message ? { message } : {}) });
    return this.state;
  }

  // --- monitoring --------------------------------------------------------------------------------------------

  private startGpuSampler(): void {
    this.sampler = this.newSampler([...this.boxes].map(([hostId, box]) => ({ hostId, box })));
    this.sampler.start();
  }

  private newSampler(hosts: GpuSamplerHost[]): GpuMemorySampler {
    return new GpuMemorySampler({
      hosts,
      ...(this.deps.gpuSampleIntervalMs !== undefined ? { intervalMs: this.deps.gpuSampleIntervalMs } : {}),
      onSample: (sample) => {
        this.gpuFile.append(sample);
        this.emit({ kind: 'gpu', sample });
      },
    });
  }

  /**
   * A cluster node's GPU memory is sampled while one of the study's jobs runs there, through one of those jobs' boxes
   * (a node's jobs share its nvidia-smi), named `clusterNodePlace(host, node)`.
   */
  private sampleNode(held: HeldJob): void {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const entry = this.nodeSamplers.get(held.node);
    if (entry) {
      entry.holders.push(held);
      return;
    }
    const sampler = this.newSampler([{ hostId: clusterNodePlace(c.hostId, held.node), box: held.box }]);
    this.nodeSamplers.set(held.node, { sampler, via: held, holders: [held] });
    sampler.start();
  }

  /** The job is let go: its node's sampler moves to another of the study's jobs there, or stops. */
  private async unsampleNode(held: HeldJob): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const entry = this.nodeSamplers.get(held.node);
    if (!entry) return;
    entry.holders = entry.holders.filter((h) => h !== held);
    if (entry.via !== held) return;
    await entry.sampler.stop();
    const next = entry.holders[0];
    if (!next) {
      this.nodeSamplers.delete(held.node);
      return;
    }
    entry.via = next;
    entry.sampler = this.newSampler([{ hostId: clusterNodePlace(c.hostId, held.node), box: next.box }]);
    entry.sampler.start();
  }

  private async stopMonitoring(): Promise<void> {
    await Promise.all([this.sampler?.stop(), ...[...this.nodeSamplers.values()].map((e) => e.sampler.stop())]);
    this.nodeSamplers.clear();
    await Promise.all([this.logFiles.flush(), this.gpuFile.flush()]);
  }

  private serverLog(serverId: string, text: string): void {
    this.logFiles.appendServer(serverId, text);
    this.emit({ kind: 'log', text, source: 'server', serverId });
  }

  private benchLog(trialId: string, serverId: string, text: string): void {
    this.logFiles.appendBench(trialId, text);
    this.emit({ kind: 'log', text, source: 'bench', serverId, trialId });
  }

  // --- hosts -------------------------------------------------------------------------------------------------

  private async setUpHosts(): Promise<void> {
    const clusterHost = this.study.hosts.find((h) => h.slurm !== undefined || this.deps.isCluster?.(h.hostId) === true);
    if (clusterHost) return this.setUpCluster(clusterHost.hostId, clusterHost.slurm);
    for (const host of this.study.hosts) {
      const box = await this.deps.box(host.hostId);
      this.boxes.set(host.hostId, box);
      if (this.deps.isDemo(host.hostId) && this.study.demoLab) {
        // The demo lab becomes the study's GPU (an A100 study on an A100), without touching real boxes.
        this.phase(`Configuring ${this.deps.hostLabel(host.hostId)} as ${this.study.demoLab.count}× ${this.study.demoLab.gpu.toUpperCase()}`);
        const r = await box.run(`${shellCommand(['simbox', 'config', '--gpu', this.study.demoLab.gpu, '--count', String(this.study.demoLab.count)])}\n`, { timeoutSeconds: 60 });
        if (r.code !== 0) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not configure the demo lab: ${r.stderr.trim()}`);
      }
    }
    this.phase('Reading the GPUs of the study\'s hosts');
    this.ctx = await studyHardware(this.study, this.deps);
    const hosts = placementHosts(this.ctx);
    const most = Math.max(0, ...hosts.map((h) => h.gpus.length));
    if (most < this.study.gpusPerTrial) throw new ServelabError('BAD_INPUT', `No host has ${this.study.gpusPerTrial} GPUs for one trial.`);
    this.allocator = new GpuAllocator(hosts, this.study.parallelism);

    for (const host of this.study.hosts) {
      const box = this.boxes.get(host.hostId) as StudyBox;
      const installer = new EngineInstaller(box);
      for (const w of this.wantedEngines()) {
        this.phase(`Installing ${w.engine} ${w.version}${w.mode === 'docker' ? ' (docker image)' : ''} on ${this.deps.hostLabel(host.hostId)}`);
        const result = await installer.install(w.engine, w.version, { mode: w.mode, onLog: (text) => this.emit({ kind: 'log', text }) });
        if (!result.ok) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not install ${w.engine} ${w.version} on ${this.deps.hostLabel(host.hostId)}: ${result.message}`);
      }
      if (this.needsShareGpt()) await this.ensureShareGpt(host.hostId, box);
    }
  }

  /**
   * A study on a Slurm cluster: engines, the benchmark client, ShareGPT and the weights go to the shared storage
   * through the login node (which has the internet compute nodes often lack); an engine the login node cannot
   * install is installed by a batch job on a compute node. Nothing else runs on the login node.
   */
  private async setUpCluster(hostId: string, given: StudySlurm | undefined): Promise<void> {
    const label = this.deps.hostLabel(hostId);
    if (this.study.hosts.length > 1) throw new ServelabError('BAD_INPUT', `A study on the Slurm cluster ${label} runs on that cluster alone; remove its other hosts.`);
    if (!this.deps.loginBox) throw new ServelabError('NOT_SUPPORTED', `${label} is a Slurm cluster: this front door cannot run studies on clusters.`);
    const docker = this.study.engines.find((e) => e.mode === 'docker');
    if (docker) throw new ServelabError('NOT_SUPPORTED', `On a Slurm cluster engines run from their environments on the shared storage; ${docker.engine} ${docker.version} asks for docker.`);
    if (!given) throw new ServelabError('BAD_INPUT', `${label} is a Slurm cluster: the study's host needs its Slurm settings (partition, GPU type, the GPU to plan for, GPUs per node).`, { issues: [{ path: 'hosts.0.slurm', message: 'is required for a Slurm cluster host' }] });
    const slurm = given;
    const login = await this.deps.loginBox(hostId);
    const jobs = new ClusterJobs({
      login,
      hostId,
      slurm,
      ...(this.deps.slurmPollMs !== undefined ? { pollMs: this.deps.slurmPollMs } : {}),
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      onState: (job, state) => void this.jobStateChanged(job, state),
    });
    this.cluster = { hostId, login, slurm, jobs };
    this.phase(`Planning for the GPUs of ${label}`);
    this.ctx = await studyHardware(this.study, this.deps);

    for (const w of this.wantedEngines()) {
      this.phase(`Installing ${w.engine} ${w.version} on the shared storage of ${label}`);
      const onLog = (text: string) => this.emit({ kind: 'log', text });
      const result = await new EngineInstaller(login).install(w.engine, w.version, { mode: 'env', onLog });
      if (result.ok) continue;
      this.emit({ kind: 'log', text: `The login node could not install ${w.engine} ${w.version} (${result.message}); installing it by a job on a compute node\n` });
      await this.installByJob(w.engine, w.version, onLog);
    }
    if (this.needsShareGpt()) await this.ensureShareGpt(hostId, login);
  }

  /** An engine installed by a CPU-only batch job (same partition, account and QOS), for a login node that cannot. */
  private async installByJob(engine: string, version: string, onLog: (text: string) => void): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const dir = newMailboxDir();
    await this.project.journal({ event: 'slurm-job-submitting', dir, purpose: 'install' });
    const job = await submitAgentJob(c.login, {
      dir,
      name: `${slurmJobPrefix(this.study.name)}install`,
      ...(c.slurm.partition !== undefined ? { partition: c.slurm.partition } : {}),
      ...(c.slurm.account !== undefined ? { account: c.slurm.account } : {}),
      ...(c.slurm.qos !== undefined ? { qos: c.slurm.qos } : {}),
      timeLimitMinutes: INSTALL_JOB_MINUTES,
    });
    c.jobs.track(job);
    await this.project.journal({ event: 'slurm-job-submitted', jobId: job.jobId, dir: job.dir, purpose: 'install', engine, version });
    const waited = await waitForAgent(c.login, job, {
      hostId: c.hostId,
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
      onState: (state) => this.emit({ kind: 'phase', text: `Install job ${job.jobId}: ${state.state}${state.reason ? ` (${state.reason})` : ''}` }),
    }).catch(async (error: unknown) => {
      await c.jobs.cancel([job.jobId]).catch(() => {});
      throw error;
    });
    if (waited.kind === 'ended') throw new ServelabError('REMOTE_COMMAND_FAILED', `The install job ${job.jobId} ended (${waited.state.state}) before it ran.`);
    try {
      const result = await new EngineInstaller(waited.box).install(engine, version, { mode: 'env', onLog });
      if (!result.ok) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not install ${engine} ${version} on ${this.deps.hostLabel(c.hostId)}, on the login node nor by job ${job.jobId} on ${waited.node}: ${result.message}`);
    } finally {
      const final = await waited.box.finish().catch(() => undefined);
      waited.box.release();
      if (final) c.jobs.forget(job.jobId);
      else await c.jobs.cancel([job.jobId]).catch(() => {});
      await this.project.journal({ event: 'slurm-job-ended', jobId: job.jobId, ...(final ? { state: final.state } : {}) });
    }
  }

  /** The engines the study launches and the vLLM that measures them. */
  private wantedEngines(): { engine: string; version: string; mode: 'env' | 'docker' }[] {
    const wanted = [...this.study.engines.map((e) => ({ engine: e.engine, version: e.version, mode: e.mode }))];
    if (!wanted.some((w) => w.engine === 'vllm' && w.version === this.study.clientVersion && w.mode === 'env')) {
      wanted.push({ engine: 'vllm', version: this.study.clientVersion, mode: 'env' });
    }
    return wanted;
  }

  /** A job's state or reason changed: said in the log, and kept on its trials (the app shows PENDING and why). */
  private async jobStateChanged(job: AgentJob, state: SlurmJobState): Promise<void> {
    this.emit({ kind: 'log', text: `Slurm job ${job.jobId}: ${state.state}${state.reason ? ` (${state.reason})` : ''}${state.nodeList ? ` on ${state.nodeList}` : ''}\n` });
    for (const { id } of this.state.trials) {
      // Read afresh for each: the job's start may have set its node on the trials since (this is not awaited).
      const t = this.state.trials.find((s) => s.id === id);
      const held = t?.slurmJob;
      if (!t || !held || held.jobId !== job.jobId || (t.status !== 'planned' && t.status !== 'running')) continue;
      const { reason: _r, ...kept } = held;
      await this.updateTrial(t.id, { slurmJob: { ...kept, state: state.state, ...(state.reason ? { reason: state.reason } : {}) } });
    }
  }

  private needsShareGpt(): boolean {
    return [this.study.workloads.primary, ...this.study.workloads.generalisation].some((w) => w.dataset.kind === 'sharegpt' && w.dataset.path === undefined);
  }

  private async ensureShareGpt(hostId: string, box: StudyBox): Promise<void> {
    const store = new DatasetStore(box);
    try {
      await store.verify(SHAREGPT_FILE);
      return;
    } catch (error) {
      if (!(error instanceof ServelabError && error.code === 'NOT_FOUND')) throw error;
    }
    this.phase(`Putting ShareGPT into the dataset cache of ${this.deps.hostLabel(hostId)}`);
    if (this.deps.isDemo(hostId)) await store.synthesizeShareGpt(SHAREGPT_FILE);
    else await store.fetch(SHAREGPT_FILE, SHAREGPT_URL);
  }

  /** Trials left running by a killed run: their servers are stopped from their records, and they run again. */
  private async cleanUpInterrupted(resuming: boolean): Promise<void> {
    if (this.cluster) await this.takeOverJobs();
    // Cancelled trials run again too: cancelling stops a run, it does not drop its remaining trials.
    const interrupted = this.state.trials.filter((t) => t.status === 'running' || t.status === 'cancelled');
    // Every server an earlier run of this project left running — including one launched just before a kill, which
    // the state may not name yet — is found from the records on the boxes and stopped.
    for (const [hostId, box] of this.boxes) {
      const named = new Set(interrupted.filter((t) => t.hostId === hostId && t.serverId).map((t) => t.serverId));
      const records = await listServerRecords(box).catch(() => []);
      for (const record of records.filter((r) => r.running && (r.owner === this.project.path || named.has(r.serverId)))) {
        this.phase(`Stopping server ${record.serverId}, left running by an interrupted run`);
        try {
          const report = await stopRecordedServer(box, record);
          if (report.leftovers.length > 0) this.emit({ kind: 'log', text: `Leftovers of ${record.serverId}: ${report.leftovers.join('; ')}\n` });
        } catch (error) {
          this.emit({ kind: 'log', text: `Could not stop ${record.serverId}: ${(error as Error).message}\n` });
        }
      }
    }
    const again = new Set(interrupted.map((t) => t.id));
    for (const id of again) this.interrupted.add(id);
    if (resuming) await this.project.journal({ event: 'resumed', kept: this.state.trials.filter((t) => t.status === 'done').length, rerun: [...again] });
    if (interrupted.length > 0) {
      this.state = {
        ...this.state,
        trials: this.state.trials.map((t) => {
          if (!again.has(t.id)) return t;
          const { serverId: _s, hostId: _h, gpus: _g, startedAt: _a, ...rest } = t;
          return { ...rest, status: 'planned' as const };
        }),
      };
      await this.save({ event: 'rerun', trials: [...again] });
    }
  }

  /**
   * The batch jobs an earlier run of this study left (its trials name them): one still pending or running is taken
   * over for its server config (its agent answers again; its server is stopped and the trials run again there); one
   * Slurm ended (time limit, node failure, preemption, a cancel that was not the study's) fails the trials that were
   * waiting for it with Slurm's state; one that ended by itself (its agent gave up waiting for the app) is forgotten
   * and its trials run in a new job. A job no trial names (a run killed between sbatch and its save) is found by its
   * journalled mailbox, never by name (another project of the same study name may own such a job), and cancelled.
   */
  private async takeOverJobs(): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    await this.cancelUnrecordedJobs();
    const jobs = new Map<string, { dir?: string; serverKey: string; waiting: Trial[]; servers: Set<string> }>();
    for (const t of this.state.trials) {
      if (!t.slurmJob) continue;
      const entry = jobs.get(t.slurmJob.jobId) ?? { ...(t.slurmJob.dir !== undefined ? { dir: t.slurmJob.dir } : {}), serverKey: t.serverKey, waiting: [], servers: new Set<string>() };
      if (t.status === 'planned' || t.status === 'running' || t.status === 'cancelled') entry.waiting.push(t);
      if (t.serverId !== undefined) entry.servers.add(t.serverId);
      jobs.set(t.slurmJob.jobId, entry);
    }
    const states = jobs.size > 0 ? await c.jobs.observe([...jobs.keys()]) : [];
    for (const state of states) {
      const entry = jobs.get(state.jobId) as { dir?: string; serverKey: string; waiting: Trial[]; servers: Set<string> };
      const queued = state.phase === 'pending' || state.phase === 'running';
      if (queued && entry.waiting.length > 0 && entry.dir !== undefined) {
        this.phase(`Re-attaching to Slurm job ${state.jobId} (${state.state}), left by an interrupted run`);
        this.adoptable.set(entry.serverKey, { jobId: state.jobId, dir: entry.dir, servers: entry.servers });
        c.jobs.track({ jobId: state.jobId, dir: entry.dir });
        await this.project.journal({ event: 'slurm-job-adopted', jobId: state.jobId, state: state.state, serverKey: entry.serverKey });
        continue;
      }
      if (queued) {
        // Its trials all finished before the interruption: the job is let go, as the run would have.
        await this.letGo(state, entry.dir);
        continue;
      }
      if (entry.waiting.length === 0) continue;
      await this.project.journal({ event: 'slurm-job-ended', jobId: state.jobId, state: state.state, ...(state.reason ? { reason: state.reason } : {}) });
      for (const t of entry.waiting) {
        if (t.status !== 'cancelled' && state.phase === 'ended' && endedBySlurm(state)) {
          await this.failForJob(t.id, state);
        } else {
          const { slurmJob: _j, ...rest } = this.state.trials.find((s) => s.id === t.id) as Trial;
          this.state = { ...this.state, trials: this.state.trials.map((s) => (s.id === t.id ? rest : s)) };
        }
      }
    }
  }

  /**
   * Jobs an interrupted run submitted without living to save their ids (killed between sbatch and the journal): found
   * by their mailbox, which is their working directory, and cancelled, since no trial names them. Each such mailbox is
   * looked for once.
   */
  private async cancelUnrecordedJobs(): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const events = await this.project.readJournal();
    const settled = new Set(events.filter((e) => e.event === 'slurm-job-submitted' || e.event === 'slurm-job-unrecorded').map((e) => e.dir));
    const dirs = [...new Set(events.filter((e) => e.event === 'slurm-job-submitting' && typeof e.dir === 'string' && !settled.has(e.dir)).map((e) => e.dir as string))];
    if (dirs.length === 0) return;
    try {
      const found = await findSlurmJobsInDirs(c.login, dirs);
      if (found.length > 0) {
        this.phase(`Cancelling Slurm job${found.length > 1 ? 's' : ''} ${found.map((j) => j.jobId).join(', ')}, submitted by an interrupted run that did not record ${found.length > 1 ? 'them' : 'it'}`);
        await c.jobs.cancel(found.map((j) => j.jobId));
      }
      await removeMailboxes(c.login, dirs).catch(() => undefined);
      for (const dir of dirs) await this.project.journal({ event: 'slurm-job-unrecorded', dir, jobId: found.find((j) => j.dir === dir)?.jobId ?? null });
    } catch (error) {
      this.emit({ kind: 'log', text: `Could not look for Slurm jobs an interrupted run left unrecorded: ${(error as Error).message}\n` });
    }
  }

  /** A job of an interrupted run that nothing waits for: its agent ends it (a pending one is cancelled). */
  private async letGo(state: SlurmJobState, dir: string | undefined): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    this.phase(`Ending Slurm job ${state.jobId}, left ${state.state.toLowerCase()} by an interrupted run whose trials in it had finished`);
    try {
      if (state.phase === 'running' && dir !== undefined) {
        const box = SlurmJobBox.attach(c.login, { jobId: state.jobId, dir }, c.hostId);
        try {
          await box.finish();
        } finally {
          box.release();
        }
      } else {
        await c.jobs.cancel([state.jobId]);
      }
      await this.project.journal({ event: 'slurm-job-ended', jobId: state.jobId, state: 'let-go' });
    } catch (error) {
      this.emit({ kind: 'log', text: `Could not end Slurm job ${state.jobId}: ${(error as Error).message}\n` });
    }
  }

  /** The group's server could not be launched (or placed, or given a job): each trial failed with the error as raised. */
  private async refuseLaunch(group: Trial[], error: unknown, placed?: { hostId: string; gpus: string[] }): Promise<void> {
    const failure: RunFailure = { code: 'launch-refused', detail: (error as Error).message };
    for (const t of group) await this.updateTrial(t.id, { status: 'failed', ...failureRecord(failure), ...(placed ? { hostId: placed.hostId, gpus: placed.gpus } : {}), finishedAt: new Date().toISOString() });
  }

  /** The trial's job was ended by Slurm before the trial was measured: failed, with Slurm's state and reason. */
  private async failForJob(trialId: string, state: SlurmJobState): Promise<void> {
    const failure: RunFailure = { code: 'job-ended', jobId: state.jobId, state: state.state, ...(state.reason ? { reason: state.reason } : {}) };
    const trial = this.state.trials.find((t) => t.id === trialId);
    const held = trial?.slurmJob;
    await this.updateTrial(trialId, {
      status: 'failed',
      ...failureRecord(failure),
      ...(held ? { slurmJob: { ...held, state: state.state, ...(state.reason ? { reason: state.reason } : {}) } } : {}),
      finishedAt: new Date().toISOString(),
    });
  }

  // --- strategies --------------------------------------------------------------------------------------------

  /** Step by step as the study loop says, until it says done; every step is saved before the next is computed. */
  private async runSteps(): Promise<void> {
    for (;;) {
      if (this.cancelled) return;
      const step = nextStudyStep(this.study, this.state, this.ctx);
      switch (step.kind) {
        case 'plan':
          await this.addTrials(step.stageId, step.trials);
          break;
        case 'run': {
          this.phase(step.phase);
          await this.runTrials(step.trials, new Set(step.warmups));
          if (this.cancelled) return;
          // A trial still planned would be offered again forever.
          const stuck = step.trials.filter((t) => this.state.trials.find((s) => s.id === t.id)?.status === 'planned');
          if (stuck.length > 0) throw new ServelabError('INTERNAL', `Trials were not run: ${stuck.map((t) => t.id).join(', ')}`);
          break;
        }
        case 'decide':
          await this.recordDecision(step.decision);
          break;
        case 'recommend':
          this.state = applyStep(this.state, step);
          await this.save({ event: 'recommendation', serverKey: step.best.serverKey });
          break;
        case 'fail':
          throw new ServelabError('REMOTE_COMMAND_FAILED', step.message);
        case 'done':
          return;
      }
    }
  }

  private async addTrials(stageId: string, trials: Trial[]): Promise<Trial[]> {
    // A layout that runs, only slower than it could: said once per configuration, before it runs.
    const warned = new Set<string>();
    for (const t of trials) {
      const warning = t.status === 'planned' && !warned.has(t.serverKey) ? nvlinkWarning(t.config, this.ctx) : null;
      warned.add(t.serverKey);
      if (warning) this.emit({ kind: 'log', text: `${t.label}: ${nvlinkWarningWords(warning, reportText('en'))}\n` });
    }
    this.state = { ...this.state, trials: [...this.state.trials, ...trials] };
    await this.save({ event: 'planned', stageId, trials: trials.map((t) => ({ id: t.id, status: t.status, ...(t.rejectReason ? { rejectReason: t.rejectReason } : {}) })) });
    for (const t of trials) this.emit({ kind: 'trial', trial: t });
    return trials;
  }

  private async recordDecision(decision: StageDecision): Promise<void> {
    const existing = this.state.decisions.find((d) => d.stageId === decision.stageId);
    // A resumed run decides again from the same trials; the first decision (and its time) stays.
    if (existing) return;
    this.state = { ...this.state, decisions: [...this.state.decisions, decision] };
    await this.save({ event: 'decision', ...decision });
    this.emit({ kind: 'decision', decision });
  }

  // --- running trials ----------------------------------------------------------------------------------------

  /**
   * Runs every planned trial of the list: one launch per server config, all its workloads, then stop. Each server
   * asks for as many GPUs as its layout needs, the largest first, so small servers fill the gaps beside large ones.
   */
  private async runTrials(trials: Trial[], warmups: ReadonlySet<string>): Promise<void> {
    const byServer = new Map<string, Trial[]>();
    for (const t of trials) {
      if (t.status !== 'planned') continue;
      const list = byServer.get(t.serverKey) ?? [];
      list.push(t);
      byServer.set(t.serverKey, list);
    }
    if (this.cluster) {
      const cluster = this.cluster;
      const groups = [...byServer.values()].map((group) => ({ group, gpus: trialGpuCount(this.study, group[0]!) }));
      await Promise.all(
        groups.map(async ({ group, gpus }) => {
          const place = await cluster.jobs.place();
          if (!place) return;
          try {
            await this.runInJob(group, gpus, warmups);
          } finally {
            place.release();
          }
        }),
      );
      return;
    }
    const allocator = this.allocator as GpuAllocator;
    const groups = launchOrder([...byServer.values()].map((group) => ({ group, gpus: trialGpuCount(this.study, group[0]!) })));
    await Promise.all(
      groups.map(async ({ group, gpus }) => {
        let set: GpuSet | null;
        try {
          set = await allocator.acquire(gpus, this.opts.signal);
        } catch (error) {
          // Pre-flight refuses a layout larger than every host; one that gets here anyway fails rather than waits.
          await this.refuseLaunch(group, error);
          return;
        }
        if (!set) return;
        const box = this.boxes.get(set.hostId) as StudyBox;
        try {
          await this.runServer(group, { hostId: set.hostId, gpus: set.gpus, box, prefetchBox: box, inventoryKey: set.hostId, where: `${this.deps.hostLabel(set.hostId)} GPU ${set.gpus.join(',')}` }, warmups);
        } finally {
          allocator.release(set);
        }
      }),
    );
  }

  /**
   * One server config as one batch job: submitted (or taken over from an interrupted run), waited for while Slurm
   * keeps it pending, then the server and all its workloads run inside it on the node, as on a box. Slurm ending the
   * job first fails the trials not yet measured with its state; the job is let go (its agent ends) once they are.
   */
  private async runInJob(group: Trial[], gpus: number, warmups: ReadonlySet<string>): Promise<void> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const first = group[0]!;
    if (this.cancelled) return;
    const adopted = this.adoptable.get(first.serverKey);
    this.adoptable.delete(first.serverKey);
    // The weights are downloaded on the login node before a job holds GPUs for them (and its agent sits idle).
    if (!adopted) await this.prefetch(c.hostId, c.login, first);
    if (this.cancelled) return;
    let job: AgentJob | null = adopted ?? (await this.submitJob(group, gpus));
    if (!job) return;
    let started = await this.startJob(group, job);
    // A job whose agent gave up waiting for the app (it ended by itself, e.g. while the app was away) is replaced.
    if (started?.kind === 'ended' && !endedBySlurm(started.state) && !this.cancelled) {
      await this.project.journal({ event: 'slurm-job-ended', jobId: job.jobId, state: started.state.state });
      job = await this.submitJob(group, gpus);
      if (!job) return;
      started = await this.startJob(group, job);
    }
    if (!started) return;
    if (started.kind === 'ended') {
      await this.project.journal({ event: 'slurm-job-ended', jobId: job.jobId, state: started.state.state, ...(started.state.reason ? { reason: started.state.reason } : {}) });
      if (this.cancelled) return;
      for (const t of group) await this.failForJob(t.id, started.state);
      return;
    }
    const held = started.held;
    await this.project.journal({ event: 'slurm-job-running', jobId: job.jobId, node: held.node, gpus: held.gpus });
    for (const t of group) await this.updateTrial(t.id, { hostId: c.hostId, gpus: held.gpus, slurmJob: { jobId: job.jobId, dir: job.dir, state: 'RUNNING', node: held.node } });
    this.sampleNode(held);
    try {
      if (adopted) await this.stopLeftInJob(held, adopted.servers);
      await this.runServer(
        group,
        {
          hostId: c.hostId,
          gpus: held.gpus,
          box: held.box,
          prefetchBox: c.login,
          inventoryKey: `${c.hostId}\n${held.node}`,
          where: `${this.deps.hostLabel(c.hostId)} node ${held.node} (Slurm job ${job.jobId})${held.gpus.length > 0 ? ` GPU ${held.gpus.join(',')}` : ''}`,
          signal: held.signal,
        },
        warmups,
      );
    } finally {
      await this.unsampleNode(held);
      const final = held.endedEarly() ?? (await held.finish().catch(() => undefined));
      if (!final) await c.jobs.cancel([job.jobId]).catch(() => {});
      await this.project.journal({ event: 'slurm-job-ended', jobId: job.jobId, ...(final ? { state: final.state, ...(final.reason ? { reason: final.reason } : {}) } : {}) });
      // Slurm's end seen by the watcher, or only when the job was let go (it ended between two polls, and the
      // server's readiness or a benchmark failed on the agent's end first).
      const early = held.endedEarly() ?? (final && SLURM_END_CAUSES.has(final.state) ? final : undefined);
      if (early && !this.cancelled) {
        for (const t of group) {
          if (this.state.trials.find((s) => s.id === t.id)?.status !== 'done') await this.failForJob(t.id, early);
        }
      }
      // A job Slurm ended under the study left its mailbox (a let-go job's is gone with it).
      if (held.endedEarly()) await removeMailboxes(c.login, [job.dir]).catch(() => undefined);
    }
  }

  /** A new job for the group's server config, its time limit from the estimate; null (trials failed) when sbatch refuses. */
  private async submitJob(group: Trial[], gpus: number): Promise<AgentJob | null> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    const first = group[0]!;
    const estimate = estimatePlan(this.study, group, this.ctx);
    const partition = jobPartition(c.slurm, this.deps.clusterInventory?.(c.hostId) ?? undefined);
    const minutes = jobTimeLimitMinutes(c.slurm, estimate.perServerSeconds[first.serverKey] ?? 0, partition?.maxTimeMinutes);
    let job: AgentJob;
    // Its mailbox is journalled before sbatch: a run killed before the id is saved leaves a job a restart can find.
    const dir = newMailboxDir();
    await this.project.journal({ event: 'slurm-job-submitting', dir, serverKey: first.serverKey });
    try {
      job = await c.jobs.submit(slurmJobName(this.study.name, first.serverKey), gpus, minutes, dir);
    } catch (error) {
      if (this.cancelled) return null;
      await this.refuseLaunch(group, error);
      return null;
    }
    await this.project.journal({ event: 'slurm-job-submitted', jobId: job.jobId, dir: job.dir, serverKey: first.serverKey, trials: group.map((t) => t.id), gpus, timeLimitMinutes: minutes });
    this.emit({ kind: 'log', text: `Submitted Slurm job ${job.jobId} for ${first.label}: ${gpus} GPU${gpus > 1 ? 's' : ''}${c.slurm.gpuType ? ` of type ${c.slurm.gpuType}` : ''}, time limit ${minutes} min\n` });
    for (const t of group) await this.updateTrial(t.id, { slurmJob: { jobId: job.jobId, dir: job.dir, state: 'PENDING' } });
    return job;
  }

  /** Waits for the job's agent; null (trials failed, unless cancelled) when the wait itself fails. */
  private async startJob(group: Trial[], job: AgentJob): Promise<JobStart | null> {
    const c = this.cluster as NonNullable<StudyRun['cluster']>;
    try {
      return await c.jobs.start(job);
    } catch (error) {
      // Not left in the queue to hold GPUs for nobody, nor counted out of the queue limit while it still waits.
      await c.jobs.cancel([job.jobId]).catch(() => {});
      if (this.cancelled) return null;
      await this.refuseLaunch(group, error);
      return null;
    }
  }

  /**
   * A job taken over from an interrupted run may still run that run's server: stopped before this run's launch. Only
   * the servers its trials name: the server records lie on the shared storage, beside those of the study's other jobs.
   */
  private async stopLeftInJob(held: HeldJob, servers: ReadonlySet<string>): Promise<void> {
    if (servers.size === 0) return;
    const records = await listServerRecords(held.box).catch(() => []);
    for (const record of records.filter((r) => r.running && servers.has(r.serverId))) {
      this.phase(`Stopping server ${record.serverId} in Slurm job ${held.job.jobId}, left running by an interrupted run`);
      try {
        const report = await stopRecordedServer(held.box, record);
        if (report.leftovers.length > 0) this.emit({ kind: 'log', text: `Leftovers of ${record.serverId}: ${report.leftovers.join('; ')}\n` });
      } catch (error) {
        this.emit({ kind: 'log', text: `Could not stop ${record.serverId}: ${(error as Error).message}\n` });
      }
    }
  }

  private async runServer(group: Trial[], site: ServerSite, warmups: ReadonlySet<string>): Promise<void> {
    const halted = () => this.cancelled || site.signal?.aborted === true;
    if (halted()) return;
    const first = group[0]!;
    const { box, where } = site;
    const placed = { hostId: site.hostId, gpus: site.gpus };
    const offline = await this.prefetch(placed.hostId, site.prefetchBox, first);
    if (halted()) return;

    this.emit({ kind: 'log', text: `Launching ${first.command} on ${where}\n` });
    // The server's id is known once the launch returns; anything it logs before then waits for it.
    const launched: { serverId?: string } = {};
    const early: string[] = [];
    const onServerLog = (text: string) => {
      if (launched.serverId === undefined) early.push(text);
      else this.serverLog(launched.serverId, text);
    };
    let server: RunningServer;
    const placedFiles: PlacedConfigFile[] = [];
    const reason = launchReason(group, this.state.trials, this.interrupted);
    await this.project.journal({ event: 'launching', serverKey: first.serverKey, hostId: placed.hostId, gpus: placed.gpus, trials: group.map((t) => t.id), reason });
    try {
      server = await launchServer(box, {
        engine: first.engine,
        version: first.version,
        mode: first.mode,
        config: first.config,
        gpus: placed.gpus,
        ...(offline ? { offline: true } : {}),
        owner: this.project.path,
        ...(this.deps.resolveSecret ? { resolveSecret: this.deps.resolveSecret } : {}),
        onLog: onServerLog,
        ...(this.study.files ? { files: this.study.files } : {}),
        onFilesPlaced: (files) => placedFiles.push(...files),
      });
    } catch (error) {
      await this.recordPlacedFiles(first.serverKey, placed.hostId, placedFiles);
      await this.refuseLaunch(group, error, placed);
      return;
    }
    await this.recordPlacedFiles(first.serverKey, placed.hostId, placedFiles);
    launched.serverId = server.serverId;
    // The host's inventory (the results' provenance) is read while the server starts, not before its first benchmark.
    void this.inventoryOf(site.inventoryKey, box);
    for (const text of early.splice(0)) this.serverLog(server.serverId, text);
    this.live.add(server);
    // Slurm ending the job ends its server too: waiting for readiness stops rather than waits out its time.
    const onJobEnded = () => void server.stop().catch(() => {});
    site.signal?.addEventListener('abort', onJobEnded, { once: true });
    const startedAt = new Date().toISOString();
    for (const t of group) await this.updateTrial(t.id, { status: 'running', hostId: placed.hostId, gpus: placed.gpus, serverId: server.serverId, startedAt });
    await this.project.journal({ event: 'server-launched', serverId: server.serverId, serverKey: first.serverKey, hostId: placed.hostId, gpus: placed.gpus, jobId: server.record.jobId });
    try {
      try {
        await server.waitReady(this.study.readinessTimeoutSeconds * 1000);
        await this.project.journal({ event: 'server-ready', serverId: server.serverId });
      } catch (error) {
        if (halted()) return;
        const failure = notReady(error, server);
        for (const t of group) await this.updateTrial(t.id, { status: 'failed', ...failureRecord(failure), finishedAt: new Date().toISOString() });
        return;
      }
      for (const t of group) {
        if (halted()) return;
        if (server.state !== 'ready') {
          const verdict = server.classification;
          await this.updateTrial(t.id, { status: 'failed', ...failureRecord({ code: 'died-before-workload', death: deathOf(verdict) }), finishedAt: new Date().toISOString() });
          continue;
        }
        if (warmups.has(t.id)) await this.warmUp(t, site, server);
        if (halted()) return;
        await this.measure(t, site, server);
      }
    } finally {
      site.signal?.removeEventListener('abort', onJobEnded);
      const report = await server.stop().catch((error: unknown) => ({ leftovers: [`stop failed: ${(error as Error).message}`] }));
      this.live.delete(server);
      await this.project.journal({ event: 'server-stopped', serverId: server.serverId, leftovers: report.leftovers });
      if (report.leftovers.length > 0) this.emit({ kind: 'log', text: `Left on ${where} after stopping ${server.serverId}: ${report.leftovers.join('; ')}\n` });
    }
  }

  /** What a launch copied to the box, and what the box already had: journalled, and said in the study's log. */
  private async recordPlacedFiles(serverKey: string, hostId: string, files: readonly PlacedConfigFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.project.journal({ event: 'files-placed', serverKey, hostId, files: files.map((f) => ({ field: f.field, name: f.name, sha256: f.sha256, size: f.size, path: f.path, uploaded: f.uploaded })) });
    for (const f of files) {
      const where = `~/${BOX_FILES_ROOT}/${f.sha256}/${f.name}`;
      this.emit({ kind: 'log', text: f.uploaded ? `Uploaded ${f.name} (${f.size} bytes, SHA-256 ${f.sha256.slice(0, 12)}…) to ${where} on ${this.deps.hostLabel(hostId)}\n` : `${f.name} is already on ${this.deps.hostLabel(hostId)} at ${where} (SHA-256 checked); not uploaded again\n` });
    }
  }

  /**
   * The warm-up before a trial's first measured run on a fresh server: the workload, shorter (`warmupWorkload`). Its
   * numbers are discarded — the trial records only how many requests it sent and how long it took — and a failed
   * warm-up leaves the measured run to show what is wrong.
   */
  private async warmUp(trial: Trial, site: ServerSite, server: RunningServer): Promise<void> {
    const { box, hostId } = site;
    const signal = this.signalFor(site);
    const workload = warmupWorkload(this.workloadOf(trial.workloadId));
    const started = Date.now();
    this.benchLog(trial.id, server.serverId, `Warm-up: ${workload.numPrompts} requests at the workload's concurrency; its numbers are discarded\n`);
    const inventory = await this.inventoryOf(site.inventoryKey, box);
    let error: string | undefined;
    try {
      const prepared = await prepareMeasurement(box, {
        ...(inventory ? { inventory } : {}),
        runId: newRunId(),
        serverId: server.serverId,
        workload,
        clientVersion: this.study.clientVersion,
        hostLabel: this.deps.hostLabel(hostId),
        ...(this.deps.isDemo(hostId) ? { shareGptSource: { kind: 'synthetic' } as ShareGptSource } : {}),
        runsDir: this.project.runsDir,
        ...(signal ? { signal } : {}),
        onLog: (text) => this.benchLog(trial.id, server.serverId, text),
      });
      const measured = await prepared.run();
      if (measured.status !== 'ok') error = measured.error ?? 'no result';
    } catch (e) {
      error = (e as Error).message;
    }
    if (this.cancelled) return;
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    if (site.signal?.aborted) return;
    if (error !== undefined) this.benchLog(trial.id, server.serverId, `Warm-up failed: ${error}\n`);
    await this.updateTrial(trial.id, { warmup: { requests: workload.numPrompts, seconds, ...(error !== undefined ? { error } : {}) } });
  }

  private async measure(trial: Trial, site: ServerSite, server: RunningServer): Promise<void> {
    const { box, hostId } = site;
    const signal = this.signalFor(site);
    const halted = () => this.cancelled || site.signal?.aborted === true;
    const workload = this.workloadOf(trial.workloadId);
    const shareGptSource: ShareGptSource | undefined = this.deps.isDemo(hostId) ? { kind: 'synthetic' } : undefined;
    const inventory = await this.inventoryOf(site.inventoryKey, box);
    const runId = newRunId();
    try {
      const prepared = await prepareMeasurement(box, {
        runId,
        serverId: server.serverId,
        workload,
        clientVersion: this.study.clientVersion,
        hostLabel: this.deps.hostLabel(hostId),
        ...(shareGptSource ? { shareGptSource } : {}),
        runsDir: this.project.runsDir,
        ...(signal ? { signal } : {}),
        ...(inventory ? { inventory } : {}),
        onLog: (text) => this.benchLog(trial.id, server.serverId, text),
      });
      await this.project.journal({ event: 'measuring', id: trial.id, runId, serverId: server.serverId });
      const measured = await prepared.run();
      if (halted()) return;
      const now = new Date().toISOString();
      const result = { ...measured, id: newResultId(), addedAt: now, gpuCount: trialGpuCount(this.study, trial) };
      this.deps.onResult?.(result);
      const metrics = result.result.metrics;
      const lost = typeof metrics.completed === 'number' ? workload.numPrompts - metrics.completed : 0;
      if (measured.status === 'ok' && lost <= 0) {
        await this.updateTrial(trial.id, { status: 'done', result, finishedAt: now });
        return;
      }
      // A run where requests failed does not measure the config: it is a failure, with the server's own cause.
      await server.confirmServing();
      const verdict = server.state === 'failed' ? server.classification : undefined;
      const death = verdict ? { death: deathOf(verdict) } : {};
      const failure: RunFailure =
        measured.status === 'ok'
          ? { code: 'requests-failed', lost, total: workload.numPrompts, ...death }
          : { code: 'bench-failed', ...(measured.error !== undefined ? { detail: measured.error } : {}), ...death };
      await this.updateTrial(trial.id, { status: 'failed', result, ...failureRecord(failure), finishedAt: now });
    } catch (error) {
      if (halted()) return;
      await this.updateTrial(trial.id, { status: 'failed', error: (error as Error).message, finishedAt: new Date().toISOString() });
    }
  }

  /**
   * Weights into the host's HF cache before a timed launch, once per host and model. True when every model of the
   * trial is on the box, so the server can run offline and without the token.
   */
  private async prefetch(hostId: string, box: BoxTransport, trial: Trial): Promise<boolean> {
    const models = [trial.config.model, ...(trial.config.speculative?.draftModel ? [trial.config.speculative.draftModel] : [])];
    // Docker mode has no engine environment on the box to download with; its containers fetch what they need.
    if (trial.mode === 'docker') return false;
    let allLocal = true;
    for (const model of models) {
      const key = `${hostId}\n${model}`;
      // A server of the same model waits for a download in progress rather than starting online beside it.
      let download = this.prefetched.get(key);
      if (!download) {
        download = this.download(hostId, box, trial, model);
        this.prefetched.set(key, download);
      }
      allLocal = (await download) && allLocal;
    }
    return allLocal;
  }

  private async download(hostId: string, box: BoxTransport, trial: Trial, model: string): Promise<boolean> {
    this.emit({ kind: 'log', text: `Prefetching ${model} on ${this.deps.hostLabel(hostId)}\n` });
    await this.project.journal({ event: 'prefetch', hostId, model });
    let local = true;
    try {
      await prefetchModel(box, {
        engine: trial.engine,
        version: trial.version,
        model,
        // The user's Hugging Face token when one is stored; anonymous otherwise (public models need none).
        ...((await this.deps.resolveSecret?.('hf-token')) ? { hfTokenRef: 'hf-token' } : {}),
        resolveSecret: async (ref) => (this.deps.resolveSecret ? this.deps.resolveSecret(ref) : null),
      });
    } catch (error) {
      // The launch then reports what is wrong with the model (gated, unknown) in the engine's own words.
      this.emit({ kind: 'log', text: `Prefetch of ${model} failed: ${(error as Error).message}\n` });
      local = false;
    }
    await this.project.journal({ event: 'prefetched', hostId, model });
    return local;
  }

  /** The host's inventory, read once per run (null when it cannot be read: the results then lack that provenance). */
  private inventoryOf(hostId: string, box: BoxTransport): Promise<ProbeInventory | null> {
    let inventory = this.inventories.get(hostId);
    if (!inventory) {
      inventory = collectInventory(boxCommandRunner(box)).catch(() => null);
      this.inventories.set(hostId, inventory);
    }
    return inventory;
  }

  /** The study's cancel and, for a trial in a batch job, that job's end. */
  private signalFor(site: ServerSite): AbortSignal | undefined {
    if (!site.signal) return this.opts.signal;
    return this.opts.signal ? AbortSignal.any([this.opts.signal, site.signal]) : site.signal;
  }

  private workloadOf(id: string): Workload {
    const all = [this.study.workloads.primary, ...this.study.workloads.generalisation];
    const found = all.find((w) => w.id === id);
    if (!found) throw new ServelabError('INTERNAL', `The study has no workload "${id}".`);
    return found;
  }

  private async updateTrial(id: string, patch: Partial<Trial>): Promise<void> {
    let updated: Trial | undefined;
    this.state = {
      ...this.state,
      trials: this.state.trials.map((t) => {
        if (t.id !== id) return t;
        updated = { ...t, ...patch };
        return updated;
      }),
    };
    if (!updated) return;
    // A finished trial's benchmark output is on disk before anyone is told it finished, for studies:trialLogs.
    if (updated.status === 'done' || updated.status === 'failed') await this.logFiles.flush();
    await this.save({ event: 'trial', id, status: updated.status, ...(updated.serverId ? { serverId: updated.serverId } : {}), ...(updated.error ? { error: updated.error } : {}) });
    this.emit({ kind: 'trial', trial: updated });
  }

  private async save(journalEvent: Record<string, unknown>): Promise<void> {
    // The project file first: the journal never says a trial finished that the project does not hold.
    await this.project.save(this.state);
    await this.project.journal(journalEvent);
    this.emit({ kind: 'state', state: this.state });
  }
}

/** What killed a server, for a trial's failure: the log's class and the line that says so (none: the process ended). */
function deathOf(verdict: LogVerdict | undefined): ServerDeath {
  if (!verdict) return {};
  return { class: verdict.class, ...(verdict.evidence ? { evidence: verdict.evidence } : {}) };
}

/**
 * Why a server was not ready: the log's verdict the launcher attached to its error (a server that ended or timed
 * out), else the error as raised (stopped, or the box went away).
 */
function notReady(error: unknown, server: RunningServer): RunFailure {
  const details = error instanceof ServelabError ? (error.details as { classification?: unknown; evidence?: unknown } | undefined) : undefined;
  if (typeof details?.classification === 'string') {
    return { code: 'not-ready', death: { class: details.classification, ...(typeof details.evidence === 'string' && details.evidence ? { evidence: details.evidence } : {}) } };
  }
  if (server.classification) return { code: 'not-ready', death: deathOf(server.classification) };
  return { code: 'not-ready', detail: (error as Error).message };
}
