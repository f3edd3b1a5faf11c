import { z } from 'zod';

/** A DNS name, IPv4 or IPv6 address, or an ~/.ssh/config alias: no spaces, no shell or option characters. */
export const HostAddressSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(253, 'is longer than 253 characters')
  .regex(/^[A-Za-z0-9_.:%[\]-]+$/, 'may only hold letters, digits and . _ - : [ ] %')
  .refine((s) => !s.startsWith('-'), 'must not start with "-"');

export const SshUserSchema = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(64, 'is longer than 64 characters')
  .regex(/^[A-Za-z0-9_.][A-Za-z0-9_.@-]*$/, 'is not a valid user name');

export const PortSchema = z.number().int('must be a whole number').min(1, 'must be 1–65535').max(65535, 'must be 1–65535');

export const HostAuthSchema = z.discriminatedUnion('method', [
  z.object({ method: z.literal('key'), identityFile: z.string().trim().min(1, 'is required') }),
  z.object({ method: z.literal('password'), hasSavedPassword: z.boolean() }),
]);

export const HostSchema = z.object({
  id: z.string(),
  label: z.string(),
  address: z.string(),
  port: z.number().int(),
  user: z.string(),
  auth: HostAuthSchema,
  createdAt: z.string(),
});
export type Host = z.infer<typeof HostSchema>;

export const AddHostInputSchema = z.object({
  label: z.string().trim().max(80, 'is longer than 80 characters').optional(),
  address: HostAddressSchema,
  port: PortSchema.default(22),
  user: SshUserSchema,
  auth: z.discriminatedUnion('method', [
    z.object({ method: z.literal('key'), identityFile: z.string().trim().min(1, 'is required') }),
    // The password goes to the OS keychain, never into hosts.json.
    z.object({ method: z.literal('password'), password: z.string().min(1, 'is required') }),
  ]),
});
export type AddHostInput = z.input<typeof AddHostInputSchema>;

export const HOST_CONNECTION_STATES = ['idle', 'connecting', 'ready', 'failed'] as const;
export const HostStateEventSchema = z.object({
  hostId: z.string(),
  state: z.enum(HOST_CONNECTION_STATES),
  message: z.string().optional(),
});
export type HostStateEvent = z.infer<typeof HostStateEventSchema>;

/** What the user is shown to decide on an unknown or changed host key. */
export const HostKeyInfoSchema = z.object({
  host: z.string(),
  port: z.number().int(),
  keyType: z.string(),
  fingerprint: z.string(),
  expectedFingerprint: z.string().optional(),
});
export type HostKeyInfo = z.infer<typeof HostKeyInfoSchema>;
