import {
  EVENTS,
  EVENT_NAMES,
  WS_CLOSE_SERVER_STOPPED,
  WS_CLOSE_SESSION_REVOKED,
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

/** What a signed-in tab holds (see wire.ts): the session it connects with and the key the server proves itself with. */
export interface WsCredentials {
  session: string;
  proofKey: string;
}

export interface WsTransportOptions {
  /** `ws://<host>/ws`; with `credentials`, `?session=…` is added. */
  url: string;
  /**
   * Signs the page in (once; the result is kept). Rejects with a message for the user when it cannot, and the
   * transport then closes for good. Without it the socket opens `url` as given and skips the server's proof.
   */
  credentials?: () => Promise<WsCredentials>;
  /** HMAC-SHA256(proofKey, nonce) === proof; WebCrypto by default. */
  verifyProof?: (proofKey: string, nonce: string, proof: string) => Promise<boolean>;
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

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Checks the server's answer to a hello with WebCrypto (the page is a secure context on 127.0.0.1). */
export async function hmacProofMatches(proofKey: string, nonce: string, proof: string): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  try {
    signature = fromBase64url(proof);
  } catch {
    return false;
  }
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(proofKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  return crypto.subtle.verify('HMAC', key, signature, encoder.encode(nonce));
}

/**
 * The loopback WebSocket transport of wire.ts. Calls made before the socket opens wait for it; when the socket
 * drops, every unanswered call settles at once with a CONNECT_FAILED envelope (never hangs), and the transport
 * reconnects with exponential backoff. Frames that break the wire schema are dropped, not trusted.
 *
 * With credentials, each socket is trusted only after the server answered a fresh nonce with the HMAC of the
 * proof key: until then no call is sent and no event is delivered, so whatever took the port after the server
 * stopped cannot pose as it. A clean "server stopped" or "session ended" close ends the transport: it does not
 * keep knocking on a port another local user may take.
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
  let closedReason: string | null = null;
  let credentials: Promise<WsCredentials> | null = null;
  const verifyProof = options.verifyProof ?? hmacProofMatches;

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
    if (message.type === 'hello') return;
    if (!(EVENT_NAMES as readonly string[]).includes(message.name)) return;
    const name = message.name as EventName;
    const payload = EVENTS[name].safeParse(message.payload);
    if (!payload.success) {
      warn(`servelab: dropped a "${name}" event whose payload breaks the contract`);
      return;
    }
    for (const listener of [...(eventListeners.get(name) ?? [])]) listener(payload.data);
  }

  /** Closes the transport for good, with a reason every pending and later call reports. */
  function finish(reason: string): void {
    closedByUser = true;
    closedReason = reason;
    if (reconnectTimer) clearTimeout(reconnectTimer);
    reconnectTimer = null;
    const ws = socket;
    socket = null;
    for (const [id, call] of pending) {
      pending.delete(id);
      call.resolve({ ok: false, error: { code: 'CONNECT_FAILED', message: reason } });
    }
    ws?.close(1000, 'closed by the page');
    setStatus('closed');
  }

  function trusted(ws: WebSocketLike): void {
    failedAttempts = 0;
    setStatus('open');
    for (const call of pending.values()) {
      if (!call.sent) {
        ws.send(JSON.stringify(call.frame));
        call.sent = true;
      }
    }
  }

  function connect(): void {
    reconnectTimer = null;
    if (!options.credentials) {
      open(options.url, null);
      return;
    }
    credentials ??= options.credentials();
    credentials.then(
      (creds) => {
        if (!closedByUser) open(`${options.url}?session=${encodeURIComponent(creds.session)}`, creds);
      },
      (error: unknown) => finish(error instanceof Error ? error.message : String(error)),
    );
  }

  function open(url: string, creds: WsCredentials | null): void {
    let ws: WebSocketLike;
    try {
      ws = new WebSocketImpl(url);
    } catch (error) {
      warn(`servelab: could not open the WebSocket: ${error instanceof Error ? error.message : String(error)}`);
      scheduleReconnect();
      return;
    }
    socket = ws;
    let nonce: string | null = null;
    let verified = creds === null;
    ws.onopen = () => {
      if (verified) return trusted(ws);
      nonce = base64url(crypto.getRandomValues(new Uint8Array(32)));
      ws.send(JSON.stringify({ type: 'hello', nonce }));
    };
    ws.onmessage = (event) => {
      if (verified) return handleFrame(event.data);
      // Before the proof, only the hello answer is read; anything else could come from an impostor.
      let proof: string | null = null;
      try {
        const frame = WireServerMessageSchema.safeParse(JSON.parse(String(event.data)));
        if (frame.success && frame.data.type === 'hello') proof = frame.data.proof;
      } catch {
        proof = null;
      }
      if (proof === null || nonce === null || creds === null) {
        warn('servelab: dropped a WebSocket frame that came before the server proved who it is');
        return;
      }
      const sentNonce = nonce;
      nonce = null;
      void verifyProof(creds.proofKey, sentNonce, proof).then(
        (ok) => {
          if (socket !== ws) return;
          if (!ok) return finish(t('api.impostor'));
          verified = true;
          trusted(ws);
        },
        () => {
          if (socket === ws) finish(t('api.impostor'));
        },
      );
    };
    // A failed connection fires error then close; close alone carries the decision.
    ws.onerror = () => {};
    ws.onclose = (event) => {
      if (socket !== ws) return;
      socket = null;
      if (event?.code === WS_CLOSE_SERVER_STOPPED) return finish(t('api.serverStopped'));
      if (event?.code === WS_CLOSE_SESSION_REVOKED) return finish(t('api.sessionRevoked'));
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
        return Promise.resolve({ ok: false, error: { code: 'CONNECT_FAILED', message: closedReason ?? t('api.closed') } });
      }
      return new Promise<Envelope<unknown>>((resolve) => {
        const id = nextId++;
        const frame: WireCall = { type: 'call', id, name, input };
        const call: PendingCall = { name, frame, sent: false, resolve };
        pending.set(id, call);
        if (socket && socket.readyState === OPEN && status === 'open') {
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
    closedReason: () => closedReason,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    close() {
      finish(t('api.closed'));
      closedReason = null;
    },
  };
}
