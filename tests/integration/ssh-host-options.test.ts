// The ssh_config options a connection honours, against real OpenSSH sshd: HostKeyAlias, StrictHostKeyChecking,
// UserKnownHostsFile/GlobalKnownHostsFile, @cert-authority lines, user certificates (CertificateFile and
// <key>-cert.pub, checked in sshd's own log), ConnectTimeout and ConnectionAttempts.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { caught, run } from '../helpers/ssh-client';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore, knownHostsName } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { acceptingNewKeys } from '../../src/core/ssh/accept-new-keys';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { ConnectionLog } from '../../src/core/ssh/connection-log';

let plain: TestSshd;
let certified: TestSshd;
let scratch: string;
let caKey: string;
let files = 0;

function keygen(path: string, type: string, extra: string[] = []): void {
  const result = spawnSync('ssh-keygen', ['-q', '-t', type, ...extra, '-N', '', '-C', 'servelab-test', '-f', path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ssh-keygen failed: ${result.stderr}`);
}

/** `ssh-keygen -s ca -I id -n user key.pub`: writes key-cert.pub. */
function sign(publicKey: string, principal: string, identity: string): void {
  const result = spawnSync('ssh-keygen', ['-q', '-s', caKey, '-I', identity, '-n', principal, publicKey], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ssh-keygen -s failed: ${result.stderr}`);
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-hostopts-'));
  caKey = join(scratch, 'user_ca');
  keygen(caKey, 'ed25519');
  [plain, certified] = await Promise.all([
    startTestSshd({ nvidiaSmi: false }),
    startTestSshd({ nvidiaSmi: false, extraConfig: [`TrustedUserCAKeys ${caKey}.pub`] }),
  ]);
});

