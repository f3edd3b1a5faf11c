// Remote jobs over a real sshd: they outlive dropped connections and a restarted core, keep secrets off
// command lines and files, and cancel kills their whole process group.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import type { SshClientProvider } from '../../src/core/jobs/client-provider';
import { JobRegistry } from '../../src/core/jobs/job-registry';
import { RemoteJobRunner, type RemoteJobHandle } from '../../src/core/jobs/remote-job-runner';
import { JobLogMirror } from '../../src/core/jobs/job-log-mirror';
import { ServelabError } from '../../src/shared/contract';

let sshd: TestSshd;
let scratch: string;
let knownHosts: KnownHostsStore;

const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 500, giveUpAfterMs: 20_000 };

/** Like the app's connection pool: one live client, replaced by a new one once it has closed. */
function reconnectingProvider(): { provider: SshClientProvider; current: () => Client | undefined; opened: () => number } {
  let client: Client | undefined;
  let alive = false;
  let opening: Promise<Client> | undefined;
  let opened = 0;
  const provider: SshClientProvider = async () => {
    if (client && alive) return client;
    opening ??= openSshClient({ host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile }, { knownHosts, timeoutSeconds: 10 })
      .then((c) => {
        opened++;
        client = c;
        alive = true;
        c.once('close', () => {
          if (client === c) alive = false;
        });
        return c;
      })
      .finally(() => {
        opening = undefined;
      });
    return opening;
  };
  return { provider, current: () => (alive ? client : undefined), opened: () => opened };
}

/** Collects a stream's chunks and checks each starts where the previous one ended. */
function chunkCollector(startOffset = 0) {
  const chunks: { text: string; offset: number }[] = [];
  let next = startOffset;
  return {
    chunks,
    onChunk(text: string, offset: number) {
      expect(offset).toBe(next);
      next = offset + Buffer.byteLength(text, 'utf8');
      chunks.push({ text, offset });
    },
    text: () => chunks.map((c) => c.text).join(''),
  };
}

