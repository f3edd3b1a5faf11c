/**
 * OpenSSH host certificates (PROTOCOL.certkeys) checked against `@cert-authority` lines, as OpenSSH 9.2 does in
 * sshconnect.c check_host_cert and sshkey.c sshkey_cert_check_authority: a host certificate, signed by a listed
 * and unrevoked CA, valid now, naming the host (its name or HostKeyAlias) among its principals (none listed means
 * any host). Ed25519 and ECDSA certificates are read; CA keys may be Ed25519, ECDSA or RSA (rsa-sha2-256/512).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';

export interface HostCertificate {
  certType: string;
  /** The certified plain key, as an SSH public key blob. */
  plainKey: Buffer;
  plainType: string;
  serial: bigint;
  kind: number;
  keyId: string;
  principals: string[];
  validAfter: bigint;
  validBefore: bigint;
  caKey: Buffer;
  signature: Buffer;
  /** Everything the CA signed: the blob up to the signature. */
  signed: Buffer;
}

/** The certificate types this module reads, and the plain key each certifies. */
export const HOST_CERTIFICATE_TYPES: Record<string, string> = {
  'ssh-ed25519-cert-v01@openssh.com': 'ssh-ed25519',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com': 'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com': 'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com': 'ecdsa-sha2-nistp521',
};

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  string(): Buffer {
    if (this.pos + 4 > this.buf.length) throw new Error('truncated');
    const n = this.buf.readUInt32BE(this.pos);
    if (this.pos + 4 + n > this.buf.length) throw new Error('truncated');
    const value = this.buf.subarray(this.pos + 4, this.pos + 4 + n);
    this.pos += 4 + n;
    return value;
  }
  uint32(): number {
    if (this.pos + 4 > this.buf.length) throw new Error('truncated');
    const value = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return value;
  }
  uint64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new Error('truncated');
    const value = this.buf.readBigUInt64BE(this.pos);
    this.pos += 8;
    return value;
  }
  get done(): boolean {
    return this.pos === this.buf.length;
  }
}

function sshString(value: Buffer | string): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** Parses a host certificate blob of one of HOST_CERTIFICATE_TYPES; throws on anything malformed. */
export function parseHostCertificate(blob: Buffer): HostCertificate {
  const r = new Reader(blob);
  const certType = r.string().toString('latin1');
  const plainType = HOST_CERTIFICATE_TYPES[certType];
  if (!plainType) throw new Error(`unsupported certificate type ${certType}`);
  r.string(); // nonce
  const fieldsStart = r.pos;
  if (plainType === 'ssh-ed25519') {
    if (r.string().length !== 32) throw new Error('malformed Ed25519 key');
  } else {
    r.string(); // curve
    r.string(); // Q
  }
  const plainKey = Buffer.concat([sshString(plainType), blob.subarray(fieldsStart, r.pos)]);
  const serial = r.uint64();
  const kind = r.uint32();
  const keyId = r.string().toString('utf8');
  const principalsBlob = new Reader(r.string());
  const principals: string[] = [];
  while (!principalsBlob.done) principals.push(principalsBlob.string().toString('utf8'));
  const validAfter = r.uint64();
  const validBefore = r.uint64();
  r.string(); // critical options
  r.string(); // extensions
  r.string(); // reserved
  const caKey = r.string();
  const signedEnd = r.pos;
  const signature = r.string();
  if (!r.done) throw new Error('trailing data');
  return { certType, plainKey, plainType, serial, kind, keyId, principals, validAfter, validBefore, caKey, signature, signed: blob.subarray(0, signedEnd) };
}

const CURVES: Record<string, { crv: string; hash: string; size: number }> = {
  'ecdsa-sha2-nistp256': { crv: 'P-256', hash: 'sha256', size: 32 },
  'ecdsa-sha2-nistp384': { crv: 'P-384', hash: 'sha384', size: 48 },
  'ecdsa-sha2-nistp521': { crv: 'P-521', hash: 'sha512', size: 66 },
};

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function unsigned(mpint: Buffer, size?: number): Buffer {
  let value = mpint;
  while (value.length > 1 && value[0] === 0) value = value.subarray(1);
  if (size === undefined) return value;
  if (value.length > size) throw new Error('integer too large');
  return Buffer.concat([Buffer.alloc(size - value.length), value]);
}

function publicKeyObject(blob: Buffer): { type: string; key: KeyObject } {
  const r = new Reader(blob);
  const type = r.string().toString('latin1');
  if (type === 'ssh-ed25519') return { type, key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64url(r.string()) }, format: 'jwk' }) };
  if (type === 'ssh-rsa') {
    const e = unsigned(r.string());
    const n = unsigned(r.string());
    return { type, key: createPublicKey({ key: { kty: 'RSA', n: b64url(n), e: b64url(e) }, format: 'jwk' }) };
  }
  const curve = CURVES[type];
  if (curve) {
    r.string();
    const q = r.string();
    if (q[0] !== 4 || q.length !== 1 + 2 * curve.size) throw new Error('unsupported ECDSA point');
    const x = q.subarray(1, 1 + curve.size);
    const y = q.subarray(1 + curve.size);
    return { type, key: createPublicKey({ key: { kty: 'EC', crv: curve.crv, x: b64url(x), y: b64url(y) }, format: 'jwk' }) };
  }
  throw new Error(`unsupported CA key type ${type}`);
}

/** Whether the certificate's signature is the CA's over everything before it (OpenSSH 9.2 default CASignatureAlgorithms). */
export function certificateSignatureValid(cert: HostCertificate): boolean {
  try {
    const { type, key } = publicKeyObject(cert.caKey);
    const r = new Reader(cert.signature);
    const algorithm = r.string().toString('latin1');
    const raw = r.string();
    if (type === 'ssh-ed25519') return algorithm === 'ssh-ed25519' && verify(null, cert.signed, key, raw);
    if (type === 'ssh-rsa') {
      // ssh-rsa (SHA-1) signatures are not among OpenSSH 9.2's default CASignatureAlgorithms.
      const hash = algorithm === 'rsa-sha2-512' ? 'sha512' : algorithm === 'rsa-sha2-256' ? 'sha256' : undefined;
      return hash !== undefined && verify(hash, cert.signed, key, raw);
    }
    const curve = CURVES[type];
    if (!curve || algorithm !== type) return false;
    const parts = new Reader(raw);
    const signature = Buffer.concat([unsigned(parts.string(), curve.size), unsigned(parts.string(), curve.size)]);
    return verify(curve.hash, cert.signed, { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return false;
  }
}

/**
 * Why OpenSSH 9.2 would not accept `cert` for `hostName` (sshkey_cert_check_authority's reasons, prefixed
 * "Certificate invalid: " as check_host_cert logs them), or null when it would. The CA is checked by the caller.
 */
export function hostCertificateProblem(cert: HostCertificate, hostName: string, now: Date = new Date()): string | null {
  if (cert.kind !== 2) return 'Certificate invalid: not a host certificate';
  if (!certificateSignatureValid(cert)) return 'Certificate invalid: signature does not verify';
  const seconds = BigInt(Math.floor(now.getTime() / 1000));
  if (seconds < cert.validAfter) return 'Certificate invalid: not yet valid';
  if (seconds >= cert.validBefore) return 'Certificate invalid: expired';
  if (cert.principals.length > 0 && !cert.principals.includes(hostName)) return 'Certificate invalid: name is not a listed principal';
  return null;
}
