import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDispatcher, type CallHandlers, type Dispatch } from '../dispatch/dispatcher';
import { MemorySecretStore, type SecretStore } from './secret-store';
import { SecretRefIndex } from './secret-ref-index';
import { secretHandlers } from './secret-handlers';
import { namedSecretKey } from './secret-keys';

const VALUE = 'hf_SuperSecretValue0123456789abcdef';

// Only the secrets calls are wired; any other call is unknown here.
function dispatcherFor(secrets: SecretStore, dir: string, logs: string[]): Dispatch {
  const handlers = secretHandlers({ secrets, index: new SecretRefIndex(join(dir, 'secret-refs.json')), now: () => new Date('2026-01-02T03:04:05Z') });
  return createDispatcher(handlers as unknown as CallHandlers, (line) => logs.push(line));
}

describe('secrets calls', () => {
  let dir: string;
  let logs: string[];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-secrets-'));
    logs = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('stores the value under server-env:<ref> and lists the name with its time, never the value', async () => {
    const store = new MemorySecretStore();
    const dispatch = dispatcherFor(store, dir, logs);
    const set = await dispatch('secrets:set', { ref: 'hf-token', value: VALUE });
    expect(set).toEqual({ ok: true, data: { ref: 'hf-token', setAt: '2026-01-02T03:04:05.000Z' } });
    expect(await store.get(namedSecretKey('hf-token'))).toBe(VALUE);
    expect(await store.get('hf-token')).toBeNull();

    const listed = await dispatch('secrets:list', {});
    expect(listed).toEqual({ ok: true, data: [{ ref: 'hf-token', setAt: '2026-01-02T03:04:05.000Z' }] });
    expect(JSON.stringify(listed)).not.toContain(VALUE);

    // The index on disk holds names only, and a fresh index (a restart) reads them back.
    const files = await readdir(dir);
    for (const file of files) expect(await readFile(join(dir, file), 'utf8')).not.toContain(VALUE);
    expect(await new SecretRefIndex(join(dir, 'secret-refs.json')).list()).toEqual([{ ref: 'hf-token', setAt: '2026-01-02T03:04:05.000Z' }]);
  });

  it('removes a secret and its name; removing again reports nothing removed', async () => {
    const store = new MemorySecretStore();
    const dispatch = dispatcherFor(store, dir, logs);
    await dispatch('secrets:set', { ref: 'hf-token', value: VALUE });
    expect(await dispatch('secrets:remove', { ref: 'hf-token' })).toEqual({ ok: true, data: { removed: true } });
    expect(await store.get(namedSecretKey('hf-token'))).toBeNull();
    expect(await dispatch('secrets:list', {})).toEqual({ ok: true, data: [] });
    expect(await dispatch('secrets:remove', { ref: 'hf-token' })).toEqual({ ok: true, data: { removed: false } });
  });

  it('does not list a name whose value is gone (a session-only secret after a restart)', async () => {
    const index = new SecretRefIndex(join(dir, 'secret-refs.json'));
    await index.add('old-token', '2025-01-01T00:00:00.000Z');
    const dispatch = dispatcherFor(new MemorySecretStore(), dir, logs);
    expect(await dispatch('secrets:list', {})).toEqual({ ok: true, data: [] });
  });

  it('refuses bad values and names without quoting the value', async () => {
    const dispatch = dispatcherFor(new MemorySecretStore(), dir, logs);
    const cases = [
      { ref: 'hf-token', value: `${VALUE}\nsecond line` },
      { ref: 'hf-token', value: `${VALUE}\0` },
      { ref: 'hf-token', value: VALUE.repeat(200) },
      { ref: 'hf token!', value: VALUE },
      { ref: '', value: VALUE },
    ];
    for (const input of cases) {
      const result = await dispatch('secrets:set', input);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('BAD_INPUT');
      expect(JSON.stringify(result)).not.toContain(VALUE);
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a keychain failure without the value, in the answer and in the log', async () => {
    const failing: SecretStore = {
      get: async () => null,
      set: async (_key, value) => {
        throw new Error(`keychain refused to encrypt "${value}"`);
      },
      delete: async () => {},
    };
    const dispatch = dispatcherFor(failing, dir, logs);
    const result = await dispatch('secrets:set', { ref: 'hf-token', value: VALUE });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('Could not store the secret "hf-token" in the keychain');
    expect(JSON.stringify(result)).not.toContain(VALUE);
    expect(logs.join('\n')).not.toContain(VALUE);
    expect(await readdir(dir)).toEqual([]);
  });
});
