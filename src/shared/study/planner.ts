import { getAdapter } from '../engines/adapters';
import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import { pinFileRefs } from '../engines/config-files';
import { sendSeconds } from '../bench/arrival';
import type { Workload } from '../bench/workload';
import { launchCommandOf } from './command-display';
import { BYTES_PER_PARAM, knownModel, preflightRefusal, weightPrecisionOf } from './preflight';
import { refusalRecord } from './report/problem-words';
import { configGpuCount, trialGpuCount, type Candidate, type ConfigPatch, type EngineChoice, type StudyDefinition, type Trial } from './study';
import type { PlanContext } from './plan-context';
import { placementHosts } from './gpu-placement';
import { simulateSchedule, type ScheduledServer } from './schedule-simulation';
import { warmupRequests } from '../bench/warmup';
import { priorRunCvPct } from './noise';

/**
 * Expands a study definition into trials: one server config × one workload × one repeat each. Trials of the same
 * server config share a `serverKey`, so the scheduler launches each config once and runs all its workloads on it.
 */

export interface BestConfig {
  engine: EngineId;
  version: string;
  mode: 'env' | 'docker';
  config: ServerConfig;
  serverKey: string;
  /** The candidate ids kept: the engine choice's, then each stage's winner. */
  path: string[];
  objective: number | null;
}

export const ENGINE_STAGE_ID = 'engine';
export const GRID_STAGE_ID = 'grid';
export const GENERALISATION_STAGE_ID = 'generalisation';

