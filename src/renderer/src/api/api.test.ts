import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServelabError, type ServelabBridge } from '../../../shared/contract';
import type { Host } from '../../../shared/model/host';
import { createApiClient } from './client';
import { pickTransport, signInCodeFrom, SESSION_STORAGE_KEY, type TransportEnvironment } from './pick-transport';
import { createWsTransport, hmacProofMatches, type WebSocketLike } from './ws-transport';

const HOST: Host = {
  id: 'h1',
  kind: 'ssh',
  label: 'lab',
  alias: null,
  address: 'gpu-1',
  port: 22,
  user: 'ml',
  identityFile: '~/.ssh/id_ed25519',
  proxyJump: null,
  hasSavedPassword: false,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

class FakeWebSocket implements WebSocketLike {
  static instances: FakeWebSocket[] = [];
  static get last(): FakeWebSocket {
    const last = FakeWebSocket.instances.at(-1);
    if (!last) throw new Error('no socket was opened');
    return last;
  }
  readyState = 0;
  sent: unknown[] = [];
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }
  close(): void {
    this.readyState = 3;
  }
  // Test controls, named after what the server side does.
  serverAccepts(): void {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  serverSends(frame: unknown): void {
    this.onmessage?.(new MessageEvent('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }
  drop(code = 1006): void {
    this.readyState = 3;
    this.onerror?.(new Event('error'));
    this.onclose?.(new CloseEvent('close', { code }));
  }
}

const NO_LOCATION = { search: '', hash: '', host: '', pathname: '/' };

function fakeBridge(overrides: Partial<Record<string, unknown>> = {}) {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const bridge = {
    app: { info: vi.fn(async () => ({ ok: true, data: { name: 'Servelab', version: '0.1.0', dataDir: '/d', problems: [] } })) },
    hosts: {
      list: vi.fn(async () => ({ ok: true, data: [HOST] })),
      add: vi.fn(),
      remove: vi.fn(),
      inventory: vi.fn(async () => ({
        ok: false,
        error: { code: 'HOST_KEY_UNKNOWN', message: 'unknown key', details: { fingerprint: 'SHA256:x' } },
      })),
      acceptHostKey: vi.fn(),
    },
    on: vi.fn((name: string, listener: (payload: unknown) => void) => {
      if (!listeners.has(name)) listeners.set(name, new Set());
      listeners.get(name)!.add(listener);
      return () => listeners.get(name)!.delete(listener);
    }),
    ...overrides,
  };
  const emit = (name: string, payload: unknown) => listeners.get(name)?.forEach((l) => l(payload));
  return { bridge: bridge as unknown as ServelabBridge, raw: bridge, emit };
}

describe('ApiClient over IPC', () => {
  it('returns the data of an ok envelope', async () => {
    const { bridge } = fakeBridge();
    const api = createApiClient(pickTransport({ servelab: bridge, location: NO_LOCATION })!);
    expect(api.kind).toBe('ipc');
    await expect(api.call('hosts:list', {})).resolves.toEqual([HOST]);
  });

  it('throws a ServelabError with code and details for an error envelope', async () => {
    const { bridge, raw } = fakeBridge();
    const api = createApiClient(pickTransport({ servelab: bridge, location: NO_LOCATION })!);
    const error = await api.call('hosts:inventory', { hostId: 'h1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('HOST_KEY_UNKNOWN');
    expect((error as ServelabError).details).toEqual({ fingerprint: 'SHA256:x' });
    expect(raw.hosts.inventory).toHaveBeenCalledWith({ hostId: 'h1' });
  });

  it('turns a rejected bridge promise into a typed error', async () => {
    const { bridge } = fakeBridge({ app: { info: async () => Promise.reject(new Error('ipc broke')) } });
    const api = createApiClient(pickTransport({ servelab: bridge, location: NO_LOCATION })!);
    await expect(api.call('app:info', {})).rejects.toMatchObject({ code: 'INTERNAL', message: 'ipc broke' });
  });

  it('delivers events and unsubscribes', () => {
    const { bridge, emit } = fakeBridge();
    const api = createApiClient(pickTransport({ servelab: bridge, location: NO_LOCATION })!);
    const seen: unknown[] = [];
    const off = api.on('hosts:state', (payload) => seen.push(payload));
    emit('hosts:state', { hostId: 'h1', state: 'ready' });
    off();
    emit('hosts:state', { hostId: 'h1', state: 'idle' });
    expect(seen).toEqual([{ hostId: 'h1', state: 'ready' }]);
  });
});

describe('pickTransport', () => {
  function browserEnv(search: string, stored: Record<string, string> = {}) {
    const storage = new Map(Object.entries(stored));
    const replaced: string[] = [];
    const posted: unknown[] = [];
    const env: TransportEnvironment = {
      location: { search, hash: '#/hosts', host: '127.0.0.1:4567', pathname: '/' },
      history: { replaceState: (_data: unknown, _unused: string, url?: string | URL | null) => void replaced.push(String(url)) },
      sessionStorage: { getItem: (key) => storage.get(key) ?? null, setItem: (key, value) => void storage.set(key, value) },
      fetch: async (url, init) => {
        posted.push({ url, body: JSON.parse(String(init.body)) });
        return { ok: true, status: 200, json: async () => ({ session: 'sess-1', proofKey: 'pk-1' }) };
      },
      WebSocket: FakeWebSocket,
    };
    return { env, storage, replaced, posted };
  }
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('prefers IPC when window.servelab exists, even with a code', () => {
    const { bridge } = fakeBridge();
    expect(pickTransport({ servelab: bridge, location: { ...NO_LOCATION, search: '?code=abc', host: '127.0.0.1:1' } })?.kind).toBe('ipc');
  });

  it('takes the code out of the address bar, trades it once, keeps the session for the tab and connects with it', async () => {
    FakeWebSocket.instances = [];
    const { env, storage, replaced, posted } = browserEnv('?code=c-1');
    const transport = pickTransport(env);
    expect(transport?.kind).toBe('websocket');
    expect(replaced).toEqual(['/#/hosts']);
    await flush();
    expect(posted).toEqual([{ url: '/session', body: { code: 'c-1' } }]);
    expect(JSON.parse(storage.get(SESSION_STORAGE_KEY)!)).toEqual({ session: 'sess-1', proofKey: 'pk-1', code: 'c-1' });
    expect(FakeWebSocket.last.url).toBe('ws://127.0.0.1:4567/ws?session=sess-1');
    transport?.close();
  });

  it('reuses the tab’s session on reload, and on the same link again, without spending the code twice', async () => {
    FakeWebSocket.instances = [];
    const stored = { [SESSION_STORAGE_KEY]: JSON.stringify({ session: 's0', proofKey: 'k0', code: 'c-0' }) };
    for (const search of ['', '?code=c-0']) {
      const { env, posted } = browserEnv(search, stored);
      const transport = pickTransport(env);
      await flush();
      expect(posted).toEqual([]);
      expect(FakeWebSocket.last.url).toBe('ws://127.0.0.1:4567/ws?session=s0');
      transport?.close();
    }
  });

  it('closes with the server’s words when the code is refused', async () => {
    FakeWebSocket.instances = [];
    const { env } = browserEnv('?code=spent');
    env.fetch = async () => ({ ok: false, status: 409, json: async () => ({ error: 'This sign-in link was already used.' }) });
    const api = createApiClient(pickTransport(env)!);
    await expect(api.call('app:info', {})).rejects.toMatchObject({ code: 'CONNECT_FAILED', message: 'This sign-in link was already used.' });
    expect(api.status()).toBe('closed');
    expect(api.closedReason()).toBe('This sign-in link was already used.');
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('returns null without bridge, code or stored session', () => {
    expect(pickTransport({ location: { ...NO_LOCATION, host: '127.0.0.1:1' }, WebSocket: FakeWebSocket })).toBeNull();
    expect(pickTransport({ location: { ...NO_LOCATION, search: '?code=', host: '127.0.0.1:1' }, WebSocket: FakeWebSocket })).toBeNull();
    expect(pickTransport({ location: { ...NO_LOCATION, hash: '#token=old', host: '127.0.0.1:1' }, WebSocket: FakeWebSocket })).toBeNull();
  });

  it('reads the code from the query', () => {
    expect(signInCodeFrom('?code=xyz')).toBe('xyz');
    expect(signInCodeFrom('?other=1&code=t2')).toBe('t2');
    expect(signInCodeFrom('')).toBeNull();
  });
});

describe('the server proves it knows the proof key before the page trusts it', () => {
  beforeEach(() => {
    FakeWebSocket.instances = [];
  });
  // What the host sends: HMAC-SHA256(proofKey, nonce), base64url (the host test pins the Node side).
  async function proof(key: string, nonce: string): Promise<string> {
    const encoder = new TextEncoder();
    const cryptoKey = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const bytes = new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(nonce)));
    return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  function open() {
    const transport = createWsTransport({ url: 'ws://127.0.0.1:1/ws', credentials: async () => ({ session: 's', proofKey: 'pk' }), warn: () => {}, WebSocketImpl: FakeWebSocket });
    return { transport, api: createApiClient(transport) };
  }

  it('checks HMAC-SHA256 with WebCrypto the way the host computes it', async () => {
    expect(await hmacProofMatches('pk', 'nonce-123', await proof('pk', 'nonce-123'))).toBe(true);
    expect(await hmacProofMatches('pk', 'nonce-123', await proof('other', 'nonce-123'))).toBe(false);
    expect(await hmacProofMatches('pk', 'nonce-123', '!!not base64')).toBe(false);
  });

  it('sends calls only after a correct proof', async () => {
    const { api } = open();
    const result = api.call('hosts:list', {});
    await flush();
    const ws = FakeWebSocket.last;
    ws.serverAccepts();
    const hello = ws.sent[0] as { type: string; nonce: string };
    expect(hello.type).toBe('hello');
    expect(hello.nonce.length).toBeGreaterThanOrEqual(32);
    // Events before the proof are not delivered.
    const seen: unknown[] = [];
    api.on('hosts:changed', (payload) => seen.push(payload));
    ws.serverSends({ type: 'event', name: 'hosts:changed', payload: { hosts: [] } });
    ws.serverSends({ type: 'hello', proof: await proof('pk', hello.nonce) });
    await vi.waitFor(() => expect(ws.sent).toHaveLength(2));
    expect(ws.sent[1]).toEqual({ type: 'call', id: 1, name: 'hosts:list', input: {} });
    expect(seen).toEqual([]);
    ws.serverSends({ type: 'result', id: 1, envelope: { ok: true, data: [] } });
    await expect(result).resolves.toEqual([]);
  });

  it('a server that cannot prove it (a port squatter) gets no call and ends the transport', async () => {
    const { api } = open();
    const result = api.call('hosts:list', {});
    await flush();
    const ws = FakeWebSocket.last;
    ws.serverAccepts();
    ws.serverSends({ type: 'hello', proof: await proof('guess', (ws.sent[0] as { nonce: string }).nonce) });
    await expect(result).rejects.toMatchObject({ code: 'CONNECT_FAILED', message: expect.stringContaining('could not prove') });
    expect(ws.sent).toHaveLength(1);
    expect(api.status()).toBe('closed');
  });
});

describe('ApiClient over WebSocket', () => {
  let warnings: string[];
  beforeEach(() => {
    FakeWebSocket.instances = [];
    warnings = [];
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function open() {
    const transport = createWsTransport({
      url: 'ws://127.0.0.1:1/ws?token=t',
      WebSocketImpl: FakeWebSocket,
      initialBackoffMs: 100,
      maxBackoffMs: 400,
      warn: (m) => warnings.push(m),
    });
    return { transport, api: createApiClient(transport) };
  }

  it('queues calls until the socket opens, then matches results by id', async () => {
    const { api } = open();
    const result = api.call('hosts:list', {});
    expect(FakeWebSocket.last.sent).toEqual([]);
    FakeWebSocket.last.serverAccepts();
    expect(FakeWebSocket.last.sent).toEqual([{ type: 'call', id: 1, name: 'hosts:list', input: {} }]);
    FakeWebSocket.last.serverSends({ type: 'result', id: 1, envelope: { ok: true, data: [HOST] } });
    await expect(result).resolves.toEqual([HOST]);
    expect(api.status()).toBe('open');
  });

  it('throws ServelabError from an error envelope', async () => {
    const { api } = open();
    FakeWebSocket.last.serverAccepts();
    const result = api.call('hosts:inventory', { hostId: 'h1' });
    FakeWebSocket.last.serverSends({
      type: 'result',
      id: 1,
      envelope: { ok: false, error: { code: 'HOST_KEY_CHANGED', message: 'WARNING', details: { fingerprint: 'a', expectedFingerprint: 'b' } } },
    });
    await expect(result).rejects.toMatchObject({ code: 'HOST_KEY_CHANGED', message: 'WARNING', details: { expectedFingerprint: 'b' } });
  });

  it('delivers valid events and drops frames that break the wire format or the contract', () => {
    const { api } = open();
    FakeWebSocket.last.serverAccepts();
    const seen: unknown[] = [];
    api.on('hosts:changed', (payload) => seen.push(payload));
    FakeWebSocket.last.serverSends({ type: 'event', name: 'hosts:changed', payload: { hosts: [HOST] } });
    FakeWebSocket.last.serverSends('not json');
    FakeWebSocket.last.serverSends({ type: 'mystery' });
    FakeWebSocket.last.serverSends({ type: 'event', name: 'hosts:changed', payload: { hosts: 'nope' } });
    FakeWebSocket.last.serverSends({ type: 'result', id: 99, envelope: { ok: true, data: null } });
    expect(seen).toEqual([{ hosts: [HOST] }]);
    expect(warnings).toHaveLength(3);
  });

  it('rejects unanswered calls with a clear error when the socket drops, then reconnects with backoff', async () => {
    const { api } = open();
    const statuses: string[] = [];
    api.onStatus((s) => statuses.push(s));
    FakeWebSocket.last.serverAccepts();
    const inFlight = api.call('hosts:inventory', { hostId: 'h1' });
    FakeWebSocket.last.drop();
    const error = (await inFlight.catch((e: unknown) => e)) as ServelabError;
    expect(error).toBeInstanceOf(ServelabError);
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('dropped before it answered hosts:inventory');
    expect(api.status()).toBe('reconnecting');

    // Reconnect attempts: 100 ms, then 200, 400, capped at 400.
    expect(FakeWebSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(FakeWebSocket.instances).toHaveLength(2);
    FakeWebSocket.last.drop();
    vi.advanceTimersByTime(199);
    expect(FakeWebSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(3);
    FakeWebSocket.last.drop();
    vi.advanceTimersByTime(400);
    expect(FakeWebSocket.instances).toHaveLength(4);
    FakeWebSocket.last.drop();
    vi.advanceTimersByTime(400);
    expect(FakeWebSocket.instances).toHaveLength(5);

    const next = api.call('hosts:list', {});
    FakeWebSocket.last.serverAccepts();
    FakeWebSocket.last.serverSends({ type: 'result', id: 2, envelope: { ok: true, data: [] } });
    await expect(next).resolves.toEqual([]);
    expect(statuses).toEqual(['open', 'reconnecting', 'open']);
  });

  it('fails a call made while the core is unreachable instead of hanging', async () => {
    const { api } = open();
    const call = api.call('app:info', {});
    FakeWebSocket.last.drop();
    await expect(call).rejects.toMatchObject({ code: 'CONNECT_FAILED', message: expect.stringContaining('Could not reach') });
  });

  it('stops reconnecting after the server closed cleanly: stopped, or the session was ended', async () => {
    for (const code of [1001, 4401]) {
      FakeWebSocket.instances = [];
      const { api } = open();
      FakeWebSocket.last.serverAccepts();
      const call = api.call('hosts:list', {});
      FakeWebSocket.last.drop(code);
      await expect(call).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
      vi.advanceTimersByTime(10_000);
      expect(FakeWebSocket.instances).toHaveLength(1);
      expect(api.status()).toBe('closed');
      expect(api.closedReason()).toMatch(code === 1001 ? /stopped/ : /signed out/);
    }
  });

  it('stops reconnecting once closed', async () => {
    const { transport, api } = open();
    FakeWebSocket.last.serverAccepts();
    const call = api.call('hosts:list', {});
    transport.close();
    await expect(call).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    vi.advanceTimersByTime(10_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(api.status()).toBe('closed');
  });
});
