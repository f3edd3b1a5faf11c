import { z } from 'zod';
import { EnvelopeSchema, type Envelope } from './errors';
import type { EventMessage } from './contract';

/**
 * The loopback WebSocket protocol: the same calls and events as Electron IPC, framed as JSON.
 * The page is opened at `http://127.0.0.1:<port>/#token=<token>` and connects to `ws://127.0.0.1:<port>/ws?token=<token>`;
 * the token travels in the fragment so the HTTP server never logs it.
 */
export const WS_PATH = '/ws';

export const WireCallSchema = z.object({
  type: z.literal('call'),
  id: z.number().int().nonnegative(),
  name: z.string(),
  input: z.unknown(),
});
export type WireCall = z.infer<typeof WireCallSchema>;

export const WireServerMessageSchema = z.union([
  z.object({ type: z.literal('result'), id: z.number().int(), envelope: EnvelopeSchema }),
  z.object({ type: z.literal('event'), name: z.string(), payload: z.unknown() }),
]);

export type WireServerMessage =
  | { type: 'result'; id: number; envelope: Envelope<unknown> }
  | ({ type: 'event' } & EventMessage);
