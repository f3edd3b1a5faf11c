import {
  EVENTS,
  EVENT_NAMES,
  WS_PATH,
  WireServerMessageSchema,
  type CallName,
  type Envelope,
  type EventName,
  type WireCall,
} from '../../../shared/contract';
import { t } from '../i18n';
import type { ConnectionStatus, Transport } from './transport';

/** The part of the browser's WebSocket this transport uses; tests substitute a fake class. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketClass = new (url: string) => WebSocketLike;

export interface WsTransportOptions {
  url: string;
  WebSocketImpl?: WebSocketClass;
  /** First reconnect delay; doubles on every failed attempt up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Where dropped or malformed frames are reported. */
  warn?: (message: string) => void;
}

const OPEN = 1;

interface PendingCall {
  name: CallName;
  frame: WireCall;
  sent: boolean;
  resolve: (envelope: Envelope<unknown>) => void;
}

/** `ws://<host>/ws?token=…` for the page the core served, from the token in its fragment. */
export function webSocketUrl(host: string, token: string): string {
  return `ws://${host}${WS_PATH}?token=${encodeURIComponent(token)}`;
}

/**
 * The loopback WebSocket transport of wire.ts. Calls made before the socket opens wait for it; when the socket
 * drops, every unanswered call settles at once with a CONNECT_FAILED envelope (never hangs), and the transport
 * reconnects with exponential backoff. Frames that break the wire schema are dropped, not trusted.
 */
export function createWsTransport(options: WsTransportOptions): Transport {
  const WebSocketImpl = options.WebSocketImpl ?? (globalThis.WebSocket as unknown as WebSocketClass);
  const initialBackoffMs = options.initialBackoffMs ?? 250;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const warn = options.warn ?? ((message: string) => console.warn(message));

  const pending = new Map<number, PendingCall>();
  const eventListeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let nextId = 1;
  let socket: WebSocketLike | null = null;
  let status: ConnectionStatus = 'connecting';
  let failedAttempts = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  let closedByUser = false;

  function setStatus(next: ConnectionStatus): void {
    if (next === status) return;
    status = next;
    for (const listener of [...statusListeners]) listener(next);
  }

  // A call already sent may have run on the core; one never sent certainly did not. The message says which.
  function settleAll(): void {
    for (const [id, call] of pending) {
      pending.delete(id);
      const key = call.sent ? 'api.connectionDropped' : 'api.connectFailed';
      call.resolve({ ok: false, error: { code: 'CONNECT_FAILED', message: t(key, { name: call.name }) } });
    }
  }

  function handleFrame(data: unknown): void {
    let raw: unknown;
    try {
      raw = JSON.parse(String(data));
    } catch {
      warn('servelab: dropped a WebSocket frame that is not JSON');
      return;
    }
    const parsed = WireServerMessageSchema.safeParse(raw);
    if (!parsed.success) {
      warn('servelab: dropped a WebSocket frame that breaks the wire format');
      return;
    }
    const message = parsed.data;
    if (message.type === 'result') {
      const call = pending.get(message.id);
      if (!call) return;
      pending.delete(message.id);
      call.resolve(message.envelope as Envelope<unknown>);
      return;
    }
    if (!(EVENT_NAMES as readonly string[]).includes(message.name)) return;
    const name = message.name as EventName;
    const payload = EVENTS[name].safeParse(message.payload);
    if (!payload.success) {
      warn(`servelab: dropped a "${name}" event whose payload breaks the contract`);
      return;
    }
    for (const listener of [...(eventListeners.get(name) ?? [])]) listener(payload.data);
  }

  function connect(): void {
    reconnectTimer = null;
    let ws: WebSocketLike;
    try {
      ws = new WebSocketImpl(options.url);
    } catch (error) {
      warn(`servelab: could not open the WebSocket: ${error instanceof Error ? error.message : String(error)}`);
      scheduleReconnect();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      failedAttempts = 0;
      setStatus('open');
      for (const call of pending.values()) {
        if (!call.sent) {
          ws.send(JSON.stringify(call.frame));
          call.sent = true;
        }
      }
    };
    ws.onmessage = (event) => handleFrame(event.data);
    // A failed connection fires error then close; close alone carries the decision.
    ws.onerror = () => {};
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      settleAll();
      if (closedByUser) return;
      scheduleReconnect();
    };
  }

  function scheduleReconnect(): void {
    setStatus('reconnecting');
    const delay = Math.min(maxBackoffMs, initialBackoffMs * 2 ** failedAttempts);
    failedAttempts += 1;
    reconnectTimer = setTimeout(connect, delay);
  }

  connect();

  return {
    kind: 'websocket',
    invoke(name: CallName, input: unknown) {
      if (closedByUser) {
        return Promise.resolve({ ok: false, error: { code: 'CONNECT_FAILED', message: t('api.closed') } });
      }
      return new Promise<Envelope<unknown>>((resolve) => {
        const id = nextId++;
        const frame: WireCall = { type: 'call', id, name, input };
        const call: PendingCall = { name, frame, sent: false, resolve };
        pending.set(id, call);
        if (socket && socket.readyState === OPEN) {
          socket.send(JSON.stringify(frame));
          call.sent = true;
        }
      });
    },
    on(name: EventName, listener: (payload: unknown) => void) {
      let set = eventListeners.get(name);
      if (!set) eventListeners.set(name, (set = new Set()));
      set.add(listener);
      return () => {
        set.delete(listener);
      };
    },
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    close() {
      closedByUser = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      reconnectTimer = null;
      const ws = socket;
      socket = null;
      for (const [id, call] of pending) {
        pending.delete(id);
        call.resolve({ ok: false, error: { code: 'CONNECT_FAILED', message: t('api.closed') } });
      }
      ws?.close(1000, 'closed by the page');
      setStatus('closed');
    },
  };
}
