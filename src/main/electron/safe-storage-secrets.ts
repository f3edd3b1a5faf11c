import { readFile, rename } from 'node:fs/promises';
import { basename } from 'node:path';
import type { SecretPersistence, SecretStore } from '../../core/secrets/secret-store';
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
 * session only rather than being written in a form anyone can decrypt, and `set` says so.
 *
 * A secrets.json that cannot be read as the store's JSON is never written over: it is moved aside to
 * `secrets.json.damaged-<time>`, kept byte for byte, and reported (`problem()`, shown in app:info).
 */
export class SafeStorageSecretStore implements SecretStore {
  private cache: Record<string, string> | null = null;
  private readonly memoryOnly = new Map<string, string>();
  private damage: string | null = null;
  /** Set when the damaged file could not even be moved aside: then nothing is written at all. */
  private blocked: string | null = null;

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
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return (this.cache = {});
      return this.setAside(`could not be opened (${(error as Error).message})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.setAside('is not valid JSON');
    }
    const secrets = (parsed as { secrets?: unknown } | null)?.secrets;
    if (!secrets || typeof secrets !== 'object' || Array.isArray(secrets) || Object.values(secrets).some((v) => typeof v !== 'string')) {
      return this.setAside('does not hold a map of saved secrets');
    }
    return (this.cache = { ...(secrets as Record<string, string>) });
  }

  private async setAside(why: string): Promise<Record<string, string>> {
    const backup = `${this.file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      await rename(this.file, backup);
      this.damage = `The saved secrets file ${this.file} could not be read (it ${why}). It was moved to ${basename(backup)} in the same folder, untouched, and saved passwords and tokens start empty. Restore it from there if it can be repaired; otherwise enter the passwords again.`;
    } catch (error) {
      this.blocked = `The saved secrets file ${this.file} could not be read (it ${why}) nor moved aside (${(error as Error).message}); Servelab saves no secret until it is fixed or removed.`;
      this.damage = this.blocked;
    }
    this.warn(this.damage);
    return (this.cache = {});
  }

  /** Why saved secrets are not what they seem: a damaged file set aside, or no keychain (session only). */
  async problem(): Promise<string | null> {
    if (!this.persistent()) return 'No OS keychain is available (or only one with a known key): passwords and tokens you save are kept for this session only. Unlock or install a keyring (GNOME Keyring, KWallet) to keep them.';
    await this.load();
    return this.damage;
  }

  private async save(all: Record<string, string>): Promise<void> {
    if (this.blocked) throw new Error(this.blocked);
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

  async set(key: string, value: string): Promise<SecretPersistence> {
    if (!this.persistent()) {
      this.warn('No OS keychain is available: the secret is kept for this session only.');
      this.memoryOnly.set(key, value);
      return 'session';
    }
    const all = { ...(await this.load()) };
    all[key] = this.safeStorage.encryptString(value).toString('base64');
    await this.save(all);
    this.cache = all;
    return 'saved';
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
