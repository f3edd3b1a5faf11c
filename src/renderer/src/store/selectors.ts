import type { ErrorInfo } from '../../../shared/contract';
import type { Host, HostStateEvent } from '../../../shared/model/host';
import type { Inventory } from '../../../shared/model/inventory';
import type { ClusterInventory } from '../../../shared/model/cluster';
import type { PromptRequestView } from '../../../shared/model/prompt';
import type { HostKeyPrompt, HostOperation, ReceivedHostState } from './hosts-slice';
import type { AppState } from './types';

/** The core's connection states, plus the moments the user must act: decide on a host key, answer a question. */
export type HostBadgeState = HostStateEvent['state'] | 'awaiting-key' | 'awaiting-input';

/**
 * The state badge of one host. A decision or question waiting for the user comes first; a read or connect the
 * user just started shows as connecting at once (unless the core says it is retrying); otherwise the core's
 * latest hosts:state event decides, and without one the outcome of the last request does.
 */
export function selectHostBadgeState(state: AppState, hostId: string): HostBadgeState {
  if (state.hostKeyPrompts.some((p) => p.hostId === hostId)) return 'awaiting-key';
  if (state.prompts.some((p) => p.hostId === hostId)) return 'awaiting-input';
  const event = state.connectionByHost[hostId];
  const busy = state.requestByHost[hostId]?.loading || state.holdByHost[hostId]?.pending;
  if (busy && event?.state !== 'reconnecting') return 'connecting';
  if (event) return event.state;
  if (state.errorByHost[hostId]) return 'failed';
  if (state.inventoryByHost[hostId]) return 'ready';
  return 'idle';
}

// One ErrorInfo per failed-state event, so that selecting it twice gives the same object (shallow compare holds).
const eventErrors = new WeakMap<ReceivedHostState, ErrorInfo>();

function errorOfEvent(event: ReceivedHostState | undefined): ErrorInfo | null {
  if (event?.state !== 'failed' || !event.message) return null;
  let error = eventErrors.get(event);
  if (!error) {
    error = { code: 'CONNECT_FAILED', message: event.message };
    eventErrors.set(event, error);
  }
  return error;
}

export interface HostView {
  host: Host | undefined;
  badge: HostBadgeState;
  /** The latest hosts:state event, for the attempt and retry countdown while reconnecting. */
  connection: ReceivedHostState | undefined;
  /** An inventory or cluster read is under way. */
  loading: boolean;
  /** hosts:connect or hosts:disconnect is under way. */
  holdPending: boolean;
  /** The user holds the connection open. */
  held: boolean;
  error: ErrorInfo | null;
  errorOperation: HostOperation | null;
  inventory: Inventory | undefined;
  /** The last read of a Slurm cluster host's cluster. */
  cluster: ClusterInventory | undefined;
  /** True while the unknown-key dialog for this host is queued or open. */
  awaitingKeyDecision: boolean;
}

/** Everything one host card shows. Its fields are references into the state, so a shallow compare suffices. */
export function selectHostView(state: AppState, hostId: string): HostView {
  const failure = state.errorByHost[hostId];
  const event = state.connectionByHost[hostId];
  const hold = state.holdByHost[hostId];
  const loading = state.requestByHost[hostId]?.loading ?? false;
  // A failure seen only through an event (say, a held connection that gave up) still shows the core's message.
  const eventError = failure ? null : errorOfEvent(event);
  return {
    host: state.hosts.find((h) => h.id === hostId),
    badge: selectHostBadgeState(state, hostId),
    connection: event,
    loading,
    holdPending: hold?.pending ?? false,
    held: hold?.held ?? false,
    error: failure?.error ?? eventError,
    errorOperation: failure?.operation ?? null,
    inventory: state.inventoryByHost[hostId],
    cluster: state.clusterByHost[hostId],
    awaitingKeyDecision: state.hostKeyPrompts.some((p) => p.hostId === hostId),
  };
}

export function selectHostIds(state: AppState): string[] {
  return state.hosts.map((h) => h.id);
}

/** The unknown-key decision shown now (the oldest), with its host, or null when none is waiting. */
export function selectHostKeyPrompt(state: AppState): (HostKeyPrompt & { host: Host | undefined }) | null {
  const prompt = state.hostKeyPrompts[0];
  if (!prompt) return null;
  return { ...prompt, host: state.hosts.find((h) => h.id === prompt.hostId) };
}

/** The question shown now (the oldest) and how many wait in all. */
export function selectCurrentPrompt(state: AppState): { prompt: PromptRequestView | null; count: number } {
  return { prompt: state.prompts[0] ?? null, count: state.prompts.length };
}
