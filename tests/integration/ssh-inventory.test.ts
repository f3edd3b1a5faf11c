import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore, fingerprintSha256 } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { execCollect } from '../../src/core/ssh/exec';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { collectInventoryOverSsh } from '../../src/core/inventory/collect-over-ssh';
import { createCore } from '../../src/core/create-core';
import { InventorySchema } from '../../src/shared/model/inventory';
import { ServelabError } from '../../src/shared/contract';

// Without root the test sshd cannot check passwords (see startTestSshd).
const asRoot = process.getuid?.() === 0;
let sshd: TestSshd;
let scratch: string;
let storeCount = 0;

/** A known_hosts store of its own, optionally already trusting the server's current key. */
async function newStore(opts: { trusted?: boolean } = {}): Promise<KnownHostsStore> {
  const store = new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++storeCount}`), readOnlyFiles: [] });
  if (opts.trusted) {
    const presented = await caught(openSshClient(keyTarget(), { knownHosts: store, timeoutSeconds: 10 }));
    expect(presented.code).toBe('HOST_KEY_UNKNOWN');
    const d = presented.details as { host: string; port: number; keyType: string; publicKey: string };
    await store.add({ host: d.host, port: d.port, keyType: d.keyType, publicKey: d.publicKey });
  }
  return store;
}

function keyTarget(extra: Partial<SshTarget> = {}): SshTarget {
  return { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile, ...extra };
}

async function caught(promise: Promise<unknown>): Promise<ServelabError> {
  try {
    const value = await promise;
    if (value && typeof (value as { end?: unknown }).end === 'function') (value as { end(): void }).end();
  } catch (error) {
    expect(error).toBeInstanceOf(ServelabError);
    return error as ServelabError;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  sshd = await startTestSshd();
  scratch = await mkdtemp(join(tmpdir(), 'servelab-it-'));
});

afterAll(async () => {
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('host keys', () => {
  it('refuses an unknown host key and reports the fingerprint ssh-keygen -lf prints', async () => {
    const error = await caught(openSshClient(keyTarget(), { knownHosts: await newStore(), timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(error.message).toContain(sshd.hostKeyFingerprint);
    expect(error.message).toContain('ED25519');
    expect(error.details).toMatchObject({ host: '127.0.0.1', port: sshd.port, keyType: 'ssh-ed25519', fingerprint: sshd.hostKeyFingerprint });
    const publicKey = Buffer.from((error.details as { publicKey: string }).publicKey, 'base64');
    expect(fingerprintSha256(publicKey)).toBe(sshd.hostKeyFingerprint);
  });

  it('connects once the key is added', async () => {
    const store = await newStore({ trusted: true });
    const client = await openSshClient(keyTarget(), { knownHosts: store, timeoutSeconds: 10 });
    try {
      const result = await execCollect(client, 'id -un', { timeoutSeconds: 10 });
      expect(result).toEqual({ stdout: `${sshd.user}\n`, stderr: '', code: 0 });
    } finally {
      client.end();
    }
  });

  it('refuses a key marked @revoked', async () => {
    await newStore({ trusted: true });
    const file = join(scratch, `known_hosts_${storeCount}`);
    const line = (await readFile(file, 'utf8')).trim();
    const revokedFile = join(scratch, 'revoked');
    await writeFile(revokedFile, `# retired key\n@revoked * ${line.split(' ').slice(1).join(' ')}\n`);
    const withRevocation = new KnownHostsStore({ appFile: file, readOnlyFiles: [revokedFile] });
    const error = await caught(collectInventoryOverSsh(keyTarget(), { knownHosts: withRevocation, timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_REVOKED');
    expect(error.message).toContain(`${revokedFile}:2`);
  });
});

