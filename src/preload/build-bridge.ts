import { CALL_NAMES, EVENT_CHANNEL, EVENT_NAMES, splitCallName } from '../shared/contract/channels';

/** The part of ipcRenderer the bridge needs; injected so the bridge can be tested without Electron. */
export interface IpcLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Builds `window.servelab` from the contract's names only: one function per call, grouped by domain, and
 * `on(event, listener)` for the contract's events. Renderer code never sees ipcRenderer or the IPC event object.
 */
export function buildBridge(ipc: IpcLike): Record<string, unknown> {
  const bridge: Record<string, Record<string, (input?: unknown) => Promise<unknown>> | unknown> = {};
  for (const name of CALL_NAMES) {
    const { domain, action } = splitCallName(name);
    const group = (bridge[domain] ??= {}) as Record<string, (input?: unknown) => Promise<unknown>>;
    group[action] = (input?: unknown) => ipc.invoke(name, input ?? {});
  }
  const known = new Set<string>(EVENT_NAMES);
  bridge.on = (eventName: unknown, listener: unknown): (() => void) => {
    if (typeof eventName !== 'string' || !known.has(eventName)) {
      throw new Error(`Unknown event "${String(eventName)}"`);
    }
    if (typeof listener !== 'function') throw new Error('A listener function is required');
    const relay = (_event: unknown, message: unknown) => {
      const m = message as { name?: unknown; payload?: unknown } | null;
      if (m && m.name === eventName) (listener as (payload: unknown) => void)(m.payload);
    };
    ipc.on(EVENT_CHANNEL, relay);
    return () => {
      ipc.removeListener(EVENT_CHANNEL, relay);
    };
  };
  return Object.freeze(bridge);
}
