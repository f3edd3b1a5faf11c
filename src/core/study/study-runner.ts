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
import { GpuMemorySampler } from './gpu-memory-sampler';
import type { GpuMemorySample } from '../../shared/study/gpu-memory';
import type { LogVerdict } from '../../shared/engines/types';
import type { RunFailure, ServerDeath } from '../../shared/study/trial-problem';
import { failureRecord, nvlinkWarningWords } from '../../shared/study/report/problem-words';
import { nvlinkWarning } from '../../shared/study/preflight';
import { reportText } from '../../shared/study/report/text';
import { KNOWN_GPUS, clusterPlanContext } from '../../shared/study/slurm-plan';

export type StudyBox = BoxTransport & { release(): void };

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
  private readonly prefetched = new Map<string, boolean>();
  private ctx: PlanContext = { gpus: [] };
  private allocator: GpuAllocator | undefined;
  /** Each host's inventory, read once per run for the results' provenance. */
  private readonly inventories = new Map<string, Promise<ProbeInventory | null>>();
  private readonly logFiles: TrialLogFiles;
  private readonly gpuFile: GpuMemoryFile;
  private sampler: GpuMemorySampler | undefined;
  /** Trials an earlier run left unfinished and this run runs again: their launches say so in the journal. */
  private readonly interrupted = new Set<string>();

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
      await this.stopMonitoring();
      for (const box of this.boxes.values()) box.release();
    }
  }

  private async finish(status: StudyState['status'], message?: string): Promise<StudyState> {
    // Logs and samples are on disk before the final state says the study ended, so a reader finds them complete.
    await this.stopMonitoring();
    const trials = this.state.trials.map((t) => (t.status === 'running' || (status !== 'done' && t.status === 'planned' && this.cancelled) ? { ...t, status: 'cancelled' as const } : t));
    this.state = { ...this.state, trials, status, finishedAt: new Date().toISOString(), ...(message ? { message } : {}) };
    await this.save({ event: 'study-finished', status, ...(message ? { message } : {}) });
    return this.state;
  }

  // --- monitoring --------------------------------------------------------------------------------------------

  private startGpuSampler(): void {
    this.sampler = new GpuMemorySampler({
      hosts: [...this.boxes].map(([hostId, box]) => ({ hostId, box })),
      ...(this.deps.gpuSampleIntervalMs !== undefined ? { intervalMs: this.deps.gpuSampleIntervalMs } : {}),
      onSample: (sample) => {
        this.gpuFile.append(sample);
        this.emit({ kind: 'gpu', sample });
      },
    });
    this.sampler.start();
  }

  private async stopMonitoring(): Promise<void> {
    await this.sampler?.stop();
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
      const wanted = [...this.study.engines.map((e) => ({ engine: e.engine, version: e.version, mode: e.mode }))];
      if (!wanted.some((w) => w.engine === 'vllm' && w.version === this.study.clientVersion && w.mode === 'env')) {
        wanted.push({ engine: 'vllm', version: this.study.clientVersion, mode: 'env' });
      }
      for (const w of wanted) {
        this.phase(`Installing ${w.engine} ${w.version}${w.mode === 'docker' ? ' (docker image)' : ''} on ${this.deps.hostLabel(host.hostId)}`);
        const result = await installer.install(w.engine, w.version, { mode: w.mode, onLog: (text) => this.emit({ kind: 'log', text }) });
        if (!result.ok) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not install ${w.engine} ${w.version} on ${this.deps.hostLabel(host.hostId)}: ${result.message}`);
      }
      if (this.needsShareGpt()) await this.ensureShareGpt(host.hostId, box);
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
    const allocator = this.allocator as GpuAllocator;
    const groups = launchOrder([...byServer.values()].map((group) => ({ group, gpus: trialGpuCount(this.study, group[0]!) })));
    await Promise.all(
      groups.map(async ({ group, gpus }) => {
        let set: GpuSet | null;
        try {
          set = await allocator.acquire(gpus, this.opts.signal);
        } catch (error) {
          // Pre-flight refuses a layout larger than every host; one that gets here anyway fails rather than waits.
          const failure: RunFailure = { code: 'launch-refused', detail: (error as Error).message };
          for (const t of group) await this.updateTrial(t.id, { status: 'failed', ...failureRecord(failure), finishedAt: new Date().toISOString() });
          return;
        }
        if (!set) return;
        try {
          await this.runServer(group, set, warmups);
        } finally {
          allocator.release(set);
        }
      }),
    );
  }

  private async runServer(group: Trial[], placed: GpuSet, warmups: ReadonlySet<string>): Promise<void> {
    if (this.cancelled) return;
    const first = group[0]!;
    const box = this.boxes.get(placed.hostId) as StudyBox;
    const where = `${this.deps.hostLabel(placed.hostId)} GPU ${placed.gpus.join(',')}`;
    const offline = await this.prefetch(placed.hostId, box, first);
    if (this.cancelled) return;

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
      const failure: RunFailure = { code: 'launch-refused', detail: (error as Error).message };
      for (const t of group) await this.updateTrial(t.id, { status: 'failed', ...failureRecord(failure), hostId: placed.hostId, gpus: placed.gpus, finishedAt: new Date().toISOString() });
      return;
    }
    await this.recordPlacedFiles(first.serverKey, placed.hostId, placedFiles);
    launched.serverId = server.serverId;
    // The host's inventory (the results' provenance) is read while the server starts, not before its first benchmark.
    void this.inventoryOf(placed.hostId, box);
    for (const text of early.splice(0)) this.serverLog(server.serverId, text);
    this.live.add(server);
    const startedAt = new Date().toISOString();
    for (const t of group) await this.updateTrial(t.id, { status: 'running', hostId: placed.hostId, gpus: placed.gpus, serverId: server.serverId, startedAt });
    await this.project.journal({ event: 'server-launched', serverId: server.serverId, serverKey: first.serverKey, hostId: placed.hostId, gpus: placed.gpus, jobId: server.record.jobId });
    try {
      try {
        await server.waitReady(this.study.readinessTimeoutSeconds * 1000);
        await this.project.journal({ event: 'server-ready', serverId: server.serverId });
      } catch (error) {
        if (this.cancelled) return;
        const failure = notReady(error, server);
        for (const t of group) await this.updateTrial(t.id, { status: 'failed', ...failureRecord(failure), finishedAt: new Date().toISOString() });
        return;
      }
      for (const t of group) {
        if (this.cancelled) return;
        if (server.state !== 'ready') {
          const verdict = server.classification;
          await this.updateTrial(t.id, { status: 'failed', ...failureRecord({ code: 'died-before-workload', death: deathOf(verdict) }), finishedAt: new Date().toISOString() });
          continue;
        }
        if (warmups.has(t.id)) await this.warmUp(t, box, server, placed.hostId);
        if (this.cancelled) return;
        await this.measure(t, box, server, placed.hostId);
      }
    } finally {
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
  private async warmUp(trial: Trial, box: StudyBox, server: RunningServer, hostId: string): Promise<void> {
    const workload = warmupWorkload(this.workloadOf(trial.workloadId));
    const started = Date.now();
    this.benchLog(trial.id, server.serverId, `Warm-up: ${workload.numPrompts} requests at the workload's concurrency; its numbers are discarded\n`);
    const inventory = await this.inventoryOf(hostId, box);
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
        ...(this.opts.signal ? { signal: this.opts.signal } : {}),
        onLog: (text) => this.benchLog(trial.id, server.serverId, text),
      });
      const measured = await prepared.run();
      if (measured.status !== 'ok') error = measured.error ?? 'no result';
    } catch (e) {
      error = (e as Error).message;
    }
    if (this.cancelled) return;
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    if (error !== undefined) this.benchLog(trial.id, server.serverId, `Warm-up failed: ${error}\n`);
    await this.updateTrial(trial.id, { warmup: { requests: workload.numPrompts, seconds, ...(error !== undefined ? { error } : {}) } });
  }

  private async measure(trial: Trial, box: StudyBox, server: RunningServer, hostId: string): Promise<void> {
    const workload = this.workloadOf(trial.workloadId);
    const shareGptSource: ShareGptSource | undefined = this.deps.isDemo(hostId) ? { kind: 'synthetic' } : undefined;
    const inventory = await this.inventoryOf(hostId, box);
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
        ...(this.opts.signal ? { signal: this.opts.signal } : {}),
        ...(inventory ? { inventory } : {}),
        onLog: (text) => this.benchLog(trial.id, server.serverId, text),
      });
      await this.project.journal({ event: 'measuring', id: trial.id, runId, serverId: server.serverId });
      const measured = await prepared.run();
      if (this.cancelled) return;
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
      if (this.cancelled) return;
      await this.updateTrial(trial.id, { status: 'failed', error: (error as Error).message, finishedAt: new Date().toISOString() });
    }
  }

  /**
   * Weights into the host's HF cache before a timed launch, once per host and model. True when every model of the
   * trial is on the box, so the server can run offline and without the token.
   */
  private async prefetch(hostId: string, box: StudyBox, trial: Trial): Promise<boolean> {
    const models = [trial.config.model, ...(trial.config.speculative?.draftModel ? [trial.config.speculative.draftModel] : [])];
    // Docker mode has no engine environment on the box to download with; its containers fetch what they need.
    if (trial.mode === 'docker') return false;
    let allLocal = true;
    for (const model of models) {
      const key = `${hostId}\n${model}`;
      const earlier = this.prefetched.get(key);
      if (earlier !== undefined) {
        allLocal &&= earlier;
        continue;
      }
      this.prefetched.set(key, false);
      this.emit({ kind: 'log', text: `Prefetching ${model} on ${this.deps.hostLabel(hostId)}\n` });
      await this.project.journal({ event: 'prefetch', hostId, model });
      try {
        await prefetchModel(box, {
          engine: trial.engine,
          version: trial.version,
          model,
          // The user's Hugging Face token when one is stored; anonymous otherwise (public models need none).
          ...((await this.deps.resolveSecret?.('hf-token')) ? { hfTokenRef: 'hf-token' } : {}),
          resolveSecret: async (ref) => (this.deps.resolveSecret ? this.deps.resolveSecret(ref) : null),
        });
        this.prefetched.set(key, true);
      } catch (error) {
        // The launch then reports what is wrong with the model (gated, unknown) in the engine's own words.
        this.emit({ kind: 'log', text: `Prefetch of ${model} failed: ${(error as Error).message}\n` });
        allLocal = false;
      }
      await this.project.journal({ event: 'prefetched', hostId, model });
    }
    return allLocal;
  }

  /** The host's inventory, read once per run (null when it cannot be read: the results then lack that provenance). */
  private inventoryOf(hostId: string, box: StudyBox): Promise<ProbeInventory | null> {
    let inventory = this.inventories.get(hostId);
    if (!inventory) {
      inventory = collectInventory(boxCommandRunner(box)).catch(() => null);
      this.inventories.set(hostId, inventory);
    }
    return inventory;
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
