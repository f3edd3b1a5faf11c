// Keychain key names, in one place: every secret is stored under what it unlocks, and each kind has its own prefix,
// so a name given for one kind (a server config's secretRef) can never reach another (an SSH password).

/** An SSH password: by user, address and port, so two hosts behind one address share a remembered password. */
export const passwordKey = (s: { user: string; host: string; port: number }): string => `ssh-password:${s.user}@${s.host}:${s.port}`;

/** The passphrase of a private key file. */
export const passphraseKey = (identityFile: string): string => `ssh-passphrase:${identityFile}`;

/** A named secret (`hf-token`, …), the same key a server config's `{"secretRef": …}` resolves. */
export const namedSecretKey = (ref: string): string => `server-env:${ref}`;