function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i}\n`).join('');
}

function numberedJob(count: number, exitCode: number, pause = '0.01'): string[] {
  return ['sh', '-c', `i=0; while [ $i -lt ${count} ]; do echo "line $i"; i=$((i+1)); sleep ${pause}; done; exit ${exitCode}`];
}

/** Processes of a process group that are still running (zombies left unreaped by the container's init do not count). */
function liveGroupMembers(pgid: number): string[] {
  const result = spawnSync('ps', ['-e', '-o', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[1] === String(pgid) && !(f[2] ?? '').startsWith('Z'))
    .map((f) => f.join(' '));
}

async function jobPgid(handle: RemoteJobHandle): Promise<number> {
  return Number((await readFile(join(handle.remoteDir, 'pgid'), 'utf8')).trim());
}

beforeAll(async () => {
  sshd = await startTestSshd({ nvidiaSmi: false });
  scratch = await mkdtemp(join(tmpdir(), 'servelab-jobs-it-'));
  knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
});

afterAll(async () => {
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a job outlives its connection', () => {
  it('streams complete, ordered, duplicate-free output through 20 dropped connections', { timeout: 120_000 }, async () => {
    const seed = Number(process.env.REMOTE_JOBS_SEED ?? Date.now() % 100_000);
    console.log(`remote-jobs drop test seed: ${seed} (REMOTE_JOBS_SEED=${seed} to repeat)`);
    let state = seed;
    const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const { provider, current, opened } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, retry: FAST_RETRY });
    const ways = ['destroy the socket', 'end the client', 'restart sshd with its sessions'] as const;

    for (let round = 0; round < 20; round++) {
      const way = ways[round % ways.length] as (typeof ways)[number];
      const handle = await runner.start({ command: numberedJob(100, 7, '0.005'), label: `round ${round}` });
      const openedBefore = opened();
      const killAtLine = 1 + Math.floor(random() * 80);
      let killed: Promise<void> | undefined;
      const collector = chunkCollector();
      const code = await handle.stream(
        (text, offset) => {
          collector.onChunk(text, offset);
          if (killed || collector.text().split('\n').length - 1 < killAtLine) return;
          const client = current();
          if (way === 'destroy the socket') killed = Promise.resolve(client?.destroy()).then(() => {});
          else if (way === 'end the client') killed = Promise.resolve(client?.end()).then(() => {});
          else killed = sshd.restart();
        },
        { flushIntervalMs: 20 },
      );
      await killed;
      expect(code, `round ${round} (${way}, at line ${killAtLine})`).toBe(7);
      expect(collector.text(), `round ${round} (${way}, at line ${killAtLine})`).toBe(numberedLines(100));
      expect(killed, `round ${round}: the connection was never dropped`).toBeDefined();
      expect(opened(), `round ${round}: no new connection was opened`).toBeGreaterThan(openedBefore);
    }
    current()?.end();
  });

  it('re-attaches from the persisted offset after the core restarts mid-job', async () => {
    const registryFile = join(scratch, 'restart', 'jobs.json');
    const first = reconnectingProvider();
    const registry = await JobRegistry.open(registryFile, { offsetWriteDelayMs: 50 });
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider: first.provider, registry, retry: FAST_RETRY });
    const handle = await runner.start({ command: numberedJob(150, 3), label: 'long job' });
    expect(registry.get(handle.id)).toMatchObject({ state: 'running', remoteDir: handle.remoteDir, label: 'long job', offset: 0 });

    const before = chunkCollector();
    const stop = new AbortController();
    const stopped = handle.stream(
      (text, offset) => {
        before.onChunk(text, offset);
        if (before.text().split('\n').length > 30) stop.abort(new Error('core shutting down'));
      },
      { signal: stop.signal, flushIntervalMs: 20 },
    );
    await expect(stopped).rejects.toThrow('core shutting down');
    first.current()?.end();
    const persisted = JSON.parse(await readFile(registryFile, 'utf8')) as { jobs: { id: string; offset: number; state: string }[] };
    const saved = persisted.jobs.find((j) => j.id === handle.id);
    expect(saved?.offset).toBe(Buffer.byteLength(before.text(), 'utf8'));
    expect(saved?.state).toBe('running');

    // A new core: fresh registry object, provider and runner, nothing shared with the first.
    const second = reconnectingProvider();
    const reopened = await JobRegistry.open(registryFile);
    const record = reopened.get(handle.id);
    if (!record) throw new Error('job missing from the registry');
    const again = new RemoteJobRunner({ hostId: 'test-box', provider: second.provider, registry: reopened, retry: FAST_RETRY }).reattach(record);
    expect(again.offset).toBe(saved?.offset);
    const after = chunkCollector(record.offset);
    expect(await again.stream(after.onChunk)).toBe(3);
    expect(before.text() + after.text()).toBe(numberedLines(150));
    expect(reopened.get(handle.id)).toMatchObject({ state: 'exited', exitCode: 3, offset: Buffer.byteLength(numberedLines(150)) });
    expect(await again.status()).toEqual({ state: 'exited', code: 3 });
    second.current()?.end();
  });
});

describe('the app killed hard mid-job', () => {
  it('resumes from its own copy of the log: no line lost, none repeated, even with a stale registry and a torn write', async () => {
    const registryFile = join(scratch, 'kill9', 'jobs.json');
    const mirrorDir = join(scratch, 'kill9', 'logs');
    const first = reconnectingProvider();
    const registry = await JobRegistry.open(registryFile, { offsetWriteDelayMs: 60_000 });
    const handle = await new RemoteJobRunner({ hostId: 'test-box', provider: first.provider, registry, retry: FAST_RETRY }).start({
      command: numberedJob(200, 5),
    });
    const mirror = JobLogMirror.open(mirrorDir, handle.id);
    const stop = new AbortController();
    await handle
      .stream(
        (text, _offset, end) => {
          mirror.append(text, end);
          if (mirror.read().split('\n').length > 40) stop.abort(new Error('killed'));
        },
        { signal: stop.signal, flushIntervalMs: 10 },
      )
      .catch(() => {});
    first.current()?.end();
    // What kill -9 leaves behind: a chunk written to the copy without its mark, and a registry offset far behind.
    appendFileSync(mirror.logPath, 'line torn-write\n');
    const record = { ...(await JobRegistry.open(registryFile)).get(handle.id)!, offset: 0 };

    const resumed = JobLogMirror.open(mirrorDir, handle.id);
    expect(resumed.remoteOffset).toBeGreaterThan(0);
    const second = reconnectingProvider();
    const again = new RemoteJobRunner({ hostId: 'test-box', provider: second.provider, retry: FAST_RETRY }).reattach({
      ...record,
      offset: resumed.remoteOffset,
    });
    expect(await again.stream((text, _offset, end) => resumed.append(text, end))).toBe(5);
    expect(resumed.read()).toBe(numberedLines(200));
    second.current()?.end();
  });
});

describe('job output', () => {
  it('arrives intact as UTF-8 even when read a few bytes at a time', async () => {
    const { provider, current } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, retry: FAST_RETRY });
    const text = 'é€𝄞😀 e\u0301 ひらがな 🇫🇷\n'.repeat(6);
    const handle = await runner.start({ command: ['printf', '%s', text] });
    const collector = chunkCollector();
    expect(await handle.stream(collector.onChunk, { readSizeBytes: 5, flushIntervalMs: 0 })).toBe(0);
    expect(collector.text()).toBe(text);
    expect(collector.chunks.length).toBeGreaterThan(10);
    for (const chunk of collector.chunks) expect(chunk.text).not.toContain('\uFFFD');
    current()?.end();
  });
});

describe('cancel', () => {
  it('kills the whole process group, grandchildren included, and confirms it is gone', async () => {
    const { provider, current } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, retry: FAST_RETRY });
    const handle = await runner.start({ command: ['sh', '-c', 'sleep 1000 & echo started; sleep 1000'] });
    const collector = chunkCollector();
    let sawStart: () => void = () => {};
    const started = new Promise<void>((resolve) => (sawStart = resolve));
    const streaming = handle.stream((text, offset) => {
      collector.onChunk(text, offset);
      if (collector.text().includes('started')) sawStart();
    });
    await started;
    const pgid = await jobPgid(handle);
    // The wrapper, the job's sh and both sleeps.
    expect(liveGroupMembers(pgid).filter((p) => p.includes('sleep 1000')).length).toBeGreaterThanOrEqual(2);
    expect(await handle.status()).toEqual({ state: 'running' });

    const result = await handle.cancel({ graceSeconds: 5 });
    expect(result).toEqual({ signal: 'TERM', status: { state: 'exited', code: 143 } });
    expect(liveGroupMembers(pgid)).toEqual([]);
    expect(await streaming).toBe(143);
    current()?.end();
  });

  it('reports a job killed behind its back as lost', async () => {
    const { provider, current } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, retry: FAST_RETRY });
    const handle = await runner.start({ command: ['sleep', '1000'] });
    process.kill(-(await jobPgid(handle)), 'SIGKILL');
    expect(await handle.status()).toMatchObject({ state: 'lost' });
    const error = await handle.stream(() => {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('NOT_FOUND');
    current()?.end();
  });
});

describe('secrets', () => {
  it('reach the job environment but no command line, job file, log or registry', async () => {
    const secret = `hf_${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24)}'"$(x)`;
    const registryFile = join(scratch, 'secrets', 'jobs.json');
    const registry = await JobRegistry.open(registryFile);
    const { provider, current } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, registry, retry: FAST_RETRY });
    const handle = await runner.start({
      command: ['sh', '-c', 'printf %s "$SERVELAB_TEST_TOKEN" | sha256sum; exec sleep 1000'],
      env: { PLAIN_SETTING: 'visible' },
      secretEnv: { SERVELAB_TEST_TOKEN: secret },
    });
    try {
      const expectedHash = createHash('sha256').update(secret).digest('hex');
      const collector = chunkCollector();
      let sawHash: () => void = () => {};
      const hashed = new Promise<void>((resolve) => (sawHash = resolve));
      const streaming = handle.stream((text, offset) => {
        collector.onChunk(text, offset);
        if (collector.text().includes(expectedHash)) sawHash();
      });
      await hashed;

      const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout;
      expect(ps).toContain('sleep 1000');
      expect(ps).not.toContain(secret);
      for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        let cmdline = '';
        try {
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          continue;
        }
        expect(cmdline, `/proc/${pid}/cmdline`).not.toContain(secret);
      }
      const files = await readdir(handle.remoteDir);
      expect(files).toEqual(expect.arrayContaining(['command', 'pid', 'pgid', 'log', 'started']));
      for (const file of files.filter((f) => f !== '.launch')) {
        expect(await readFile(join(handle.remoteDir, file), 'utf8'), file).not.toContain(secret);
      }
      expect(await readFile(join(handle.remoteDir, 'command'), 'utf8')).toContain('PLAIN_SETTING=visible');
      await registry.flush();
      expect(await readFile(registryFile, 'utf8')).not.toContain(secret);

      // The job itself has it: `exec sleep` keeps the job's environment in the sleep process.
      const pgid = await jobPgid(handle);
      const sleeper = liveGroupMembers(pgid).find((p) => p.endsWith('sleep 1000'));
      const sleeperPid = sleeper?.split(' ')[0] as string;
      const environ = readFileSync(`/proc/${sleeperPid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`SERVELAB_TEST_TOKEN=${secret}`);
      expect(environ).toContain('PLAIN_SETTING=visible');

      await handle.cancel({ graceSeconds: 2 });
      await streaming;
      expect(collector.text()).not.toContain(secret);
    } finally {
      current()?.end();
    }
  });
});

describe('bad input', () => {
  it('refuses invalid names and NUL bytes before touching the box, and names a missing working folder', async () => {
    const { provider, current } = reconnectingProvider();
    const runner = new RemoteJobRunner({ hostId: 'test-box', provider, retry: FAST_RETRY });
    const bad = await runner.start({ command: ['echo'], secretEnv: { 'NOT-A-NAME': 'x' } }).catch((e: unknown) => e);
    expect((bad as ServelabError).code).toBe('BAD_INPUT');
    const nul = await runner.start({ command: ['echo', 'a\0b'] }).catch((e: unknown) => e);
    expect((nul as ServelabError).code).toBe('BAD_INPUT');
    const cwd = await runner.start({ command: ['true'], cwd: '~/does-not-exist' }).catch((e: unknown) => e);
    expect((cwd as ServelabError).code).toBe('REMOTE_COMMAND_FAILED');
    expect((cwd as ServelabError).message).toContain('does-not-exist');
    current()?.end();
  });
});
