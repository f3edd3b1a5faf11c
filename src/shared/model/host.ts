import { z } from 'zod';

/** A DNS name, IPv4 or IPv6 address: no spaces, no shell or option characters. */
export const HostAddressSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(253, 'is longer than 253 characters')
  .regex(/^[A-Za-z0-9_.:%[\]-]+$/, 'may only hold letters, digits and . _ - : [ ] %')
  .refine((s) => !s.startsWith('-'), 'must not start with "-"');

/** A `Host` alias from ~/.ssh/config: a concrete name, never a pattern. */
export const SshAliasSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(253, 'is longer than 253 characters')
  .regex(/^[A-Za-z0-9_.:%@+-]+$/, 'is not a concrete ~/.ssh/config Host alias')
  .refine((s) => !s.startsWith('-'), 'must not start with "-"');

export const SshUserSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(64, 'is longer than 64 characters')
  .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.@-]*$/, 'is not a valid user name');

export const PortSchema = z.number().int('must be a whole number').min(1, 'must be 1–65535').max(65535, 'must be 1–65535');

const JUMP_HOP = /^(?:[A-Za-z0-9_.][A-Za-z0-9_.-]*@)?(?:[A-Za-z0-9_.%+-]+|\[[0-9A-Fa-f:.%]+\])(?::\d{1,5})?$/;

/** OpenSSH's ProxyJump: `[user@]host[:port]` hops separated by commas, outermost first. */
export const ProxyJumpSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(1000, 'is too long')
  .refine((s) => s.split(',').every((hop) => JUMP_HOP.test(hop.trim()) && !hop.trim().startsWith('-')), 'must be [user@]host[:port] hops separated by commas');

export const IdentityFileSchema = z.string().trim().min(1, 'is required').max(4096, 'is too long');

/**
 * How a host is reached: `ssh`, a box the user added; `demo`, the built-in demo lab, a simulated GPU box run on
 * this machine (no SSH, no host key, its numbers never real).
 */
export const HOST_KINDS = ['ssh', 'demo'] as const;
export type HostKind = (typeof HOST_KINDS)[number];

/**
 * The job scheduler an SSH host stands in front of: `slurm`, the host is a Slurm cluster's login node, so work goes
 * through sbatch and its partitions rather than onto the login node itself.
 */
export const HOST_SCHEDULERS = ['slurm'] as const;
export type HostScheduler = (typeof HOST_SCHEDULERS)[number];
export const HostSchedulerSchema = z.enum(HOST_SCHEDULERS, { error: `must be one of ${HOST_SCHEDULERS.join(', ')} or null` });

/** The demo lab's fixed id: there is at most one, and "Restore demo lab" brings back this one. */
export const DEMO_LAB_HOST_ID = 'demo-lab';

/**
 * The demo lab can also present further simulated boxes, for studies that spread over several boxes: box 2 is
 * `demo-lab-2`, and so on up to this many. Each is a box of its own (its own GPUs, engines and state), reached
 * like the first; its host entry appears when a study first uses it.
 */
export const DEMO_LAB_MAX_BOXES = 4;

/** The host id of the demo lab's box `box` (1 = the demo lab itself). */
export function demoLabHostId(box: number): string {
  return box === 1 ? DEMO_LAB_HOST_ID : `${DEMO_LAB_HOST_ID}-${box}`;
}

/** Which of the demo lab's boxes a host id names (1 for the demo lab itself), or null for any other host. */
export function demoLabBoxOf(hostId: string): number | null {
  if (hostId === DEMO_LAB_HOST_ID) return 1;
  const m = /^demo-lab-([2-9])$/.exec(hostId);
  return m && Number(m[1]) <= DEMO_LAB_MAX_BOXES ? Number(m[1]) : null;
}

/**
 * A GPU box the user added. It either refers to an ~/.ssh/config alias (resolved like `ssh alias` at every
 * connect, so edits to the config apply) or stands alone; fields set here win over the config, as `ssh -l/-p/-i`
 * do. Secrets are never part of it: a remembered password lives in the OS keychain. The demo lab is a host of
 * kind `demo` whose SSH fields are unused.
 */
