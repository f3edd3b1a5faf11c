import { z } from 'zod';

/**
 * What a passphrase or password question is about, so the UI can word it in its own language; `title`, `message` and
 * the prompts' text are the same question in English (the CLI and the log use them). A keyboard-interactive question
 * is the server's own words and has none.
 */
export const PromptAboutSchema = z.discriminatedUnion('kind', [
  /** `key` as shown to the user (`~/.ssh/id_ed25519`); `login` the box it unlocks a login to. */
  z.object({ kind: z.literal('passphrase'), key: z.string(), login: z.string(), attempt: z.number().int(), tries: z.number().int() }),
  /** `address` is `user@host:port`; `wrongBefore` when a saved or typed password was already refused. */
  z.object({ kind: z.literal('password'), address: z.string(), user: z.string(), login: z.string(), attempt: z.number().int(), tries: z.number().int(), wrongBefore: z.boolean() }),
]);
export type PromptAbout = z.infer<typeof PromptAboutSchema>;

/** A question the core must ask a person while connecting: a key passphrase, a password, a 2FA code… */
export const PromptRequestSchema = z.object({
  requestId: z.string(),
  hostId: z.string(),
  kind: z.enum(['passphrase', 'password', 'keyboard-interactive']),
  title: z.string(),
  message: z.string(),
  prompts: z.array(z.object({ text: z.string(), echo: z.boolean() })),
  about: PromptAboutSchema.optional(),
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
