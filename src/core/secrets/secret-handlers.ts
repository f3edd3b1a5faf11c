import { ServelabError } from '../../shared/contract';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { SecretStore } from './secret-store';
import type { SecretRefIndex } from './secret-ref-index';
import { namedSecretKey } from './secret-keys';

export interface SecretHandlerDeps {
  secrets: SecretStore;
  index: SecretRefIndex;
  now?: () => Date;
}

type SecretCalls = Pick<CallHandlers, 'secrets:list' | 'secrets:set' | 'secrets:remove'>;

/**
 * The named secrets calls (`hf-token`, …) over the keychain store. Only names leave this module: a failure of the
 * store is reported without its text ever carrying the value.
 */
export function secretHandlers(deps: SecretHandlerDeps): SecretCalls {
  const now = deps.now ?? (() => new Date());
  return {
    'secrets:list': async () => {
      const listed = await deps.index.list();
      // A session-only secret (no OS keychain) is gone after a restart: list only the names that still resolve.
      const present = await Promise.all(listed.map(async (entry) => ((await deps.secrets.get(namedSecretKey(entry.ref))) !== null ? entry : null)));
      return present.filter((e) => e !== null);
    },

    'secrets:set': async ({ ref, value }) => {
      try {
        await deps.secrets.set(namedSecretKey(ref), value);
      } catch (error) {
        throw new ServelabError('INTERNAL', `Could not store the secret "${ref}" in the keychain: ${scrub(error, value)}`);
      }
      const setAt = now().toISOString();
      await deps.index.add(ref, setAt);
      return { ref, setAt };
    },

    'secrets:remove': async ({ ref }) => {
      const stored = (await deps.secrets.get(namedSecretKey(ref))) !== null;
      await deps.secrets.delete(namedSecretKey(ref));
      const listed = await deps.index.remove(ref);
      return { removed: stored || listed };
    },
  };
}

function scrub(error: unknown, value: string): string {
  const text = error instanceof Error ? error.message : String(error);
  return value ? text.split(value).join('[secret]') : text;
}
