import { vi } from 'vitest';
import {
  ServelabError,
  type CallInput,
  type CallName,
  type CallOutput,
  type ErrorInfo,
  type EventName,
  type EventPayload,
} from '../../../shared/contract';
import type { ApiClient } from '../api/client';
import type { ConnectionStatus } from '../api/transport';

type Handler<N extends CallName> = (input: CallInput<N>) => CallOutput<N> | Promise<CallOutput<N>>;
type Handlers = { [N in CallName]?: Handler<N> };

export interface FakeApi extends ApiClient {
  /** Every call made, in order. */
  readonly calls: { name: CallName; input: unknown }[];
  handle<N extends CallName>(name: N, handler: Handler<N>): void;
  emit<N extends EventName>(name: N, payload: EventPayload<N>): void;
  setStatus(status: ConnectionStatus): void;
}

/** Throws inside a handler the way the core's envelope arrives at the client. */
export function coreError(info: ErrorInfo): never {
  throw ServelabError.fromInfo(info);
}

/** An in-memory ApiClient: each call runs the handler the test registered, or fails as an unknown call. */
export function createFakeApi(handlers: Handlers = {}): FakeApi {
  // A core with nothing connected answers hosts:states with no states, and the system has asked it to open no
  // project; tests about those override them.
  const table: Handlers = { 'hosts:states': () => [], 'app:openRequests': () => ({ paths: [] }), ...handlers };
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();
  let status: ConnectionStatus = 'open';
  const calls: { name: CallName; input: unknown }[] = [];
  const api: FakeApi = {
    kind: 'websocket',
    calls,
    call: vi.fn(async <N extends CallName>(name: N, input: CallInput<N>) => {
      calls.push({ name, input });
      const handler = table[name] as Handler<N> | undefined;
      if (!handler) throw new ServelabError('UNKNOWN_CALL', `no fake handler for ${name}`);
      return handler(input);
    }) as ApiClient['call'],
    on(name, listener) {
      if (!listeners.has(name)) listeners.set(name, new Set());
      listeners.get(name)!.add(listener as (payload: never) => void);
      return () => listeners.get(name)?.delete(listener as (payload: never) => void);
    },
    status: () => status,
    closedReason: () => null,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    handle(name, handler) {
      (table as Record<string, unknown>)[name] = handler;
    },
    emit(name, payload) {
      for (const listener of listeners.get(name) ?? []) (listener as (p: typeof payload) => void)(payload);
    },
    setStatus(next) {
      status = next;
      for (const listener of statusListeners) listener(next);
    },
  };
  return api;
}
