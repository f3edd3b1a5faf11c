import { createHash } from 'node:crypto';

/** `SHA256:<base64 without padding>` of a public key blob: the form `ssh-keygen -lf` and `ssh` print. */
export function fingerprintSha256(publicKey: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(publicKey).digest('base64').replace(/=+$/, '');
}

/** The key type named at the start of an SSH public key blob (`ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`…). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) throw new Error('SSH public key blob is too short to hold its key type');
  const length = blob.readUInt32BE(0);
  if (length === 0 || length > 64 || 4 + length > blob.length) throw new Error('SSH public key blob does not start with a key type');
  const type = blob.subarray(4, 4 + length).toString('latin1');
  if (!/^[\x21-\x7e]+$/.test(type)) throw new Error('SSH public key blob does not start with a printable key type');
  return type;
}

/** "ED25519", "RSA", "ECDSA": how OpenSSH names a key type in its messages. */
export function keyTypeLabel(keyType: string): string {
  if (keyType === 'ssh-ed25519') return 'ED25519';
  if (keyType === 'ssh-rsa') return 'RSA';
  if (keyType.startsWith('ecdsa-sha2-')) return 'ECDSA';
  if (keyType === 'ssh-dss') return 'DSA';
  return keyType;
}
