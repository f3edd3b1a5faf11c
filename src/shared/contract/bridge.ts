import type { CallName, EventName } from './channels';
import type { Envelope } from './errors';
import type { CallInput, CallOutput, EventPayload } from './contract';

type DomainOf<N extends string> = N extends `${infer D}:${string}` ? D : never;
type ActionOf<N extends string, D extends string> = N extends `${D}:${infer A}` ? A : never;

/**
 * `window.servelab` as the preload exposes it: one function per contract call, grouped by domain
 * (`servelab.hosts.list({})`), each resolving to an envelope, plus `on` for the contract's events.
 */
export type ServelabBridge = {
  [D in DomainOf<CallName>]: {
    [A in ActionOf<CallName, D>]: (input: CallInput<`${D}:${A}` & CallName>) => Promise<Envelope<CallOutput<`${D}:${A}` & CallName>>>;
  };
} & {
  on<N extends EventName>(name: N, listener: (payload: EventPayload<N>) => void): () => void;
};
