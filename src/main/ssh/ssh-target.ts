/** Where and how to reach one SSH server: already resolved (no aliases, `~` expanded). */
export interface SshTarget {
  host: string;
  port: number;
  user: string;
  identityFile?: string;
  /** Passphrase for an encrypted identity file. */
  passphrase?: string;
  password?: string;
}
