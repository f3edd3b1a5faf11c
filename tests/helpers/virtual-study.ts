// A whole study in virtual time: the product's study loop (nextStudyStep) decides what to plan, run and keep, and the
// simulated box's model measures each launch and workload (resources/simbox/lib/virtual-lab.mjs) without servers,
// SSH or the wall clock, so many seeded runs of a study take seconds. The results go through the same reading as a
// measured run's (the client's --save-result document, imported), so decisions read them as they read real ones.
import { launchVirtual, virtualBox, type VirtualBox } from '../../resources/simbox/lib/virtual-lab.mjs';
import { displayFilePath, fileOfRef, fileRefsOf, fileTextOptions } from '../../src/shared/engines/config-files';
import { getAdapter } from '../../src/shared/engines/adapters';
import { warmupWorkload } from '../../src/shared/bench/warmup';
import { describeWorkload, type Workload } from '../../src/shared/bench/workload';
import { METRIC_PERCENTILES, PERCENTILE_METRICS } from '../../src/shared/bench/bench-serve-argv';
import { importResults } from '../../src/shared/results/import-results';
import type { ResultEntry } from '../../src/shared/results/result-entry';
import { launchSeconds } from '../../src/shared/study/planner';
import type { PlanContext } from '../../src/shared/study/plan-context';
import { applyStep, nextStudyStep, type StudyLoopOptions } from '../../src/shared/study/study-loop';
import { objectiveOf, PROJECT_SCHEMA_VERSION, type ProjectFile, type StudyDefinition, type StudyState, type Trial } from '../../src/shared/study/study';
import { metricOf } from '../../src/shared/results/metrics';
import { failureRecord } from '../../src/shared/study/report/problem-words';

export interface VirtualStudyOptions {
  /** The decision rule (the study loop's default when absent). */
  rule?: StudyLoopOptions['rule'];
  /** The box's seed: launch n of the study draws its run-to-run noise from it and n, as the live box does. */
  seed?: number;
  /** false: every server is the calibrated, noise-free model (the "true" numbers). */
  noise?: boolean;
  /** Stop once the recommendation is made (the generalisation pass does not change it). */
  untilRecommendation?: boolean;
}

export interface VirtualStudyRun {
  state: StudyState;
  /** Launches started (refused ones included: a real one holds the GPU until it fails). */
  launches: number;
  /** Virtual seconds of benchmark runs, warm-ups included. */
  benchSeconds: number;
  /** The planner's launch estimate, summed over the launches. */
  launchSeconds: number;
  /** GPU seconds: (bench + launch) × the GPUs a trial holds. */
  gpuSeconds: number;
}

/** The study's GPUs as the planner sees the demo lab's box. */
function planContext(study: StudyDefinition, box: VirtualBox): PlanContext {
  const hostId = study.hosts[0]?.hostId ?? 'demo-lab';
  const gpus = Array.from({ length: box.count }, (_, i) => ({ hostId, index: String(i), name: box.gpuModel.name, memoryMiB: box.gpuModel.memoryMiB, computeCapability: box.gpuModel.computeCap }));
  return { gpus };
}

function workloadOf(study: StudyDefinition, id: string): Workload {
  const found = [study.workloads.primary, ...study.workloads.generalisation].find((w) => w.id === id);
  if (!found) throw new Error(`the study has no workload "${id}"`);
  return found;
}

/** Deterministic timestamps: the study's virtual clock from the epoch. */
const at = (seconds: number) => new Date(Math.round(seconds * 1000)).toISOString();

function resultEntry(json: string, trial: Trial, workload: Workload, seconds: number, n: number): ResultEntry {
  const imported = importResults(json, `${trial.id}/result.json`);
  const parsed = imported.records[0];
  if (!parsed) throw new Error(`the virtual run's result could not be read: ${imported.errors[0]?.message ?? 'no result'}`);
  return {
    id: `res-${n.toString(36)}-${((n * 2654435761) >>> 0).toString(16).padStart(8, '0')}`,
    kind: 'measured',
    status: 'ok',
    addedAt: at(seconds),
    title: `${describeWorkload(workload)} · ${trial.engine} ${trial.version} · ${trial.config.model} (virtual)`,
    result: { ...parsed, provenance: { ...parsed.provenance, engine: trial.engine, engineVersion: trial.version, model: trial.config.model, simulated: true, metadata: { workload: workload.id } } },
  };
}

/**
 * The virtual server of a configuration, launched as the runner launches it (the adapter's command and files, the
 * study's files at their box path).
 */
function launchConfig(study: StudyDefinition, box: VirtualBox, launched: Pick<Trial, 'engine' | 'version' | 'config'>, launch: number, noise: boolean) {
  const { host: _host, port: _port, ...config } = launched.config;
  const built = getAdapter(launched.engine).buildArgv(config, launched.version, fileTextOptions(study.files));
  const studyFiles = fileRefsOf(config).flatMap(({ ref }) => {
    const file = fileOfRef(study.files, ref);
    return file ? [{ path: displayFilePath(ref), content: file.content }] : [];
  });
  return launchVirtual({
    argv: built.argv,
    env: built.env,
    version: launched.version,
    box,
    launch,
    noise,
    files: [...(built.extraFiles ?? []), ...studyFiles],
    clientVersion: study.clientVersion,
    percentileMetrics: PERCENTILE_METRICS,
    metricPercentiles: METRIC_PERCENTILES,
  });
}

