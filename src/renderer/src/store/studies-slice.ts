import type { StateCreator } from 'zustand';
import type { CallOutput, ErrorInfo, EventPayload } from '../../../shared/contract';
import type { ProjectFile, StudyState } from '../../../shared/study/study';
import { GPU_SAMPLES_PER_GPU_LIMIT, type GpuMemorySample } from '../../../shared/study/gpu-memory';
import type { ApiClient } from '../api/client';
import { LogBuffer } from '../logs/log-buffer';
import { toErrorInfo } from './errors';
import type { LoadStatus } from './load-status';
import type { AppState } from './types';

export type StudyExample = CallOutput<'studies:examples'>[number];
export type RecentStudy = CallOutput<'studies:recent'>[number];
export type StudyPlan = CallOutput<'studies:plan'>;
export type StudyStatus = StudyState['status'];

export interface LoadedList<T> {
  status: LoadStatus;
  items: T[];
  error: ErrorInfo | null;
}

/** The project open on the Studies page: the file as last read, then as the core's studies:state events say. */
export interface OpenStudy {
  path: string;
  project: ProjectFile;
  /** The newest studies:phase line. */
  phase: string | null;
  /** The runner's own lines (installs, launches, prefetch), appended in place as studies:log events arrive. */
  log: LogBuffer;
  /** Each server's own log by serverId (shared by every trial of that server). */
  serverLogs: Record<string, LogBuffer>;
  /** Each trial's benchmark output by trialId. */
  benchLogs: Record<string, LogBuffer>;
  /** Per trial, the reading of its logs from the project (studies:trialLogs). */
  trialLogs: Record<string, TrialLogsLoad>;
  /** GPU memory samples by host, oldest first, the newest GPU_SAMPLES_PER_GPU_LIMIT of each. */
  gpuSamples: Record<string, GpuMemorySample[]>;
  /**
   * Whether a run is known to be under way in the core (a state event said so, or it accepted a run). A file that
   * says "running" without that was interrupted: the page offers to resume it.
   */
  live: boolean;
  plan: { status: LoadStatus; data: StudyPlan | null; error: ErrorInfo | null };
}

export interface TrialLogsLoad {
  status: LoadStatus;
  /** The files were longer than what was read: only their ends are shown. */
  truncated: boolean;
  error: ErrorInfo | null;
}

/** A study the user started that has since ended, for the notice in the app shell. */
export interface StudyNotice {
  path: string;
  name: string;
  status: Extract<StudyStatus, 'done' | 'failed' | 'cancelled'>;
  message: string | null;
}

export interface StudiesSlice {
  studyExamples: LoadedList<StudyExample>;
  recentStudies: LoadedList<RecentStudy>;
  openStudy: OpenStudy | null;
  /** The newest status the core reported per project path, for the "studies running" line. */
  studyStatusByPath: Record<string, StudyStatus>;
  /** Projects this session started, by path, with their names: their end is announced. */
  startedStudies: Record<string, string>;
  studyNotice: StudyNotice | null;
  loadStudyLists(): Promise<void>;
  /** Reads the project and shows it; throws the core's ServelabError (a damaged file names its field). */
  openStudyProject(path: string): Promise<void>;
  closeStudyProject(): void;
  /** Copies the example to `path` and shows the copy; throws the core's ServelabError. */
  createStudyFromExample(path: string, example: string): Promise<void>;
  /** Opens a tuning guide as a new project at `path` and shows it (its problems are in its state); throws the core's ServelabError. */
  createStudyFromGuide(path: string, guide: string): Promise<void>;
  /** Copies the open project (file and data folder) to `out` and shows the copy; throws the core's ServelabError. */
  saveOpenStudyAs(out: string): Promise<void>;
  /** Opens the wizard on the open project's definition, saving back to the same file (a study that has not run). */
  editOpenStudy(): void;
  loadStudyPlan(): Promise<void>;
  /** Reads a trial's server log and benchmark output from the project, unless they are still streaming in. */
  loadTrialLogs(trialId: string): Promise<void>;
  /** Starts or resumes the open study; throws the core's ServelabError when it was refused. */
  /** What the open project runs beyond the typed knobs, and whether the user already accepted exactly that. */
  checkOpenStudyTrust(): Promise<{ trusted: boolean; runs: string[]; hash: string } | null>;
  /** `trust`: the hash of the settings the user just confirmed, for a project written elsewhere. */
  runOpenStudy(trust?: string): Promise<void>;
  /** Throws the core's ServelabError when the cancel was refused. */
  cancelOpenStudy(): Promise<void>;
  dismissStudyNotice(): void;
  applyStudyState(event: EventPayload<'studies:state'>): void;
  applyStudyPhase(event: EventPayload<'studies:phase'>): void;
  applyStudyLog(event: EventPayload<'studies:log'>): void;
  applyStudyDecision(event: EventPayload<'studies:decision'>): void;
  applyStudyGpu(event: EventPayload<'studies:gpu'>): void;
}

