import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SafeStorageSecretStore, type SafeStorageLike } from './safe-storage-secrets';

// A stand-in keychain: reversible, and visibly not the plain text.
const keychain = (backend = 'gnome_libsecret'): SafeStorageLike => ({
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from([...Buffer.from(s)].map((b) => b ^ 0x5a)),
  decryptString: (b) => Buffer.from([...b].map((x) => x ^ 0x5a)).toString(),
  getSelectedStorageBackend: () => backend,
});

describe('SafeStorageSecretStore', () => {
  it('writes only ciphertext and reads it back', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'servelab-secrets-')), 'secrets.json');
    const store = new SafeStorageSecretStore(keychain(), file);
    await store.set('host-password:h1', 'hunter2-very-secret');
    expect(readFileSync(file, 'utf8')).not.toContain('hunter2-very-secret');
    expect(await new SafeStorageSecretStore(keychain(), file).get('host-password:h1')).toBe('hunter2-very-secret');
    await store.delete('host-password:h1');
    expect(await new SafeStorageSecretStore(keychain(), file).get('host-password:h1')).toBeNull();
  });

  it('keeps secrets in memory only when the keychain would store them with a known key', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'servelab-secrets-')), 'secrets.json');
    const warnings: string[] = [];
    const store = new SafeStorageSecretStore(keychain('basic_text'), file, (w) => warnings.push(w));
    await store.set('k', 'v');
    expect(await store.get('k')).toBe('v');
    expect(existsSync(file)).toBe(false);
    expect(warnings.join(' ')).toMatch(/this session only/);
  });

  it('reports "session only" instead of pretending to save when there is no keychain', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'servelab-secrets-')), 'secrets.json');
    const store = new SafeStorageSecretStore(keychain('basic_text'), file);
    expect(await store.set('k', 'v')).toBe('session');
    expect(await store.problem()).toMatch(/No OS keychain.*this session only/);
    const saving = new SafeStorageSecretStore(keychain(), join(mkdtempSync(join(tmpdir(), 'servelab-secrets-')), 'secrets.json'));
    expect(await saving.set('k', 'v')).toBe('saved');
    expect(await saving.problem()).toBeNull();
  });

  it('never overwrites a damaged secrets.json: it is moved aside, kept byte for byte, and reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'servelab-secrets-'));
    const file = join(dir, 'secrets.json');
    const damaged = '{"schemaVersion":1,"secrets":{"host-password:a":"Y2lwaGVy", truncated';
    writeFileSync(file, damaged, { mode: 0o600 });
    const warnings: string[] = [];
    const store = new SafeStorageSecretStore(keychain(), file, (w) => warnings.push(w));
    await store.set('host-password:b', 'new-secret');
    const backups = readdirSync(dir).filter((name) => name.startsWith('secrets.json.damaged-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, backups[0]!), 'utf8')).toBe(damaged);
    expect(await store.get('host-password:b')).toBe('new-secret');
    const problem = await store.problem();
    expect(problem).toContain('could not be read');
    expect(problem).toContain(backups[0]);
    expect(warnings.join(' ')).toContain(backups[0]);
    // A second store (next launch) finds a readable file and reports nothing new.
    expect(await new SafeStorageSecretStore(keychain(), file).problem()).toBeNull();
  });

  it('also moves aside a file of the wrong shape', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'servelab-secrets-'));
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, secrets: ['not', 'a', 'map'] }));
    const store = new SafeStorageSecretStore(keychain(), file);
    expect(await store.get('x')).toBeNull();
    expect(await store.problem()).toContain('could not be read');
    expect(readdirSync(dir).filter((name) => name.startsWith('secrets.json.damaged-'))).toHaveLength(1);
  });
});
