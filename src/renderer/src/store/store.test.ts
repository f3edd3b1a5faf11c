import { describe, expect, it } from 'vitest';
import { coreError, createFakeApi } from '../testing/fake-api';
import { H200_INVENTORY, UNKNOWN_KEY_DETAILS, makeHost } from '../testing/fixtures';
import { createAppStore, syncStoreWithCore, THEME_STORAGE_KEY } from '.';
import { selectHostBadgeState, selectHostKeyPrompt, selectHostView } from './selectors';
import type { AppState } from './types';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

function baseState(overrides: Partial<AppState> = {}): AppState {
  const store = createAppStore(createFakeApi(), { storage: null, prefersDark: false });
  return { ...store.getState(), ...overrides };
}

describe('selectors', () => {
  const host = makeHost();

  it('badge: idle with nothing known, connecting while a read runs', () => {
    expect(selectHostBadgeState(baseState({ hosts: [host] }), host.id)).toBe('idle');
    const reading = baseState({
      requestByHost: { [host.id]: { loading: true, error: null } },
      connectionByHost: { [host.id]: { hostId: host.id, state: 'failed' } },
    });
    expect(selectHostBadgeState(reading, host.id)).toBe('connecting');
  });

  it('badge: the core event decides once the read settled', () => {
    const state = baseState({
      requestByHost: { [host.id]: { loading: false, error: null } },
      connectionByHost: { [host.id]: { hostId: host.id, state: 'ready' } },
    });
    expect(selectHostBadgeState(state, host.id)).toBe('ready');
  });

  it('badge: failed or ready from the last read without events', () => {
    const failed = baseState({ requestByHost: { [host.id]: { loading: false, error: { code: 'TIMEOUT', message: 't' } } } });
    expect(selectHostBadgeState(failed, host.id)).toBe('failed');
    expect(selectHostBadgeState(baseState({ inventoryByHost: { [host.id]: H200_INVENTORY } }), host.id)).toBe('ready');
  });

  it('badge: asks for a decision while the unknown-key dialog is open, whatever the core last said', () => {
    const state = baseState({
      hosts: [host],
      connectionByHost: { [host.id]: { hostId: host.id, state: 'failed', message: 'unknown key' } },
      hostKeyPrompt: {
        hostId: host.id,
        key: { host: '127.0.0.1', port: 22, keyType: 'ssh-ed25519', fingerprint: 'SHA256:x' },
        accepting: false,
        error: null,
      },
    });
    expect(selectHostBadgeState(state, host.id)).toBe('awaiting-key');
  });

  it('view: shows a failure known only from an event with the core message', () => {
    const state = baseState({
      hosts: [host],
      connectionByHost: { [host.id]: { hostId: host.id, state: 'failed', message: 'Connection refused' } },
    });
    expect(selectHostView(state, host.id)).toMatchObject({ host, badge: 'failed', error: { message: 'Connection refused' } });
  });

  it('view: returns the same references so shallow comparison holds', () => {
    const state = baseState({ hosts: [host], inventoryByHost: { [host.id]: H200_INVENTORY } });
    const a = selectHostView(state, host.id);
    const b = selectHostView(state, host.id);
    for (const key of Object.keys(a) as (keyof typeof a)[]) expect(Object.is(a[key], b[key])).toBe(true);
  });

  it('host key prompt carries its host', () => {
    const prompt = { hostId: host.id, key: UNKNOWN_KEY_DETAILS, accepting: false, error: null };
    expect(selectHostKeyPrompt(baseState({ hosts: [host], hostKeyPrompt: prompt }))).toMatchObject({ host, key: UNKNOWN_KEY_DETAILS });
    expect(selectHostKeyPrompt(baseState())).toBeNull();
  });
});

