import { afterEach, describe, expect, it } from 'vitest';
import { coreError, createFakeApi } from '../testing/fake-api';
import { CHANGED_KEY_DETAILS, H200_INVENTORY, UNKNOWN_JUMP_KEY_DETAILS, UNKNOWN_KEY_DETAILS, makeHost, makePrompt } from '../testing/fixtures';
import { getLocale, setLocale, t } from '../i18n';
import { createAppStore, initialLocale, LOCALE_STORAGE_KEY, syncStoreWithCore, THEME_STORAGE_KEY } from '.';
import { selectHostBadgeState, selectHostKeyPrompt, selectHostView } from './selectors';
import { LOG_LIMIT } from './hosts-slice';
import type { AppState } from './types';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

const at = (event: { hostId: string; state: 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'failed'; message?: string }) => ({ ...event, receivedAt: 0 });

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
      connectionByHost: { [host.id]: at({ hostId: host.id, state: 'failed' }) },
    });
    expect(selectHostBadgeState(reading, host.id)).toBe('connecting');
  });

  it('badge: the core event decides once the read settled', () => {
    const state = baseState({
      requestByHost: { [host.id]: { loading: false, error: null } },
      connectionByHost: { [host.id]: at({ hostId: host.id, state: 'ready' }) },
    });
    expect(selectHostBadgeState(state, host.id)).toBe('ready');
  });

  it('badge: failed or ready from the last read without events', () => {
    const failed = baseState({ errorByHost: { [host.id]: { error: { code: 'TIMEOUT', message: 't' }, operation: 'inventory' } } });
    expect(selectHostBadgeState(failed, host.id)).toBe('failed');
    expect(selectHostBadgeState(baseState({ inventoryByHost: { [host.id]: H200_INVENTORY } }), host.id)).toBe('ready');
  });

  it('badge: asks for a decision while the unknown-key dialog is open, whatever the core last said', () => {
    const state = baseState({
      hosts: [host],
      connectionByHost: { [host.id]: at({ hostId: host.id, state: 'failed', message: 'unknown key' }) },
      hostKeyPrompts: [
        {
          hostId: host.id,
          key: { host: '127.0.0.1', port: 22, keyType: 'ssh-ed25519', fingerprint: 'SHA256:x', role: 'target', alias: null },
          retry: 'inventory',
          accepting: false,
          error: null,
        },
      ],
    });
    expect(selectHostBadgeState(state, host.id)).toBe('awaiting-key');
  });

  it('badge: needs input while a question for the host waits, and shows reconnecting even during a read', () => {
    expect(selectHostBadgeState(baseState({ hosts: [host], prompts: [makePrompt({ hostId: host.id })] }), host.id)).toBe('awaiting-input');
    const retrying = baseState({
      requestByHost: { [host.id]: { loading: true, error: null } },
      connectionByHost: { [host.id]: at({ hostId: host.id, state: 'reconnecting' }) },
    });
    expect(selectHostBadgeState(retrying, host.id)).toBe('reconnecting');
    const connecting = baseState({ holdByHost: { [host.id]: { held: false, pending: true } } });
    expect(selectHostBadgeState(connecting, host.id)).toBe('connecting');
  });

  it('view: shows a failure known only from an event with the core message', () => {
    const state = baseState({
      hosts: [host],
      connectionByHost: { [host.id]: at({ hostId: host.id, state: 'failed', message: 'Connection refused' }) },
    });
    expect(selectHostView(state, host.id)).toMatchObject({ host, badge: 'failed', error: { message: 'Connection refused' } });
  });

  it('view: returns the same references so shallow comparison holds', () => {
    const states = [
      baseState({ hosts: [host], inventoryByHost: { [host.id]: H200_INVENTORY } }),
      // A failure known only from an event, while a read runs: the error derived from it must be stable too.
      baseState({
        hosts: [host],
        requestByHost: { [host.id]: { loading: true, error: null } },
        connectionByHost: { [host.id]: at({ hostId: host.id, state: 'failed', message: 'unknown key' }) },
      }),
    ];
    for (const state of states) {
      const a = selectHostView(state, host.id);
      const b = selectHostView(state, host.id);
      for (const key of Object.keys(a) as (keyof typeof a)[]) expect(Object.is(a[key], b[key]), key).toBe(true);
    }
  });

  it('host key prompt carries its host', () => {
    const key = { ...UNKNOWN_KEY_DETAILS, role: 'target' as const, alias: null };
    const prompt = { hostId: host.id, key, retry: 'inventory' as const, accepting: false, error: null };
    expect(selectHostKeyPrompt(baseState({ hosts: [host], hostKeyPrompts: [prompt] }))).toMatchObject({ host, key });
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
    expect(store.getState().hostKeyPrompts).toEqual([
      { hostId: 'host-1', key: { ...UNKNOWN_KEY_DETAILS, role: 'target', alias: null }, retry: 'inventory', accepting: false, error: null },
    ]);
    expect(store.getState().requestByHost['host-1']?.error?.code).toBe('HOST_KEY_UNKNOWN');
    await store.getState().acceptHostKey('host-1');
    expect(api.calls.find((c) => c.name === 'hosts:acceptHostKey')?.input).toEqual({
      hostId: 'host-1',
      fingerprint: UNKNOWN_KEY_DETAILS.fingerprint,
    });
    expect(store.getState().hostKeyPrompts).toEqual([]);
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
    await store.getState().acceptHostKey('host-1');
    expect(store.getState().hostKeyPrompts[0]).toMatchObject({ accepting: false, error: { code: 'NOT_FOUND' } });
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
    expect(store.getState().hostKeyPrompts).toEqual([]);
    expect(store.getState().requestByHost['host-1']?.error?.code).toBe('HOST_KEY_CHANGED');
  });

  it('walks the hops: the jump host key, then the target key, repeating the request after each', async () => {
    const trusted = new Set<string>();
    const api = createFakeApi({
      'hosts:connect': () => {
        if (!trusted.has('jump')) coreError({ code: 'HOST_KEY_UNKNOWN', message: 'jump', details: { ...UNKNOWN_JUMP_KEY_DETAILS, publicKey: 'AAAA' } });
        if (!trusted.has('target')) coreError({ code: 'HOST_KEY_UNKNOWN', message: 'target', details: { ...UNKNOWN_KEY_DETAILS, role: 'target' } });
        return { hostId: 'host-1', state: 'ready' };
      },
      'hosts:acceptHostKey': ({ fingerprint }) => {
        trusted.add(fingerprint === UNKNOWN_JUMP_KEY_DETAILS.fingerprint ? 'jump' : 'target');
        return { accepted: UNKNOWN_KEY_DETAILS };
      },
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().connectHost('host-1');
    expect(store.getState().hostKeyPrompts[0]).toMatchObject({ retry: 'connect', key: { role: 'jump', alias: 'bastion', host: 'bastion.lab', port: 2222 } });
    // The public key the core sends along is not kept: only what the user is shown.
    expect(store.getState().hostKeyPrompts[0]?.key).not.toHaveProperty('publicKey');
    await store.getState().acceptHostKey('host-1');
    expect(store.getState().hostKeyPrompts[0]).toMatchObject({ key: { role: 'target', fingerprint: UNKNOWN_KEY_DETAILS.fingerprint } });
    await store.getState().acceptHostKey('host-1');
    expect(store.getState().hostKeyPrompts).toEqual([]);
    expect(store.getState().holdByHost['host-1']).toEqual({ held: true, pending: false });
    expect(store.getState().connectionByHost['host-1']?.state).toBe('ready');
    expect(api.calls.filter((c) => c.name === 'hosts:connect')).toHaveLength(3);
  });

  it('replaces a changed key only through replaceHostKey, then repeats the failed request', async () => {
    let replaced = false;
    const api = createFakeApi({
      'hosts:inventory': () => (replaced ? H200_INVENTORY : coreError({ code: 'HOST_KEY_CHANGED', message: '@@@', details: CHANGED_KEY_DETAILS })),
      'hosts:replaceHostKey': () => {
        replaced = true;
        return { replaced: CHANGED_KEY_DETAILS };
      },
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().readInventory('host-1');
    expect(store.getState().errorByHost['host-1']?.error.code).toBe('HOST_KEY_CHANGED');
    expect(store.getState().hostKeyPrompts).toEqual([]);
    await store.getState().replaceHostKey('host-1', CHANGED_KEY_DETAILS.fingerprint);
    expect(api.calls.find((c) => c.name === 'hosts:replaceHostKey')?.input).toEqual({ hostId: 'host-1', fingerprint: CHANGED_KEY_DETAILS.fingerprint });
    expect(store.getState().errorByHost['host-1']).toBeUndefined();
    expect(store.getState().inventoryByHost['host-1']).toEqual(H200_INVENTORY);
  });

  it('connect holds the host until disconnect', async () => {
    const api = createFakeApi({
      'hosts:connect': () => ({ hostId: 'host-1', state: 'ready' }),
      'hosts:disconnect': () => ({ hostId: 'host-1', state: 'ready' }),
    });
    const store = createAppStore(api, { storage: null });
    await store.getState().connectHost('host-1');
    expect(store.getState().holdByHost['host-1']).toEqual({ held: true, pending: false });
    await store.getState().disconnectHost('host-1');
    expect(store.getState().holdByHost['host-1']).toEqual({ held: false, pending: false });
  });

  it('learns from the core which connections are held, after a reload and when one is let go', async () => {
    const a = makeHost({ id: 'a' });
    const api = createFakeApi({ 'hosts:list': () => [a], 'hosts:states': () => [{ hostId: 'a', state: 'ready', held: true }] });
    const store = createAppStore(api, { storage: null });
    const stop = syncStoreWithCore(api, store);
    await store.getState().loadHosts();
    expect(store.getState().holdByHost.a).toEqual({ held: true, pending: false });
    expect(store.getState().connectionByHost.a?.state).toBe('ready');
    api.emit('hosts:state', { hostId: 'a', state: 'failed', message: 'Permission denied', held: false });
    expect(store.getState().holdByHost.a).toEqual({ held: false, pending: false });
    stop();
  });

  it('merges the log backlog with live entries and keeps it bounded', async () => {
    const host = makeHost();
    let release: () => void = () => {};
    const api = createFakeApi({
      'hosts:list': () => [host],
      'hosts:connectionLog': () =>
        new Promise((resolve) => {
          release = () => resolve({ entries: [{ time: 1, level: 'info', message: 'a' }, { time: 2, level: 'info', message: 'b' }] });
        }),
    });
    const store = createAppStore(api, { storage: null });
    syncStoreWithCore(api, store);
    await new Promise((r) => setTimeout(r, 0));
    const loading = store.getState().loadConnectionLog(host.id);
    // Sent while the backlog was on its way: one already in it, one newer.
    api.emit('hosts:log', { hostId: host.id, entry: { time: 2, level: 'info', message: 'b' } });
    api.emit('hosts:log', { hostId: host.id, entry: { time: 3, level: 'warn', message: 'c' } });
    release();
    await loading;
    expect(store.getState().logByHost[host.id]?.entries.map((e) => e.message)).toEqual(['a', 'b', 'c']);
    for (let i = 0; i < LOG_LIMIT + 10; i++) api.emit('hosts:log', { hostId: host.id, entry: { time: 10 + i, level: 'debug', message: `m${i}` } });
    const entries = store.getState().logByHost[host.id]!.entries;
    expect(entries).toHaveLength(LOG_LIMIT);
    expect(entries.at(-1)?.message).toBe(`m${LOG_LIMIT + 9}`);
    // Entries of hosts the store does not know are not collected.
    api.emit('hosts:log', { hostId: 'gone', entry: { time: 1, level: 'info', message: 'x' } });
    expect(store.getState().logByHost.gone).toBeUndefined();
  });

  it('records a failed host list', async () => {
    const api = createFakeApi({ 'hosts:list': () => coreError({ code: 'INTERNAL', message: 'disk full' }) });
    const store = createAppStore(api, { storage: null });
    await store.getState().loadHosts();
    expect(store.getState().hostsLoad).toEqual({ status: 'failed', error: { code: 'INTERNAL', message: 'disk full' } });
  });
});

describe('prompts slice', () => {
  it('queues questions from events and the backlog, and drops them when settled', async () => {
    const first = makePrompt({ requestId: 'r1' });
    const api = createFakeApi({ 'hosts:list': () => [makeHost()], 'prompts:pending': () => [first] });
    const store = createAppStore(api, { storage: null });
    syncStoreWithCore(api, store);
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().prompts.map((p) => p.requestId)).toEqual(['r1']);
    api.emit('prompts:request', makePrompt({ requestId: 'r2', kind: 'keyboard-interactive' }));
    api.emit('prompts:request', makePrompt({ requestId: 'r2' }));
    expect(store.getState().prompts.map((p) => p.requestId)).toEqual(['r1', 'r2']);
    api.emit('prompts:settled', { requestId: 'r1', hostId: 'host-1', outcome: 'timed-out' });
    expect(store.getState().prompts.map((p) => p.requestId)).toEqual(['r2']);
  });

  it('keeps a question open with the reason when the core refuses the answer', async () => {
    const api = createFakeApi({
      'prompts:answer': () => coreError({ code: 'BAD_INPUT', message: 'Expected 2 answer(s).', issues: [{ path: 'answers', message: 'must hold 2 string(s)' }] }),
    });
    const store = createAppStore(api, { storage: null });
    store.getState().applyPromptRequest(makePrompt());
    await store.getState().answerPrompt('req-1', ['x'], false);
    expect(store.getState().prompts).toHaveLength(1);
    expect(store.getState().promptErrors['req-1']?.message).toBe('Expected 2 answer(s).');
  });
});

describe('streamed logs', () => {
  const lines = (buffer: { length: number; line(i: number): string }) => Array.from({ length: buffer.length }, (_, i) => buffer.line(i));

  it('keeps a server log in one buffer, appended in place without a store update per event', () => {
    const api = createFakeApi();
    const store = createAppStore(api, { storage: null });
    const off = syncStoreWithCore(api, store);
    api.emit('servers:log', { serverId: 'srv-1', text: 'INFO Started server process\nINFO Waiting for app' });
    const servers = store.getState().servers;
    const log = servers['srv-1']!.log;
    let updates = 0;
    const unsubscribe = store.subscribe(() => updates++);
    for (let i = 0; i < 1000; i++) api.emit('servers:log', { serverId: 'srv-1', text: i === 0 ? 'lication startup.\n' : `line ${i}\n` });
    expect(updates).toBe(0);
    expect(store.getState().servers).toBe(servers);
    expect(log.length).toBe(1001);
    expect(lines(log).slice(0, 3)).toEqual(['INFO Started server process', 'INFO Waiting for application startup.', 'line 1']);
    expect(log.dropped).toBe(0);
    api.emit('servers:state', { serverId: 'srv-1', state: 'ready' });
    expect(store.getState().servers['srv-1']!.log).toBe(log);
    unsubscribe();
    off();
  });

  it('keeps install logs with the progress lines, and a bench log per run', () => {
    const api = createFakeApi();
    const store = createAppStore(api, { storage: null });
    const off = syncStoreWithCore(api, store);
    api.emit('engines:log', { hostId: 'h', jobId: 'job-1', text: 'Resolved 142 packages\nDownloading tor' });
    api.emit('engines:progress', { hostId: 'h', jobId: 'job-1', phase: 'downloading', percent: 40, line: 'Downloading torch' });
    api.emit('engines:log', { hostId: 'h', jobId: 'job-1', text: 'ch (800 MiB)\n' });
    const job = store.getState().installJobs['job-1']!;
    expect(job.phase).toBe('downloading');
    expect(lines(job.log)).toEqual(['Resolved 142 packages', 'Downloading torch', 'Downloading torch (800 MiB)']);
    // Progress lines that repeat what the log just streamed are not added again.
    api.emit('engines:log', { hostId: 'h', jobId: 'job-1', text: 'servelab: verifying the import\n' });
    api.emit('engines:progress', { hostId: 'h', jobId: 'job-1', phase: 'verifying', line: 'servelab: verifying the import' });
    api.emit('engines:progress', { hostId: 'h', jobId: 'job-1', phase: 'verifying', line: 'servelab: verifying the import' });
    api.emit('engines:progress', { hostId: 'h', jobId: 'job-1', phase: 'done', percent: 100, line: 'Installed vLLM 0.11.0.' });
    expect(lines(job.log).slice(3)).toEqual(['servelab: verifying the import', 'Installed vLLM 0.11.0.']);

    api.emit('bench:log', { runId: 'run-1', text: '  5%|5         | 1/20\r' });
    api.emit('bench:log', { runId: 'run-1', text: ' 50%|#####     | 10/20' });
    api.emit('bench:log', { runId: 'run-2', text: 'other\n' });
    expect(lines(store.getState().benchRuns['run-1']!.log)).toEqual([' 50%|#####     | 10/20']);
    expect(lines(store.getState().benchRuns['run-2']!.log)).toEqual(['other']);
    off();
  });

  it('keeps the open study’s log across reopening it and ignores another project’s', async () => {
    const project = { schemaVersion: 1, study: { name: 'S' }, state: { status: 'running', trials: [], decisions: [] } } as never;
    const api = createFakeApi({ 'studies:open': () => project, 'studies:examples': () => [], 'studies:recent': () => [] });
    const store = createAppStore(api, { storage: null });
    const off = syncStoreWithCore(api, store);
    await store.getState().openStudyProject('/p/a.servelab');
    api.emit('studies:log', { path: '/p/a.servelab', text: 'Launching vllm serve\n' });
    api.emit('studies:log', { path: '/p/other.servelab', text: 'not this one\n' });
    await store.getState().openStudyProject('/p/a.servelab');
    expect(lines(store.getState().openStudy!.log)).toEqual(['Launching vllm serve']);
    off();
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

  describe('language', () => {
    afterEach(() => setLocale('en'));

    it('remembers the chosen language and switches the messages to it', () => {
      const storage = memoryStorage();
      const store = createAppStore(createFakeApi(), { storage, prefersDark: false });
      expect(store.getState().locale).toBe('en');
      store.getState().setLocale('tr');
      expect(store.getState().locale).toBe('tr');
      expect(storage.data.get(LOCALE_STORAGE_KEY)).toBe('tr');
      expect(t('nav.engines')).toBe('Motorlar');

      setLocale('en');
      const next = createAppStore(createFakeApi(), { storage, prefersDark: false });
      expect(next.getState().locale).toBe('tr');
      expect(getLocale()).toBe('tr');
    });

    it('takes an unknown language as English', () => {
      const storage = memoryStorage();
      const store = createAppStore(createFakeApi(), { storage, prefersDark: false });
      store.getState().setLocale('xx');
      expect(store.getState().locale).toBe('en');
      expect(storage.data.get(LOCALE_STORAGE_KEY)).toBe('en');
    });

    it('starts from the stored language, else the browser language, and survives storage that throws', () => {
      expect(initialLocale(memoryStorage({ [LOCALE_STORAGE_KEY]: 'tr' }))).toBe('tr');
      expect(initialLocale(memoryStorage({ [LOCALE_STORAGE_KEY]: 'xx' }))).toBe('en');
      expect(initialLocale(null)).toBe('en');
      const broken = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); } };
      expect(initialLocale(broken)).toBe('en');
      const store = createAppStore(createFakeApi(), { storage: broken, prefersDark: false });
      store.getState().setLocale('tr');
      expect(store.getState().locale).toBe('tr');
    });
  });
});
