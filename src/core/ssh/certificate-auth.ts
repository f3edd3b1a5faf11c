/**
 * OpenSSH user certificates (CertificateFile, `<key>-cert.pub`) for publickey login, which ssh2 lacks.
 *
 * A certificate login (PROTOCOL.certkeys; RFC 4252 §7) names the certificate algorithm
 * (`ssh-ed25519-cert-v01@openssh.com`, `rsa-sha2-512-cert-v01@openssh.com`…) and carries the certificate blob as the
 * public key, while the signature inside is named by the plain algorithm (`ssh-ed25519`, `rsa-sha2-512`). ssh2's
 * `Protocol.prototype.authPK` writes one name for both, so a certificate key is sent here instead: the client's
 * protocol object gets an `authPK` that handles the private keys registered with `withCertificate` and hands every
 * other key to ssh2's own. The packet is built and sent with ssh2's own writer (`_packetRW.write`, `sendPacket`),
 * its pending-auth queue (`_authsQueue`) and session id (`_kex.sessionID`).
 *
 * Checked against ssh2 1.17.0 (lib/protocol/Protocol.js authPK, lib/protocol/utils.js sendPacket and
 * convertSignature, lib/client.js calling `proto.authPK(user, key, keyAlgo[, cbSign])`). `certificateAuthProblem()`
 * names what is missing when those internals change; certificate-auth.test.ts fails then, and the login goes on
 * with plain keys only.
 */
import { createRequire } from 'node:module';
import type { Client, ParsedKey } from 'ssh2';

const requireFromHere = createRequire(import.meta.url);

/** The ssh2 version the internals below were read from. */
export const CHECKED_SSH2_VERSION = '1.17.0';

// SSH_MSG_USERAUTH_REQUEST (RFC 4252 §5).
const USERAUTH_REQUEST = 50;

interface PacketWriter {
  allocStart: number;
  alloc(size: number): Buffer;
  finalize(packet: Buffer): Buffer;
}

interface Ssh2Protocol {
  authPK: (username: string, pubKey: unknown, keyAlgo?: unknown, cbSign?: unknown) => void;
  _packetRW: { write: PacketWriter };
  _authsQueue: string[];
  _kex: { sessionID: Buffer } | undefined;
  _debug?: (message: string) => void;
}

interface Ssh2ProtocolUtils {
  sendPacket(proto: unknown, packet: Buffer): void;
  convertSignature(signature: Buffer, keyType: string): Buffer | false;
}

type SignCallback = (data: Buffer, done: (signature: Buffer) => void) => void;

const certificates = new WeakMap<object, Buffer>();
const installed = new WeakSet<object>();
let utils: Ssh2ProtocolUtils | undefined;

/** Marks `key` (a private key, parsed for this attempt only) as the key of the certificate blob `certificate`. */
export function withCertificate(key: ParsedKey, certificate: Buffer): ParsedKey {
  certificates.set(key, certificate);
  return key;
}

/** What keeps certificates from working with the installed ssh2, or null when everything needed is there. */
export function certificateAuthProblem(proto?: unknown): string | null {
  let version: string;
  try {
    version = (requireFromHere('ssh2/package.json') as { version: string }).version;
  } catch (error) {
    return `ssh2's package.json cannot be read (${(error as Error).message})`;
  }
  if (version !== CHECKED_SSH2_VERSION) return `ssh2 is ${version}; certificate login was checked against ${CHECKED_SSH2_VERSION} only`;
  try {
    utils = requireFromHere('ssh2/lib/protocol/utils.js') as Ssh2ProtocolUtils;
  } catch (error) {
    return `ssh2's protocol utilities cannot be loaded (${(error as Error).message})`;
  }
  if (typeof utils.sendPacket !== 'function' || typeof utils.convertSignature !== 'function') return 'ssh2 no longer has sendPacket and convertSignature';
  if (proto !== undefined) {
    const p = proto as Partial<Ssh2Protocol>;
    if (typeof p.authPK !== 'function') return "ssh2's protocol has no authPK";
    const writer = p._packetRW?.write;
    if (!writer || typeof writer.alloc !== 'function' || typeof writer.finalize !== 'function' || typeof writer.allocStart !== 'number') {
      return "ssh2's protocol has no packet writer";
    }
    if (!Array.isArray(p._authsQueue)) return "ssh2's protocol has no pending-auth queue";
  }
  return null;
}

/**
 * Lets `client` (just after `client.connect()`, which creates its protocol object) log in with keys marked by
 * withCertificate. Returns what keeps that from working when ssh2's internals are not the ones this was written
 * for (the caller then offers no certificate: AuthPlan.certificatesUnavailable), else null. It never throws, and
 * keys without a certificate are untouched either way.
 */