afterAll(async () => {
  await Promise.all([plain?.stop(), certified?.stop()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function hostKeyLine(sshd: TestSshd): Promise<{ keyType: string; publicKey: string }> {
  const [keyType, publicKey] = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim().split(' ') as [string, string];
  return { keyType, publicKey };
}

function emptyStore(readOnlyFiles: string[] = []): KnownHostsStore {
  return new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++files}`), readOnlyFiles });
}

function targetOf(sshd: TestSshd, extra: Partial<SshTarget> = {}): SshTarget {
  return { host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.identityFile], ...extra };
}

async function connects(target: SshTarget, knownHosts: KnownHostsStore, log?: ConnectionLog): Promise<void> {
  const client = await openSshClient(target, { knownHosts, timeoutSeconds: 10, ...(log ? { log: log.writer('h') } : {}) });
  try {
    expect(await run(client, 'id -un')).toBe(target.user);
  } finally {
    client.end();
  }
}

const messages = (log: ConnectionLog) => log.entries('h').map((e) => e.message);

describe('HostKeyAlias', () => {
  it('checks the key under the alias, not host:port', async () => {
    const key = await hostKeyLine(plain);
    const file = join(scratch, `alias_known_hosts_${++files}`);
    await writeFile(file, `box-alias ${key.keyType} ${key.publicKey}\n`);
    const store = emptyStore([file]);
    await connects(targetOf(plain, { hostKeyAlias: 'box-alias' }), store);
    const unknown = await caught(openSshClient(targetOf(plain), { knownHosts: store, timeoutSeconds: 10 }));
    expect(unknown.code).toBe('HOST_KEY_UNKNOWN');
    const other = await caught(openSshClient(targetOf(plain, { hostKeyAlias: 'another-alias' }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(other.code).toBe('HOST_KEY_UNKNOWN');
    expect(other.message).toContain("'another-alias'");
    expect(other.details).toMatchObject({ hostKeyAlias: 'another-alias', host: plain.host, port: plain.port });
  });

  it('stores an accepted-new key under the alias, without the port', async () => {
    const store = emptyStore();
    await connects(targetOf(plain, { hostKeyAlias: 'Stored-Alias', strictHostKeyChecking: 'accept-new' }), store);
    const key = await hostKeyLine(plain);
    expect(await readFile(store.writableFile, 'utf8')).toBe(`stored-alias ${key.keyType} ${key.publicKey}\n`);
    // Known now, under the alias only.
    await connects(targetOf(plain, { hostKeyAlias: 'stored-alias', strictHostKeyChecking: 'yes' }), store);
  });

  it('refuses, naming it, a HostKeyAlias that known_hosts cannot hold instead of failing inside', async () => {
    for (const strictHostKeyChecking of ['accept-new', 'ask'] as const) {
      const store = emptyStore();
      const error = await caught(openSshClient(targetOf(plain, { hostKeyAlias: 'gpu box/1', strictHostKeyChecking }), { knownHosts: store, timeoutSeconds: 10 }));
      expect(error.code).toBe('BAD_INPUT');
      expect(error.message).toContain('HostKeyAlias "gpu box/1"');
      await expect(readFile(store.writableFile, 'utf8')).rejects.toThrow();
    }
  });
});

describe('StrictHostKeyChecking', () => {
  it('accept-new stores an unknown key in the app file, logs it like ssh and connects; a changed key is still refused', async () => {
    const log = new ConnectionLog();
    const store = emptyStore();
    await connects(targetOf(plain, { strictHostKeyChecking: 'accept-new' }), store, log);
    const key = await hostKeyLine(plain);
    const name = knownHostsName(plain.host, plain.port);
    expect(await readFile(store.writableFile, 'utf8')).toBe(`${name} ${key.keyType} ${key.publicKey}\n`);
    expect(messages(log).some((m) => m.startsWith(`Warning: Permanently added '${name}' (ED25519) to the list of known hosts (${store.writableFile})`))).toBe(true);

    const other = await hostKeyLine(certified);
    const changedFile = join(scratch, `changed_${++files}`);
    await writeFile(changedFile, `${name} ${other.keyType} ${other.publicKey}\n`);
    const changedStore = new KnownHostsStore({ appFile: changedFile, readOnlyFiles: [] });
    const changed = await caught(openSshClient(targetOf(plain, { strictHostKeyChecking: 'accept-new' }), { knownHosts: changedStore, timeoutSeconds: 10 }));
    expect(changed.code).toBe('HOST_KEY_CHANGED');
    expect(await readFile(changedFile, 'utf8')).toBe(`${name} ${other.keyType} ${other.publicKey}\n`);
  });

  it('yes refuses an unknown key with ssh’s words and stores nothing', async () => {
    const store = emptyStore();
    const error = await caught(openSshClient(targetOf(plain, { strictHostKeyChecking: 'yes' }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(error.message).toContain(`No ED25519 host key is known for ${knownHostsName(plain.host, plain.port)} and you have requested strict checking.`);
    expect(error.message).toContain('Host key verification failed.');
    expect(error.details).toMatchObject({ strictHostKeyChecking: 'yes' });
    await expect(readFile(store.writableFile, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('no is treated as ask, with a warning in the log', async () => {
    const log = new ConnectionLog();
    const store = emptyStore();
    const error = await caught(openSshClient(targetOf(plain, { strictHostKeyChecking: 'no' }), { knownHosts: store, timeoutSeconds: 10, log: log.writer('h') }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(error.message).toContain("can't be established");
    expect(messages(log).join('\n')).toContain('StrictHostKeyChecking no is treated as ask');
    await expect(readFile(store.writableFile, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('known_hosts files', () => {
  it("the target's UserKnownHostsFile/GlobalKnownHostsFile replace the default read-only files", async () => {
    const key = await hostKeyLine(plain);
    const name = knownHostsName(plain.host, plain.port);
    const defaults = join(scratch, `default_${++files}`);
    const users = join(scratch, `user_${files}`);
    await writeFile(defaults, `${name} ${key.keyType} ${key.publicKey}\n`);
    await writeFile(users, '');
    const store = emptyStore([defaults]);
    await connects(targetOf(plain), store);
    const replaced = await caught(openSshClient(targetOf(plain, { knownHostsFiles: [users, join(scratch, 'missing')] }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(replaced.code).toBe('HOST_KEY_UNKNOWN');
    await writeFile(users, `${name} ${key.keyType} ${key.publicKey}\n`);
    await connects(targetOf(plain, { knownHostsFiles: [join(scratch, 'missing'), users] }), emptyStore());
  });

  it('UserKnownHostsFile /dev/null: an accepted key is kept in memory for this run, never in the app file, and a changed one is still refused', async () => {
    const store = emptyStore();
    const devNull = { userKnownHostsFiles: ['/dev/null'], knownHostsFiles: ['/dev/null'], hostKeyAlias: `spot-${++files}` };
    const log = new ConnectionLog();
    await connects(targetOf(plain, { ...devNull, strictHostKeyChecking: 'accept-new' }), store, log);
    expect(messages(log).some((m) => m.startsWith(`Accepted the ED25519 host key of '${devNull.hostKeyAlias}' (StrictHostKeyChecking accept-new) for this run only`))).toBe(true);
    expect(messages(log).some((m) => m.includes('kept in memory only, until Servelab exits'))).toBe(true);
    expect(messages(log).some((m) => m.startsWith('Warning: Permanently added'))).toBe(false);
    // Nothing written: the next run asks again, as ssh does.
    await expect(readFile(store.writableFile, 'utf8')).rejects.toThrow();
    // Known for the rest of the run, even under strict checking.
    await connects(targetOf(plain, { ...devNull, strictHostKeyChecking: 'yes' }), store);
    // Another box at that name (a reused address) is a changed key within the run.
    const changed = await caught(openSshClient(targetOf(certified, { ...devNull, strictHostKeyChecking: 'accept-new' }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(changed.code).toBe('HOST_KEY_CHANGED');
    expect(changed.message).toContain('key accepted earlier in this run, kept in memory only (UserKnownHostsFile /dev/null)');
    expect(changed.details).toMatchObject({ keptInMemory: true });
  });

  it('UserKnownHostsFile /dev/null: an explicit accept keeps the key in memory only', async () => {
    const store = emptyStore();
    const target = targetOf(plain, { userKnownHostsFiles: ['/dev/null'], knownHostsFiles: ['/dev/null'], hostKeyAlias: `asked-${++files}` });
    const unknown = await caught(openSshClient(target, { knownHosts: store, timeoutSeconds: 10 }));
    expect(unknown.code).toBe('HOST_KEY_UNKNOWN');
    expect(unknown.message).toContain('an accepted key is kept for this run only, in memory');
    expect(unknown.details).toMatchObject({ keptInMemory: true });
    const accepted: string[] = [];
    const client = await acceptingNewKeys(target, store, { acceptNew: true, onAccepted: (_key, name) => accepted.push(name) }, () => openSshClient(target, { knownHosts: store, timeoutSeconds: 10 }));
    client.end();
    expect(accepted).toEqual([target.hostKeyAlias]);
    await expect(readFile(store.writableFile, 'utf8')).rejects.toThrow();
    await connects({ ...target, strictHostKeyChecking: 'yes' }, store);
  });

  it('says when the only trust is an @cert-authority line, naming it and the key to compare', async () => {
    const ca = (await readFile(`${caKey}.pub`, 'utf8')).trim().split(' ');
    const file = join(scratch, `ca_${++files}`);
    await writeFile(file, `# host CA\n@cert-authority [127.0.0.1]:* ${ca[0]} ${ca[1]}\n`);
    const error = await caught(openSshClient(targetOf(plain), { knownHosts: emptyStore([file]), timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(error.message).toContain(`only through host certificates: @cert-authority in ${file}:2`);
    expect(error.message).toContain('It presented no host certificate');
    expect(error.message).toContain(plain.hostKeyFingerprint);
  });
});

describe('host certificates (@cert-authority)', () => {
  let hostCa: string;
  let otherCa: string;
  let hostCertified: TestSshd;
  const hostCertPath = () => join(scratch, 'host-cert.pub');

  beforeAll(async () => {
    hostCa = join(scratch, 'host_ca');
    otherCa = join(scratch, 'other_host_ca');
    keygen(hostCa, 'ed25519');
    keygen(otherCa, 'ecdsa', ['-b', '256']);
    hostCertified = await startTestSshd({ nvidiaSmi: false, extraConfig: [`HostCertificate ${hostCertPath()}`] });
  });
  afterAll(async () => {
    await hostCertified?.stop();
  });

  /** Signs the test sshd's host key as `ssh-keygen -s ca -h` does and restarts sshd with that HostCertificate. */
  async function certify(ca: string, principals: string, validity?: string): Promise<void> {
    const hostPub = join(hostCertified.dir, 'ssh_host_ed25519_key.pub');
    const args = ['-q', '-s', ca, '-h', '-I', 'servelab-test-host', ...(principals ? ['-n', principals] : []), ...(validity ? ['-V', validity] : []), hostPub];
    const result = spawnSync('ssh-keygen', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`ssh-keygen -s -h failed: ${result.stderr}`);
    await copyFile(join(hostCertified.dir, 'ssh_host_ed25519_key-cert.pub'), hostCertPath());
    await hostCertified.restart();
  }

  async function caFile(lines: string[]): Promise<string> {
    const file = join(scratch, `host_ca_known_${++files}`);
    await writeFile(file, `${lines.join('\n')}\n`);
    return file;
  }
  const caLine = async (ca: string, pattern = '[127.0.0.1]:*') => `@cert-authority ${pattern} ${(await readFile(`${ca}.pub`, 'utf8')).trim()}`;

  /** What OpenSSH 9.2's own client does with the same known_hosts file: connects (true) or refuses the host key. */
  function sshConnects(knownFile: string, extra: string[] = []): boolean {
    const result = spawnSync(
      'ssh',
      ['-F', '/dev/null', '-o', `UserKnownHostsFile=${knownFile}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes',
        '-i', hostCertified.identityFile, '-p', String(hostCertified.port), ...extra, `${hostCertified.user}@${hostCertified.host}`, 'true'],
      { encoding: 'utf8', timeout: 10_000 },
    );
    if (result.status !== 0) expect(result.stderr).toContain('Host key verification failed');
    return result.status === 0;
  }

  it('connects, without a question, to a host trusted only through the CA that signed its certificate, as ssh does', async () => {
    await certify(hostCa, '127.0.0.1,gpu-box');
    const file = await caFile([await caLine(hostCa)]);
    const log = new ConnectionLog();
    await connects(targetOf(hostCertified), emptyStore([file]), log);
    expect(messages(log).join('\n')).toContain(`Host '[127.0.0.1]:${hostCertified.port}' is known and matches the ED25519-CERT host certificate (ID "servelab-test-host"`);
    expect(sshConnects(file)).toBe(true);
    // HostKeyAlias: the alias is both the known_hosts name and the principal checked.
    const aliasFile = await caFile([await caLine(hostCa, 'gpu-box')]);
    await connects(targetOf(hostCertified, { hostKeyAlias: 'gpu-box' }), emptyStore([aliasFile]));
    expect(sshConnects(aliasFile, ['-o', 'HostKeyAlias=gpu-box'])).toBe(true);
  });

  it('refuses a certificate that does not name the host, one that expired, and one from another CA, in ssh\'s words', async () => {
    const file = await caFile([await caLine(hostCa)]);
    const target = targetOf(hostCertified);

    await certify(hostCa, 'some-other-box');
    const wrongName = await caught(openSshClient(target, { knownHosts: emptyStore([file]), timeoutSeconds: 10 }));
    expect(wrongName.code).toBe('HOST_KEY_UNKNOWN');
    expect(wrongName.message).toContain('Certificate invalid: name is not a listed principal');
    expect(sshConnects(file)).toBe(false);
    // Like ssh, a refused certificate is retried as its plain key: listed in known_hosts, the host connects.
    const key = await hostKeyLine(hostCertified);
    const withPlain = await caFile([await caLine(hostCa), `${knownHostsName(hostCertified.host, hostCertified.port)} ${key.keyType} ${key.publicKey}`]);
    await connects(target, emptyStore([withPlain]));
    expect(sshConnects(withPlain)).toBe(true);

    await certify(hostCa, '127.0.0.1', '20200101:20200102');
    const expired = await caught(openSshClient(target, { knownHosts: emptyStore([file]), timeoutSeconds: 10 }));
    expect(expired.code).toBe('HOST_KEY_UNKNOWN');
    expect(expired.message).toContain('Certificate invalid: expired');
    expect(sshConnects(file)).toBe(false);

    await certify(otherCa, '127.0.0.1');
    const otherSigner = await caught(openSshClient(target, { knownHosts: emptyStore([file]), timeoutSeconds: 10 }));
    expect(otherSigner.code).toBe('HOST_KEY_UNKNOWN');
    expect(otherSigner.message).toContain('signed by unknown CA');
    expect(otherSigner.message).toContain(hostCertified.hostKeyFingerprint);
    expect(sshConnects(file)).toBe(false);
  });

  it('refuses a certificate whose CA is @revoked, and checks a plain-key host as before', async () => {
    await certify(hostCa, '127.0.0.1');
    const caPub = (await readFile(`${hostCa}.pub`, 'utf8')).trim();
    const file = await caFile([await caLine(hostCa), `@revoked * ${caPub}`]);
    const revoked = await caught(openSshClient(targetOf(hostCertified), { knownHosts: emptyStore([file]), timeoutSeconds: 10 }));
    expect(revoked.code).toBe('HOST_KEY_REVOKED');
    expect(revoked.message).toContain(`is marked as revoked in ${file}:2`);
    expect(sshConnects(file)).toBe(false);

    // No CA line: the plain key, listed, is all that counts (no certificate is asked for).
    const key = await hostKeyLine(hostCertified);
    const plainFile = await caFile([`${knownHostsName(hostCertified.host, hostCertified.port)} ${key.keyType} ${key.publicKey}`]);
    const log = new ConnectionLog();
    await connects(targetOf(hostCertified), emptyStore([plainFile]), log);
    expect(messages(log).join('\n')).toContain('matches known_hosts');
  });
});

describe('user certificates', () => {
  it('logs in with <key>-cert.pub and with a CertificateFile, with no authorized key; sshd says a certificate was used', async () => {
    const name = knownHostsName(certified.host, certified.port);
    const key = await hostKeyLine(certified);
    const knownFile = join(scratch, `cert_known_${++files}`);
    await writeFile(knownFile, `${name} ${key.keyType} ${key.publicKey}\n`);

    // Ed25519, the certificate beside the key as ssh finds it.
    const ed = join(scratch, 'id_cert_ed25519');
    keygen(ed, 'ed25519');
    const log = new ConnectionLog();
    const edTarget = targetOf(certified, { identityFiles: [ed], identitiesOnly: true });
    const withoutCert = await caught(openSshClient(edTarget, { knownHosts: emptyStore([knownFile]), timeoutSeconds: 10 }));
    expect(withoutCert.code).toBe('AUTH_FAILED');
    sign(`${ed}.pub`, certified.user, 'servelab-ed25519');
    await connects(edTarget, emptyStore([knownFile]), log);
    expect(messages(log).join('\n')).toContain(`Trying certificate ${ed}-cert.pub (ssh-ed25519-cert-v01@openssh.com)`);
    expect(messages(log)).toContain(`Logged in as ${certified.user} with certificate ${ed}-cert.pub.`);
    expect(certified.log()).toMatch(new RegExp(`Accepted publickey for ${certified.user} from 127\\.0\\.0\\.1 port \\d+ ssh2: ED25519-CERT SHA256:\\S+ ID servelab-ed25519`));

    // ECDSA, the certificate named by CertificateFile somewhere else.
    const ecdsa = join(scratch, 'id_cert_ecdsa');
    keygen(ecdsa, 'ecdsa', ['-b', '256']);
    sign(`${ecdsa}.pub`, certified.user, 'servelab-ecdsa');
    const elsewhere = join(scratch, 'elsewhere-ecdsa-cert.pub');
    await copyFile(`${ecdsa}-cert.pub`, elsewhere);
    await rm(`${ecdsa}-cert.pub`);
    await connects(targetOf(certified, { identityFiles: [ecdsa], certificateFiles: [elsewhere], identitiesOnly: true }), emptyStore([knownFile]));
    expect(certified.log()).toMatch(/Accepted publickey for \S+ from 127\.0\.0\.1 port \d+ ssh2: ECDSA-CERT SHA256:\S+ ID servelab-ecdsa/);

    // RSA: offered as rsa-sha2-*-cert-v01@openssh.com.
    const rsa = join(scratch, 'id_cert_rsa');
    keygen(rsa, 'rsa', ['-b', '2048']);
    sign(`${rsa}.pub`, certified.user, 'servelab-rsa');
    await connects(targetOf(certified, { identityFiles: [rsa], identitiesOnly: true }), emptyStore([knownFile]));
    expect(certified.log()).toMatch(/Accepted publickey for \S+ from 127\.0\.0\.1 port \d+ ssh2: RSA-CERT SHA256:\S+ ID servelab-rsa/);
  });

  it('logs in with a CertificateFile whose private key is only in the ssh-agent, the agent signing', async () => {
    const agentDir = await mkdtemp(join(tmpdir(), 'servelab-certagent-'));
    const socket = join(agentDir, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 100 && !existsSync(socket); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const key = await hostKeyLine(certified);
      const knownFile = join(scratch, `agent_cert_known_${++files}`);
      await writeFile(knownFile, `${knownHostsName(certified.host, certified.port)} ${key.keyType} ${key.publicKey}\n`);
      for (const [type, extra, shownType] of [
        ['ed25519', [], 'ED25519-CERT'],
        ['rsa', ['-b', '2048'], 'RSA-CERT'],
      ] as const) {
        const keyFile = join(agentDir, `id_agent_${type}`);
        keygen(keyFile, type, [...extra]);
        sign(`${keyFile}.pub`, certified.user, `servelab-agent-${type}`);
        const added = spawnSync('ssh-add', ['-q', keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket }, encoding: 'utf8' });
        if (added.status !== 0) throw new Error(`ssh-add failed: ${added.stderr}`);
        // Only the certificate stays on disk; no IdentityFile is given.
        const certificateFile = join(agentDir, `only-${type}-cert.pub`);
        await copyFile(`${keyFile}-cert.pub`, certificateFile);
        await Promise.all([rm(keyFile), rm(`${keyFile}.pub`), rm(`${keyFile}-cert.pub`)]);
        const log = new ConnectionLog();
        await connects(targetOf(certified, { identityFiles: [], agentSocket: socket, certificateFiles: [certificateFile] }), emptyStore([knownFile]), log);
        expect(certified.log()).toMatch(new RegExp(`Accepted publickey for \\S+ from 127\\.0\\.0\\.1 port \\d+ ssh2: ${shownType} SHA256:\\S+ ID servelab-agent-${type}`));
        expect(messages(log).some((m) => m.startsWith(`Trying certificate ${certificateFile}`) && m.endsWith('with its key from the SSH agent…'))).toBe(true);
      }
    } finally {
      agent.kill('SIGKILL');
      await rm(agentDir, { recursive: true, force: true });
    }
  });

  it('does not offer a certificate that is for another key', async () => {
    const mine = join(scratch, 'id_mismatch');
    const other = join(scratch, 'id_other');
    keygen(mine, 'ed25519');
    keygen(other, 'ed25519');
    sign(`${other}.pub`, certified.user, 'servelab-other');
    const log = new ConnectionLog();
    const key = await hostKeyLine(certified);
    const store = emptyStore();
    await store.add({ host: certified.host, port: certified.port, ...key });
    const refused = await caught(
      openSshClient(targetOf(certified, { identityFiles: [mine], certificateFiles: [`${other}-cert.pub`], identitiesOnly: true }), { knownHosts: store, timeoutSeconds: 10, log: log.writer('h') }),
    );
    expect(refused.code).toBe('AUTH_FAILED');
    expect(messages(log).join('\n')).not.toContain('Trying certificate');
  });
});

describe('ConnectTimeout and ConnectionAttempts', () => {
  let blackHole: ChildProcess | undefined;
  const fillers: Socket[] = [];
  let port = 0;

  afterAll(() => {
    for (const socket of fillers) socket.destroy();
    blackHole?.kill('SIGKILL');
  });

  /** A listening socket that never accepts, its queue full: further connects get no answer (the SYN is dropped). */
  async function startBlackHole(): Promise<number> {
    const child = spawn('python3', ['-c', "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(120)"], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    blackHole = child;
    const listening = await new Promise<number>((resolve, reject) => {
      child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
      child.once('exit', (code) => reject(new Error(`the black hole exited (${code})`)));
    });
    // Fill the accept queue: connects that complete while nobody accepts.
    for (let i = 0; i < 3; i++) {
      const socket = netConnect(listening, '127.0.0.1');
      socket.on('error', () => {});
      fillers.push(socket);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    return listening;
  }

  it('gives each TCP connect ConnectTimeout seconds, tries ConnectionAttempts times 1 s apart, and logs each attempt', async () => {
    port = await startBlackHole();
    const log = new ConnectionLog();
    const started = Date.now();
    const error = await caught(
      // The overall deadline (2 s) is for the handshake and login: the attempts take longer without being cut short.
      openSshClient({ host: '127.0.0.1', port, user: 'me', identityFiles: [plain.identityFile], connectTimeoutSeconds: 1, connectionAttempts: 2 }, { knownHosts: emptyStore(), timeoutSeconds: 2, log: log.writer('h') }),
    );
    const elapsed = Date.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toContain('ConnectTimeout');
    // 1 s + 1 s pause + 1 s.
    expect(elapsed).toBeGreaterThanOrEqual(2_900);
    expect(elapsed).toBeLessThan(8_000);
    const text = messages(log);
    expect(text.filter((m) => /^Connecting to 127\.0\.0\.1 port \d+ \(attempt \d of 2\)\.$/.test(m))).toHaveLength(2);
    expect(text).toContain('Trying again (attempt 2 of 2)…');
  });

  /** A TCP server on 127.0.0.1 that accepts and then sends `greeting` (maybe nothing) and never anything more. */
  async function silentServer(greeting: string): Promise<{ port: number; close: () => void }> {
    const held: Socket[] = [];
    const server = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => {});
      if (greeting) socket.write(greeting);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      close: () => {
        for (const socket of held) socket.destroy();
        server.close();
      },
    };
  }

  it('bounds the banner exchange and the key exchange by ConnectTimeout too, not only the TCP connect', async () => {
    for (const [greeting, stage] of [
      ['', 'banner exchange'],
      ['SSH-2.0-OpenSSH_9.2p1 Silent\r\n', 'key exchange'],
    ] as const) {
      const server = await silentServer(greeting);
      try {
        const log = new ConnectionLog();
        const started = Date.now();
        const error = await caught(
          openSshClient({ host: '127.0.0.1', port: server.port, user: 'me', identityFiles: [plain.identityFile], connectTimeoutSeconds: 1 }, { knownHosts: emptyStore(), timeoutSeconds: 20, log: log.writer('h') }),
        );
        const elapsed = Date.now() - started;
        expect(error.code).toBe('TIMEOUT');
        expect(error.message).toBe(`Connection timed out during ${stage} with me@127.0.0.1:${server.port} (ConnectTimeout 1 s).`);
        expect(elapsed).toBeGreaterThanOrEqual(900);
        expect(elapsed).toBeLessThan(4_000);
        expect(messages(log)).toContain(error.message);
      } finally {
        server.close();
      }
    }
  });

  it('tries a refused connect ConnectionAttempts times and reports the refusal', async () => {
    // A port that was just bound and closed again: nothing listens there, so connects are refused at once.
    const free = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port: bound } = server.address() as AddressInfo;
        server.close(() => resolve(bound));
      });
    });
    const log = new ConnectionLog();
    const started = Date.now();
    const error = await caught(
      openSshClient({ host: '127.0.0.1', port: free, user: 'me', identityFiles: [plain.identityFile], connectionAttempts: 3 }, { knownHosts: emptyStore(), timeoutSeconds: 30, log: log.writer('h') }),
    );
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('Connection refused');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(error.message).toContain('Tried 3 times (ConnectionAttempts).');
    expect(messages(log).filter((m) => m.startsWith(`connect to 127.0.0.1 port ${free} failed: `) && m.includes('ECONNREFUSED'))).toHaveLength(3);
  });

  it('resolves a host name once, as ssh does, whatever ConnectionAttempts says', async () => {
    const log = new ConnectionLog();
    const error = await caught(
      openSshClient({ host: 'no-such-box.invalid', port: 22, user: 'me', identityFiles: [plain.identityFile], connectionAttempts: 3 }, { knownHosts: emptyStore(), timeoutSeconds: 30, log: log.writer('h') }),
    );
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('Cannot resolve the host name "no-such-box.invalid"');
    expect(error.message).not.toContain('Tried');
    expect(messages(log).filter((m) => m.startsWith('Trying again'))).toHaveLength(0);
  });

  it('connects on the first attempt when sshd answers', async () => {
    const log = new ConnectionLog();
    const key = await hostKeyLine(plain);
    const store = emptyStore();
    await store.add({ host: plain.host, port: plain.port, ...key });
    await connects(targetOf(plain, { connectionAttempts: 3, connectTimeoutSeconds: 5 }), store, log);
    expect(messages(log).filter((m) => m.includes('(attempt '))).toEqual([`Connecting to ${plain.host} port ${plain.port} (attempt 1 of 3).`]);
  });
});