const ENDED: readonly StudyStatus[] = ['done', 'failed', 'cancelled'];

function isEnded(status: StudyStatus): status is StudyNotice['status'] {
  return ENDED.includes(status);
}

function opened(path: string, project: ProjectFile): OpenStudy {
  return { path, project, phase: null, log: new LogBuffer(), serverLogs: {}, benchLogs: {}, trialLogs: {}, gpuSamples: {}, live: false, plan: { status: 'idle', data: null, error: null } };
}

/** A log read whole from the project, or a first chunk streamed in, as a buffer the same panes show. */
function bufferOf(text: string): LogBuffer {
  return LogBuffer.fromText(text);
}

/** `samples` after `more`, the newest GPU_SAMPLES_PER_GPU_LIMIT per host. */
function withSamples(byHost: Record<string, GpuMemorySample[]>, more: readonly GpuMemorySample[]): Record<string, GpuMemorySample[]> {
  const next = { ...byHost };
  for (const sample of more) {
    const list = [...(next[sample.hostId] ?? []), sample];
    next[sample.hostId] = list.length > GPU_SAMPLES_PER_GPU_LIMIT ? list.slice(list.length - GPU_SAMPLES_PER_GPU_LIMIT) : list;
  }
  return next;
}

/** Whether a trial's logs may still grow: its study runs in the core and it is running. */
function streaming(study: OpenStudy, trialId: string): boolean {
  return study.live && study.project.state.trials.some((t) => t.id === trialId && t.status === 'running');
}

/** A study can go back to the wizard until it has run: a draft with no finished trial. */
export function canEditStudy(project: ProjectFile): boolean {
  return project.state.status === 'draft' && !project.state.trials.some((t) => t.finishedAt || t.status === 'done' || t.status === 'failed');
}

/** Number of studies the core last reported as running. */
export function runningStudyCount(statusByPath: Record<string, StudyStatus>): number {
  return Object.values(statusByPath).filter((status) => status === 'running').length;
}

