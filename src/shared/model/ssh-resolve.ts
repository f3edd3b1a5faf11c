import { z } from 'zod';

/** Where a resolved value was set: a config file and line. */
export const ConfigOriginSchema = z.object({ file: z.string(), line: z.number().int() });

export const StrictHostKeyCheckingSchema = z.enum(['yes', 'no', 'ask', 'accept-new']);

export const ResolvedJumpHopSchema = z.object({
  alias: z.string(),
  user: z.string(),
  hostname: z.string(),
  port: z.number().int(),
  identityFiles: z.array(z.string()),
});

/**
 * How a saved host will be reached, as the Hosts page shows it ("resolved as"): the same values
 * `servelab ssh resolve --json` prints, with where each was set (field name → file and line) where known.
 */
export const ResolvedHostViewSchema = z.object({
  hostname: z.string(),
  port: z.number().int(),
  user: z.string(),
  identityFiles: z.array(z.string()),
  identitiesOnly: z.boolean(),
  identityAgent: z.string(),
  certificateFiles: z.array(z.string()),
  proxyJump: z.array(ResolvedJumpHopSchema),
  proxyCommand: z.string().nullable(),
  hostKeyAlias: z.string().nullable(),
  strictHostKeyChecking: StrictHostKeyCheckingSchema,
  userKnownHostsFiles: z.array(z.string()),
  globalKnownHostsFiles: z.array(z.string()),
  connectTimeout: z.number().nullable(),
  connectionAttempts: z.number().int(),
  serverAliveInterval: z.number(),
  serverAliveCountMax: z.number().int(),
  source: z.enum(['ssh -G', 'built-in']),
  /** Field name (`user`, `identityFiles#1`) → where it was set. */
  origins: z.record(z.string(), ConfigOriginSchema),
  /** What Servelab does differently from ssh, said once (StrictHostKeyChecking no is treated as ask). */
  warnings: z.array(z.string()),
});
export type ResolvedHostView = z.infer<typeof ResolvedHostViewSchema>;
