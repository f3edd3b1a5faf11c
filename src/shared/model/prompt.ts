import { z } from 'zod';

/** A question the core must ask a person while connecting: a key passphrase, a password, a 2FA code… */
export const PromptRequestSchema = z.object({
  requestId: z.string(),
  hostId: z.string(),
  kind: z.enum(['passphrase', 'password', 'keyboard-interactive']),
  title: z.string(),
  message: z.string(),
  prompts: z.array(z.object({ text: z.string(), echo: z.boolean() })),
  /** Offer "remember in the OS keychain". */
  allowRemember: z.boolean(),
  /** When the core stops waiting (ms since the epoch), or null. */
  expiresAt: z.number().nullable(),
});
export type PromptRequestView = z.infer<typeof PromptRequestSchema>;

export const PromptSettledSchema = z.object({
  requestId: z.string(),
  hostId: z.string(),
  outcome: z.enum(['answered', 'cancelled', 'timed-out', 'failed']),
});
