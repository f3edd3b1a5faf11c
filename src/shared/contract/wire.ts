import { z } from 'zod';
import { EnvelopeSchema, type Envelope } from './errors';
import type { EventMessage } from './contract';

/**
 * The loopback WebSocket protocol: the same calls and events as Electron IPC, framed as JSON.
 *
 * Signing in: the page is opened at `http://127.0.0.1:<port>/?code=<code>`, where the code is single-use. The page
 * removes it from the address bar and trades it once at `POST /session` (`SessionRequest` → `SessionGrant`) for a
 * session and a proof key, which it keeps in the tab's sessionStorage. It then connects to
 * `ws://127.0.0.1:<port>/ws?session=<session>` and, before it trusts anything the socket says, sends a `hello`
 * with a fresh nonce: the server answers with HMAC-SHA256(proofKey, nonce). The proof key never travels from the
 * page, so a process that took over the port after the server stopped cannot answer.
 */
export const WS_PATH = '/ws';
export const SESSION_PATH = '/session';

export const SessionRequestSchema = z.object({ code: z.string().min(1).max(200) });
export const SessionGrantSchema = z.object({ session: z.string().min(1), proofKey: z.string().min(1) });
export type SessionGrant = z.infer<typeof SessionGrantSchema>;
export const SessionRefusalSchema = z.object({ error: z.string() });

export const WireCallSchema = z.object({
  type: z.literal('call'),
  id: z.number().int().nonnegative(),
  name: z.string(),
  input: z.unknown(),
});
export type WireCall = z.infer<typeof WireCallSchema>;

export const WireHelloSchema = z.object({ type: z.literal('hello'), nonce: z.string().min(16).max(128) });
export type WireHello = z.infer<typeof WireHelloSchema>;

export const WireClientMessageSchema = z.union([WireCallSchema, WireHelloSchema]);

export const WireServerMessageSchema = z.union([
  z.object({ type: z.literal('result'), id: z.number().int(), envelope: EnvelopeSchema }),
  z.object({ type: z.literal('event'), name: z.string(), payload: z.unknown() }),
  z.object({ type: z.literal('hello'), proof: z.string() }),
]);

export type WireServerMessage =
  | { type: 'result'; id: number; envelope: Envelope<unknown> }
  | ({ type: 'event' } & EventMessage)
  | { type: 'hello'; proof: string };

/** WebSocket close codes the server uses; the page does not reconnect after either. */
export const WS_CLOSE_SERVER_STOPPED = 1001;
export const WS_CLOSE_SESSION_REVOKED = 4401;
