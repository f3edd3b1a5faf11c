import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
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
});
