import { SESSION_PATH, SessionGrantSchema, SessionRefusalSchema, WS_PATH, type ServelabBridge } from '../../../shared/contract';
import { t } from '../i18n';
import { createIpcTransport } from './ipc-transport';
import type { Transport } from './transport';
import { createWsTransport, type WebSocketClass, type WsCredentials } from './ws-transport';

/** What `pickTransport` looks at; `window` in the app, a plain object in tests. */
export interface TransportEnvironment {
  servelab?: ServelabBridge | undefined;
  location: { search: string; hash: string; host: string; pathname: string };
  history?: Pick<History, 'replaceState'>;
  sessionStorage?: Pick<Storage, 'getItem' | 'setItem'>;
  fetch?: (url: string, init: RequestInit) => Promise<Pick<Response, 'ok' | 'status' | 'json'>>;
  WebSocket?: WebSocketClass;
}

/** Where a signed-in tab keeps its session: per tab and per origin (port included), unlike a cookie. */
export const SESSION_STORAGE_KEY = 'servelab.session';

/** The sign-in code the core put in the page's query (`?code=…`), or null. */
export function signInCodeFrom(search: string): string | null {
  const code = new URLSearchParams(search).get('code');
  return code && code.trim() !== '' ? code : null;
}

interface StoredSession extends WsCredentials {
  /** The code this session was traded for: loading the same link again reuses the session instead of spending it twice. */
  code: string | null;
}

function readStored(storage: TransportEnvironment['sessionStorage']): StoredSession | null {
  try {
    const raw = storage?.getItem(SESSION_STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<StoredSession>;
    return typeof value.session === 'string' && typeof value.proofKey === 'string'
      ? { session: value.session, proofKey: value.proofKey, code: typeof value.code === 'string' ? value.code : null }
      : null;
  } catch {
    return null;
  }
}

async function tradeCode(env: TransportEnvironment, code: string): Promise<WsCredentials> {
  const doFetch = env.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  let res;
  try {
    res = await doFetch(SESSION_PATH, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
  } catch {
    throw new Error(t('api.signInUnreachable'));
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const refusal = SessionRefusalSchema.safeParse(body);
    throw new Error(refusal.success ? refusal.data.error : t('api.signInRefused', { status: res.status }));
  }
  const grant = SessionGrantSchema.safeParse(body);
  if (!grant.success) throw new Error(t('api.signInRefused', { status: res.status }));
  try {
    env.sessionStorage?.setItem(SESSION_STORAGE_KEY, JSON.stringify({ ...grant.data, code }));
  } catch {
    // Without storage the tab still works; a reload then needs a fresh link.
  }
  return grant.data;
}

/**
 * IPC when the preload exposed `window.servelab` (the desktop app); the loopback WebSocket when the page was
 * opened with a sign-in code, or this tab signed in before (headless core, tests in a browser); otherwise null:
 * no core to talk to. The code is taken out of the address bar at once, so it stays out of history and bookmarks.
 */
export function pickTransport(env: TransportEnvironment = window as unknown as TransportEnvironment): Transport | null {
  if (env.servelab) return createIpcTransport(env.servelab);
  const code = signInCodeFrom(env.location.search);
  if (code) env.history?.replaceState(null, '', `${env.location.pathname}${env.location.hash}`);
  const stored = readStored(env.sessionStorage);
  if (!code && !stored) return null;
  const reuse = stored && (code === null || stored.code === code);
  return createWsTransport({
    url: `ws://${env.location.host}${WS_PATH}`,
    credentials: reuse ? () => Promise.resolve(stored) : () => tradeCode(env, code!),
    ...(env.WebSocket ? { WebSocketImpl: env.WebSocket } : {}),
  });
}
