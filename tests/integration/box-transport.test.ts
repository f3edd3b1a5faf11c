// One scenario table over both ways of reaching a GPU box: SSH (a real sshd and the app's connection pool) and
// local processes (a temporary HOME). Engines and benchmarks rely on both behaving the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { freePort } from '../helpers/processes';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { SshConnectionPool } from '../../src/core/ssh/connection-pool';
import { JobRegistry } from '../../src/core/jobs/job-registry';
import type { RemoteJobHandle } from '../../src/core/jobs/remote-job-runner';
import type { BoxTransport } from '../../src/core/box/box-transport';
import { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { LocalBoxTransport } from '../../src/core/box/local-box-transport';
import { httpFailureOf } from '../../src/core/box/http-request';
import { ServelabError } from '../../src/shared/contract';

const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 500, giveUpAfterMs: 20_000 };

interface Subject {
  /** HOME on the box; both boxes are this machine, so the test can look at their files directly. */
  home: string;
  /** A new transport, as a freshly started app would obtain one (SSH: a new pool, hence a new connection). */
  open(registry?: JobRegistry): BoxTransport;
}

let scratch: string;
let sshd: TestSshd;
const pools: SshConnectionPool[] = [];
const subjects: Record<'ssh' | 'local', Subject> = {} as Record<'ssh' | 'local', Subject>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-box-it-'));
  sshd = await startTestSshd({ nvidiaSmi: false });
  const knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  const target = { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile };
  subjects.ssh = {
    home: sshd.homeDir,
    open(registry) {
      const pool = new SshConnectionPool({ knownHosts, timeoutSeconds: 10 });
      pools.push(pool);
      return new SshBoxTransport({ hostId: 'box', pool, target, retry: FAST_RETRY, ...(registry ? { registry } : {}) });
    },
  };
  const localHome = join(scratch, 'local-home');
  subjects.local = {
    home: localHome,
    open: (registry) => new LocalBoxTransport({ hostId: 'box', home: localHome, retry: FAST_RETRY, ...(registry ? { registry } : {}) }),
  };
});

