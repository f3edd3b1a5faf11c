import type { StateCreator } from 'zustand';
import type { CallInput, CallOutput, ErrorInfo, EventPayload } from '../../../shared/contract';
import type { EngineId } from '../../../shared/engines';
import type { ApiClient } from '../api/client';
import { LogBuffer } from '../logs/log-buffer';
import { toErrorInfo } from './errors';
import type { LoadStatus } from './load-status';
import type { AppState } from './types';

export type InstalledEngine = CallOutput<'engines:list'>[number];
export type InstallPhase = EventPayload<'engines:progress'>['phase'];
export type ServerState = EventPayload<'servers:state'>['state'];
export type LogVerdictView = NonNullable<EventPayload<'servers:state'>['classification']>;
export type StopResult = CallOutput<'servers:stop'>;

export interface InstalledList {
  status: LoadStatus;
  items: InstalledEngine[];
  error: ErrorInfo | null;
}

/** One install the user started, as its events reported it. */
export interface InstallJob {
  jobId: string;
  hostId: string;
  engine: EngineId | null;
  version: string | null;
  phase: InstallPhase | null;
  percent: number | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  done: { ok: boolean; skipped: boolean; message: string } | null;
}

/** One server the user launched, as servers:state and servers:log reported it. */
export interface ServerRun {
  serverId: string;
  hostId: string;
  engine: EngineId;
  version: string;
  port: number;
  command: string;
  state: ServerState;
  classification: LogVerdictView | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  stop: StopResult | null;
  stopping: boolean;
  stopError: ErrorInfo | null;
}

export type EngineMode = InstalledEngine['mode'];
export type SecretEntry = CallOutput<'secrets:list'>[number];
export type ServerOnBox = CallOutput<'servers:onBox'>[number];

/** Names of the stored secrets (never their values), as secrets:list last answered. */
export interface SecretsList {
  status: LoadStatus;
  items: SecretEntry[];
  error: ErrorInfo | null;
}

/** One model prefetch the user started, as models:progress and models:done reported it. */
export interface PrefetchJob {
  jobId: string;
  hostId: string;
  model: string | null;
  done: number;
  total: number | null;
  /** The newest progress line (a file name). */
  line: string | null;
  outcome: { ok: boolean; message: string; localPath: string | null } | null;
}

/** servers:onBox per host: every server recorded on the box, whoever launched it. */
export interface ServersOnBoxList {
  status: LoadStatus;
  items: ServerOnBox[];
  error: ErrorInfo | null;
}

/** A stop of a server from its record on the box, by server id. */
export interface BoxServerStop {
  stopping: boolean;
  result: StopResult | null;
  error: ErrorInfo | null;
}

export interface EnginesSlice {
  /** engines:list per host: the core reads the markers on the box. */
  installedByHost: Record<string, InstalledList>;
  installJobs: Record<string, InstallJob>;
  servers: Record<string, ServerRun>;
  secretsList: SecretsList;
  prefetchJobs: Record<string, PrefetchJob>;
  serversOnBox: Record<string, ServersOnBoxList>;
  boxStops: Record<string, BoxServerStop>;
  loadInstalled(hostId: string): Promise<void>;
  /** Resolves to the job id; throws the core's ServelabError when the install could not start. */
  installEngine(input: CallInput<'engines:install'>): Promise<string>;
  /** Throws the core's ServelabError when the engine could not be removed. */
  removeEngine(input: CallInput<'engines:remove'>): Promise<void>;
  /** Resolves to the server id; throws the core's ServelabError when the launch was refused. */
  launchServer(input: CallInput<'servers:launch'>): Promise<string>;
  stopServer(serverId: string): Promise<void>;
  applyInstallProgress(event: EventPayload<'engines:progress'>): void;
  applyInstallLog(event: EventPayload<'engines:log'>): void;
  applyInstallDone(event: EventPayload<'engines:done'>): void;
  applyServerLog(event: EventPayload<'servers:log'>): void;
  applyServerState(event: EventPayload<'servers:state'>): void;
  loadSecrets(): Promise<void>;
  /** Stores the value in the keychain and lists the names again; throws the core's ServelabError. */
  setSecret(ref: string, value: string): Promise<void>;
  /** Throws the core's ServelabError when the secret could not be removed. */
  removeSecret(ref: string): Promise<void>;
  /** Resolves to the job id; throws the core's ServelabError when the prefetch was refused. */
  startPrefetch(input: CallInput<'models:prefetch'>): Promise<string>;
  applyModelProgress(event: EventPayload<'models:progress'>): void;
  applyModelDone(event: EventPayload<'models:done'>): void;
  loadServersOnBox(hostId: string): Promise<void>;
  /** Stops a server from its record on the box (one another session or the CLI launched), then lists the box again. */
  stopServerOnBox(hostId: string, serverId: string): Promise<void>;
}