// ---------------------------------------------------------------------------------------------------------------
// Server keys

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** 64 bits of a string hash (cyrb53's mixing on two 32-bit lanes): enough to tell a study's configs apart. */
export function hash64(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/**
 * Canonical key of a server launch: engine, version, mode and config (model included; host and port are not part of
 * it). A file the config names counts by its pinned checksum (the planner pins every reference), so a changed file is
 * another launch.
 */
export function serverKeyOf(engine: EngineId, version: string, mode: 'env' | 'docker', config: ServerConfig): string {
  const { host: _host, port: _port, extraArgs, env, ...rest } = config;
  const normalized = {
    ...rest,
    // Absent and empty mean the same launch.
    extraArgs: extraArgs && extraArgs.length > 0 ? extraArgs : undefined,
    env: env && Object.keys(env).length > 0 ? env : undefined,
  };
  return hash64(canonicalJson({ engine, version, mode, config: normalized }));
}

// ---------------------------------------------------------------------------------------------------------------
// Configs

/** `config` with `patch` on top: set fields replace, extra args append, environment variables merge. */
export function applyPatch(config: ServerConfig, patch: ConfigPatch, model: string = config.model): ServerConfig {
  const out: ServerConfig = { ...config, model };
  for (const [key, value] of Object.entries(patch) as [keyof ConfigPatch, unknown][]) {
    if (value === undefined || key === 'extraArgs' || key === 'env') continue;
    (out as Record<string, unknown>)[key] = value;
  }
  out.extraArgs = [...(config.extraArgs ?? []), ...(patch.extraArgs ?? [])];
  out.env = { ...(config.env ?? {}), ...(patch.env ?? {}) };
  return out;
}

/** The engine choice at its defaults: the study's model and the choice's own settings (files pinned to the study's). */
export function engineBaseConfig(study: StudyDefinition, choice: EngineChoice): ServerConfig {
  return pinFileRefs(applyPatch({ model: study.model.id, extraArgs: [], env: {} }, choice.config ?? {}), study.files);
}

/** A candidate on top of `config`: its settings and model, the files it names pinned to the study's. */
export function candidateConfig(study: StudyDefinition, config: ServerConfig, candidate: Candidate): ServerConfig {
  return pinFileRefs(applyPatch(config, candidate.config ?? {}, candidateModel(study, candidate, config.model)), study.files);
}

/** The model a candidate serves: its variant's checkpoint, or the one it builds on. */
export function candidateModel(study: StudyDefinition, candidate: Candidate, current: string): string {
  if (candidate.variant === undefined) return current;
  return study.model.variants.find((v) => v.id === candidate.variant)?.model ?? current;
}

/** `vllm-0.11.0`; a docker choice listed beside the same version in an environment gets `-docker`. */
export function engineCandidateId(study: StudyDefinition, choice: EngineChoice): string {
  const id = `${choice.engine}-${choice.version}`;
  const twin = study.engines.some((e) => e !== choice && e.engine === choice.engine && e.version === choice.version);
  return twin && choice.mode === 'docker' ? `${id}-docker` : id;
}

export function engineLabel(choice: Pick<EngineChoice, 'engine' | 'version' | 'mode'>): string {
  return `${getAdapter(choice.engine).displayName} ${choice.version}${choice.mode === 'docker' ? ' (docker)' : ''}`;
}

export function bestConfigOf(choice: Pick<EngineChoice, 'engine' | 'version' | 'mode'>, config: ServerConfig, path: string[], objective: number | null): BestConfig {
  return {
    engine: choice.engine,
    version: choice.version,
    mode: choice.mode,
    config,
    serverKey: serverKeyOf(choice.engine, choice.version, choice.mode, config),
    path,
    objective,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Trials

interface TrialSpec {
  stageId: string;
  candidateId: string;
  /** The id's candidate part: the candidate id, or the grid combination. */
  candidatePath: string;
  label: string;
  engine: EngineId;
  version: string;
  mode: 'env' | 'docker';
  config: ServerConfig;
}

function trialsFor(study: StudyDefinition, spec: TrialSpec, workloads: readonly Workload[], ctx: PlanContext): Trial[] {
  const serverKey = serverKeyOf(spec.engine, spec.version, spec.mode, spec.config);
  const command = launchCommandOf(spec.engine, spec.version, spec.config, study.files);
  const gpuCount = configGpuCount(study, spec.engine, spec.config);
  const trials: Trial[] = [];
  for (const workload of workloads) {
    const refusal = preflightRefusal(study, { engine: spec.engine, version: spec.version, config: spec.config, workloadId: workload.id }, ctx);
    for (let repeat = 1; repeat <= study.repeats; repeat++) {
      trials.push({
        id: `${spec.stageId}/${spec.candidatePath}/${workload.id}/r${repeat}`,
        stageId: spec.stageId,
        candidateId: spec.candidateId,
        label: spec.label,
        engine: spec.engine,
        version: spec.version,
        mode: spec.mode,
        config: spec.config,
        serverKey,
        command,
        gpuCount,
        workloadId: workload.id,
        repeat,
        status: refusal === null ? 'planned' : 'rejected',
        ...(refusal === null ? {} : refusalRecord(refusal)),
      });
    }
  }
  return trials;
}

/** Engine selection: every engine choice at its defaults (+ its `config` patch), × primary workload × repeats. */
export function planEngineStage(study: StudyDefinition, ctx: PlanContext): Trial[] {
  return study.engines.flatMap((choice) => {
    const id = engineCandidateId(study, choice);
    return trialsFor(
      study,
      { stageId: ENGINE_STAGE_ID, candidateId: id, candidatePath: id, label: engineLabel(choice), engine: choice.engine, version: choice.version, mode: choice.mode, config: engineBaseConfig(study, choice) },
      [study.workloads.primary],
      ctx,
    );
  });
}

/** Greedy: the stage's candidates applied on top of `best` (a stage whose `engines` excludes best.engine → []). */
export function planStage(study: StudyDefinition, stageIndex: number, best: BestConfig, ctx: PlanContext): Trial[] {
  const stage = study.stages[stageIndex];
  if (!stage) throw new RangeError(`the study has no stage ${stageIndex}`);
  if (stage.engines && !stage.engines.includes(best.engine)) return [];
  return stage.candidates.flatMap((candidate) =>
    trialsFor(
      study,
      {
        stageId: stage.id,
        candidateId: candidate.id,
        candidatePath: candidate.id,
        label: candidate.label,
        engine: best.engine,
        version: best.version,
        mode: best.mode,
        config: candidateConfig(study, best.config, candidate),
      },
      [study.workloads.primary],
      ctx,
    ),
  );
}

export interface GridCombination {
  choice: EngineChoice;
  /** `vllm-0.11.0~quantization=fp8~speculative=s4`: the engine's id, then each stage's pick other than "unchanged". */
  candidatePath: string;
  /** The candidate ids kept, as in BestConfig.path. */
  path: string[];
  label: string;
  config: ServerConfig;
}

/** Every engine × the cartesian product of one candidate per applicable stage (or none: "unchanged"). */
export function gridCombinations(study: StudyDefinition): GridCombination[] {
  const out: GridCombination[] = [];
  for (const choice of study.engines) {
    const engineId = engineCandidateId(study, choice);
    const stages = study.stages.filter((s) => !s.engines || s.engines.includes(choice.engine));
    let partial: { picks: { stageId: string; candidate: Candidate }[]; config: ServerConfig }[] = [{ picks: [], config: engineBaseConfig(study, choice) }];
    for (const stage of stages) {
      const next: typeof partial = [];
      for (const p of partial) {
        next.push(p);
        for (const candidate of stage.candidates) {
          next.push({
            picks: [...p.picks, { stageId: stage.id, candidate }],
            config: candidateConfig(study, p.config, candidate),
          });
        }
      }
      partial = next;
    }
    for (const p of partial) {
      out.push({
        choice,
        candidatePath: [engineId, ...p.picks.map((x) => `${x.stageId}=${x.candidate.id}`)].join('~'),
        path: [engineId, ...p.picks.map((x) => x.candidate.id)],
        label: p.picks.length === 0 ? `${engineLabel(choice)} at its defaults` : `${engineLabel(choice)} + ${p.picks.map((x) => x.candidate.label).join(' + ')}`,
        config: p.config,
      });
    }
  }
  return out;
}

/** Grid: every engine × the cartesian product of one candidate per applicable stage (plus "unchanged" per stage). */
export function planGrid(study: StudyDefinition, ctx: PlanContext): Trial[] {
  return gridCombinations(study).flatMap((combo) =>
    trialsFor(
      study,
      {
        stageId: GRID_STAGE_ID,
        candidateId: combo.candidatePath,
        candidatePath: combo.candidatePath,
        label: combo.label,
        engine: combo.choice.engine,
        version: combo.choice.version,
        mode: combo.choice.mode,
        config: combo.config,
      },
      [study.workloads.primary],
      ctx,
    ),
  );
}

/** The generalisation scenarios, then the primary workload unless one of them is it. */
export function generalisationWorkloads(study: StudyDefinition): Workload[] {
  const list = [...study.workloads.generalisation];
  if (!list.some((w) => w.id === study.workloads.primary.id)) list.push(study.workloads.primary);
  return list;
}

/** Baseline (first engine choice at defaults) and the recommendation over every generalisation workload (and primary). */
export function planGeneralisation(study: StudyDefinition, baseline: BestConfig, recommended: BestConfig, ctx: PlanContext): Trial[] {
  const workloads = generalisationWorkloads(study);
  const side = (candidateId: 'baseline' | 'recommended', best: BestConfig, title: string): Trial[] =>
    trialsFor(
      study,
      {
        stageId: GENERALISATION_STAGE_ID,
        candidateId,
        candidatePath: candidateId,
        label: `${title}: ${engineLabel(best)}${best.path.length > 1 ? ` + ${best.path.slice(1).join(' + ')}` : ''}`,
        engine: best.engine,
        version: best.version,
        mode: best.mode,
        config: best.config,
      },
      workloads,
      ctx,
    );
  return [...side('baseline', baseline, 'Baseline'), ...side('recommended', recommended, 'Recommended')];
}

// ---------------------------------------------------------------------------------------------------------------
// Estimate

export interface PlanEstimate {
  trials: number;
  rejected: number;
  /** Distinct server configs to start (rejected trials start nothing). */
  launches: number;
  /** Runs the decision rule is expected to add where a comparison stays undecided (each with its own launch). */
  expectedRepeats: number;
  /** Launches, warm-ups and benchmarks, expected repeats included, each times the GPUs its trial holds. */
  gpuSeconds: number;
  /** Benchmark seconds per trial id (0 for rejected trials). */
  perTrialSeconds: Record<string, number>;
  /** Seconds per server configuration (`serverKey`) end to end: its launch, warm-ups and benchmarks (rejected trials start none). */
  perServerSeconds: Record<string, number>;
  /**
   * Wall-clock seconds from the first launch to the last result: the servers list-scheduled on the study's GPUs by
   * the run's own placement (`simulateSchedule`), then each undecided comparison's expected extra rounds. Absent when
   * the study's GPUs are not known.
   */
  wallSeconds?: number;
  /** The most GPUs that simulated schedule holds at once. */
  peakGpus?: number;
}

// Peak memory bandwidth (bytes/s) and dense BF16 tensor throughput (FLOP/s) of the GPU types a study may name.
const GPU_SPEED: Record<string, { bandwidth: number; flops: number }> = {
  a100: { bandwidth: 2.04e12, flops: 312e12 },
  h100: { bandwidth: 3.35e12, flops: 989e12 },
  h200: { bandwidth: 4.8e12, flops: 989e12 },
};
// What serving engines reach of those peaks, roughly.
const BANDWIDTH_EFFICIENCY = 0.8;
const FLOPS_EFFICIENCY = 0.55;
/** Mean tokens of a ShareGPT conversation after vLLM's length filter, roughly. */
const SHAREGPT_TOKENS = { input: 230, output: 200 };
const UNBOUNDED_BATCH = 256;
const FALLBACK_PARAMS = 8e9;

function requestTokens(workload: Workload): { input: number; output: number } {
  const d = workload.dataset;
  if (d.kind === 'random') return { input: d.inputLen + (d.prefixLen ?? 0), output: d.outputLen };
  return { input: SHAREGPT_TOKENS.input, output: d.outputLen ?? SHAREGPT_TOKENS.output };
}

function benchSeconds(study: StudyDefinition, trial: Trial, workload: Workload): number {
  const gpu = GPU_SPEED[study.demoLab?.gpu ?? 'h100'] ?? { bandwidth: 3.35e12, flops: 989e12 };
  const tp = trial.config.tensorParallelSize ?? 1;
  const params = knownModel(trial.config.model)?.params ?? FALLBACK_PARAMS;
  const weightBytes = params * BYTES_PER_PARAM[weightPrecisionOf(study, trial.config)];
  const bandwidth = gpu.bandwidth * BANDWIDTH_EFFICIENCY * tp;
  const flops = gpu.flops * FLOPS_EFFICIENCY * tp;
  const { input, output } = requestTokens(workload);
  const batch = Math.max(1, Math.min(workload.numPrompts, workload.maxConcurrency ?? UNBOUNDED_BATCH));
  // A decode step reads the weights once, or is compute-bound once the batch is large.
  const step = Math.max(weightBytes / bandwidth, (2 * params * batch) / flops) + 0.002;
  // Speculative decoding yields a few tokens per step when drafts are accepted.
  const tokensPerStep = trial.config.speculative ? 2 : 1;
  const decode = ((workload.numPrompts * output) / batch / tokensPerStep) * step;
  const prefill = (workload.numPrompts * input * 2 * params) / flops;
  // A paced or ramped client sends its last request only after `sendSeconds` (arrival.ts), however fast the server.
  return Math.max(decode + prefill, sendSeconds(workload));
}

export function launchSeconds(study: StudyDefinition, trial: Trial): number {
  const params = knownModel(trial.config.model)?.params ?? FALLBACK_PARAMS;
  const weightsGB = (params * BYTES_PER_PARAM[weightPrecisionOf(study, trial.config)]) / 1e9;
  const engineSetup = trial.engine === 'vllm' ? 25 : trial.engine === 'trtllm' ? 45 : 20;
  return 15 + weightsGB * 0.25 + engineSetup + (trial.config.torchCompile ? 60 : 0) + (trial.config.speculative ? 5 : 0);
}

/**
 * Runs per configuration a comparison is expected to take: as many as bring the interval of a difference (at the
 * published run-to-run CV) down to the margin, at least two — an effect near the margin needs a second look however
 * small the noise — and at most the repeat budget.
 */
function expectedRunsPerConfig(study: StudyDefinition, trial: Trial, workload: Workload): number {
  const halfWidthOneRun = 1.96 * Math.SQRT2 * priorRunCvPct(trial, workload.maxConcurrency);
  const margin = Math.max(study.goal.marginPct, 0.1);
  const budget = Math.max(study.goal.repeatBudget, study.repeats);
  return Math.min(budget, Math.max(2, Math.ceil((halfWidthOneRun / margin) ** 2)));
}

/**
 * A rough duration of the plan on the study's GPU type, to show before anything runs; never a measurement. With the
 * study's GPUs it also says how long the plan takes on them, servers side by side as the runner places them.
 */
export function estimatePlan(study: StudyDefinition, trials: Trial[], hardware?: PlanContext): PlanEstimate {
  const workloads = new Map([study.workloads.primary, ...study.workloads.generalisation].map((w) => [w.id, w]));
  const perTrialSeconds: Record<string, number> = {};
  /** Per server: its GPUs and its seconds end to end (launch, warm-ups, benchmarks), for the schedule. */
  const servers = new Map<string, ScheduledServer>();
  let rejected = 0;
  let benchTotal = 0;
  let warmupTotal = 0;
  let launchTotal = 0;
  const warmed = new Set<string>();
  /** Per greedy stage: the slowest run and the most runs per configuration its comparison may need. */
  const comparisons = new Map<string, { seconds: number; launch: number; warmup: number; runs: number; gpus: number }>();
  for (const trial of trials) {
    const workload = workloads.get(trial.workloadId);
    if (trial.status === 'rejected' || !workload) {
      if (trial.status === 'rejected') rejected++;
      perTrialSeconds[trial.id] = 0;
      continue;
    }
    const seconds = Math.round(benchSeconds(study, trial, workload) * 10) / 10;
    const gpus = trialGpuCount(study, trial);
    perTrialSeconds[trial.id] = seconds;
    benchTotal += seconds * gpus;
    const warmup = (seconds * warmupRequests(workload)) / workload.numPrompts;
    let server = servers.get(trial.serverKey);
    if (!server) {
      // Each distinct configuration launches once, holding its GPUs while it starts.
      server = { key: trial.serverKey, gpus, seconds: launchSeconds(study, trial) };
      servers.set(trial.serverKey, server);
      launchTotal += server.seconds * gpus;
    }
    server.seconds += seconds;
    if (!warmed.has(`${trial.serverKey}\n${workload.id}`)) {
      warmed.add(`${trial.serverKey}\n${workload.id}`);
      warmupTotal += warmup * gpus;
      server.seconds += warmup;
    }
    if (trial.stageId !== GRID_STAGE_ID && trial.stageId !== GENERALISATION_STAGE_ID && workload.id === study.workloads.primary.id) {
      const c = comparisons.get(trial.stageId) ?? { seconds: 0, launch: 0, warmup: 0, runs: 1, gpus: 1 };
      comparisons.set(trial.stageId, {
        seconds: Math.max(c.seconds, seconds),
        launch: Math.max(c.launch, launchSeconds(study, trial)),
        warmup: Math.max(c.warmup, warmup),
        runs: Math.max(c.runs, expectedRunsPerConfig(study, trial, workload)),
        gpus: Math.max(c.gpus, gpus),
      });
    }
  }
  // Each undecided comparison runs its two configurations again, each run on a fresh, warmed-up launch.
  let expectedRepeats = 0;
  let repeatTotal = 0;
  for (const c of comparisons.values()) {
    const extra = 2 * (c.runs - 1);
    expectedRepeats += extra;
    repeatTotal += extra * (c.seconds + c.launch + c.warmup) * c.gpus;
  }
  return {
    trials: trials.length,
    rejected,
    launches: servers.size,
    expectedRepeats,
    gpuSeconds: Math.round(benchTotal + warmupTotal + launchTotal + repeatTotal),
    perTrialSeconds,
    perServerSeconds: Object.fromEntries([...servers.values()].map((server) => [server.key, Math.round(server.seconds)])),
    ...(hardware && hardware.gpus.length > 0 ? wallClock(study, hardware, [...servers.values()], [...comparisons.values()]) : {}),
  };
}

/**
 * The plan's servers on the study's GPUs, then each undecided comparison's extra rounds: a round runs its two
 * configurations again (fresh launch, warm-up, benchmark) after the decision that asked for it, so rounds follow one
 * another.
 */
function wallClock(
  study: StudyDefinition,
  hardware: PlanContext,
  servers: ScheduledServer[],
  comparisons: Array<{ seconds: number; launch: number; warmup: number; runs: number; gpus: number }>,
): { wallSeconds: number; peakGpus: number } {
  const hosts = placementHosts(hardware);
  const first = simulateSchedule(hosts, servers, study.parallelism);
  let wallSeconds = first.wallSeconds;
  let peakGpus = first.peakGpus;
  for (const c of comparisons) {
    const round = c.seconds + c.launch + c.warmup;
    const pair = simulateSchedule(hosts, [{ key: 'a', gpus: c.gpus, seconds: round }, { key: 'b', gpus: c.gpus, seconds: round }], study.parallelism);
    wallSeconds += (c.runs - 1) * pair.wallSeconds;
    if (c.runs > 1) peakGpus = Math.max(peakGpus, pair.peakGpus);
  }
  return { wallSeconds: Math.round(wallSeconds), peakGpus };
}
