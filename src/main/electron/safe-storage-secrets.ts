import { readFile } from 'node:fs/promises';
import type { SecretStore } from '../../core/secrets/secret-store';
import { writeFileAtomic } from '../../core/util/atomic-write';

/** The part of Electron's safeStorage used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  getSelectedStorageBackend?: () => string;
}

/**
 * Secrets encrypted by the OS keychain (Keychain, DPAPI, libsecret/kwallet) through safeStorage; only the
 * ciphertext is written, to a 0600 file in the app's data folder. When no keychain is available (Linux
 * without a secret service falls back to a hard-coded key, "basic_text"), secrets stay in memory for this
 * session only rather than being written in a form anyone can decrypt.
 */
export class SafeStorageSecretStore implements SecretStore {
  private cache: Record<string, string> | null = null;
  private readonly memoryOnly = new Map<string, string>();

  constructor(
    private readonly safeStorage: SafeStorageLike,
    private readonly file: string,
    private readonly warn: (line: string) => void = () => {},
  ) {}

  private persistent(): boolean {
    if (!this.safeStorage.isEncryptionAvailable()) return false;
    const backend = this.safeStorage.getSelectedStorageBackend?.();
    return backend !== 'basic_text';
  }

  private async load(): Promise<Record<string, string>> {
    if (this.cache) return this.cache;
    try {
      const parsed = JSON.parse(await readFile(this.file, 'utf8')) as { secrets?: Record<string, string> };
      this.cache = parsed.secrets && typeof parsed.secrets === 'object' ? parsed.secrets : {};
    } catch {
      this.cache = {};
    }
    return this.cache;
  }

  private async save(all: Record<string, string>): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify({ schemaVersion: 1, secrets: all }, null, 2), 0o600);
  }

  async get(key: string): Promise<string | null> {
    if (this.memoryOnly.has(key)) return this.memoryOnly.get(key) ?? null;
    if (!this.persistent()) return null;
    const encrypted = (await this.load())[key];
    if (!encrypted) return null;
    try {
      return this.safeStorage.decryptString(Buffer.from(encrypted, 'base64'));
    } catch {
      this.warn(`A saved secret could not be decrypted (the keychain may have changed); it will be asked for again.`);
      return null;
    }
  }

  async set(key: string, value: string): Promise<void> {
    if (!this.persistent()) {
      this.warn('No OS keychain is available: the secret is kept for this session only.');
      this.memoryOnly.set(key, value);
      return;
    }
    const all = { ...(await this.load()) };
    all[key] = this.safeStorage.encryptString(value).toString('base64');
    await this.save(all);
    this.cache = all;
  }

  async delete(key: string): Promise<void> {
    this.memoryOnly.delete(key);
    const all = { ...(await this.load()) };
    if (!(key in all)) return;
    delete all[key];
    await this.save(all);
    this.cache = all;
  }
}
