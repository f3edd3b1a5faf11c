import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as ssh2Module from 'ssh2';
import type { AnyAuthMethod, AuthenticationType, ParsedKey } from 'ssh2';
import { CHECKED_SSH2_VERSION, certificateAlgorithm, certificateAuthProblem, certificateKind, certificateMatchesKey, installCertificateAuth } from './certificate-auth';
import { AuthPlan, certificatesFor } from './auth-plan';
import { ConnectionLog } from './connection-log';

const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

let dir: string;

function keygen(path: string, type: string): void {
  const result = spawnSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', 't', '-f', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
}

function sign(ca: string, publicKey: string, extra: string[] = []): void {
  const result = spawnSync('ssh-keygen', ['-q', '-s', ca, '-I', 'id', '-n', 'someone', ...extra, publicKey], { encoding: 'utf8' });
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
  // A host certificate beside a key, as if a host key pair had been copied into ~/.ssh.
  keygen(join(dir, 'id_hostlike'), 'ed25519');
  sign(join(dir, 'ca'), join(dir, 'id_hostlike.pub'), ['-h']);
  await copyFile(join(dir, 'id_ed25519-cert.pub'), join(dir, 'elsewhere-cert.pub'));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the ssh2 internals certificate login relies on', () => {
  it('are the ones it was checked against', () => {
    // Fails when ssh2 is upgraded: re-read Protocol.authPK, utils.sendPacket and client.js's calls, then update.
    expect(certificateAuthProblem(), `checked against ssh2 ${CHECKED_SSH2_VERSION}`).toBeNull();
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
    expect(installCertificateAuth(client)).toBeNull();
    expect((proto as { authPK: unknown }).authPK).not.toBe(original);
    client.end();
    sock.destroy();
  });

  it('when missing, are reported and nothing is replaced, so no attempt can throw', () => {
    const authPK = () => {};
    const changed = { _protocol: { authPK, _packetRW: { write: { alloc: () => Buffer.alloc(0), finalize: (b: Buffer) => b, allocStart: 0 } } } };
    expect(installCertificateAuth(changed as never)).toBe("ssh2's protocol has no pending-auth queue");
    expect(changed._protocol.authPK).toBe(authPK);
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

  it('come from CertificateFile when one is set (mismatches left out), else from <key>-cert.pub, as ssh 9.2', async () => {
    const key = await parsedKey('id_ed25519');
    const beside = join(dir, 'id_ed25519-cert.pub');
    const elsewhere = join(dir, 'elsewhere-cert.pub');
    expect((await certificatesFor(join(dir, 'id_ed25519'), key, [])).map((c) => c.file)).toEqual([beside]);
    const found = await certificatesFor(join(dir, 'id_ed25519'), key, [elsewhere, elsewhere, join(dir, 'id_rsa-cert.pub'), join(dir, 'missing-cert.pub')]);
    expect(found.map((c) => c.file)).toEqual([elsewhere]);
    expect(found[0]?.type).toBe('ssh-ed25519-cert-v01@openssh.com');
    // A CertificateFile for another key, or one that does not exist, keeps <key>-cert.pub out all the same (ssh -v says so).
    expect(await certificatesFor(join(dir, 'id_ed25519'), key, [join(dir, 'missing-cert.pub')])).toEqual([]);
    expect(await certificatesFor(join(dir, 'id_ed25519'), key, [join(dir, 'id_rsa-cert.pub')])).toEqual([]);
    expect(await certificatesFor(join(dir, 'id_other'), await parsedKey('id_other'), [])).toEqual([]);
  });

  it('are never host certificates', async () => {
    const key = await parsedKey('id_hostlike');
    const cert = await blobOf(join(dir, 'id_hostlike-cert.pub'));
    expect(certificateKind(cert, key.getPublicSSH())).toBe('host');
    expect(certificateKind(await blobOf(join(dir, 'id_ed25519-cert.pub')), (await parsedKey('id_ed25519')).getPublicSSH())).toBe('user');
    const notes: string[] = [];
    expect(await certificatesFor(join(dir, 'id_hostlike'), key, [], (m) => notes.push(m))).toEqual([]);
    expect(notes).toEqual([`Ignoring certificate ${join(dir, 'id_hostlike-cert.pub')}: not a user certificate.`]);
  });
});

async function parsedKey(name: string): Promise<ParsedKey> {
  const key = ssh2.utils.parseKey(await readFile(join(dir, name)));
  if (key instanceof Error || Array.isArray(key)) throw new Error('key did not parse');
  return key;
}

/** The attempts a plan makes while the server refuses each one. */
async function offered(plan: AuthPlan): Promise<string[]> {
  const next = (methodsLeft: AuthenticationType[] | null) =>
    new Promise<AnyAuthMethod | false>((resolve) => plan.handler(methodsLeft as AuthenticationType[], false, (method) => resolve(method as AnyAuthMethod | false)));
  const out: string[] = [];
  let method = await next(null);
  while (method) {
    if (method.type !== 'none') out.push(method.type);
    method = await next(['publickey']);
  }
  return out;
}

describe('the login plan with certificates', () => {
  const planFor = (log: ConnectionLog, certificateFiles?: string[]) =>
    new AuthPlan({ target: { host: 'h', port: 22, user: 'someone', identityFiles: [join(dir, 'id_ed25519')], ...(certificateFiles ? { certificateFiles } : {}) }, hostId: 'h', log: log.writer('h'), home: dir });
  const tried = (log: ConnectionLog) => log.entries('h').map((e) => e.message).filter((m) => m.startsWith('Trying'));

  it('offers <key>-cert.pub after the plain key, and a CertificateFile before it, as ssh does', async () => {
    const log = new ConnectionLog();
    expect(await offered(planFor(log))).toEqual(['publickey', 'publickey']);
    expect(tried(log)).toEqual(['Trying key ~/id_ed25519…', 'Trying certificate ~/id_ed25519-cert.pub (ssh-ed25519-cert-v01@openssh.com) with key ~/id_ed25519…']);
    const withFile = new ConnectionLog();
    await offered(planFor(withFile, [join(dir, 'elsewhere-cert.pub')]));
    expect(tried(withFile)).toEqual(['Trying certificate ~/elsewhere-cert.pub (ssh-ed25519-cert-v01@openssh.com) with key ~/id_ed25519…', 'Trying key ~/id_ed25519…']);
  });

  it('skips certificates with one warning and goes on with the plain key when ssh2 cannot send them', async () => {
    const log = new ConnectionLog();
    const plan = planFor(log, [join(dir, 'elsewhere-cert.pub')]);
    plan.certificatesUnavailable('ssh2 is 9.9.9; certificate login was checked against 1.17.0 only');
    expect(await offered(plan)).toEqual(['publickey']);
    expect(tried(log)).toEqual(['Trying key ~/id_ed25519…']);
    expect(log.entries('h').filter((e) => e.level === 'warn').map((e) => e.message)).toContain(
      'Certificates are skipped: ssh2 is 9.9.9; certificate login was checked against 1.17.0 only. Plain keys are still tried.',
    );
  });
});
