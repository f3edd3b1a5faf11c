import type { StateCreator } from 'zustand';
import { ServelabError, type ErrorInfo } from '../../../shared/contract';
import { HostKeyInfoSchema, type Host } from '../../../shared/model/host';
import type { ApiClient } from '../api/client';
import type { AppState, HostsSlice } from './types';

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof ServelabError) return error.toInfo();
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}

function keepKeys<T>(record: Record<string, T>, ids: Set<string>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([id]) => ids.has(id)));
}

function withoutKey<T>(record: Record<string, T>, id: string): Record<string, T> {
  const { [id]: _dropped, ...rest } = record;
  return rest;
}

/** The state that belongs to hosts, trimmed to the hosts that still exist. */
function mirrorHosts(state: AppState, hosts: Host[]): Partial<AppState> {
  const ids = new Set(hosts.map((h) => h.id));
  return {
    hosts,
    connectionByHost: keepKeys(state.connectionByHost, ids),
    inventoryByHost: keepKeys(state.inventoryByHost, ids),
    requestByHost: keepKeys(state.requestByHost, ids),
    hostKeyPrompt: state.hostKeyPrompt && ids.has(state.hostKeyPrompt.hostId) ? state.hostKeyPrompt : null,
  };
}

export function createHostsSlice(api: ApiClient): StateCreator<AppState, [], [], HostsSlice> {
  return (set, get) => ({
    hosts: [],
    hostsLoad: { status: 'idle', error: null },
    connectionByHost: {},
    inventoryByHost: {},
    requestByHost: {},
    hostKeyPrompt: null,

    async loadHosts() {
      set((s) => ({ hostsLoad: { status: 'loading', error: s.hostsLoad.error } }));
      try {
        const hosts = await api.call('hosts:list', {});
        set((s) => ({ ...mirrorHosts(s, hosts), hostsLoad: { status: 'loaded', error: null } }));
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

    async removeHost(hostId) {
      await api.call('hosts:remove', { hostId });
      set((s) => mirrorHosts(s, s.hosts.filter((h) => h.id !== hostId)));
    },

    async readInventory(hostId) {
      if (get().requestByHost[hostId]?.loading) return;
      set((s) => ({ requestByHost: { ...s.requestByHost, [hostId]: { loading: true, error: null } } }));
      try {
        const inventory = await api.call('hosts:inventory', { hostId });
        set((s) => ({
          inventoryByHost: { ...s.inventoryByHost, [hostId]: inventory },
          requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: null } },
        }));
      } catch (error) {
        const info = toErrorInfo(error);
        set((s) => {
          const next: Partial<AppState> = { requestByHost: { ...s.requestByHost, [hostId]: { loading: false, error: info } } };
          if (info.code === 'HOST_KEY_UNKNOWN') {
            const key = HostKeyInfoSchema.safeParse(info.details);
            if (key.success) next.hostKeyPrompt = { hostId, key: key.data, accepting: false, error: null };
          }
          // A box whose key changed is not the box that was read before: its old inventory is not shown.
          if (info.code === 'HOST_KEY_CHANGED' || info.code === 'HOST_KEY_REVOKED') next.inventoryByHost = withoutKey(s.inventoryByHost, hostId);
          return next;
        });
      }
    },

    async acceptHostKey() {
      const prompt = get().hostKeyPrompt;
      if (!prompt || prompt.accepting) return;
      set({ hostKeyPrompt: { ...prompt, accepting: true, error: null } });
      try {
        await api.call('hosts:acceptHostKey', { hostId: prompt.hostId, fingerprint: prompt.key.fingerprint });
      } catch (error) {
        set((s) => (s.hostKeyPrompt ? { hostKeyPrompt: { ...s.hostKeyPrompt, accepting: false, error: toErrorInfo(error) } } : {}));
        return;
      }
      set({ hostKeyPrompt: null });
      await get().readInventory(prompt.hostId);
    },

    dismissHostKeyPrompt() {
      set({ hostKeyPrompt: null });
    },

    applyHostsChanged(hosts) {
      set((s) => ({ ...mirrorHosts(s, hosts), hostsLoad: { status: 'loaded', error: null } }));
    },

    applyHostState(event) {
      set((s) => ({ connectionByHost: { ...s.connectionByHost, [event.hostId]: event } }));
    },
  });
}
