import { z } from 'zod';
import type { CallName, EventName } from './channels';
import { AddHostInputSchema, HostKeyInfoSchema, HostSchema, HostStateEventSchema } from '../model/host';
import { InventorySchema } from '../model/inventory';

const HostIdInput = z.object({ hostId: z.string().min(1, 'is required') });

/**
 * Every call between UI and core: `domain:action` → zod input and output. The same table is served by
 * Electron IPC and by the loopback WebSocket host; `satisfies` makes a missing or extra name a type error.
 */
export const CALLS = {
  'app:info': {
    input: z.object({}).strict(),
    output: z.object({ name: z.string(), version: z.string(), dataDir: z.string() }),
  },
  'hosts:list': {
    input: z.object({}).strict(),
    output: z.array(HostSchema),
  },
  'hosts:add': {
    input: AddHostInputSchema,
    output: HostSchema,
  },
  'hosts:remove': {
    input: HostIdInput,
    output: z.object({ removed: z.boolean() }),
  },
  'hosts:inventory': {
    input: HostIdInput,
    output: InventorySchema,
  },
  'hosts:acceptHostKey': {
    input: HostIdInput.extend({ fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'is not a SHA256 fingerprint') }),
    output: z.object({ accepted: HostKeyInfoSchema }),
  },
} as const satisfies Record<CallName, { input: z.ZodType; output: z.ZodType }>;

export const EVENTS = {
  'hosts:changed': z.object({ hosts: z.array(HostSchema) }),
  'hosts:state': HostStateEventSchema,
} as const satisfies Record<EventName, z.ZodType>;

export type CallInput<N extends CallName> = z.input<(typeof CALLS)[N]['input']>;
export type CallOutput<N extends CallName> = z.output<(typeof CALLS)[N]['output']>;
export type EventPayload<N extends EventName> = z.output<(typeof EVENTS)[N]>;

/** One event as it travels over any transport. */
export type EventMessage = { [N in EventName]: { name: N; payload: EventPayload<N> } }[EventName];
