import type { StateCreator } from 'zustand';
import type { ErrorInfo } from '../../../shared/contract';
import {
  HostKeyInfoSchema,
  type AddHostInput,
  type ConnectionLogEntryView,
  type Host,
  type HostKeyInfo,
  type HostStateEvent,
  type SshConfigAliasView,
  type UpdateHostInput,
} from '../../../shared/model/host';
import type { Inventory } from '../../../shared/model/inventory';
import type { ClusterInventory } from '../../../shared/model/cluster';
import type { ApiClient } from '../api/client';
import { toErrorInfo } from './errors';
import type { LoadStatus } from './load-status';
import type { AppState } from './types';

/** The outcome of the last inventory or cluster read the user started for one host. */
export interface HostRequest {
  loading: boolean;
  error: ErrorInfo | null;
}

/** What the user asked of a host; a host-key decision repeats it once the key is trusted. */
export type HostOperation = 'inventory' | 'cluster' | 'connect';

/** A host key as the core presented it, with the hop it belongs to: the target or a jump host on the way. */
export interface PresentedHostKey extends HostKeyInfo {
  role: 'jump' | 'target';
  /** The ~/.ssh/config alias of that hop, when it has one. */
  alias: string | null;
}

/** An unknown host key shown to the user, waiting for accept or cancel. */
export interface HostKeyPrompt {
  hostId: string;
  key: PresentedHostKey;
  retry: HostOperation;
  accepting: boolean;
  error: ErrorInfo | null;
}

/** A hosts:state event with the moment it arrived, so a retry countdown can run from it. */
export interface ReceivedHostState extends HostStateEvent {
  receivedAt: number;
}

/** Whether the user holds the host's connection open (hosts:connect) and whether that call is under way. */
export interface HostHold {
  held: boolean;
  pending: boolean;
}

export interface HostLog {
  /** Oldest first, at most LOG_LIMIT. */
  entries: ConnectionLogEntryView[];
  /** Whether the core's backlog (hosts:connectionLog) has been merged in. */
  status: LoadStatus;
  error: ErrorInfo | null;
}

export interface SshConfigState {
  status: LoadStatus;
  configPath: string | null;
  aliases: SshConfigAliasView[];
  error: ErrorInfo | null;
}

export interface HostsSlice {
  /** As the core last reported them (hosts:list, hosts:changed): the core owns the list. */
  hosts: Host[];
  hostsLoad: { status: LoadStatus; error: ErrorInfo | null };
  /** Latest hosts:state event per host id. */
  connectionByHost: Record<string, ReceivedHostState>;
  holdByHost: Record<string, HostHold>;
  inventoryByHost: Record<string, Inventory>;
  /** The last hosts:cluster answer of each Slurm cluster host. */
  clusterByHost: Record<string, ClusterInventory>;
  requestByHost: Record<string, HostRequest>;
  /** The last failure of an inventory read or a connect, cleared when the next one starts. */
  errorByHost: Record<string, { error: ErrorInfo; operation: HostOperation }>;
  /** Unknown host keys awaiting a decision, at most one per host; the first is shown. */
  hostKeyPrompts: HostKeyPrompt[];
  logByHost: Record<string, HostLog>;
  sshConfig: SshConfigState;

  loadHosts(): Promise<void>;
  /** Resolves to the stored host; throws the core's ServelabError (BAD_INPUT carries field issues). */
  addHost(input: AddHostInput): Promise<Host>;
  /** Same errors as addHost. */
  updateHost(input: UpdateHostInput): Promise<Host>;
  /** Throws the core's ServelabError when the host could not be removed. */
  removeHost(hostId: string): Promise<void>;
  /** Brings back the built-in demo lab after it was removed; throws the core's ServelabError. */
  restoreDemoLab(): Promise<Host>;
  readInventory(hostId: string): Promise<void>;
  /** Reads the Slurm cluster behind a cluster host's login node (hosts:cluster); failures land where an inventory's do. */
  readCluster(hostId: string): Promise<void>;
  connectHost(hostId: string): Promise<void>;
  disconnectHost(hostId: string): Promise<void>;
  acceptHostKey(hostId: string): Promise<void>;
  dismissHostKeyPrompt(hostId: string): void;
  /** Replaces a changed key after the user's explicit confirmation; throws when the core refuses. */
  replaceHostKey(hostId: string, fingerprint: string): Promise<void>;
  loadConnectionLog(hostId: string): Promise<void>;
  loadSshConfigAliases(): Promise<void>;
  applyHostsChanged(hosts: Host[]): void;
  applyHostState(event: HostStateEvent): void;
  applyHostLog(hostId: string, entry: ConnectionLogEntryView): void;
  /** After the link to the core was down: backlogs may have gaps, so open log panes fetch them again. */
  markLogsStale(): void;
}