afterAll(async () => {
  for (const pool of pools) await pool.closeAll();
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i}\n`).join('');
}

function numberedJob(count: number, exitCode: number): string[] {
  return ['sh', '-c', `i=0; while [ $i -lt ${count} ]; do echo "line $i"; i=$((i+1)); sleep 0.01; done; exit ${exitCode}`];
}

/** Collects a stream's chunks and checks each starts where the previous one ended. */
function chunkCollector(startOffset = 0) {
  let next = startOffset;
  let text = '';
  return {
    onChunk(chunk: string, offset: number) {
      expect(offset).toBe(next);
      next = offset + Buffer.byteLength(chunk, 'utf8');
      text += chunk;
    },
    text: () => text,
  };
}

/** Processes of a process group that are still running (zombies do not count). */
function liveGroupMembers(pgid: number): string[] {
  return spawnSync('ps', ['-e', '-o', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1] === String(pgid) && !(f[2] ?? '').startsWith('Z'))
    .map((f) => f.join(' '));
}

async function jobPgid(handle: RemoteJobHandle): Promise<number> {
  return Number((await readFile(join(handle.remoteDir, 'pgid'), 'utf8')).trim());
}

/** Resolves once the stream has delivered text containing `needle`. */
function streamUntil(handle: RemoteJobHandle, needle: string): { seen: Promise<void>; done: Promise<number>; text: () => string } {
  const collector = chunkCollector(handle.offset);
  let found: () => void = () => {};
  const seen = new Promise<void>((resolve) => (found = resolve));
  const done = handle.stream((chunk, offset) => {
    collector.onChunk(chunk, offset);
    if (collector.text().includes(needle)) found();
  });
  done.catch(() => {});
  return { seen, done, text: collector.text };
}


/** Progress calls must start at 0, never go backwards, and end at the total. */
function progressRecorder() {
  const calls: [number, number][] = [];
  return {
    onProgress: (bytes: number, total: number) => calls.push([bytes, total]),
    check(total: number) {
      expect(calls[0]).toEqual([0, total]);
      expect(calls.at(-1)).toEqual([total, total]);
      for (let i = 1; i < calls.length; i++) expect((calls[i] as [number, number])[0]).toBeGreaterThanOrEqual((calls[i - 1] as [number, number])[0]);
      expect(calls.length).toBeGreaterThan(3);
    },
  };
}

describe.each(['ssh', 'local'] as const)('a box over %s', (name) => {
  const subject = () => subjects[name];

  it('runs a login-shell script: output, exit status, stdin byte for byte, streamed output, timeout', async () => {
    const box = subject().open();
    try {
      const plain = await box.run('echo @@out; echo err >&2; exit 7', { timeoutSeconds: 20 });
      expect(plain.code).toBe(7);
      // A login profile may print before the script does (the SSH test user's does).
      expect(plain.stdout).toMatch(/(^|\n)@@out\n$/);
      expect(plain.stderr).toBe('err\n');
      expect((await box.run('printf "home=%s" "$HOME"', { timeoutSeconds: 20 })).stdout).toMatch(new RegExp(`home=${subject().home}$`));

      const data = Buffer.concat([randomBytes(200_000), Buffer.from('\nSERVELAB_STDIN_x\n\'"$(rm -rf /)`\n\0')]);
      const hashed = await box.run('read -r first_line_is_data || :; cat >/dev/null; echo done', { stdin: data, timeoutSeconds: 20 });
      expect(hashed.stdout).toMatch(/done\n$/);
      expect((await box.run('sha256sum | cut -c1-64', { stdin: data, timeoutSeconds: 20 })).stdout.trim().split('\n').at(-1)).toBe(sha256(data));
      expect((await box.run('read -r token; printf "<%s>" "$token"', { stdin: "s3cr3t 'x'\n", timeoutSeconds: 20 })).stdout).toMatch(/<s3cr3t 'x'>$/);

      const pieces: string[] = [];
      const ticks = await box.run('for i in 1 2 3; do echo "tick $i"; sleep 0.2; done', { timeoutSeconds: 20, onStdout: (text) => pieces.push(text) });
      expect(pieces.join('')).toBe(ticks.stdout);
      expect(pieces.filter((p) => p.includes('tick')).length).toBeGreaterThanOrEqual(2);

      const slow = await box.run('sleep 30', { timeoutSeconds: 1 }).catch((e: unknown) => e);
      expect(slow).toBeInstanceOf(ServelabError);
      expect((slow as ServelabError).code).toBe('TIMEOUT');
      expect((await box.run('echo again', { timeoutSeconds: 20 })).stdout).toMatch(/again\n$/);
    } finally {
      box.release();
    }
  });

  it('runs a detached job in ~/.servelab/jobs: complete ordered output and its exit code', async () => {
    const box = subject().open();
    try {
      const handle = await box.jobs().start({ command: numberedJob(80, 7), label: 'numbers' });
      expect(handle.remoteDir).toBe(join(subject().home, '.servelab', 'jobs', handle.id));
      const collector = chunkCollector();
      expect(await handle.stream(collector.onChunk, { flushIntervalMs: 20 })).toBe(7);
      expect(collector.text()).toBe(numberedLines(80));
      expect(await handle.status()).toEqual({ state: 'exited', code: 7 });
    } finally {
      box.release();
    }
  });

  it('cancels a job by killing its whole process group, grandchildren included', async () => {
    const box = subject().open();
    try {
      const handle = await box.jobs().start({ command: ['sh', '-c', 'sleep 1000 & echo started; sleep 1000'] });
      const watch = streamUntil(handle, 'started');
      await watch.seen;
      const pgid = await jobPgid(handle);
      expect(liveGroupMembers(pgid).filter((p) => p.includes('sleep 1000')).length).toBeGreaterThanOrEqual(2);
      expect(await handle.cancel({ graceSeconds: 5 })).toEqual({ signal: 'TERM', status: { state: 'exited', code: 143 } });
      expect(liveGroupMembers(pgid)).toEqual([]);
      expect(await watch.done).toBe(143);
    } finally {
      box.release();
    }
  });

  it('re-attaches after a restart and continues the log exactly where it stopped', async () => {
    const registryFile = join(scratch, name, 'restart', 'jobs.json');
    const registry = await JobRegistry.open(registryFile, { offsetWriteDelayMs: 50 });
    const first = subject().open(registry);
    const handle = await first.jobs().start({ command: numberedJob(150, 3), label: 'long job' });
    const before = chunkCollector();
    const stop = new AbortController();
    const stopped = handle.stream(
      (text, offset) => {
        before.onChunk(text, offset);
        if (before.text().split('\n').length > 30) stop.abort(new Error('app shutting down'));
      },
      { signal: stop.signal, flushIntervalMs: 20 },
    );
    await expect(stopped).rejects.toThrow('app shutting down');
    // The app goes away: its connection (or local shell) ends, the job does not.
    first.release();

    const reopened = await JobRegistry.open(registryFile);
    const record = reopened.get(handle.id);
    if (!record) throw new Error('job missing from the registry');
    expect(record).toMatchObject({ hostId: 'box', state: 'running', offset: Buffer.byteLength(before.text()) });
    const second = subject().open(reopened);
    try {
      const again = second.jobs().reattach(record);
      const after = chunkCollector(record.offset);
      expect(await again.stream(after.onChunk)).toBe(3);
      expect(before.text() + after.text()).toBe(numberedLines(150));
      expect(reopened.get(handle.id)).toMatchObject({ state: 'exited', exitCode: 3 });
    } finally {
      second.release();
    }
  });

  it('hands secrets to the job only: not in its folder, the registry or any command line', async () => {
    const secret = `hf_${randomBytes(12).toString('hex')}'"$(x)`;
    const registryFile = join(scratch, name, 'secrets', 'jobs.json');
    const registry = await JobRegistry.open(registryFile);
    const box = subject().open(registry);
    try {
      const handle = await box.jobs().start({
        command: ['sh', '-c', 'printf %s "$SERVELAB_TEST_TOKEN" | sha256sum; exec sleep 1000'],
        env: { PLAIN_SETTING: 'visible' },
        secretEnv: { SERVELAB_TEST_TOKEN: secret },
      });
      const watch = streamUntil(handle, sha256(secret));
      await watch.seen;
      for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        let cmdline = '';
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue;
        }
        expect(cmdline, `/proc/${pid}/cmdline`).not.toContain(secret);
      }
      const files = (await readdir(handle.remoteDir)).filter((f) => f !== '.launch');
      expect(files).toEqual(expect.arrayContaining(['command', 'pid', 'pgid', 'log', 'started']));
      for (const file of files) expect(await readFile(join(handle.remoteDir, file), 'utf8'), file).not.toContain(secret);
      expect(await readFile(join(handle.remoteDir, 'command'), 'utf8')).toContain('PLAIN_SETTING=visible');
      await registry.flush();
      expect(await readFile(registryFile, 'utf8')).not.toContain(secret);

      const sleeper = liveGroupMembers(await jobPgid(handle)).find((p) => p.endsWith('sleep 1000'));
      const environ = readFileSync(`/proc/${sleeper?.split(' ')[0] as string}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`SERVELAB_TEST_TOKEN=${secret}`);
      await handle.cancel({ graceSeconds: 2 });
      await watch.done;
      expect(watch.text()).not.toContain(secret);
    } finally {
      box.release();
    }
  });

  it('talks HTTP to a server the box runs as a job, and tells "nothing listens" apart', async () => {
    const box = subject().open();
    const port = await freePort();
    try {
      expect((await box.run('mkdir -p ~/www && printf "hello from the box" > ~/www/hello.txt', { timeoutSeconds: 20 })).code).toBe(0);
      expect(httpFailureOf(await box.httpRequest(port, { path: '/', timeoutMs: 5_000 }).catch((e: unknown) => e))).toBe('refused');

      const server = await box.jobs().start({ command: ['python3', '-m', 'http.server', '--bind', '127.0.0.1', String(port)], cwd: '~/www', label: 'http.server' });
      const started = Date.now();
      let response;
      for (;;) {
        try {
          response = await box.httpRequest(port, { path: '/hello.txt', timeoutMs: 5_000 });
          break;
        } catch (error) {
          expect(httpFailureOf(error), String(error)).toMatch(/refused|reset/);
          if (Date.now() - started > 15_000) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      expect(response).toMatchObject({ status: 200, body: 'hello from the box' });
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect((await box.httpRequest(port, { path: '/missing', timeoutMs: 5_000 })).status).toBe(404);
      const post = await box.httpRequest(port, { method: 'POST', path: '/hello.txt', headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 5_000 });
      expect(post.status).toBe(501);

      await server.cancel({ graceSeconds: 2 });
      expect(httpFailureOf(await box.httpRequest(port, { path: '/', timeoutMs: 5_000 }).catch((e: unknown) => e))).toBe('refused');
      await expect(box.httpRequest(70_000, { path: '/', timeoutMs: 1_000 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    } finally {
      box.release();
    }
  });

  it('uploads and downloads with progress and a verified checksum, leaving no partial file', async () => {
    const box = subject().open();
    try {
      const size = 1_500_000 + 7;
      const data = randomBytes(size);
      const local = join(scratch, name, 'transfer', 'source.bin');
      await mkdir(join(scratch, name, 'transfer'), { recursive: true });
      await writeFile(local, data);

      const up = progressRecorder();
      const uploaded = await box.upload(local, '~/transfer/nested/data.bin', up.onProgress);
      expect(uploaded).toEqual({ remotePath: join(subject().home, 'transfer', 'nested', 'data.bin'), localPath: local, bytes: size, sha256: sha256(data) });
      up.check(size);
      expect(sha256(await readFile(uploaded.remotePath))).toBe(sha256(data));
      expect((await readdir(join(subject().home, 'transfer', 'nested'))).filter((f) => f.includes('.servelab-'))).toEqual([]);

      const down = progressRecorder();
      const target = join(scratch, name, 'transfer', 'back', 'data.bin');
      const downloaded = await box.download('~/transfer/nested/data.bin', target, down.onProgress);
      expect(downloaded).toEqual({ remotePath: uploaded.remotePath, localPath: target, bytes: size, sha256: sha256(data) });
      down.check(size);
      expect((await readFile(target)).equals(data)).toBe(true);
      expect((await readdir(join(scratch, name, 'transfer', 'back'))).filter((f) => f.includes('.servelab-'))).toEqual([]);

      await expect(box.download('~/transfer/none.bin', join(scratch, name, 'none.bin'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      box.release();
    }
  });

  it('refuses to be used after release', async () => {
    const box = subject().open();
    await box.run('true', { timeoutSeconds: 20 });
    box.release();
    await expect(box.run('true', { timeoutSeconds: 20 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(box.jobs().start({ command: ['true'] })).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});
