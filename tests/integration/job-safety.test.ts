// What Stop may signal, over a real sshd: never a process group that is not the job's any more (a folder from an
// earlier boot, a reused pid, pgid 1), never falsely clean (a worker that left the group, a deleted job folder),
// never an untracked orphan on a full disk, and never a folder others can write to.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmod, readFile, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestSshd } from '../helpers/sshd';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { newJobId } from '../../src/core/jobs/job-scripts';
import { listServerRecords } from '../../src/core/engines/server-records';
import { newServerId, readServerRecord, stopRecordedServer, type ServerRecord } from '../../src/core/engines/server-launcher';
import { ServelabError } from '../../src/shared/contract';
import { DatasetStore } from '../../src/core/bench/dataset-store';

let lab: SimboxOverSsh;
let sshd: TestSshd;
let box: SshBoxTransport;

beforeAll(async () => {
  lab = await startSimboxOverSsh({ hostId: 'job-safety' });
  ({ sshd, box } = lab);
}, 30_000);

afterAll(async () => {
  await lab?.stop();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const state = /^State:\s*(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return state !== 'Z';
}

async function waitGone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (isAlive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** An unrelated process of the box's user in a session and group of its own, as a daemon or a colleague's tmux would be. */
async function unrelatedProcess(): Promise<number> {
  const mark = `victim-${Math.random().toString(36).slice(2)}`;
  const result = await box.run(`setsid -f sh -c 'echo $$ > "$HOME/${mark}"; exec sleep 300' </dev/null >/dev/null 2>&1\nsleep 0.3\ncat "$HOME/${mark}"\n`, { timeoutSeconds: 30 });
  const pid = Number(result.stdout.split('\n').find((l) => /^\d+$/.test(l.trim())));
  expect(pid, result.stderr).toBeGreaterThan(1);
  expect(isAlive(pid)).toBe(true);
  return pid;
}

function bootId(): string {
  return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
}

/** A job folder written by hand, as an earlier launch (or someone else) could have left it. */
async function fakeJobFolder(files: Record<string, string>): Promise<{ id: string; dir: string }> {
  const id = newJobId();
  const dir = join(sshd.homeDir, '.servelab', 'jobs', id);
  await box.run(`mkdir -p -m 700 "$HOME"/.servelab/jobs/${id}\n`, { timeoutSeconds: 30 });
  for (const [name, text] of Object.entries(files)) {
    await box.run(`cat > "$HOME"/.servelab/jobs/${id}/${name}\n`, { stdin: text, timeoutSeconds: 30 });
  }
  return { id, dir };
}

function reattach(id: string, dir: string) {
  const now = new Date().toISOString();
  return box.jobs().reattach({ id, hostId: box.hostId, remoteDir: dir, command: 'sleep 300', offset: 0, state: 'running', createdAt: now, updatedAt: now });
}

/** A server record on the box for a job folder, as a launch writes it. */
async function fakeServerRecord(jobId: string, jobDir: string, port = 1): Promise<ServerRecord> {
  const serverId = newServerId();
  const record: ServerRecord = {
    serverId,
    hostId: box.hostId,
    engine: 'vllm',
    version: '0.11.0',
    port,
    jobId,
    jobDir,
    command: 'vllm serve Qwen/Qwen3-8B',
    startedAt: new Date().toISOString(),
    mode: 'env',
    owner: '/projects/study.servelab',
  };
  await box.run(`mkdir -p -m 700 "$HOME"/.servelab/servers/${serverId} && cat > "$HOME"/.servelab/servers/${serverId}/server.json\n`, {
    stdin: `${JSON.stringify(record)}\n`,
    timeoutSeconds: 30,
  });
  return record;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

describe('stop never signals a group that is not the job any more', () => {
  it('leaves alone the group a finished job from an earlier boot names', async () => {
    const victim = await unrelatedProcess();
    try {
      const { id, dir } = await fakeJobFolder({ exit: '0\n', boot: 'an-earlier-boot\n', pgid: `${victim}\n`, pid: `${victim}\n` });
      const handle = reattach(id, dir);
      expect(await handle.status()).toEqual({ state: 'exited', code: 0 });
      expect(await handle.cancel({ graceSeconds: 1 })).toEqual({ signal: 'none', status: { state: 'exited', code: 0 } });
      await new Promise((r) => setTimeout(r, 300));
      expect(isAlive(victim)).toBe(true);
    } finally {
      kill(victim);
    }
  });

  it('leaves alone a reused pid: same boot, no exit code, but another start time and no job marker', async () => {
    const victim = await unrelatedProcess();
    try {
      const { id, dir } = await fakeJobFolder({ boot: `${bootId()}\n`, pgid: `${victim}\n`, pid: `${victim}\n`, pgstart: '1\n' });
      const handle = reattach(id, dir);
      expect(await handle.status()).toMatchObject({ state: 'lost' });
      await handle.cancel({ graceSeconds: 1 }).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      expect(isAlive(victim)).toBe(true);
    } finally {
      kill(victim);
    }
  });

  it('refuses pgid 1 instead of signalling every process of the user', async () => {
    const victim = await unrelatedProcess();
    try {
      const { id, dir } = await fakeJobFolder({ boot: `${bootId()}\n`, pgid: '1\n', pid: '1\n' });
      await reattach(id, dir)
        .cancel({ graceSeconds: 1 })
        .catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      expect(isAlive(victim)).toBe(true);
    } finally {
      kill(victim);
    }
  });

  it('after a reboot, a recorded server is not running and stopping it (resume clean-up, servers:stop) signals nothing', async () => {
    const victim = await unrelatedProcess();
    try {
      const { id, dir } = await fakeJobFolder({ boot: 'an-earlier-boot\n', pgid: `${victim}\n`, pid: `${victim}\n` });
      const record = await fakeServerRecord(id, dir);
      const listed = (await listServerRecords(box)).find((r) => r.serverId === record.serverId);
      // The study's resume clean-up stops only records listed as running.
      expect(listed?.running).toBe(false);
      // servers:stop and `servelab engine stop` stop a record read back from the box, whatever it is listed as.
      await stopRecordedServer(box, await readServerRecord(box, record.serverId)).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      expect(isAlive(victim)).toBe(true);
    } finally {
      kill(victim);
    }
  });

  it('still stops a live job and lists its server as running', async () => {
    const handle = await box.jobs().start({ command: ['sleep', '300'] });
    const pgid = Number((await readFile(join(handle.remoteDir, 'pgid'), 'utf8')).trim());
    const record = await fakeServerRecord(handle.id, handle.remoteDir);
    expect((await listServerRecords(box)).find((r) => r.serverId === record.serverId)?.running).toBe(true);
    const report = await stopRecordedServer(box, record);
    expect(report).toMatchObject({ signal: 'TERM', leftovers: [] });
    expect(await waitGone(pgid)).toBe(true);
  });
});

describe('the stop report is never falsely clean', () => {
  it('finds and stops a worker that left the process group with setsid', async () => {
    const handle = await box.jobs().start({ command: ['sh', '-c', 'setsid sh -c \'echo $$ > escaped; exec sleep 300\' & exec sleep 300'], cwd: '~' });
    let escaped = 0;
    for (let i = 0; i < 50 && !escaped; i++) {
      escaped = Number((await readFile(join(sshd.homeDir, 'escaped'), 'utf8').catch(() => '')).trim());
      if (!escaped) await new Promise((r) => setTimeout(r, 100));
    }
    expect(isAlive(escaped)).toBe(true);
    await rm(join(sshd.homeDir, 'escaped'), { force: true });
    try {
      const report = await stopRecordedServer(box, await fakeServerRecord(handle.id, handle.remoteDir));
      const gone = await waitGone(escaped, 2000);
      // Either it was stopped, or the report says it is still there: never clean while it lives.
      if (!gone) expect(report.leftovers.join('\n')).toContain(String(escaped));
      expect(gone).toBe(true);
    } finally {
      kill(escaped);
    }
  });

  it('finds the job by its mark when its folder was deleted, and says so when nothing can be confirmed', async () => {
    const handle = await box.jobs().start({ command: ['sleep', '300'] });
    const pid = Number((await readFile(join(handle.remoteDir, 'pid'), 'utf8')).trim());
    const record = await fakeServerRecord(handle.id, handle.remoteDir);
    await rm(handle.remoteDir, { recursive: true, force: true });
    try {
      const report = await stopRecordedServer(box, record);
      const gone = await waitGone(pid, 2000);
      if (!gone) expect(report.gpuMemoryReleased).toBe(false);
      expect(gone).toBe(true);
      // Nothing of it is left to find now: the outcome is unknown, not clean.
      const again = await stopRecordedServer(box, record);
      expect(again.leftovers.join('\n')).toMatch(/job folder .* is gone/);
      expect(again.gpuMemoryReleased).toBe(false);
      // A worker that dropped the mark still holds GPU memory: the GPUs' memory in use is reported.
      await lab.simbox('fault stray on 30000');
      try {
        expect((await stopRecordedServer(box, record)).leftovers.join('\n')).toMatch(/GPU 0 has \d+ MiB in use/);
      } finally {
        await lab.simbox('fault stray off');
      }
    } finally {
      kill(pid);
    }
  });
});

describe('remote folders others can write to', () => {
  it.each(['jobs', 'engines'])('refuses to launch while ~/.servelab/%s is group-writable, and names the fix', async (folder) => {
    const jobs = join(sshd.homeDir, '.servelab', folder);
    await box.run(`mkdir -p -m 700 "$HOME"/.servelab/${folder}\n`, { timeoutSeconds: 30 });
    const before = (await stat(jobs)).mode & 0o777;
    await chmod(jobs, 0o775);
    try {
      const error = await box
        .jobs()
        .start({ command: ['sleep', '300'] })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as Error).message).toContain(`.servelab/${folder} is owned by`);
      expect((error as Error).message).toContain('chmod 700');
      const ps = spawnSync('ps', ['-u', sshd.user, '-o', 'args='], { encoding: 'utf8' }).stdout;
      expect(ps.split('\n').filter((l) => l.trim() === 'sleep 300')).toEqual([]);
    } finally {
      await chmod(jobs, before);
    }
  });

  it('creates the tree private: ~/.servelab is 0700 and job files are not readable by others', async () => {
    const handle = await box.jobs().start({ command: ['true'] });
    await handle.stream(() => {});
    expect((await stat(join(sshd.homeDir, '.servelab'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(handle.remoteDir, 'log'))).mode & 0o077).toBe(0);
    expect((await stat(join(handle.remoteDir, 'command'))).mode & 0o077).toBe(0);
  });
});

describe('a launch on a full disk', () => {
  it.runIf(process.getuid?.() === 0)('is refused with a clear message and leaves no job running', { timeout: 60_000 }, async () => {
    const root = join(sshd.homeDir, '.servelab');
    const uid = (await stat(sshd.homeDir)).uid;
    const gid = (await stat(sshd.homeDir)).gid;
    const marker = `sleep 4${Math.floor(Math.random() * 9)}`;
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=256k,mode=700,uid=${uid},gid=${gid}`, 'tmpfs', root], { encoding: 'utf8' });
    expect(mounted.status, mounted.stderr).toBe(0);
    try {
      // Filled to the last block, as a disk full of HF cache and logs is.
      spawnSync('dd', ['if=/dev/zero', `of=${join(root, 'filler')}`, 'bs=4k'], { encoding: 'utf8' });
      expect(spawnSync('df', ['-k', root], { encoding: 'utf8' }).stdout).toMatch(/\s0\s+100%/);
      const started = Date.now();
      const error = await box
        .jobs()
        .start({ command: marker.split(' ') })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as Error).message).toMatch(/free|space|full/i);
      expect(Date.now() - started).toBeLessThan(8000);
      await new Promise((r) => setTimeout(r, 500));
      const ps = spawnSync('ps', ['-u', sshd.user, '-o', 'args='], { encoding: 'utf8' }).stdout;
      expect(ps.split('\n').filter((l) => l.trim() === marker)).toEqual([]);
    } finally {
      for (const line of spawnSync('ps', ['-u', sshd.user, '-o', 'pid=,args='], { encoding: 'utf8' }).stdout.split('\n')) {
        const [pid, ...args] = line.trim().split(/\s+/);
        if (args.join(' ') === marker) kill(Number(pid));
      }
      spawnSync('umount', ['-l', root]);
    }
  });
});

describe('records read back from the box are parsed, not trusted (L10)', () => {
  it('names what is wrong with a damaged server record instead of failing as INTERNAL', async () => {
    const good = await fakeServerRecord(newJobId(), join(sshd.homeDir, '.servelab', 'jobs', 'gone'));
    await box.run(`cat > "$HOME"/.servelab/servers/${good.serverId}/server.json\n`, { stdin: `${JSON.stringify({ ...good, engine: 'bogus' })}\n`, timeoutSeconds: 30 });
    const error = await readServerRecord(box, good.serverId)
      .then((record) => stopRecordedServer(box, record))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('REMOTE_COMMAND_FAILED');
    expect((error as Error).message).toMatch(/server record .*server\.json.* is damaged: engine/);
    // The list leaves it out rather than failing as a whole.
    expect((await listServerRecords(box)).map((r) => r.serverId)).not.toContain(good.serverId);
  });

  it('names a damaged dataset record instead of calling the dataset absent', async () => {
    const store = new DatasetStore(box);
    const dir = await store.dir();
    const record = { file: 'tiny.json', path: `${dir}/tiny.json`, sha256: 'a'.repeat(64), bytes: 'lots', source: 'upload', origin: 'tiny.json', storedAt: new Date().toISOString() };
    await box.run(`mkdir -p "$HOME"/.servelab/datasets && printf '[]' > "$HOME"/.servelab/datasets/tiny.json && cat > "$HOME"/.servelab/datasets/tiny.json.servelab.json\n`, {
      stdin: `${JSON.stringify(record)}\n`,
      timeoutSeconds: 30,
    });
    const error = await store.verify('tiny.json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as Error).message).toMatch(/tiny\.json\.servelab\.json\) is damaged: bytes/);
    expect((await store.list()).map((r) => r.file)).not.toContain('tiny.json');
  });
});
