import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import * as ssh2Module from 'ssh2';
import { CHECKED_SSH2_VERSION, HOST_CERTIFICATE_ALGORITHMS, hostCertificateKexProblem, offerHostCertificates, useCertifiedKey } from './host-certificate-kex';

const ssh2 = ((ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module) as typeof ssh2Module;

function connectedClient(): { client: ssh2Module.Client; sock: PassThrough } {
  const client = new ssh2.Client();
  client.on('error', () => {});
  // A stream that never answers: connect() builds the protocol object, nothing is exchanged.
  const sock = new PassThrough();
  client.connect({ sock: sock as never, username: 'u', readyTimeout: 0 });
  return { client, sock };
}

describe("ssh2's key exchange internals used for host certificates", () => {
  it(`are the ones of ssh2 ${CHECKED_SSH2_VERSION}: the offer is rebuilt with certificate algorithms first`, () => {
    expect(hostCertificateKexProblem()).toBeNull();
    const { client, sock } = connectedClient();
    const proto = (client as unknown as { _protocol: { _offer: { lists: { serverHostKey: { array: string[] }; kex: { array: string[] } } } } })._protocol;
    const kexBefore = [...proto._offer.lists.kex.array];
    const plainBefore = [...proto._offer.lists.serverHostKey.array];
    expect(offerHostCertificates(client)).toBeNull();
    expect(proto._offer.lists.serverHostKey.array).toEqual([...HOST_CERTIFICATE_ALGORITHMS, ...plainBefore]);
    // Everything else, strict-kex and ext-info markers included, is kept as ssh2 built it.
    expect(proto._offer.lists.kex.array).toEqual(kexBefore);
    client.end();
    sock.destroy();
  });

  it('when missing, are reported and nothing is changed', () => {
    const { client, sock } = connectedClient();
    const proto = (client as unknown as { _protocol: { _offer: unknown; _kex: unknown } })._protocol;
    const offer = proto._offer;
    proto._offer = { lists: {} };
    expect(offerHostCertificates(client)).toBe("ssh2's protocol has no KEXINIT offer");
    proto._offer = offer;
    // No key exchange under way: nothing to hand the certified key to.
    expect(useCertifiedKey(client, Buffer.from('cert'), Buffer.from('plain'), 'ssh-ed25519')).toMatch(/key exchange state/);
    client.end();
    sock.destroy();
  });

  it('hand finish() the certificate for the exchange hash first and the plain key after, under the plain algorithm', () => {
    const { client, sock } = connectedClient();
    const certificate = Buffer.from('certificate-blob');
    const plain = Buffer.from('plain-blob');
    const kex = { negotiated: { serverHostKey: 'ssh-ed25519-cert-v01@openssh.com' }, _hostKey: certificate, finish() {} } as { negotiated: { serverHostKey: string }; _hostKey: Buffer; finish(): void };
    (client as unknown as { _protocol: { _kex: unknown } })._protocol._kex = kex;
    expect(useCertifiedKey(client, plain, plain, 'ssh-ed25519')).toMatch(/another host key/);
    expect(useCertifiedKey(client, certificate, plain, 'ssh-ed25519')).toBeNull();
    expect(kex.negotiated.serverHostKey).toBe('ssh-ed25519');
    expect(kex._hostKey).toBe(certificate);
    expect(kex._hostKey).toBe(plain);
    expect(kex._hostKey).toBe(plain);
    client.end();
    sock.destroy();
  });
});
