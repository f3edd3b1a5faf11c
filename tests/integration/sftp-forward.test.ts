// SFTP transfers with checksums and local port forwarding, over a real sshd.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { randomBytes, createHash } from 'node:crypto';
import { existsSync, writeFileSync, appendFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile, chown } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { downloadFile, uploadFile } from '../../src/core/ssh/sftp';
import { forwardLocalPort } from '../../src/core/ssh/port-forward';
import { RemoteJobRunner } from '../../src/core/jobs/remote-job-runner';
import { ServelabError } from '../../src/shared/contract';

let sshd: TestSshd;
let scratch: string;
let knownHosts: KnownHostsStore;
let client: Client;

function connectClient(): Promise<Client> {
  return openSshClient({ host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile }, { knownHosts, timeoutSeconds: 10 });
}

async function failure(promise: Promise<unknown>): Promise<ServelabError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServelabError);
  return error as ServelabError;
}

/** Progress calls must start at 0, never go backwards, and end at the total. */
function progressRecorder() {
  const calls: [number, number][] = [];
  return {
    calls,
    onProgress: (bytes: number, total: number) => calls.push([bytes, total]),
    check(total: number) {
      expect(calls[0]).toEqual([0, total]);
      expect(calls.at(-1)).toEqual([total, total]);
      for (let i = 1; i < calls.length; i++) expect((calls[i] as [number, number])[0]).toBeGreaterThanOrEqual((calls[i - 1] as [number, number])[0]);
      expect(calls.length).toBeGreaterThan(3);
    },
  };
}

async function leftovers(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.includes('.servelab-'));
}

function freeLocalPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  sshd = await startTestSshd({ nvidiaSmi: false });
  scratch = await mkdtemp(join(tmpdir(), 'servelab-sftp-it-'));
  knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  client = await connectClient();
});