export function installCertificateAuth(client: Client): string | null {
  const proto = (client as unknown as { _protocol?: Ssh2Protocol })._protocol;
  if (!proto) return "ssh2's client has no protocol object";
  if (installed.has(proto)) return null;
  const problem = certificateAuthProblem(proto);
  if (problem) return problem;
  const original = proto.authPK;
  proto.authPK = function (this: Ssh2Protocol, username: string, pubKey: unknown, keyAlgo?: unknown, cbSign?: unknown) {
    const certificate = typeof pubKey === 'object' && pubKey !== null ? certificates.get(pubKey) : undefined;
    if (!certificate) return original.call(this, username, pubKey, keyAlgo, cbSign);
    if (typeof keyAlgo === 'function') {
      cbSign = keyAlgo;
      keyAlgo = undefined;
    }
    const key = pubKey as ParsedKey;
    const signatureAlgorithm = typeof keyAlgo === 'string' ? keyAlgo : key.type;
    // Signing needs the session id; without it (never seen with 1.17.0) the key goes out plain rather than fail.
    if (cbSign && !this._kex?.sessionID) return original.call(this, username, pubKey, keyAlgo, cbSign);
    sendCertificateRequest(this, username, certificate, certificateAlgorithm(certificate, signatureAlgorithm), signatureAlgorithm, key.type, cbSign as SignCallback | undefined);
  };
  installed.add(proto);
  return null;
}

/** The algorithm a certificate is offered under: its own type, with RSA's signature hash chosen as for the plain key. */
export function certificateAlgorithm(certificate: Buffer, signatureAlgorithm: string): string {
  const type = readString(certificate, 0).value.toString('latin1');
  if (type === 'ssh-rsa-cert-v01@openssh.com' && signatureAlgorithm !== 'ssh-rsa') return `${signatureAlgorithm}-cert-v01@openssh.com`;
  return type;
}

/**
 * The certificate's type field (1 user, 2 host; PROTOCOL.certkeys) when the blob certifies the plain public key blob
 * `publicKey`, else undefined. The field is the uint32 after the key fields and the uint64 serial.
 */
export function certificateKind(certificate: Buffer, publicKey: Buffer): 'user' | 'host' | 'unknown' | undefined {
  if (!certificateMatchesKey(certificate, publicKey)) return undefined;
  try {
    const certType = readString(certificate, 0);
    const nonce = readString(certificate, certType.next);
    const fieldsLength = publicKey.length - readString(publicKey, 0).next;
    const type = certificate.readUInt32BE(nonce.next + fieldsLength + 8);
    return type === 1 ? 'user' : type === 2 ? 'host' : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Whether the certificate blob certifies the plain public key blob `publicKey` (its key fields follow the nonce). */
export function certificateMatchesKey(certificate: Buffer, publicKey: Buffer): boolean {
  try {
    const certType = readString(certificate, 0);
    const nonce = readString(certificate, certType.next);
    const plainType = readString(publicKey, 0);
    if (certType.value.toString('latin1') !== `${plainType.value.toString('latin1')}-cert-v01@openssh.com`) return false;
    const fields = publicKey.subarray(plainType.next);
    return certificate.subarray(nonce.next, nonce.next + fields.length).equals(fields);
  } catch {
    return false;
  }
}

function sendCertificateRequest(
  proto: Ssh2Protocol,
  username: string,
  certificate: Buffer,
  algorithm: string,
  signatureAlgorithm: string,
  keyType: string,
  cbSign: SignCallback | undefined,
): void {
  const body = Buffer.concat([
    Buffer.from([USERAUTH_REQUEST]),
    sshString(username),
    sshString('ssh-connection'),
    sshString('publickey'),
    Buffer.from([cbSign ? 1 : 0]),
    sshString(algorithm),
    sshString(certificate),
  ]);
  const send = (payload: Buffer, what: string) => {
    const writer = proto._packetRW.write;
    const packet = writer.alloc(payload.length);
    packet.set(payload, writer.allocStart);
    proto._authsQueue.push('publickey');
    proto._debug?.(`Outbound: Sending USERAUTH_REQUEST (publickey certificate -- ${what})`);
    (utils as Ssh2ProtocolUtils).sendPacket(proto, writer.finalize(packet));
  };
  if (!cbSign) {
    send(body, 'check');
    return;
  }
  const sessionId = proto._kex?.sessionID as Buffer;
  cbSign(Buffer.concat([sshString(sessionId), body]), (rawSignature) => {
    const signature = (utils as Ssh2ProtocolUtils).convertSignature(rawSignature, keyType);
    if (signature === false) throw new Error('Error while converting handshake signature');
    send(Buffer.concat([body, sshString(Buffer.concat([sshString(signatureAlgorithm), sshString(signature)]))]), 'signed');
  });
}

function sshString(value: string | Buffer): Buffer {
  const data = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  return Buffer.concat([length, data]);
}

function readString(buffer: Buffer, offset: number): { value: Buffer; next: number } {
  if (offset + 4 > buffer.length) throw new Error('truncated SSH string');
  const length = buffer.readUInt32BE(offset);
  const end = offset + 4 + length;
  if (end > buffer.length) throw new Error('truncated SSH string');
  return { value: buffer.subarray(offset + 4, end), next: end };
}
