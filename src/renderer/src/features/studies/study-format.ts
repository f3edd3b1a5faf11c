import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import { parallelLayoutLabel } from '../../../../shared/engines/parallelism';
import type { EngineId } from '../../../../shared/engines/types';
import { ENGINE_STAGE_ID, GENERALISATION_STAGE_ID, GRID_STAGE_ID } from '../../../../shared/study/planner';
import type { ProjectFile, StageDecision, StudyState, Trial } from '../../../../shared/study/study';
import { formattingLocale, t } from '../../i18n';
import { studyTextOf } from './study-words';
import { withoutProjectSuffix } from '../../../../shared/project-document';
import { gpuPlaceLabel, gpuPlaceOf } from '../../../../shared/study/gpu-memory';

export function engineName(engine: EngineId): string {
  return ENGINE_ADAPTERS[engine]?.displayName ?? engine;
}

/** "45 s", "3 min 20 s", "2 h 5 min": rounded to what a person plans with. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return t('studies.duration.seconds', { s: total });
  const minutes = Math.floor(total / 60);
  if (minutes < 60) {
    const s = total % 60;
    return s === 0 ? t('studies.duration.minutes', { m: minutes }) : t('studies.duration.minutesSeconds', { m: minutes, s });
  }
  const hours = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? t('studies.duration.hours', { h: hours }) : t('studies.duration.hoursMinutes', { h: hours, m });
}

export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(formattingLocale(), { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function formatOpenedAt(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(formattingLocale(), { dateStyle: 'medium', timeStyle: 'short' });
}

const FINISHED: readonly Trial['status'][] = ['done', 'failed', 'cancelled'];

export function isFinished(trial: Trial): boolean {
  return FINISHED.includes(trial.status);
}

/** Trials that still have to run (or ran when the app went away): a resumed run takes them up again. */
export function hasUnfinishedTrials(state: StudyState): boolean {
  return state.trials.some((trial) => trial.status === 'planned' || trial.status === 'running' || trial.status === 'cancelled');
}

/** Run offers: "run" for a draft, "resume" for an interrupted, failed or cancelled study with work left, else nothing. */
export function runAction(state: StudyState, live: boolean): 'run' | 'resume' | null {
  if (live) return null;
  if (state.status === 'draft') return 'run';
  if (state.status === 'running') return 'resume';
  if (state.status === 'failed' || state.status === 'cancelled') return hasUnfinishedTrials(state) || state.trials.length === 0 ? 'resume' : null;
  return null;
}

export interface Progress {
  finished: number;
  total: number;
  /** Seconds left at the pace so far; null until a trial has finished. */
  etaSeconds: number | null;
  elapsedSeconds: number | null;
}

/**
 * Trials finished out of those planned so far (rejected ones never run), and the time left at the average wall-clock
 * time per finished trial. A greedy study plans each stage when it starts, so the total grows as it goes.
 */
export function progressOf(state: StudyState, now: number): Progress {
  const counted = state.trials.filter((trial) => trial.status !== 'rejected');
  const finished = counted.filter(isFinished).length;
  const started = state.startedAt ? Date.parse(state.startedAt) : NaN;
  const end = state.status === 'running' ? now : state.finishedAt ? Date.parse(state.finishedAt) : now;
  const elapsedSeconds = Number.isNaN(started) ? null : Math.max(0, (end - started) / 1000);
  const remaining = counted.length - finished;
  const etaSeconds = elapsedSeconds !== null && finished > 0 && state.status === 'running' ? (elapsedSeconds / finished) * remaining : null;
  return { finished, total: counted.length, etaSeconds, elapsedSeconds };
}

export function stageLabel(project: ProjectFile, stageId: string): string {
  if (stageId === ENGINE_STAGE_ID) return t('studies.stage.engine');
  if (stageId === GENERALISATION_STAGE_ID) return t('studies.stage.generalisation');
  if (stageId === GRID_STAGE_ID) return t('studies.stage.grid');
  return studyTextOf(project).stage(stageId) ?? stageId;
}

/** A workload by the label the study gives it, in the app's language; its id only when it has no label. */
export function workloadLabel(project: ProjectFile, workloadId: string): string {
  return studyTextOf(project).workload(workloadId) ?? workloadId;
}

export interface StageGroup {
  stageId: string;
  label: string;
  trials: Trial[];
  decision: StageDecision | null;
}

/** The trials by stage, in the order the stages first appear, each with its decision. */
export function groupByStage(project: ProjectFile): StageGroup[] {
  const groups = new Map<string, StageGroup>();
  for (const trial of project.state.trials) {
    let group = groups.get(trial.stageId);
    if (!group) {
      group = { stageId: trial.stageId, label: stageLabel(project, trial.stageId), trials: [], decision: null };
      groups.set(trial.stageId, group);
    }
    group.trials.push(trial);
  }
  for (const decision of project.state.decisions) {
    const group = groups.get(decision.stageId);
    if (group) group.decision = decision;
  }
  return [...groups.values()];
}

/** "TP4×DP2 · 8 GPUs": a server's parallel layout and the GPUs it holds. */
export function layoutText(config: Trial['config'], gpus: number): string {
  const layout = parallelLayoutLabel(config);
  return gpus === 1 ? t('studies.layout.one', { layout }) : t('studies.layout.many', { layout, n: gpus });
}

/** One row of the timeline: one GPU of a host (or a whole host, for trials stored without their GPUs). */
export interface TimelineLane {
  key: string;
  /** "box · GPU 0", or the host alone. */
  label: string;
  host: string;
  gpu: string | null;
}