/** Entries kept per host, as many as the core keeps. */
export const LOG_LIMIT = 500;

/** The key of a HOST_KEY_* failure with the hop it belongs to, or null when the details do not describe one. */
export function presentedHostKey(details: ErrorInfo['details']): PresentedHostKey | null {
  const parsed = HostKeyInfoSchema.safeParse(details);
  if (!parsed.success) return null;
  // The core sends its stored public key too; only what the user is shown is kept.
  const { host, port, keyType, fingerprint, expectedFingerprint } = parsed.data;
  return {
    host,
    port,
    keyType,
    fingerprint,
    ...(expectedFingerprint ? { expectedFingerprint } : {}),
    role: details?.role === 'jump' ? 'jump' : 'target',
    alias: typeof details?.alias === 'string' ? details.alias : null,
  };
}

function keepKeys<T>(record: Record<string, T>, ids: Set<string>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([id]) => ids.has(id)));
}

function withoutKey<T>(record: Record<string, T>, id: string): Record<string, T> {
  if (!(id in record)) return record;
  const { [id]: _dropped, ...rest } = record;
  return rest;
}

/** The state that belongs to hosts, trimmed to the hosts that still exist. */
function mirrorHosts(state: AppState, hosts: Host[]): Partial<AppState> {
  const ids = new Set(hosts.map((h) => h.id));
  return {
    hosts,
    connectionByHost: keepKeys(state.connectionByHost, ids),
    holdByHost: keepKeys(state.holdByHost, ids),
    inventoryByHost: keepKeys(state.inventoryByHost, ids),
    clusterByHost: keepKeys(state.clusterByHost, ids),
    requestByHost: keepKeys(state.requestByHost, ids),
    errorByHost: keepKeys(state.errorByHost, ids),
    logByHost: keepKeys(state.logByHost, ids),
    hostKeyPrompts: state.hostKeyPrompts.filter((p) => ids.has(p.hostId)),
    prompts: state.prompts.filter((p) => ids.has(p.hostId)),
  };
}

const logKey = (e: ConnectionLogEntryView) => `${e.time}\u0000${e.level}\u0000${e.message}`;

/** The core's backlog, then the live entries that arrived while it was being fetched. */
function mergeLog(backlog: ConnectionLogEntryView[], live: ConnectionLogEntryView[]): ConnectionLogEntryView[] {
  const last = backlog.at(-1)?.time ?? -Infinity;
  const seen = new Set(backlog.map(logKey));
  const newer = live.filter((e) => e.time >= last && !seen.has(logKey(e)));
  return [...backlog, ...newer].slice(-LOG_LIMIT);
}

const EMPTY_LOG: HostLog = { entries: [], status: 'idle', error: null };