/**
 * The objective of a configuration on the study's primary workload as the noise-free model measures it (one run on a
 * fresh server): the "true" value a noisy study's choice is judged by. Null when it does not start or run.
 */
export function trueObjective(study: StudyDefinition, launched: Pick<Trial, 'engine' | 'version' | 'config'>): number | null {
  const box = virtualBox({ gpu: study.demoLab?.gpu ?? 'h100', count: study.demoLab?.count ?? 1 });
  const server = launchConfig(study, box, launched, 0, false);
  if (!server.ok) return null;
  const workload = study.workloads.primary;
  const run = server.run(workload);
  if (!run.ok) return null;
  const probe = { id: 'true/objective', engine: launched.engine, version: launched.version, config: launched.config } as Trial;
  return metricOf({ result: resultEntry(run.json, probe, workload, 0, 1) }, objectiveOf(study.goal.kind).metric);
}

/** The study as a project file in the state its virtual run leaves it (a finished study, to re-run or compare). */
export function virtualProject(study: StudyDefinition, opts: VirtualStudyOptions = {}): ProjectFile {
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: runVirtualStudy(study, opts).state };
}

/** Runs a study from a fresh state to its end, as the runner would on the demo lab. */
export function runVirtualStudy(study: StudyDefinition, opts: VirtualStudyOptions = {}): VirtualStudyRun {
  const box = virtualBox({ gpu: study.demoLab?.gpu ?? 'h100', count: study.demoLab?.count ?? 1, seed: opts.seed ?? 0 });
  const ctx = planContext(study, box);
  let state: StudyState = { status: 'running', trials: [], decisions: [] };
  let launches = 0;
  let bench = 0;
  let launchTotal = 0;
  let clock = 0;
  let measured = 0;
  const update = (id: string, patch: Partial<Trial>) => {
    state = { ...state, trials: state.trials.map((t) => (t.id === id ? { ...t, ...patch } : t)) };
  };

  for (let guard = 0; guard < 10_000; guard++) {
    const step = nextStudyStep(study, state, ctx, opts.rule ? { rule: opts.rule } : {});
    if (step.kind === 'done') {
      state = { ...state, status: 'done', finishedAt: at(clock) };
      break;
    }
    if (step.kind === 'fail') {
      state = { ...state, status: 'failed', message: step.message, finishedAt: at(clock) };
      break;
    }
    if (step.kind !== 'run') {
      state = applyStep(state, step);
      if (step.kind === 'recommend' && opts.untilRecommendation) {
        state = { ...state, status: 'done', finishedAt: at(clock) };
        break;
      }
      continue;
    }
    const warmups = new Set(step.warmups);
    const groups = new Map<string, Trial[]>();
    for (const t of step.trials) groups.set(t.serverKey, [...(groups.get(t.serverKey) ?? []), t]);
    for (const group of groups.values()) {
      const first = group[0] as Trial;
      const server = launchConfig(study, box, first, launches, opts.noise !== false);
      launches++;
      const launchCost = launchSeconds(study, first);
      launchTotal += launchCost;
      clock += launchCost;
      if (!server.ok) {
        // As the runner records it: the server log's verdict (the launcher classifies the log it kept).
        const verdict = getAdapter(first.engine).classifyLog(server.error);
        const death = { class: verdict.class, ...(verdict.evidence ? { evidence: verdict.evidence } : {}) };
        for (const t of group) update(t.id, { status: 'failed', ...failureRecord({ code: 'not-ready', death }), finishedAt: at(clock) });
        continue;
      }
      for (const t of group) {
        const workload = workloadOf(study, t.workloadId);
        if (warmups.has(t.id)) {
          const warm = warmupWorkload(workload);
          const w = server.run(warm);
          bench += w.seconds;
          clock += w.seconds;
          update(t.id, { warmup: { requests: warm.numPrompts, seconds: w.seconds, ...(w.ok ? {} : { error: w.error }) } });
        }
        const r = server.run(workload);
        bench += r.seconds;
        clock += r.seconds;
        if (!r.ok) {
          update(t.id, { status: 'failed', ...failureRecord({ code: 'bench-failed', detail: r.error }), finishedAt: at(clock) });
          continue;
        }
        const result = resultEntry(r.json, t, workload, clock, ++measured);
        const completed = result.result.metrics.completed;
        const lost = typeof completed === 'number' ? workload.numPrompts - completed : 0;
        if (lost > 0) update(t.id, { status: 'failed', result, ...failureRecord({ code: 'requests-failed', lost, total: workload.numPrompts }), finishedAt: at(clock) });
        else update(t.id, { status: 'done', result, finishedAt: at(clock) });
      }
    }
  }
  return { state, launches, benchSeconds: bench, launchSeconds: launchTotal, gpuSeconds: (bench + launchTotal) * study.gpusPerTrial };
}