describe('hosts slice', () => {
  it('mirrors hosts:changed and hosts:state, dropping state of removed hosts', async () => {
    const a = makeHost({ id: 'a' });
    const b = makeHost({ id: 'b' });
    const api = createFakeApi({ 'hosts:list': () => [a, b], 'hosts:inventory': () => ({ ...H200_INVENTORY, hostId: 'a' }) });
    const store = createAppStore(api, { storage: null });
    const stop = syncStoreWithCore(api, store);
    await Promise.resolve();
    await Promise.resolve();
    expect(store.getState().hosts.map((h) => h.id)).toEqual(['a', 'b']);
    await store.getState().readInventory('a');
    api.emit('hosts:state', { hostId: 'a', state: 'ready', message: 'Inventory read.' });
    expect(store.getState().connectionByHost.a?.state).toBe('ready');
    api.emit('hosts:changed', { hosts: [b] });
    const s = store.getState();
    expect(s.hosts).toEqual([b]);
    expect(s.inventoryByHost).toEqual({});
    expect(s.connectionByHost).toEqual({});
    stop();
  });

  it('reloads the hosts after a reconnect', async () => {
    let list = [makeHost({ id: 'a' })];
    const api = createFakeApi({ 'hosts:list': () => list });
    const store = createAppStore(api, { storage: null });
    syncStoreWithCore(api, store);
    await new Promise((r) => setTimeout(r, 0));
    list = [makeHost({ id: 'a' }), makeHost({ id: 'c' })];
    api.setStatus('reconnecting');
    api.setStatus('open');
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().hosts.map((h) => h.id)).toEqual(['a', 'c']);
  });

  it('opens the host key prompt on HOST_KEY_UNKNOWN and re-reads after accepting', async () => {
    let accepted = false;
    const api = createFakeApi({
      'hosts:inventory': () =>
        accepted ? H200_INVENTORY : coreError({ code: 'HOST_KEY_UNKNOWN', message: 'unknown', details: { ...UNKNOWN_KEY_DETAILS, publicKey: 'AAAA' } }),
      'hosts:acceptHostKey': ({ fingerprint }) => {
        accepted = true;
        return { accepted: { ...UNKNOWN_KEY_DETAILS, fingerprint } };
      },
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().readInventory('host-1');
    expect(store.getState().hostKeyPrompt).toMatchObject({ hostId: 'host-1', key: UNKNOWN_KEY_DETAILS });
    expect(store.getState().requestByHost['host-1']?.error?.code).toBe('HOST_KEY_UNKNOWN');
    await store.getState().acceptHostKey();
    expect(api.calls.find((c) => c.name === 'hosts:acceptHostKey')?.input).toEqual({
      hostId: 'host-1',
      fingerprint: UNKNOWN_KEY_DETAILS.fingerprint,
    });
    expect(store.getState().hostKeyPrompt).toBeNull();
    expect(store.getState().inventoryByHost['host-1']).toEqual(H200_INVENTORY);
    expect(store.getState().requestByHost['host-1']).toEqual({ loading: false, error: null });
  });

  it('keeps the prompt open with the error when accepting fails', async () => {
    const api = createFakeApi({
      'hosts:inventory': () => coreError({ code: 'HOST_KEY_UNKNOWN', message: 'unknown', details: UNKNOWN_KEY_DETAILS }),
      'hosts:acceptHostKey': () => coreError({ code: 'NOT_FOUND', message: 'No host key is waiting' }),
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().readInventory('host-1');
    await store.getState().acceptHostKey();
    expect(store.getState().hostKeyPrompt).toMatchObject({ accepting: false, error: { code: 'NOT_FOUND' } });
  });

  it('drops the old inventory when the host key changed', async () => {
    let changed = false;
    const api = createFakeApi({
      'hosts:inventory': () =>
        changed ? coreError({ code: 'HOST_KEY_CHANGED', message: '@@@ WARNING', details: { fingerprint: 'x', expectedFingerprint: 'y' } }) : H200_INVENTORY,
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().readInventory('host-1');
    changed = true;
    await store.getState().readInventory('host-1');
    expect(store.getState().inventoryByHost['host-1']).toBeUndefined();
    expect(store.getState().hostKeyPrompt).toBeNull();
    expect(store.getState().requestByHost['host-1']?.error?.code).toBe('HOST_KEY_CHANGED');
  });

  it('records a failed host list', async () => {
    const api = createFakeApi({ 'hosts:list': () => coreError({ code: 'INTERNAL', message: 'disk full' }) });
    const store = createAppStore(api, { storage: null });
    await store.getState().loadHosts();
    expect(store.getState().hostsLoad).toEqual({ status: 'failed', error: { code: 'INTERNAL', message: 'disk full' } });
  });
});

describe('ui slice', () => {
  it('persists the theme and restores it', () => {
    const storage = memoryStorage();
    const store = createAppStore(createFakeApi(), { storage, prefersDark: false });
    expect(store.getState().theme).toBe('light');
    store.getState().toggleTheme();
    expect(storage.data.get(THEME_STORAGE_KEY)).toBe('dark');
    expect(createAppStore(createFakeApi(), { storage, prefersDark: false }).getState().theme).toBe('dark');
  });

  it('follows the system preference when nothing is stored, and ignores junk', () => {
    expect(createAppStore(createFakeApi(), { storage: memoryStorage(), prefersDark: true }).getState().theme).toBe('dark');
    const junk = memoryStorage({ [THEME_STORAGE_KEY]: 'purple' });
    expect(createAppStore(createFakeApi(), { storage: junk, prefersDark: false }).getState().theme).toBe('light');
  });
});