export const HostSchema = z.object({
  id: z.string(),
  kind: z.enum(HOST_KINDS),
  label: z.string(),
  alias: z.string().nullable(),
  /** Where it connects: the address, or for an alias its HostName as last resolved (for display). */
  address: z.string(),
  port: z.number().int().nullable(),
  user: z.string().nullable(),
  identityFile: z.string().nullable(),
  proxyJump: z.string().nullable(),
  hasSavedPassword: z.boolean(),
  /**
   * The keychain entry of the remembered password, fixed when it was saved (a later resolution may name another
   * user@host:port). Absent for passwords saved before it was kept: they are found by resolving the host.
   */
  passwordKey: z.string().nullable().optional(),
  /** The scheduler this host is the login node of; null or absent (hosts saved before clusters) for a plain box. */
  scheduler: HostSchedulerSchema.nullable().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Host = z.infer<typeof HostSchema>;

/** Whether the host is a Slurm cluster's login node (only an SSH host can be). */
export function isSlurmCluster(host: Pick<Host, 'kind' | 'scheduler'>): boolean {
  return host.kind === 'ssh' && host.scheduler === 'slurm';
}

const hostFields = {
  label: z.string().trim().max(80, 'is longer than 80 characters').optional(),
  address: HostAddressSchema.optional(),
  port: PortSchema.optional(),
  user: SshUserSchema.optional(),
  identityFile: IdentityFileSchema.optional(),
  proxyJump: ProxyJumpSchema.optional(),
};

export const AddHostInputSchema = z
  .object({
    ...hostFields,
    alias: SshAliasSchema.optional(),
    scheduler: HostSchedulerSchema.nullable().optional(),
    /** Remembered in the OS keychain, never written to hosts.json. */
    password: z.string().min(1, 'is required').max(4096, 'is too long').optional(),
  })
  .superRefine((value, ctx) => {
    if (!value.alias && !value.address) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: 'is required unless an ~/.ssh/config alias is chosen' });
    }
  });
export type AddHostInput = z.input<typeof AddHostInputSchema>;

/** Fields to change; `null` clears an override so the ssh config (or the default) applies again. */
export const UpdateHostInputSchema = z.object({
  hostId: z.string().min(1, 'is required'),
  label: z.string().trim().min(1, 'is required').max(80, 'is longer than 80 characters').optional(),
  address: HostAddressSchema.optional(),
  port: PortSchema.nullable().optional(),
  user: SshUserSchema.nullable().optional(),
  identityFile: IdentityFileSchema.nullable().optional(),
  proxyJump: ProxyJumpSchema.nullable().optional(),
  /** null: a plain box again. */
  scheduler: HostSchedulerSchema.nullable().optional(),
  password: z.string().min(1, 'is required').max(4096, 'is too long').optional(),
  forgetPassword: z.boolean().optional(),
});
export type UpdateHostInput = z.input<typeof UpdateHostInputSchema>;

export const HOST_CONNECTION_STATES = ['idle', 'connecting', 'ready', 'reconnecting', 'failed'] as const;
export type HostConnectionState = (typeof HOST_CONNECTION_STATES)[number];

export const HostStateEventSchema = z.object({
  hostId: z.string(),
  state: z.enum(HOST_CONNECTION_STATES),
  message: z.string().optional(),
  /** While reconnecting: which attempt, and the wait before it. */
  attempt: z.number().int().optional(),
  retryInSeconds: z.number().optional(),
  /** True while the user keeps the connection open (hosts:connect until hosts:disconnect). */
  held: z.boolean().optional(),
});
export type HostStateEvent = z.infer<typeof HostStateEventSchema>;

/** What the user is shown to decide on an unknown or changed host key (of the host or of a jump host). */
export const HostKeyInfoSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  keyType: z.string(),
  fingerprint: z.string(),
  expectedFingerprint: z.string().optional(),
});
export type HostKeyInfo = z.infer<typeof HostKeyInfoSchema>;

export const ConnectionLogEntrySchema = z.object({
  time: z.number(),
  level: z.enum(['debug', 'info', 'warn', 'error']),
  message: z.string(),
});
export type ConnectionLogEntryView = z.infer<typeof ConnectionLogEntrySchema>;

/** A concrete `Host` block of ~/.ssh/config, offered for import. */
export const SshConfigAliasSchema = z.object({
  alias: z.string(),
  hostName: z.string(),
  user: z.string().nullable(),
  port: z.number().int().nullable(),
  proxyJump: z.string().nullable(),
});
export type SshConfigAliasView = z.infer<typeof SshConfigAliasSchema>;