export function createStudiesSlice(api: ApiClient): StateCreator<AppState, [], [], StudiesSlice> {
  return (set, get) => {
    /** Applies `change` to the open study when it is the project at `path`. */
    const updateOpen = (path: string, change: (study: OpenStudy) => OpenStudy) =>
      set((s) => (s.openStudy && s.openStudy.path === path ? { openStudy: change(s.openStudy) } : {}));

    let latestOpen = 0;
    const show = (path: string, project: ProjectFile) => {
      set((s) => {
        // Reopening the project already shown keeps its log and phase (they are not in the file).
        const same = s.openStudy?.path === path ? s.openStudy : null;
        return { openStudy: same ? { ...same, project } : opened(path, project) };
      });
      void loadGpuMemory(path);
    };

    /** The samples of earlier runs from the project, before those that streamed in since it was opened. */
    const loadGpuMemory = async (path: string) => {
      let stored: GpuMemorySample[];
      try {
        stored = await api.call('studies:gpuMemory', { path });
      } catch {
        // A project without samples (or a core that cannot read them) shows no chart; nothing else depends on it.
        return;
      }
      updateOpen(path, (o) => {
        const lastStored = new Map<string, string>();
        for (const sample of stored) if ((lastStored.get(sample.hostId) ?? '') < sample.at) lastStored.set(sample.hostId, sample.at);
        const streamed = Object.values(o.gpuSamples)
          .flat()
          .filter((sample) => sample.at > (lastStored.get(sample.hostId) ?? ''));
        return { ...o, gpuSamples: withSamples({}, [...stored, ...streamed]) };
      });
    };

    return {
      studyExamples: { status: 'idle', items: [], error: null },
      recentStudies: { status: 'idle', items: [], error: null },
      openStudy: null,
      studyStatusByPath: {},
      startedStudies: {},
      studyNotice: null,

      async loadStudyLists() {
        set((s) => ({
          studyExamples: { ...s.studyExamples, status: 'loading', error: null },
          recentStudies: { ...s.recentStudies, status: 'loading', error: null },
        }));
        const [examples, recent] = await Promise.allSettled([api.call('studies:examples', {}), api.call('studies:recent', {})]);
        set((s) => ({
          studyExamples:
            examples.status === 'fulfilled'
              ? { status: 'loaded', items: examples.value, error: null }
              : { ...s.studyExamples, status: 'failed', error: toErrorInfo(examples.reason) },
          recentStudies:
            recent.status === 'fulfilled'
              ? { status: 'loaded', items: recent.value, error: null }
              : { ...s.recentStudies, status: 'failed', error: toErrorInfo(recent.reason) },
        }));
      },

      async openStudyProject(path) {
        // Two opens in quick succession (a recent project clicked while the system asks for another): the one asked
        // for last is shown, whichever file is read first.
        const request = ++latestOpen;
        const project = await api.call('studies:open', { path });
        if (request === latestOpen) show(path, project);
      },

      closeStudyProject() {
        set({ openStudy: null });
        void get().loadStudyLists();
      },

      async createStudyFromExample(path, example) {
        const project = await api.call('studies:fromExample', { path, example });
        show(path, project);
      },

      async createStudyFromGuide(path, guide) {
        const { project } = await api.call('studies:fromGuide', { path, guide });
        show(path, project);
      },

      async saveOpenStudyAs(out) {
        const path = get().openStudy?.path;
        if (!path) return;
        const project = await api.call('studies:saveAs', { path, out });
        show(out, project);
      },

      editOpenStudy() {
        const study = get().openStudy;
        if (study && canEditStudy(study.project)) get().startWizard({ path: study.path, study: study.project.study });
      },

      async loadStudyPlan() {
        const path = get().openStudy?.path;
        if (!path) return;
        updateOpen(path, (o) => ({ ...o, plan: { ...o.plan, status: 'loading', error: null } }));
        try {
          const data = await api.call('studies:plan', { path });
          updateOpen(path, (o) => ({ ...o, plan: { status: 'loaded', data, error: null } }));
        } catch (e) {
          updateOpen(path, (o) => ({ ...o, plan: { ...o.plan, status: 'failed', error: toErrorInfo(e) } }));
        }
      },

      async loadTrialLogs(trialId) {
        const study = get().openStudy;
        if (!study) return;
        const { path } = study;
        const trial = study.project.state.trials.find((t) => t.id === trialId);
        const status = study.trialLogs[trialId]?.status;
        if (!trial || status === 'loading' || status === 'loaded' || streaming(study, trialId)) return;
        // A trial that never started has no logs to read.
        if (trial.startedAt === undefined && trial.serverId === undefined) return;
        updateOpen(path, (o) => ({ ...o, trialLogs: { ...o.trialLogs, [trialId]: { status: 'loading', truncated: false, error: null } } }));
        try {
          const read = await api.call('studies:trialLogs', { path, trialId });
          updateOpen(path, (o) => {
            const serverId = trial.serverId;
            // A server shared with a trial still running keeps streaming: its lines are kept as they arrive.
            const serverStreams = serverId !== undefined && o.live && o.project.state.trials.some((t) => t.serverId === serverId && t.status === 'running');
            const serverLogs = serverId !== undefined && read.server !== null && !(serverStreams && (o.serverLogs[serverId]?.length ?? 0) > 0) ? { ...o.serverLogs, [serverId]: bufferOf(read.server) } : o.serverLogs;
            const benchLogs = read.bench !== null ? { ...o.benchLogs, [trialId]: bufferOf(read.bench) } : o.benchLogs;
            return { ...o, serverLogs, benchLogs, trialLogs: { ...o.trialLogs, [trialId]: { status: 'loaded', truncated: read.truncated, error: null } } };
          });
        } catch (e) {
          updateOpen(path, (o) => ({ ...o, trialLogs: { ...o.trialLogs, [trialId]: { status: 'failed', truncated: false, error: toErrorInfo(e) } } }));
        }
      },

      async checkOpenStudyTrust() {
        const path = get().openStudy?.path;
        if (!path) return null;
        return api.call('studies:trustCheck', { path });
      },

      async runOpenStudy(trust) {
        const study = get().openStudy;
        if (!study) return;
        const { path } = study;
        set((s) => ({ startedStudies: { ...s.startedStudies, [path]: study.project.study.name } }));
        try {
          // started: false means a run of this project is already under way in the core: it is live either way.
          await api.call('studies:run', trust !== undefined ? { path, trust } : { path });
        } catch (e) {
          set((s) => {
            const { [path]: _dropped, ...rest } = s.startedStudies;
            return { startedStudies: rest };
          });
          throw e;
        }
        set((s) => ({ studyStatusByPath: { ...s.studyStatusByPath, [path]: 'running' }, studyNotice: s.studyNotice?.path === path ? null : s.studyNotice }));
        updateOpen(path, (o) => ({ ...o, live: true, project: { ...o.project, state: { ...o.project.state, status: 'running' } } }));
      },

      async cancelOpenStudy() {
        const path = get().openStudy?.path;
        if (!path) return;
        const { cancelled } = await api.call('studies:cancel', { path });
        // Nothing was running in the core: the file's "running" is stale, so show it as it is on disk.
        if (!cancelled) await get().openStudyProject(path);
      },

      dismissStudyNotice() {
        set({ studyNotice: null });
      },

      applyStudyState({ path, state }) {
        set((s) => {
          const next: Partial<AppState> = { studyStatusByPath: { ...s.studyStatusByPath, [path]: state.status } };
          if (s.openStudy?.path === path) {
            next.openStudy = { ...s.openStudy, live: state.status === 'running', project: { ...s.openStudy.project, state } };
          }
          const name = s.startedStudies[path];
          if (name !== undefined && isEnded(state.status)) {
            const { [path]: _ended, ...rest } = s.startedStudies;
            next.startedStudies = rest;
            next.studyNotice = { path, name, status: state.status, message: state.message ?? null };
          }
          return next;
        });
      },

      applyStudyPhase({ path, text }) {
        updateOpen(path, (o) => ({ ...o, phase: text }));
      },

      applyStudyLog({ path, text, source, serverId, trialId }) {
        const open = get().openStudy;
        if (open?.path !== path) return;
        // Lines go into the buffer in place; the store changes only when a server's or a trial's first line arrives.
        if (source === 'server' && serverId !== undefined) {
          const buffer = open.serverLogs[serverId];
          if (buffer) buffer.append(text);
          else updateOpen(path, (o) => ({ ...o, serverLogs: { ...o.serverLogs, [serverId]: bufferOf(text) } }));
        } else if (source === 'bench' && trialId !== undefined) {
          const buffer = open.benchLogs[trialId];
          if (buffer) buffer.append(text);
          else updateOpen(path, (o) => ({ ...o, benchLogs: { ...o.benchLogs, [trialId]: bufferOf(text) } }));
        } else {
          open.log.append(text);
        }
      },

      applyStudyGpu({ path, ...sample }) {
        updateOpen(path, (o) => ({ ...o, gpuSamples: withSamples(o.gpuSamples, [sample]) }));
      },

      applyStudyDecision({ path, decision }) {
        // The next studies:state carries it too; adding it now shows the reason without waiting.
        updateOpen(path, (o) => {
          const decisions = o.project.state.decisions;
          if (decisions.some((d) => d.stageId === decision.stageId && d.decidedAt === decision.decidedAt)) return o;
          return { ...o, project: { ...o.project, state: { ...o.project.state, decisions: [...decisions.filter((d) => d.stageId !== decision.stageId), decision] } } };
        });
      },
    };
  };
}
