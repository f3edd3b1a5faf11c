import type { ErrorInfo } from '../../../shared/contract';
import type { Host, HostStateEvent } from '../../../shared/model/host';
import type { Inventory } from '../../../shared/model/inventory';
import type { AppState, HostKeyPrompt } from './types';

/** The core's connection states, plus the moment the user must decide on an unknown host key. */
export type HostBadgeState = HostStateEvent['state'] | 'awaiting-key';

/**
 * The state badge of one host. A read the user just started shows as connecting at once; otherwise the core's
 * latest hosts:state event decides, and without one the outcome of the last read does.
 */
export function selectHostBadgeState(state: AppState, hostId: string): HostBadgeState {
  const request = state.requestByHost[hostId];
  if (request?.loading) return 'connecting';
  if (state.hostKeyPrompt?.hostId === hostId) return 'awaiting-key';
  const event = state.connectionByHost[hostId];
  if (event) return event.state;
  if (request?.error) return 'failed';
  if (state.inventoryByHost[hostId]) return 'ready';
  return 'idle';
}

export interface HostView {
  host: Host | undefined;
  badge: HostBadgeState;
  loading: boolean;
  error: ErrorInfo | null;
  inventory: Inventory | undefined;
  /** True while the unknown-key dialog for this host is open. */
  awaitingKeyDecision: boolean;
}

/** Everything one host card shows. Its fields are references into the state, so a shallow compare suffices. */
export function selectHostView(state: AppState, hostId: string): HostView {
  const request = state.requestByHost[hostId];
  const event = state.connectionByHost[hostId];
  // A failure seen only through an event (say, a read started elsewhere) still shows the core's message.
  const eventError: ErrorInfo | null =
    !request && event?.state === 'failed' && event.message ? { code: 'CONNECT_FAILED', message: event.message } : null;
  return {
    host: state.hosts.find((h) => h.id === hostId),
    badge: selectHostBadgeState(state, hostId),
    loading: request?.loading ?? false,
    error: request?.error ?? eventError,
    inventory: state.inventoryByHost[hostId],
    awaitingKeyDecision: state.hostKeyPrompt?.hostId === hostId,
  };
}

export function selectHostIds(state: AppState): string[] {
  return state.hosts.map((h) => h.id);
}

/** The unknown-key prompt with the host it belongs to, or null when none is pending. */
export function selectHostKeyPrompt(state: AppState): (HostKeyPrompt & { host: Host | undefined }) | null {
  const prompt = state.hostKeyPrompt;
  if (!prompt) return null;
  return { ...prompt, host: state.hosts.find((h) => h.id === prompt.hostId) };
}
