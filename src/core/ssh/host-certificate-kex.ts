/**
 * Host certificates in ssh2's key exchange, which ssh2 lacks (it offers and verifies plain host keys only).
 *
 * Two changes to one client's protocol object, both contained to it: `offerHostCertificates` puts the certificate
 * algorithms first in its KEXINIT offer (replacing `_offer` with a KexInit built by ssh2's own class, before the
 * handshake starts), and `useCertifiedKey`, called from the host verifier once the certificate is trusted, lets
 * ssh2's `finish()` verify the exchange-hash signature with the certified plain key. finish() reads `_hostKey`
 * first for K_S in the exchange hash (which must be the certificate blob the server sent) and then to parse the
 * key that checks the signature (which must be the plain key); the signature is named by the plain algorithm,
 * which finish() compares with `negotiated.serverHostKey`. A wrong swap cannot weaken the check: the server
 * signed the hash over the certificate, so any other K_S or key makes the signature fail.
 *
 * Checked against ssh2 1.17.0 (lib/protocol/kex.js KexInit, finish(), the KEXECDH_REPLY handler calling
 * `_hostVerifier`). `hostCertificateKexProblem()` names what is missing when those internals change;
 * host-certificate-kex.test.ts fails then, and the connection goes on with plain host keys only.
 */
import { createRequire } from 'node:module';
import type { Client } from 'ssh2';

const requireFromHere = createRequire(import.meta.url);

export const CHECKED_SSH2_VERSION = '1.17.0';

/** Certificate host key algorithms offered, in OpenSSH 9.2's order, for the certificate types host-certificate.ts reads. */
export const HOST_CERTIFICATE_ALGORITHMS = [
  'ssh-ed25519-cert-v01@openssh.com',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com',
];

interface KexList {
  array: string[];
}
interface Ssh2KexInit {
  lists: {
    kex: KexList;
    serverHostKey: KexList;
    cs: Record<'cipher' | 'mac' | 'compress' | 'lang', KexList>;
    sc: Record<'cipher' | 'mac' | 'compress' | 'lang', KexList>;
  };
  constructor: new (init: unknown) => Ssh2KexInit;
}
interface Ssh2Kex {
  negotiated: { serverHostKey: string };
  _hostKey: Buffer;
  finish: unknown;
}
interface Ssh2Protocol {
  _offer: Ssh2KexInit;
  _kex: Ssh2Kex | undefined;
}

function protocolOf(client: Client): Ssh2Protocol | undefined {
  return (client as unknown as { _protocol?: Ssh2Protocol })._protocol;
}

/** What keeps host certificates from working with the installed ssh2 (or this client), or null. */
export function hostCertificateKexProblem(client?: Client): string | null {
  let version: string;
  try {
    version = (requireFromHere('ssh2/package.json') as { version: string }).version;
  } catch (error) {
    return `ssh2's package.json cannot be read (${(error as Error).message})`;
  }
  if (version !== CHECKED_SSH2_VERSION) return `ssh2 is ${version}; host certificates were checked against ${CHECKED_SSH2_VERSION} only`;
  if (client) {
    const proto = protocolOf(client);
    if (!proto) return "ssh2's client has no protocol object";
    const lists = proto._offer?.lists;
    if (!lists || !Array.isArray(lists.serverHostKey?.array) || !Array.isArray(lists.kex?.array) || !lists.cs || !lists.sc) return "ssh2's protocol has no KEXINIT offer";
    if (typeof proto._offer.constructor !== 'function') return "ssh2's KEXINIT offer has no constructor";
  }
  return null;
}

/** Puts the certificate algorithms first in `client`'s offer (just after client.connect()); returns a problem or null. */
export function offerHostCertificates(client: Client): string | null {
  const problem = hostCertificateKexProblem(client);
  if (problem) return problem;
  const proto = protocolOf(client)!;
  const lists = proto._offer.lists;
  const side = (s: Ssh2KexInit['lists']['cs']) => ({ cipher: s.cipher.array, mac: s.mac.array, compress: s.compress.array, lang: s.lang.array });
  const serverHostKey = [...HOST_CERTIFICATE_ALGORITHMS, ...lists.serverHostKey.array.filter((a) => !HOST_CERTIFICATE_ALGORITHMS.includes(a))];
  try {
    proto._offer = new proto._offer.constructor({ kex: lists.kex.array, serverHostKey, cs: side(lists.cs), sc: side(lists.sc) });
  } catch (error) {
    return `ssh2's KEXINIT offer cannot be rebuilt (${(error as Error).message})`;
  }
  return null;
}

/**
 * From the host verifier, once `certificate` (the K_S the server sent) is trusted: ssh2 verifies the exchange
 * signature with `plainKey` under `plainAlgorithm`. Returns a problem (the caller then refuses the host) or null.
 */
export function useCertifiedKey(client: Client, certificate: Buffer, plainKey: Buffer, plainAlgorithm: string): string | null {
  const kex = protocolOf(client)?._kex;
  if (!kex || typeof kex.finish !== 'function' || !kex.negotiated || !Buffer.isBuffer(kex._hostKey)) return "ssh2's key exchange state is not the one host certificates were checked against";
  if (!kex._hostKey.equals(certificate)) return "ssh2's key exchange holds another host key than the certificate checked";
  kex.negotiated.serverHostKey = plainAlgorithm;
  let reads = 0;
  Object.defineProperty(kex, '_hostKey', {
    configurable: true,
    enumerable: true,
    // First read: K_S in the exchange hash; later reads: the key that verifies the signature.
    get: () => (reads++ === 0 ? certificate : plainKey),
    set: (value: Buffer) => {
      // A later re-key assigns its own host key: from then on ssh2's plain handling applies again.
      Object.defineProperty(kex, '_hostKey', { configurable: true, enumerable: true, writable: true, value });
    },
  });
  return null;
}
