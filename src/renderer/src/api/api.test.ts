import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServelabError, type ServelabBridge } from '../../../shared/contract';
import type { Host } from '../../../shared/model/host';
import { createApiClient } from './client';
import { pickTransport, tokenFromHash } from './pick-transport';
import { createWsTransport, type WebSocketLike } from './ws-transport';

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
  drop(): void {
    this.readyState = 3;
    this.onerror?.(new Event('error'));
    this.onclose?.(new CloseEvent('close', { code: 1006 }));
  }
}

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
    const api = createApiClient(pickTransport({ servelab: bridge, location: { hash: '', host: '' } })!);
    expect(api.kind).toBe('ipc');
    await expect(api.call('hosts:list', {})).resolves.toEqual([HOST]);
  });

  it('throws a ServelabError with code and details for an error envelope', async () => {
    const { bridge, raw } = fakeBridge();
    const api = createApiClient(pickTransport({ servelab: bridge, location: { hash: '', host: '' } })!);
    const error = await api.call('hosts:inventory', { hostId: 'h1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('HOST_KEY_UNKNOWN');
    expect((error as ServelabError).details).toEqual({ fingerprint: 'SHA256:x' });
    expect(raw.hosts.inventory).toHaveBeenCalledWith({ hostId: 'h1' });
  });

  it('turns a rejected bridge promise into a typed error', async () => {
    const { bridge } = fakeBridge({ app: { info: async () => Promise.reject(new Error('ipc broke')) } });
    const api = createApiClient(pickTransport({ servelab: bridge, location: { hash: '', host: '' } })!);
    await expect(api.call('app:info', {})).rejects.toMatchObject({ code: 'INTERNAL', message: 'ipc broke' });
  });

  it('delivers events and unsubscribes', () => {
    const { bridge, emit } = fakeBridge();
    const api = createApiClient(pickTransport({ servelab: bridge, location: { hash: '', host: '' } })!);
    const seen: unknown[] = [];
    const off = api.on('hosts:state', (payload) => seen.push(payload));
    emit('hosts:state', { hostId: 'h1', state: 'ready' });
    off();
    emit('hosts:state', { hostId: 'h1', state: 'idle' });
    expect(seen).toEqual([{ hostId: 'h1', state: 'ready' }]);
  });
});

describe('pickTransport', () => {
  it('prefers IPC when window.servelab exists, even with a token', () => {
    const { bridge } = fakeBridge();
    expect(pickTransport({ servelab: bridge, location: { hash: '#token=abc', host: '127.0.0.1:1' } })?.kind).toBe('ipc');
  });

  it('uses the WebSocket of the page host when the fragment has a token', () => {
    FakeWebSocket.instances = [];
    const transport = pickTransport({ location: { hash: '#token=a-b_c', host: '127.0.0.1:4567' }, WebSocket: FakeWebSocket });
    expect(transport?.kind).toBe('websocket');
    expect(FakeWebSocket.last.url).toBe('ws://127.0.0.1:4567/ws?token=a-b_c');
    transport?.close();
  });

  it('returns null without bridge or token', () => {
    expect(pickTransport({ location: { hash: '', host: '127.0.0.1:1' }, WebSocket: FakeWebSocket })).toBeNull();
    expect(pickTransport({ location: { hash: '#token=', host: '127.0.0.1:1' }, WebSocket: FakeWebSocket })).toBeNull();
  });

  it('reads the token from the fragment', () => {
    expect(tokenFromHash('#token=xyz')).toBe('xyz');
    expect(tokenFromHash('#other=1&token=t2')).toBe('t2');
    expect(tokenFromHash('')).toBeNull();
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
