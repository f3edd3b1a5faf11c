import { z } from 'zod';
import { SecretRefSchema } from '../engines/server-config';

/** The keychain reference the app and the command line use for the user's Hugging Face token. */
export const HF_TOKEN_REF = 'hf-token';

/** A secret's name: the same words a server config's `{"secretRef": …}` may use. */
export const SecretNameSchema = SecretRefSchema.shape.secretRef;

/** A secret's value. Its messages never quote the value. */
export const SecretValueSchema = z
  .string()
  .min(1, 'is required')
  .max(4096, 'is longer than 4096 characters')
  .refine((s) => !/[\0\r\n]/.test(s), 'must not contain NUL or line breaks');

/** A Hugging Face revision: a branch, a tag or a commit hash; it reaches the box as one argv word. */
export const ModelRevisionSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/, 'must be a branch, tag or commit hash (letters, digits and . _ / -)')
  .refine((s) => !s.includes('..'), 'must not contain ".."');

/** A Hugging Face repo id as the Hub accepts it: `name` or `org/name`. */
export const HF_REPO_ID = /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/** A model given as a path on the box rather than a Hub id (`/…`, `~/…`, `./…`, `../…`). */
export function isBoxPath(model: string): boolean {
  return model.startsWith('/') || model.startsWith('~/') || model.startsWith('./') || model.startsWith('../');
}
