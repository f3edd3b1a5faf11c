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
import { ClusterInventorySchema } from '../model/cluster';
import { ResolvedHostViewSchema } from '../model/ssh-resolve';
import { PromptRequestSchema, PromptSettledSchema } from '../model/prompt';
import { ENGINE_IDS } from '../engines/types';
import { ModelRefSchema, ServerConfigSchema } from '../engines/server-config';
import { ConfigFileSchema, MAX_CONFIG_FILES } from '../engines/config-files';
import { ModelRevisionSchema, SecretNameSchema, SecretValueSchema } from '../model/model-prefetch';
import { LOG_CLASSES } from '../engines/types';
import { BENCH_CALLS, BENCH_EVENTS } from './bench-contract';
import { STUDY_CALLS, STUDY_EVENTS } from './study-contract';
import { APP_EVENTS } from './app-commands';

const HostIdInput = z.object({ hostId: z.string().min(1, 'is required') });
const Fingerprint = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'is not a SHA256 fingerprint');
const RequestIdInput = z.object({ requestId: z.string().min(1, 'is required') });

const EngineIdSchema = z.enum(ENGINE_IDS, { error: `must be one of ${ENGINE_IDS.join(', ')}` });
// Becomes a folder name and a pip pin on the box.
const EngineVersionSchema = z.string().regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/, 'is not a version number').refine((v) => !v.includes('..'), 'is not a version number');
const EngineRefInput = HostIdInput.extend({ engine: EngineIdSchema, version: EngineVersionSchema });
const ServerIdInput = z.object({ serverId: z.string().min(1, 'is required') });
const ServerStateSchema = z.enum(['starting', 'ready', 'failed', 'stopping', 'stopped']);
const LogVerdictSchema = z.object({ class: z.enum(LOG_CLASSES), evidence: z.string(), hint: z.string() });
const InstalledEngineSchema = z.object({
  engine: EngineIdSchema,
  version: z.string(),
  dir: z.string(),
  installedAt: z.string(),
  verifiedVersion: z.string(),
  tool: z.enum(['uv', 'pip', 'docker']),
  /** `env`: a Python environment in `dir`; `docker`: the engine's official image, `dir` is its reference. */
  mode: z.enum(['env', 'docker']).default('env'),
});
// Where an engine runs: its own Python environment, or its official docker image (the box needs docker).
const EngineModeSchema = z.enum(['env', 'docker']);

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
  /**
   * Takes the project files the system asked the app to open (a double-clicked `.servelab`, a path on the command
   * line, a second launch handing over its file) that no window has taken yet, oldest first.
   */
  'app:openRequests': {
    input: z.object({}).strict(),
    output: z.object({ paths: z.array(z.string()) }),
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
  /** How a saved host will be reached: `ssh -G` where OpenSSH is installed, else the built-in reader. */
  'hosts:resolve': {
    input: HostIdInput,
    output: ResolvedHostViewSchema,
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
  /**
   * Reads the Slurm cluster a host is the login node of (partitions, node types and GPUs, the user's accounts and
   * QOS) through the host's connection; NOT_SUPPORTED for a host not marked as a cluster.
   */
  'hosts:cluster': {
    input: HostIdInput,
    output: ClusterInventorySchema,
  },
  'hosts:acceptHostKey': {
    input: HostIdInput.extend({ fingerprint: Fingerprint }),
    output: z.object({ accepted: HostKeyInfoSchema }),
  },
  'hosts:replaceHostKey': {
    input: HostIdInput.extend({ fingerprint: Fingerprint }),
    output: z.object({ replaced: HostKeyInfoSchema }),
  },
  /** Brings the built-in demo lab back after the user removed it (idempotent); returns it. */
  'hosts:restoreDemoLab': {
    input: z.object({}).strict(),
    output: HostSchema,
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
  /** Engine environments installed on the box (`~/.servelab/engines/<engine>-<version>/`), from their markers. */
  'engines:list': {
    input: HostIdInput,
    output: z.array(InstalledEngineSchema),
  },
  /** Starts an install; progress comes as engines:progress / engines:log, the outcome as engines:done with this jobId. */
  'engines:install': {
    input: EngineRefInput.extend({ force: z.boolean().optional(), mode: EngineModeSchema.optional() }),
    output: z.object({ jobId: z.string(), remoteJobId: z.string().nullable() }),
  },
  'engines:remove': {
    input: EngineRefInput,
    output: z.object({ removed: z.boolean(), dir: z.string() }),
  },
  /** Starts a server; its readiness (or failure and why) comes as servers:state events. */
  'servers:launch': {
    input: EngineRefInput.extend({
      config: ServerConfigSchema,
      gpus: z.array(z.string().regex(/^(\d{1,2}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-zA-Z/-]{8,80})$/, 'is not a GPU index or UUID')).max(64).optional(),
      readinessTimeoutSeconds: z.number().positive().max(24 * 3600).optional(),
      mode: EngineModeSchema.optional(),
      /** The weights are in the box's cache: the server runs with HF_HUB_OFFLINE=1 and gets no Hugging Face token. */
      offline: z.boolean().optional(),
      /** The files the config names (chat template, options file): copied to ~/.servelab/files/<sha256>/ on the box first. */
      files: z.array(ConfigFileSchema).max(MAX_CONFIG_FILES).optional(),
    }),
    output: z.object({ serverId: z.string(), port: z.number().int(), command: z.string() }),
  },
  /** Stops the server's process group and checks the port and GPU memory; leftovers lists whatever is still there. */
  'servers:stop': {
    /** With hostId, a server this session did not launch (an earlier session's, the CLI's) is stopped from its record. */
    input: ServerIdInput.extend({ hostId: z.string().min(1).optional() }),
    output: z.object({ portClosed: z.boolean(), gpuMemoryReleased: z.boolean(), leftovers: z.array(z.string()) }),
  },
  /** Every server recorded on the box (by any session or the CLI), with whether it still runs. */
  'servers:onBox': {
    input: HostIdInput,
    output: z.array(
      z.object({
        serverId: z.string(),
        engine: EngineIdSchema,
        version: z.string(),
        port: z.number().int(),
        command: z.string(),
        startedAt: z.string(),
        mode: z.enum(['env', 'docker']).optional(),
        model: z.string().optional(),
        running: z.boolean(),
        /** Launched by this app session (then servers:list has its live state). */
        inSession: z.boolean(),
      }),
    ),
  },
  'servers:list': {
    input: z.object({}).strict(),
    output: z.array(
      z.object({
        serverId: z.string(),
        hostId: z.string(),
        engine: EngineIdSchema,
        version: z.string(),
        port: z.number().int(),
        state: ServerStateSchema,
        command: z.string(),
        startedAt: z.string(),
        classification: LogVerdictSchema.optional(),
      }),
    ),
  },
  /** Names of the secrets a server config or a prefetch may refer to (`hf-token`, …); never their values. */
  'secrets:list': {
    input: z.object({}).strict(),
    output: z.array(z.object({ ref: z.string(), setAt: z.string().optional() })),
  },
  /** Stores a secret in the OS keychain under its name (replacing any earlier value). */
  'secrets:set': {
    input: z.object({ ref: SecretNameSchema, value: SecretValueSchema }).strict(),
    output: z.object({ ref: z.string(), setAt: z.string() }),
  },
  'secrets:remove': {
    input: z.object({ ref: SecretNameSchema }).strict(),
    output: z.object({ removed: z.boolean() }),
  },
  /** Downloads a model into the box's Hugging Face cache; progress as models:progress, the outcome as models:done. */
  'models:prefetch': {
    input: EngineRefInput.extend({ model: ModelRefSchema, revision: ModelRevisionSchema.optional(), hfTokenRef: SecretNameSchema.optional() }),
    output: z.object({ jobId: z.string() }),
  },
  ...BENCH_CALLS,
  ...STUDY_CALLS,
} as const satisfies Record<CallName, { input: z.ZodType; output: z.ZodType }>;

export const EVENTS = {
  'hosts:changed': z.object({ hosts: z.array(HostSchema) }),
  'hosts:state': HostStateEventSchema,
  'hosts:log': z.object({ hostId: z.string(), entry: ConnectionLogEntrySchema }),
  'prompts:request': PromptRequestSchema,
  'prompts:settled': PromptSettledSchema,
  'engines:progress': z.object({
    hostId: z.string(),
    jobId: z.string(),
    phase: z.enum(['environment', 'resolving', 'downloading', 'installing', 'verifying', 'done']),
    percent: z.number().min(0).max(100).optional(),
    line: z.string().optional(),
  }),
  'engines:log': z.object({ hostId: z.string(), jobId: z.string(), text: z.string() }),
  'engines:done': z.object({ hostId: z.string(), jobId: z.string(), ok: z.boolean(), skipped: z.boolean(), message: z.string() }),
  'servers:log': z.object({ serverId: z.string(), text: z.string() }),
  'servers:state': z.object({ serverId: z.string(), state: ServerStateSchema, classification: LogVerdictSchema.optional() }),
  'models:progress': z.object({ hostId: z.string(), jobId: z.string(), done: z.number().int().min(0), total: z.number().int().min(0), line: z.string().optional() }),
  'models:done': z.object({ hostId: z.string(), jobId: z.string(), ok: z.boolean(), message: z.string(), localPath: z.string().optional() }),
  ...BENCH_EVENTS,
  ...STUDY_EVENTS,
  ...APP_EVENTS,
} as const satisfies Record<EventName, z.ZodType>;

export type CallInput<N extends CallName> = z.input<(typeof CALLS)[N]['input']>;
export type CallOutput<N extends CallName> = z.output<(typeof CALLS)[N]['output']>;
export type EventPayload<N extends EventName> = z.output<(typeof EVENTS)[N]>;

/** One event as it travels over any transport. */
export type EventMessage = { [N in EventName]: { name: N; payload: EventPayload<N> } }[EventName];
