import type { ServelabBridge } from '../../../shared/contract';
import { createIpcTransport } from './ipc-transport';
import type { Transport } from './transport';
import { createWsTransport, webSocketUrl, type WebSocketClass } from './ws-transport';

/** What `pickTransport` looks at; `window` in the app, a plain object in tests. */
export interface TransportEnvironment {
  servelab?: ServelabBridge | undefined;
  location: { hash: string; host: string };
  WebSocket?: WebSocketClass;
}

/** The token the core put in the page's fragment (`#token=…`), or null. */
export function tokenFromHash(hash: string): string | null {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const token = params.get('token');
  return token && token.trim() !== '' ? token : null;
}

/**
 * IPC when the preload exposed `window.servelab` (the desktop app); the loopback WebSocket when the page was
 * opened with a token in its fragment (headless core, tests in a browser); otherwise null: no core to talk to.
 */
export function pickTransport(env: TransportEnvironment = window as unknown as TransportEnvironment): Transport | null {
  if (env.servelab) return createIpcTransport(env.servelab);
  const token = tokenFromHash(env.location.hash);
  if (!token) return null;
  return createWsTransport({
    url: webSocketUrl(env.location.host, token),
    ...(env.WebSocket ? { WebSocketImpl: env.WebSocket } : {}),
  });
}