export function createHostsSlice(api: ApiClient): StateCreator<AppState, [], [], HostsSlice> {
  return (set, get) => {
    /** Records a failed read or connect; an unknown key also queues the decision, a bad key drops the old inventory. */
    function noteFailure(hostId: string, operation: HostOperation, info: ErrorInfo) {
      set((s) => {
        const next: Partial<AppState> = { errorByHost: { ...s.errorByHost, [hostId]: { error: info, operation } } };
        if (info.code === 'HOST_KEY_UNKNOWN') {
          const key = presentedHostKey(info.details);
          if (key) {
            const prompt: HostKeyPrompt = { hostId, key, retry: operation, accepting: false, error: null };
            next.hostKeyPrompts = [...s.hostKeyPrompts.filter((p) => p.hostId !== hostId), prompt];
          }
        }
        // A box whose key changed is not the box that was read before: its old inventory is not shown.
        if (info.code === 'HOST_KEY_CHANGED' || info.code === 'HOST_KEY_REVOKED') {
          next.inventoryByHost = withoutKey(s.inventoryByHost, hostId);
          next.clusterByHost = withoutKey(s.clusterByHost, hostId);
        }
        return next;
      });
    }

    function retry(hostId: string, operation: HostOperation): Promise<void> {
      if (operation === 'connect') return get().connectHost(hostId);
      return operation === 'cluster' ? get().readCluster(hostId) : get().readInventory(hostId);
    }

    return {
      hosts: [],
      hostsLoad: { status: 'idle', error: null },
      connectionByHost: {},
      holdByHost: {},
      inventoryByHost: {},
      clusterByHost: {},
      requestByHost: {},
      errorByHost: {},
      hostKeyPrompts: [],
      logByHost: {},
      sshConfig: { status: 'idle', configPath: null, aliases: [], error: null },

      async loadHosts() {
        set((s) => ({ hostsLoad: { status: 'loading', error: s.hostsLoad.error } }));
        try {
          const [hosts, states] = await Promise.all([api.call('hosts:list', {}), api.call('hosts:states', {})]);
          set((s) => ({ ...mirrorHosts(s, hosts), hostsLoad: { status: 'loaded', error: null } }));
          // After a reload the core still knows which connections are open and held.
          for (const state of states) get().applyHostState(state);
        } catch (error) {
          set({ hostsLoad: { status: 'failed', error: toErrorInfo(error) } });
        }
      },

      async addHost(input) {
        const host = await api.call('hosts:add', input);
        // hosts:changed normally brings it too; this keeps the list right if that event is late.
        set((s) => (s.hosts.some((h) => h.id === host.id) ? {} : { hosts: [...s.hosts, host] }));
        return host;
      },

      async updateHost(input) {
        const host = await api.call('hosts:update', input);
        set((s) => ({
          hosts: s.hosts.map((h) => (h.id === host.id ? host : h)),
          // The core dropped the held connection: the next one uses the new settings.
          holdByHost: withoutKey(s.holdByHost, host.id),
          hostKeyPrompts: s.hostKeyPrompts.filter((p) => p.hostId !== host.id),
          errorByHost: withoutKey(s.errorByHost, host.id),
          // The core forgot its cluster read too: the settings that reached it changed, or it is no longer a cluster.
          clusterByHost: withoutKey(s.clusterByHost, host.id),
        }));
        return host;
      },

      async removeHost(hostId) {
        await api.call('hosts:remove', { hostId });
        set((s) => mirrorHosts(s, s.hosts.filter((h) => h.id !== hostId)));
      },

      async restoreDemoLab() {
        const host = await api.call('hosts:restoreDemoLab', {});
        // hosts:changed normally brings it too; this keeps the list right if that event is late.
        set((s) => (s.hosts.some((h) => h.id === host.id) ? {} : { hosts: [...s.hosts, host] }));
        return host;
      },

      async readInventory(hostId) {
        if (get().requestByHost[hostId]?.loading) return;
        set((s) => ({
          requestByHost: { ...s.requestByHost, [hostId]: { loading: true, error: null } },
          errorByHost: withoutKey(s.errorByHost, hostId),
        }));
        try {
          const inventory = await api.call('hosts:inventory', { hostId });
          set((s) => ({
            inventoryByHost: { ...s.inventoryByHost, [hostId]: inventory },
            requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: null } },
          }));
        } catch (error) {
          const info = toErrorInfo(error);
          set((s) => ({ requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: info } } }));
          noteFailure(hostId, 'inventory', info);
        }
      },

      async readCluster(hostId) {
        if (get().requestByHost[hostId]?.loading) return;
        set((s) => ({
          requestByHost: { ...s.requestByHost, [hostId]: { loading: true, error: null } },
          errorByHost: withoutKey(s.errorByHost, hostId),
        }));
        try {
          const cluster = await api.call('hosts:cluster', { hostId });
          set((s) => ({
            clusterByHost: { ...s.clusterByHost, [hostId]: cluster },
            requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: null } },
          }));
        } catch (error) {
          const info = toErrorInfo(error);
          set((s) => ({ requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: info } } }));
          noteFailure(hostId, 'cluster', info);
        }
      },

      async connectHost(hostId) {
        const hold = get().holdByHost[hostId];
        if (hold?.pending) return;
        set((s) => ({
          holdByHost: { ...s.holdByHost, [hostId]: { held: hold?.held ?? false, pending: true } },
          errorByHost: withoutKey(s.errorByHost, hostId),
        }));
        try {
          const state = await api.call('hosts:connect', { hostId });
          set((s) => ({ holdByHost: { ...s.holdByHost, [hostId]: { held: true, pending: false } } }));
          get().applyHostState(state);
        } catch (error) {
          set((s) => ({ holdByHost: { ...s.holdByHost, [hostId]: { held: false, pending: false } } }));
          noteFailure(hostId, 'connect', toErrorInfo(error));
        }
      },

      async disconnectHost(hostId) {
        set((s) => ({ holdByHost: { ...s.holdByHost, [hostId]: { held: s.holdByHost[hostId]?.held ?? false, pending: true } } }));
        try {
          const state = await api.call('hosts:disconnect', { hostId });
          set((s) => ({ holdByHost: { ...s.holdByHost, [hostId]: { held: false, pending: false } } }));
          get().applyHostState(state);
        } catch (error) {
          set((s) => ({ holdByHost: { ...s.holdByHost, [hostId]: { held: s.holdByHost[hostId]?.held ?? false, pending: false } } }));
          noteFailure(hostId, 'connect', toErrorInfo(error));
        }
      },

      async acceptHostKey(hostId) {
        const prompt = get().hostKeyPrompts.find((p) => p.hostId === hostId);
        if (!prompt || prompt.accepting) return;
        const update = (patch: Partial<HostKeyPrompt>) =>
          set((s) => ({ hostKeyPrompts: s.hostKeyPrompts.map((p) => (p.hostId === hostId ? { ...p, ...patch } : p)) }));
        update({ accepting: true, error: null });
        try {
          await api.call('hosts:acceptHostKey', { hostId, fingerprint: prompt.key.fingerprint });
        } catch (error) {
          update({ accepting: false, error: toErrorInfo(error) });
          return;
        }
        set((s) => ({ hostKeyPrompts: s.hostKeyPrompts.filter((p) => p.hostId !== hostId) }));
        // The next hop may present a key of its own: repeating the request brings the next decision.
        await retry(hostId, prompt.retry);
      },

      dismissHostKeyPrompt(hostId) {
        set((s) => ({ hostKeyPrompts: s.hostKeyPrompts.filter((p) => p.hostId !== hostId) }));
      },

      async replaceHostKey(hostId, fingerprint) {
        await api.call('hosts:replaceHostKey', { hostId, fingerprint });
        const operation = get().errorByHost[hostId]?.operation ?? 'inventory';
        set((s) => ({ errorByHost: withoutKey(s.errorByHost, hostId) }));
        await retry(hostId, operation);
      },

      async loadConnectionLog(hostId) {
        if (get().logByHost[hostId]?.status === 'loading') return;
        set((s) => ({ logByHost: { ...s.logByHost, [hostId]: { ...(s.logByHost[hostId] ?? EMPTY_LOG), status: 'loading', error: null } } }));
        try {
          const { entries } = await api.call('hosts:connectionLog', { hostId });
          set((s) => {
            if (!s.hosts.some((h) => h.id === hostId)) return {};
            const live = s.logByHost[hostId]?.entries ?? [];
            return { logByHost: { ...s.logByHost, [hostId]: { entries: mergeLog(entries, live), status: 'loaded', error: null } } };
          });
        } catch (error) {
          set((s) => ({ logByHost: { ...s.logByHost, [hostId]: { ...(s.logByHost[hostId] ?? EMPTY_LOG), status: 'failed', error: toErrorInfo(error) } } }));
        }
      },

      async loadSshConfigAliases() {
        set((s) => ({ sshConfig: { ...s.sshConfig, status: 'loading', error: null } }));
        try {
          const { configPath, aliases } = await api.call('hosts:sshConfigAliases', {});
          set({ sshConfig: { status: 'loaded', configPath, aliases, error: null } });
        } catch (error) {
          set((s) => ({ sshConfig: { ...s.sshConfig, status: 'failed', error: toErrorInfo(error) } }));
        }
      },

      applyHostsChanged(hosts) {
        set((s) => ({ ...mirrorHosts(s, hosts), hostsLoad: { status: 'loaded', error: null } }));
      },

      applyHostState(event) {
        set((s) => {
          const next: Partial<AppState> = { connectionByHost: { ...s.connectionByHost, [event.hostId]: { ...event, receivedAt: Date.now() } } };
          // The core says whether the connection is held; a pending connect/disconnect click settles itself.
          const hold = s.holdByHost[event.hostId];
          if (event.held !== undefined && !hold?.pending) {
            next.holdByHost = { ...s.holdByHost, [event.hostId]: { held: event.held, pending: false } };
          }
          // A held connection that came back makes an earlier failure history.
          if (event.state === 'ready' && s.errorByHost[event.hostId] && !s.requestByHost[event.hostId]?.loading) {
            next.errorByHost = withoutKey(s.errorByHost, event.hostId);
          }
          return next;
        });
      },

      applyHostLog(hostId, entry) {
        set((s) => {
          if (!s.hosts.some((h) => h.id === hostId)) return {};
          const log = s.logByHost[hostId] ?? EMPTY_LOG;
          const entries = log.entries.length >= LOG_LIMIT ? [...log.entries.slice(1 - LOG_LIMIT), entry] : [...log.entries, entry];
          return { logByHost: { ...s.logByHost, [hostId]: { ...log, entries } } };
        });
      },

      markLogsStale() {
        set((s) => ({
          logByHost: Object.fromEntries(Object.entries(s.logByHost).map(([id, log]) => [id, log.status === 'loaded' ? { ...log, status: 'idle' as const } : log])),
        }));
      },
    };
  };
}
