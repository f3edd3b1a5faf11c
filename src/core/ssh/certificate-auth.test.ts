import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as ssh2Module from 'ssh2';
import { CHECKED_SSH2_VERSION, certificateAlgorithm, certificateAuthProblem, certificateMatchesKey, installCertificateAuth } from './certificate-auth';
import { certificatesFor } from './auth-plan';

const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

let dir: string;

function keygen(path: string, type: string): void {
  const result = spawnSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 't', '-f', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
}

function sign(ca: string, publicKey: string): void {
  const result = spawnSync('ssh-keygen', ['-q', '-s', ca, '-I', 'id', '-n', 'someone', publicKey], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
}

async function blobOf(file: string): Promise<Buffer> {
  return Buffer.from((await readFile(file, 'utf8')).trim().split(/\s+/)[1] as string, 'base64');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-cert-'));
  keygen(join(dir, 'ca'), 'ed25519');
  for (const type of ['ed25519', 'rsa']) {
    keygen(join(dir, `id_${type}`), type);
    sign(join(dir, 'ca'), join(dir, `id_${type}.pub`));
  }
  keygen(join(dir, 'id_other'), 'ed25519');
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the ssh2 internals certificate login relies on', () => {
  it('are the ones it was checked against', () => {
    // Fails when ssh2 is upgraded: re-read Protocol.authPK, utils.sendPacket and client.js's calls, then update.
    expect(certificateAuthProblem()).toBeNull();
    expect(CHECKED_SSH2_VERSION).toBe('1.17.0');
  });

  it("are there on a client's protocol object after connect()", () => {
    const client = new ssh2.Client();
    client.on('error', () => {});
    // A stream that never answers: connect() builds the protocol object, nothing is exchanged.
    const sock = new PassThrough();
    client.connect({ sock: sock as never, username: 'u', readyTimeout: 0 });
    const proto = (client as unknown as { _protocol: unknown })._protocol;
    expect(certificateAuthProblem(proto)).toBeNull();
    const original = (proto as { authPK: unknown }).authPK;
    installCertificateAuth(client);
    expect((proto as { authPK: unknown }).authPK).not.toBe(original);
    client.end();
    sock.destroy();
  });
});

describe('certificates', () => {
  it('match the key they certify and no other', async () => {
    const cert = await blobOf(join(dir, 'id_ed25519-cert.pub'));
    expect(certificateMatchesKey(cert, await blobOf(join(dir, 'id_ed25519.pub')))).toBe(true);
    expect(certificateMatchesKey(cert, await blobOf(join(dir, 'id_other.pub')))).toBe(false);
    expect(certificateMatchesKey(cert, await blobOf(join(dir, 'id_rsa.pub')))).toBe(false);
  });

  it('are offered under the algorithm of their type, RSA with the hash chosen for the plain key', async () => {
    expect(certificateAlgorithm(await blobOf(join(dir, 'id_ed25519-cert.pub')), 'ssh-ed25519')).toBe('ssh-ed25519-cert-v01@openssh.com');
    const rsa = await blobOf(join(dir, 'id_rsa-cert.pub'));
    expect(certificateAlgorithm(rsa, 'rsa-sha2-512')).toBe('rsa-sha2-512-cert-v01@openssh.com');
    expect(certificateAlgorithm(rsa, 'ssh-rsa')).toBe('ssh-rsa-cert-v01@openssh.com');
  });

  it('are found beside the key and from CertificateFile, once each, mismatches left out', async () => {
    const key = ssh2.utils.parseKey(await readFile(join(dir, 'id_ed25519')));
    if (key instanceof Error || Array.isArray(key)) throw new Error('key did not parse');
    const beside = join(dir, 'id_ed25519-cert.pub');
    const found = await certificatesFor(join(dir, 'id_ed25519'), key, [beside, join(dir, 'id_rsa-cert.pub'), join(dir, 'missing-cert.pub')]);
    expect(found.map((c) => c.file)).toEqual([beside]);
    expect(found[0]?.type).toBe('ssh-ed25519-cert-v01@openssh.com');
    expect(await certificatesFor(join(dir, 'id_other'), key, [])).toEqual([]);
  });
});