describe('authentication and connection failures', () => {
  let store: KnownHostsStore;
  beforeAll(async () => {
    store = await newStore({ trusted: true });
  });

  it.skipIf(!asRoot)('logs in with a password', async () => {
    const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, password: sshd.password };
    const client = await openSshClient(target, { knownHosts: store, timeoutSeconds: 10 });
    client.end();
  });

  it('logs in with an encrypted key and its passphrase', async () => {
    const target = keyTarget({ identityFile: sshd.encryptedIdentityFile, passphrase: sshd.identityPassphrase });
    const client = await openSshClient(target, { knownHosts: store, timeoutSeconds: 10 });
    client.end();
  });

  it('asks for a passphrase for an encrypted key given without one', async () => {
    const error = await caught(openSshClient(keyTarget({ identityFile: sshd.encryptedIdentityFile }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toMatch(/passphrase is needed/);
    expect(error.message).toContain(sshd.encryptedIdentityFile);
  });

  it('reports a wrong passphrase', async () => {
    const error = await caught(
      openSshClient(keyTarget({ identityFile: sshd.encryptedIdentityFile, passphrase: 'wrong' }), { knownHosts: store, timeoutSeconds: 10 }),
    );
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toMatch(/could not be decrypted/);
  });

  it('names the missing identity file', async () => {
    const missing = join(scratch, 'no_such_key');
    const error = await caught(openSshClient(keyTarget({ identityFile: missing }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toContain(missing);
  });

  it.skipIf(!asRoot)('reports a wrong password as AUTH_FAILED naming user@host', async () => {
    const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, password: 'not-the-password' };
    const error = await caught(openSshClient(target, { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toContain(`${sshd.user}@127.0.0.1`);
    expect(error.message).toContain('password');
  });

  it('reports a key the server does not accept as AUTH_FAILED', async () => {
    const error = await caught(openSshClient(keyTarget({ user: 'nobody' }), { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toContain('publickey');
  });

  it('reports a closed port as CONNECT_FAILED', async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
      });
    });
    const error = await caught(openSshClient(keyTarget({ port: closed }), { knownHosts: store, timeoutSeconds: 5 }));
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toMatch(/refused/);
  });

  it('reports a server that never speaks SSH as TIMEOUT', async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 1;
    try {
      const error = await caught(openSshClient(keyTarget({ port }), { knownHosts: store, timeoutSeconds: 1 }));
      expect(error.code).toBe('TIMEOUT');
    } finally {
      silent.close();
    }
  });
});

describe('remote commands', () => {
  it('collects stdout, stderr, exit code and stdin, and times out', async () => {
    const client = await openSshClient(keyTarget(), { knownHosts: await newStore({ trusted: true }), timeoutSeconds: 10 });
    try {
      expect(await execCollect(client, 'echo out; echo err >&2; exit 7', { timeoutSeconds: 10 })).toEqual({ stdout: 'out\n', stderr: 'err\n', code: 7 });
      expect(await execCollect(client, 'tr a-z A-Z', { stdin: 'héllo\n', timeoutSeconds: 10 })).toMatchObject({ stdout: 'HéLLO\n', code: 0 });
      const error = await caught(execCollect(client, 'sleep 30', { timeoutSeconds: 1 }));
      expect(error.code).toBe('TIMEOUT');
      // The connection is still usable after a command timed out.
      expect((await execCollect(client, 'echo again', { timeoutSeconds: 10 })).stdout).toBe('again\n');
    } finally {
      client.end();
    }
  });
});

describe('inventory over SSH', () => {
  let store: KnownHostsStore;
  beforeAll(async () => {
    store = await newStore({ trusted: true });
  });

  it('reads the H200 through key auth and the login PATH', async () => {
    const inventory = await collectInventoryOverSsh(keyTarget(), { knownHosts: store, timeoutSeconds: 10 });
    expect(InventorySchema.omit({ hostId: true }).parse(inventory)).toEqual(inventory);
    expect(inventory.gpuStatus).toBe('ok');
    expect(inventory.simulated).toBe(false);
    expect(inventory.gpus).toHaveLength(1);
    expect(inventory.gpus[0]).toMatchObject({
      name: 'NVIDIA H200',
      memoryTotalMiB: 143771,
      memoryFreeMiB: 143156,
      computeCapability: '9.0',
      driverVersion: '580.159.04',
      powerLimitW: 700,
      maxSmClockMHz: 1980,
    });
    expect(inventory.driverVersion).toBe('580.159.04');
    expect(inventory.cudaVersion).toBe('13.0');
    expect(inventory.disk.path).toBe(sshd.homeDir);
    expect(inventory.disk.freeMiB).toBeGreaterThan(0);
    expect(inventory.os.kernel).toMatch(/^Linux /);
    expect(inventory.cpuCount).toBeGreaterThan(0);
    expect(inventory.hostname).toBeTruthy();
  });

  it.skipIf(!asRoot)('reads it through password auth too', async () => {
    const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, password: sshd.password };
    const inventory = await collectInventoryOverSsh(target, { knownHosts: store, timeoutSeconds: 10 });
    expect(inventory.gpus[0]?.name).toBe('NVIDIA H200');
  });

  it('reports no-nvidia-smi and still reads the rest when nvidia-smi is gone', async () => {
    await sshd.removeNvidiaSmi();
    try {
      const inventory = await collectInventoryOverSsh(keyTarget(), { knownHosts: store, timeoutSeconds: 10 });
      expect(inventory.gpuStatus).toBe('no-nvidia-smi');
      expect(inventory.gpuMessage).toMatch(/nvidia-smi/);
      expect(inventory.gpus).toEqual([]);
      expect(inventory.cudaVersion).toBeNull();
      expect(inventory.hostname).toBeTruthy();
      expect(inventory.os.name).toBeTruthy();
      expect(inventory.memoryTotalMiB).toBeGreaterThan(0);
      expect(inventory.disk.totalMiB).toBeGreaterThan(0);
    } finally {
      await sshd.installNvidiaSmi();
    }
  });
});

describe('through the core', () => {
  it('asks for the host key, stores the accepted one and then inventories', async () => {
    const dataDir = await mkdtemp(join(scratch, 'core-'));
    // A HOME of its own: the core reads ~/.ssh/config, default keys and the agent like ssh does.
    const core = await createCore({ dataDir, userKnownHostsFiles: [], env: { HOME: dataDir, USER: 'tester' } });
    try {
      const host = (await core.call('hosts:add', {
        address: sshd.host,
        port: sshd.port,
        user: sshd.user,
        identityFile: sshd.identityFile,
      })) as { id: string };

      const first = await core.dispatch('hosts:inventory', { hostId: host.id });
      expect(first.ok).toBe(false);
      if (first.ok) throw new Error('unreachable');
      expect(first.error.code).toBe('HOST_KEY_UNKNOWN');
      expect(first.error.details).toMatchObject({ fingerprint: sshd.hostKeyFingerprint, keyType: 'ssh-ed25519' });

      const accepted = await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint });
      expect(accepted).toMatchObject({ ok: true, data: { accepted: { fingerprint: sshd.hostKeyFingerprint, port: sshd.port } } });
      expect(await readFile(join(dataDir, 'known_hosts'), 'utf8')).toMatch(new RegExp(`^\\[127\\.0\\.0\\.1\\]:${sshd.port} ssh-ed25519 `));

      const second = await core.dispatch('hosts:inventory', { hostId: host.id });
      expect(second.ok).toBe(true);
      if (!second.ok) throw new Error(second.error.message);
      const inventory = InventorySchema.parse(second.data);
      expect(inventory.hostId).toBe(host.id);
      expect(inventory.gpus[0]).toMatchObject({ name: 'NVIDIA H200', memoryTotalMiB: 143771, computeCapability: '9.0' });

      if (!asRoot) return;
      const passwordHost = (await core.call('hosts:add', {
        address: sshd.host,
        port: sshd.port,
        user: sshd.user,
        password: sshd.password,
      })) as { id: string };
      const viaPassword = await core.dispatch('hosts:inventory', { hostId: passwordHost.id });
      expect(viaPassword).toMatchObject({ ok: true, data: { cudaVersion: '13.0' } });
    } finally {
      await core.close();
    }
  });
});

// Last: rotating the host key changes the server for every test after it.
describe('a changed host key', () => {
  it('is refused with the OpenSSH warning and nothing connects', async () => {
    const store = await newStore({ trusted: true });
    const file = join(scratch, `known_hosts_${storeCount}`);
    const before = await readFile(file, 'utf8');
    const oldFingerprint = sshd.hostKeyFingerprint;
    await sshd.rotateHostKey();
    expect(sshd.hostKeyFingerprint).not.toBe(oldFingerprint);

    const error = await caught(collectInventoryOverSsh(keyTarget(), { knownHosts: store, timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_CHANGED');
    expect(error.message).toContain('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!');
    expect(error.message).toMatch(/someone is doing something nasty/i);
    expect(error.message).toContain(`The fingerprint for the ED25519 key sent by the remote host is\n${sshd.hostKeyFingerprint}.`);
    expect(error.message).toContain(`Offending ED25519 key in ${file}:1`);
    expect(error.message).toContain('Host key verification failed.');
    expect(error.details).toMatchObject({ fingerprint: sshd.hostKeyFingerprint, expectedFingerprint: oldFingerprint, keyType: 'ssh-ed25519' });

    // The host key is checked before any credential is sent, whatever the method.
    const password: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, password: 'never-sent' };
    expect((await caught(openSshClient(password, { knownHosts: store, timeoutSeconds: 10 }))).code).toBe('HOST_KEY_CHANGED');
    expect(await readFile(file, 'utf8')).toBe(before);

    // A store that never saw the old key meets the new one as unknown, with ssh-keygen's fingerprint.
    const fresh = await caught(openSshClient(keyTarget(), { knownHosts: await newStore(), timeoutSeconds: 10 }));
    expect(fresh.details).toMatchObject({ fingerprint: sshd.hostKeyFingerprint });
  });
});