afterAll(async () => {
  client?.end();
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('SFTP', () => {
  const size = 3 * 1024 * 1024 + 12_345;
  let data: Buffer;
  let localFile: string;

  beforeAll(async () => {
    data = randomBytes(size);
    localFile = join(scratch, 'model shard.bin');
    await writeFile(localFile, data);
  });

  it('uploads into new folders under ~ with progress and a verified checksum', async () => {
    const progress = progressRecorder();
    const result = await uploadFile(client, localFile, '~/uploads/deep er/model shard.bin', { onProgress: progress.onProgress });
    const remoteFolder = join(sshd.homeDir, 'uploads', 'deep er');
    expect(result).toEqual({
      remotePath: join(remoteFolder, 'model shard.bin'),
      localPath: localFile,
      bytes: size,
      sha256: createHash('sha256').update(data).digest('hex'),
    });
    expect((await readFile(join(remoteFolder, 'model shard.bin'))).equals(data)).toBe(true);
    expect(await leftovers(remoteFolder)).toEqual([]);
    progress.check(size);
  });

  it('downloads into new local folders with progress and a verified checksum', async () => {
    const progress = progressRecorder();
    const target = join(scratch, 'down', 'nested', 'copy.bin');
    const result = await downloadFile(client, '~/uploads/deep er/model shard.bin', target, { onProgress: progress.onProgress });
    expect(result.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect((await readFile(target)).equals(data)).toBe(true);
    expect(await leftovers(join(scratch, 'down', 'nested'))).toEqual([]);
    progress.check(size);
  });

  it('detects a download whose source changed between transfer and check, and keeps no copy', async () => {
    const remoteFile = join(sshd.homeDir, 'uploads', 'deep er', 'model shard.bin');
    const target = join(scratch, 'down', 'corrupt.bin');
    let tampered = false;
    const error = await failure(
      downloadFile(client, remoteFile, target, {
        onProgress: (bytes, total) => {
          // Synchronously, before the checksums are compared: the box's copy no longer matches what arrived.
          if (bytes === total && bytes > 0 && !tampered) {
            tampered = true;
            appendFileSync(remoteFile, 'x');
          }
        },
      }),
    );
    expect(tampered).toBe(true);
    expect(error.code).toBe('REMOTE_COMMAND_FAILED');
    expect(error.message).toContain(remoteFile);
    expect(error.message).toMatch(/corrupt.*SHA-256/);
    expect(error.details).toMatchObject({ reason: 'checksum-mismatch', file: remoteFile });
    expect(existsSync(target)).toBe(false);
    expect(await leftovers(join(scratch, 'down'))).toEqual([]);
  });

  it('detects an upload that does not match the local file and leaves nothing on the box', async () => {
    const source = join(scratch, 'changing.bin');
    await writeFile(source, randomBytes(256 * 1024));
    let tampered = false;
    const error = await failure(
      uploadFile(client, source, '~/uploads/changing.bin', {
        onProgress: (bytes, total) => {
          if (bytes === total && bytes > 0 && !tampered) {
            tampered = true;
            writeFileSync(source, randomBytes(256 * 1024));
          }
        },
      }),
    );
    expect(tampered).toBe(true);
    expect(error.message).toContain(join(sshd.homeDir, 'uploads', 'changing.bin'));
    expect(error.details).toMatchObject({ reason: 'checksum-mismatch' });
    expect(existsSync(join(sshd.homeDir, 'uploads', 'changing.bin'))).toBe(false);
    expect(await leftovers(join(sshd.homeDir, 'uploads'))).toEqual([]);
  });

  it('names a missing remote file and replaces an existing target', async () => {
    const missing = await failure(downloadFile(client, '~/no-such-file', join(scratch, 'never')));
    expect(missing.code).toBe('NOT_FOUND');
    expect(missing.message).toContain(join(sshd.homeDir, 'no-such-file'));

    const small = join(scratch, 'small.txt');
    await writeFile(small, 'first');
    await uploadFile(client, small, '~/small.txt');
    await writeFile(small, 'second');
    await uploadFile(client, small, '~/small.txt');
    expect(await readFile(join(sshd.homeDir, 'small.txt'), 'utf8')).toBe('second');
  });
});

describe('port forwarding', () => {
  it('reaches a server on the box, then reports the broken connection and refuses new local connections fast', async () => {
    // The server is a remote job, as an engine would be.
    const site = join(sshd.homeDir, 'site');
    await mkdir(site, { recursive: true });
    await writeFile(join(site, 'hello.txt'), 'hello through the tunnel\n');
    if (sshd.dedicatedUser) {
      const owner = (await import('node:fs')).statSync(sshd.homeDir);
      await chown(site, owner.uid, owner.gid);
    }
    const remotePort = await freeLocalPort();
    let runnerClient: Client | undefined;
    const runner = new RemoteJobRunner({
      hostId: 'test-box',
      provider: async () => (runnerClient ??= await connectClient()),
    });
    const server = await runner.start({ command: ['python3', '-u', '-m', 'http.server', '--bind', '127.0.0.1', String(remotePort)], cwd: '~/site' });
    const ready = new AbortController();
    let log = '';
    await server
      .stream(
        (text) => {
          log += text;
          if (log.includes('Serving HTTP')) ready.abort(new Error('ready'));
        },
        { signal: ready.signal, flushIntervalMs: 10 },
      )
      .catch((e: unknown) => {
        if ((e as Error).message !== 'ready') throw e;
      });

    const tunnelClient = await connectClient();
    const forward = await forwardLocalPort(tunnelClient, { remotePort });
    const errors: ServelabError[] = [];
    forward.onError((e) => errors.push(e));
    try {
      const response = await fetch(`http://127.0.0.1:${forward.localPort}/hello.txt`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('hello through the tunnel\n');

      // Nothing listens on the box at this port: the local connection is closed and the refusal reported.
      const nowhere = await forwardLocalPort(tunnelClient, { remotePort: await freeLocalPort() });
      const nowhereErrors: ServelabError[] = [];
      const reported = new Promise<void>((resolve) => nowhere.onError((e) => (nowhereErrors.push(e), resolve())));
      await expectClosedFast(nowhere.localPort);
      await reported;
      expect(nowhereErrors[0]?.details).toMatchObject({ failure: 'refused' });
      expect(nowhereErrors[0]?.message).toMatch(/refused/i);
      expect(nowhere.broken).toBeUndefined();
      await nowhere.close();

      const broke = new Promise<void>((resolve) => forward.onError(() => resolve()));
      tunnelClient.destroy();
      await broke;
      expect(errors.at(-1)?.details).toMatchObject({ failure: 'connection-closed' });
      expect(forward.broken?.message).toContain(`127.0.0.1:${forward.localPort}`);
      await expectClosedFast(forward.localPort);
      await expect(forwardLocalPort(tunnelClient, { remotePort })).rejects.toThrow(/connection is closed/);
    } finally {
      await forward.close();
      await server.cancel({ graceSeconds: 2 });
      runnerClient?.end();
    }
  });
});

/** A local connection to `port` must end (refused, reset or closed) well within a second, not hang. */
async function expectClosedFast(port: number): Promise<void> {
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`a connection to 127.0.0.1:${port} hung`));
    }, 3_000);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  expect(Date.now() - started).toBeLessThan(1_000);
}
