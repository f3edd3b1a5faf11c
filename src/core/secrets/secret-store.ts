/**
 * Where passwords and passphrases live. In the app this is the OS keychain (Electron safeStorage);
 * headless runs keep them in memory only, so nothing secret is ever written in clear.
 */
/** What `set` did: written to the keychain-backed store, or kept in memory until the process ends. */
export type SecretPersistence = 'saved' | 'session';

export interface SecretStore {
  get(key: string): Promise<string | null>;
  /** Resolves to where the secret went (a store that says nothing is taken to have saved it). */
  set(key: string, value: string): Promise<SecretPersistence | void>;
  delete(key: string): Promise<void>;
  /** Something the user should know about the saved secrets (a damaged file set aside, no keychain), or null. */
  problem?(): Promise<string | null>;
}

export class MemorySecretStore implements SecretStore {
  private readonly values = new Map<string, string>();
  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null;
  }
  async set(key: string, value: string): Promise<SecretPersistence> {
    this.values.set(key, value);
    return 'session';
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
}
