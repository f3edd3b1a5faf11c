import {
  ServelabError,
  type CallInput,
  type CallName,
  type CallOutput,
  type EventName,
  type EventPayload,
} from '../../../shared/contract';
import type { ConnectionStatus, Transport, TransportKind } from './transport';

/** The renderer's only way to the core: typed calls that throw `ServelabError`, and typed events. */
export interface ApiClient {
  readonly kind: TransportKind;
  call<N extends CallName>(name: N, input: CallInput<N>): Promise<CallOutput<N>>;
  on<N extends EventName>(name: N, listener: (payload: EventPayload<N>) => void): () => void;
  status(): ConnectionStatus;
  /** Why the connection ended for good, or null. */
  closedReason(): string | null;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

export function createApiClient(transport: Transport): ApiClient {
  return {
    kind: transport.kind,
    async call(name, input) {
      let envelope;
      try {
        envelope = await transport.invoke(name, input);
      } catch (error) {
        // A transport that throws instead of answering with an envelope still reaches the UI as a typed error.
        const message = error instanceof Error ? error.message : String(error);
        throw new ServelabError('INTERNAL', message);
      }
      if (!envelope.ok) throw ServelabError.fromInfo(envelope.error);
      return envelope.data as CallOutput<typeof name>;
    },
    on(name, listener) {
      return transport.on(name, listener as (payload: unknown) => void);
    },
    status: () => transport.status(),
    closedReason: () => transport.closedReason(),
    onStatus: (listener) => transport.onStatus(listener),
  };
}