function emptyJob(hostId: string, jobId: string): InstallJob {
  return { jobId, hostId, engine: null, version: null, phase: null, percent: null, log: new LogBuffer(), done: null };
}

function emptyPrefetch(hostId: string, jobId: string): PrefetchJob {
  return { jobId, hostId, model: null, done: 0, total: null, line: null, outcome: null };
}

/** `record` with `text` already in its log: for a log event that arrives before the record it belongs to. */
export function withLog<T extends { log: LogBuffer }>(record: T, text: string): T {
  record.log.append(text);
  return record;
}

function endsWithLine(log: LogBuffer, line: string): boolean {
  return log.length > 0 && log.plainLine(log.length - 1).trim() === line.trim();
}

/** After a launch or a stop: reads the box's servers again, but only for a list somebody has opened. */
function refreshServersOnBox(get: () => AppState, hostId: string): void {
  if (hostId && get().serversOnBox[hostId]) void get().loadServersOnBox(hostId);
}

function emptyServer(serverId: string): ServerRun {
  return { serverId, hostId: '', engine: 'vllm', version: '', port: 0, command: '', state: 'starting', classification: null, log: new LogBuffer(), stop: null, stopping: false, stopError: null };
}

/**
 * Installed engines, install jobs, launched servers, the servers recorded on each box, model prefetches and the
 * names of stored secrets, mirrored from the core's answers and events.
 */
