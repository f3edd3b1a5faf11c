import { z } from 'zod';
import type { CallName, EventName } from './channels';
import {
  AddHostInputSchema,
  ConnectionLogEntrySchema,
  HostKeyInfoSchema,
  HostSchema,
  HostStateEventSchema,
  SshConfigAliasSchema,
  UpdateHostInputSchema,
} from '../model/host';
import { InventorySchema } from '../model/inventory';
import { PromptRequestSchema, PromptSettledSchema } from '../model/prompt';

const HostIdInput = z.object({ hostId: z.string().min(1, 'is required') });
const Fingerprint = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'is not a SHA256 fingerprint');
const RequestIdInput = z.object({ requestId: z.string().min(1, 'is required') });

/**
 * Every call between UI and core: `domain:action` → zod input and output. The same table is served by
 * Electron IPC and by the loopback WebSocket host; `satisfies` makes a missing or extra name a type error.
 */
export const CALLS = {
  'app:info': {
    input: z.object({}).strict(),
    output: z.object({
      name: z.string(),
      version: z.string(),
      dataDir: z.string(),
      /** Things the user must fix, such as a damaged hosts.json that was left untouched. */
      problems: z.array(z.string()),
    }),
  },
  'hosts:list': {
    input: z.object({}).strict(),
    output: z.array(HostSchema),
  },
  'hosts:add': {
    input: AddHostInputSchema,
    output: HostSchema,
  },
  'hosts:update': {
    input: UpdateHostInputSchema,
    output: HostSchema,
  },
  'hosts:remove': {
    input: HostIdInput,
    output: z.object({ removed: z.boolean() }),
  },
  'hosts:sshConfigAliases': {
    input: z.object({}).strict(),
    output: z.object({ configPath: z.string(), aliases: z.array(SshConfigAliasSchema) }),
  },
  'hosts:states': {
    input: z.object({}).strict(),
    output: z.array(HostStateEventSchema),
  },
  'hosts:connect': {
    input: HostIdInput,
    output: HostStateEventSchema,
  },
  'hosts:disconnect': {
    input: HostIdInput,
    output: HostStateEventSchema,
  },
  'hosts:connectionLog': {
    input: HostIdInput,
    output: z.object({ entries: z.array(ConnectionLogEntrySchema) }),
  },
  'hosts:inventory': {
    input: HostIdInput,
    output: InventorySchema,
  },
  'hosts:acceptHostKey': {
    input: HostIdInput.extend({ fingerprint: Fingerprint }),
    output: z.object({ accepted: HostKeyInfoSchema }),
  },
  'hosts:replaceHostKey': {
    input: HostIdInput.extend({ fingerprint: Fingerprint }),
    output: z.object({ replaced: HostKeyInfoSchema }),
  },
  'prompts:pending': {
    input: z.object({}).strict(),
    output: z.array(PromptRequestSchema),
  },
  'prompts:answer': {
    input: RequestIdInput.extend({ answers: z.array(z.string().max(4096, 'is too long')).max(16), remember: z.boolean().default(false) }),
    output: z.object({ accepted: z.boolean() }),
  },
  'prompts:cancel': {
    input: RequestIdInput,
    output: z.object({ cancelled: z.boolean() }),
  },
} as const satisfies Record<CallName, { input: z.ZodType; output: z.ZodType }>;

export const EVENTS = {
  'hosts:changed': z.object({ hosts: z.array(HostSchema) }),
  'hosts:state': HostStateEventSchema,
  'hosts:log': z.object({ hostId: z.string(), entry: ConnectionLogEntrySchema }),
  'prompts:request': PromptRequestSchema,
  'prompts:settled': PromptSettledSchema,
} as const satisfies Record<EventName, z.ZodType>;

export type CallInput<N extends CallName> = z.input<(typeof CALLS)[N]['input']>;
export type CallOutput<N extends CallName> = z.output<(typeof CALLS)[N]['output']>;
export type EventPayload<N extends EventName> = z.output<(typeof EVENTS)[N]>;

/** One event as it travels over any transport. */
export type EventMessage = { [N in EventName]: { name: N; payload: EventPayload<N> } }[EventName];