export interface TimelineBar {
  trial: Trial;
  /** Percent of the timeline's width. */
  left: number;
  width: number;
  /** The first lane it covers and how many: a server's bar spans the rows of all its GPUs. */
  lane: number;
  lanes: number;
  /**
   * GPUs apart from each other (not neighbouring rows) get a piece each; the first piece is the trial's (its
   * label and button), the others only show where else it runs.
   */
  primary: boolean;
  /** "TP4 · 4 GPUs". */
  layout: string;
}

export interface Timeline {
  lanes: TimelineLane[];
  bars: TimelineBar[];
  startMs: number;
  endMs: number;
}

const laneKey = (hostId: string, gpu: string | null) => `${hostId}|${gpu ?? ''}`;

/**
 * Trials that ran, one row per GPU of each host, each trial a bar across the rows of the GPUs its server held. The
 * trials of one server run one after another on it: the first from the launch, each next one from where the one
 * before it finished, to its own finish (or to now while running).
 */
export function timelineOf(state: StudyState, hostLabel: (hostId: string) => string, now: number): Timeline | null {
  const placed = state.trials.filter((trial) => trial.startedAt && trial.hostId);
  if (placed.length === 0) return null;
  const startOf = (trial: Trial) => Date.parse(trial.startedAt!);
  const endOf = (trial: Trial) => (trial.finishedAt ? Date.parse(trial.finishedAt) : trial.status === 'running' ? now : startOf(trial));
  const spans = new Map<Trial, { start: number; end: number }>();
  const byServer = new Map<string, Trial[]>();
  for (const trial of placed) byServer.set(trial.serverId ?? trial.id, [...(byServer.get(trial.serverId ?? trial.id) ?? []), trial]);
  for (const trials of byServer.values()) {
    let previous: number | null = null;
    for (const trial of [...trials].sort((a, b) => endOf(a) - endOf(b))) {
      const start: number = previous === null ? startOf(trial) : Math.max(startOf(trial), previous);
      const end = Math.max(start, endOf(trial));
      spans.set(trial, { start, end });
      previous = end;
    }
  }
  const startMs = Math.min(...[...spans.values()].map((s) => s.start));
  const endMs = Math.max(startMs + 1000, ...[...spans.values()].map((s) => s.end));
  const span = endMs - startMs;

  const gpusOf = (trial: Trial): Array<string | null> => (trial.gpus && trial.gpus.length > 0 ? trial.gpus : [null]);
  // On a cluster each job's node has its own GPU 0: the lane is the node's, named after the cluster and the node.
  const placeOf = (trial: Trial): string => gpuPlaceOf(trial) as string;
  const placeLabel = (trial: Trial): string => gpuPlaceLabel(placeOf(trial), hostLabel);
  const lanes = new Map<string, { host: string; gpu: string | null; label: string }>();
  for (const trial of placed) {
    for (const gpu of gpusOf(trial)) {
      const host = placeLabel(trial);
      lanes.set(laneKey(placeOf(trial), gpu), { host, gpu, label: gpu === null ? host : t('studies.timeline.gpu', { host, gpu }) });
    }
  }
  const ordered = [...lanes.entries()].sort(([, a], [, b]) => a.host.localeCompare(b.host) || Number(a.gpu ?? -1) - Number(b.gpu ?? -1));
  const laneAt = new Map(ordered.map(([key], i) => [key, i]));

  const bars: TimelineBar[] = [];
  for (const trial of placed) {
    const { start, end } = spans.get(trial)!;
    const left = ((start - startMs) / span) * 100;
    // A trial that finished in the same instant it started still shows as a sliver.
    const width = Math.min(Math.max(0.6, ((end - start) / span) * 100), 100 - left);
    const layout = layoutText(trial.config, trial.gpuCount ?? trial.gpus?.length ?? 1);
    const rows = gpusOf(trial)
      .map((gpu) => laneAt.get(laneKey(placeOf(trial), gpu))!)
      .sort((a, b) => a - b);
    let first = true;
    for (let i = 0; i < rows.length; ) {
      let n = 1;
      while (i + n < rows.length && rows[i + n] === rows[i]! + n) n++;
      bars.push({ trial, left, width, lane: rows[i]!, lanes: n, primary: first, layout });
      first = false;
      i += n;
    }
  }
  return { lanes: ordered.map(([key, lane]) => ({ key, label: lane.label, host: lane.host, gpu: lane.gpu })), bars, startMs, endMs };
}

/** The file name a report is saved or downloaded under: the project's name with the format's extension. */
export function reportFileName(path: string, format: 'md' | 'html' | 'csv'): string {
  const base = withoutProjectSuffix(path.split(/[\\/]/).at(-1) ?? '') || 'study';
  return `${base}.${format}`;
}

/** The last part of a path, for naming a copied example. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).at(-1) ?? path;
}

/**
 * A trial's batch job as Slurm last described it: "Slurm job 12 on gpu1" while it runs, "Slurm job 12: PENDING —
 * Resources" while it waits (Slurm's own words for the state and reason), its state alone otherwise.
 */
export function slurmJobText(job: NonNullable<Trial['slurmJob']>): string {
  if (job.state === 'PENDING' && job.reason) return t('studies.trial.slurmJobWaiting', { id: job.jobId, state: job.state, reason: job.reason });
  if (job.node && (job.state === undefined || job.state === 'RUNNING')) return t('studies.trial.slurmJobOn', { id: job.jobId, node: job.node });
  if (job.state && job.state !== 'RUNNING') return t('studies.trial.slurmJobState', { id: job.jobId, state: job.state });
  return t('studies.trial.slurmJob', { id: job.jobId });
}
