import type { CallName, Envelope, EventName } from '../../../shared/contract';

export type TransportKind = 'ipc' | 'websocket';

/** `open` while calls can flow; `reconnecting` after a dropped WebSocket; `closed` once shut down for good. */
export type ConnectionStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

/**
 * How calls and events reach the core. Every transport resolves a call to the contract's envelope, including
 * its own failures (a dropped socket becomes a CONNECT_FAILED envelope), so callers handle one shape.
 */
export interface Transport {
  readonly kind: TransportKind;
  invoke(name: CallName, input: unknown): Promise<Envelope<unknown>>;
  on(name: EventName, listener: (payload: unknown) => void): () => void;
  status(): ConnectionStatus;
  /** Why the core closed the connection for good (server stopped, sign-in refused…), or null. */
  closedReason(): string | null;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  close(): void;
}