export function createEnginesSlice(api: ApiClient): StateCreator<AppState, [], [], EnginesSlice> {
  return (set, get) => ({
    installedByHost: {},
    installJobs: {},
    servers: {},
    secretsList: { status: 'idle', items: [], error: null },
    prefetchJobs: {},
    serversOnBox: {},
    boxStops: {},

    async loadInstalled(hostId) {
      set((s) => ({ installedByHost: { ...s.installedByHost, [hostId]: { status: 'loading', items: s.installedByHost[hostId]?.items ?? [], error: null } } }));
      try {
        const items = await api.call('engines:list', { hostId });
        set((s) => ({ installedByHost: { ...s.installedByHost, [hostId]: { status: 'loaded', items, error: null } } }));
      } catch (e) {
        set((s) => ({
          installedByHost: { ...s.installedByHost, [hostId]: { status: 'failed', items: s.installedByHost[hostId]?.items ?? [], error: toErrorInfo(e) } },
        }));
      }
    },

    async installEngine(input: CallInput<'engines:install'>) {
      const { jobId } = await api.call('engines:install', input);
      set((s) => {
        const job = s.installJobs[jobId] ?? emptyJob(input.hostId, jobId);
        return { installJobs: { ...s.installJobs, [jobId]: { ...job, engine: input.engine, version: input.version } } };
      });
      return jobId;
    },

    async removeEngine(input: CallInput<'engines:remove'>) {
      await api.call('engines:remove', input);
      await get().loadInstalled(input.hostId);
    },

    async launchServer(input: CallInput<'servers:launch'>) {
      const { serverId, port, command } = await api.call('servers:launch', input);
      set((s) => {
        const run = s.servers[serverId] ?? emptyServer(serverId);
        return { servers: { ...s.servers, [serverId]: { ...run, hostId: input.hostId, engine: input.engine, version: input.version, port, command } } };
      });
      refreshServersOnBox(get, input.hostId);
      return serverId;
    },

    async stopServer(serverId) {
      set((s) => {
        const run = s.servers[serverId] ?? emptyServer(serverId);
        return { servers: { ...s.servers, [serverId]: { ...run, stopping: true, stopError: null } } };
      });
      try {
        const result = await api.call('servers:stop', { serverId });
        set((s) => {
          const run = s.servers[serverId] ?? emptyServer(serverId);
          return { servers: { ...s.servers, [serverId]: { ...run, stopping: false, stop: result } } };
        });
        refreshServersOnBox(get, get().servers[serverId]?.hostId ?? '');
      } catch (e) {
        set((s) => {
          const run = s.servers[serverId] ?? emptyServer(serverId);
          return { servers: { ...s.servers, [serverId]: { ...run, stopping: false, stopError: toErrorInfo(e) } } };
        });
      }
    },

    applyInstallProgress(event: EventPayload<'engines:progress'>) {
      set((s) => {
        const job = s.installJobs[event.jobId] ?? emptyJob(event.hostId, event.jobId);
        // A progress line usually repeats the last line the log already streamed; only news goes in.
        if (event.line && !endsWithLine(job.log, event.line)) job.log.appendLine(event.line);
        return { installJobs: { ...s.installJobs, [event.jobId]: { ...job, phase: event.phase, percent: event.percent ?? job.percent } } };
      });
    },

    applyInstallLog(event: EventPayload<'engines:log'>) {
      // The buffer is appended in place: no store update (and no re-render of the page) per log event.
      const job = get().installJobs[event.jobId];
      if (job) job.log.append(event.text);
      else set((s) => ({ installJobs: { ...s.installJobs, [event.jobId]: withLog(emptyJob(event.hostId, event.jobId), event.text) } }));
    },

    applyInstallDone(event: EventPayload<'engines:done'>) {
      set((s) => {
        const job = s.installJobs[event.jobId] ?? emptyJob(event.hostId, event.jobId);
        const done = { ok: event.ok, skipped: event.skipped, message: event.message };
        return { installJobs: { ...s.installJobs, [event.jobId]: { ...job, done, percent: event.ok ? 100 : job.percent } } };
      });
      void get().loadInstalled(event.hostId);
    },

    applyServerLog(event: EventPayload<'servers:log'>) {
      const run = get().servers[event.serverId];
      if (run) run.log.append(event.text);
      else set((s) => ({ servers: { ...s.servers, [event.serverId]: withLog(emptyServer(event.serverId), event.text) } }));
    },

    applyServerState(event: EventPayload<'servers:state'>) {
      set((s) => {
        const run = s.servers[event.serverId] ?? emptyServer(event.serverId);
        return {
          servers: {
            ...s.servers,
            [event.serverId]: { ...run, state: event.state, classification: event.classification ?? run.classification },
          },
        };
      });
    },

    async loadSecrets() {
      set((s) => ({ secretsList: { ...s.secretsList, status: 'loading', error: null } }));
      try {
        const items = await api.call('secrets:list', {});
        set({ secretsList: { status: 'loaded', items, error: null } });
      } catch (e) {
        set((s) => ({ secretsList: { ...s.secretsList, status: 'failed', error: toErrorInfo(e) } }));
      }
    },

    async setSecret(ref, value) {
      await api.call('secrets:set', { ref, value });
      await get().loadSecrets();
    },

    async removeSecret(ref) {
      await api.call('secrets:remove', { ref });
      await get().loadSecrets();
    },

    async startPrefetch(input: CallInput<'models:prefetch'>) {
      const { jobId } = await api.call('models:prefetch', input);
      set((s) => {
        const job = s.prefetchJobs[jobId] ?? emptyPrefetch(input.hostId, jobId);
        return { prefetchJobs: { ...s.prefetchJobs, [jobId]: { ...job, model: input.model } } };
      });
      return jobId;
    },

    applyModelProgress(event: EventPayload<'models:progress'>) {
      set((s) => {
        const job = s.prefetchJobs[event.jobId] ?? emptyPrefetch(event.hostId, event.jobId);
        return {
          prefetchJobs: { ...s.prefetchJobs, [event.jobId]: { ...job, done: event.done, total: event.total, line: event.line ?? job.line } },
        };
      });
    },

    applyModelDone(event: EventPayload<'models:done'>) {
      set((s) => {
        const job = s.prefetchJobs[event.jobId] ?? emptyPrefetch(event.hostId, event.jobId);
        const outcome = { ok: event.ok, message: event.message, localPath: event.localPath ?? null };
        return { prefetchJobs: { ...s.prefetchJobs, [event.jobId]: { ...job, outcome } } };
      });
    },

    async loadServersOnBox(hostId) {
      set((s) => ({ serversOnBox: { ...s.serversOnBox, [hostId]: { status: 'loading', items: s.serversOnBox[hostId]?.items ?? [], error: null } } }));
      try {
        const items = await api.call('servers:onBox', { hostId });
        set((s) => ({ serversOnBox: { ...s.serversOnBox, [hostId]: { status: 'loaded', items, error: null } } }));
      } catch (e) {
        set((s) => ({
          serversOnBox: { ...s.serversOnBox, [hostId]: { status: 'failed', items: s.serversOnBox[hostId]?.items ?? [], error: toErrorInfo(e) } },
        }));
      }
    },

    async stopServerOnBox(hostId, serverId) {
      set((s) => ({ boxStops: { ...s.boxStops, [serverId]: { stopping: true, result: null, error: null } } }));
      try {
        const result = await api.call('servers:stop', { serverId, hostId });
        set((s) => ({ boxStops: { ...s.boxStops, [serverId]: { stopping: false, result, error: null } } }));
      } catch (e) {
        set((s) => ({ boxStops: { ...s.boxStops, [serverId]: { stopping: false, result: null, error: toErrorInfo(e) } } }));
      }
      await get().loadServersOnBox(hostId);
    },
  });
}
