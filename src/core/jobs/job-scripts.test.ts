// The job scripts run here under the local /bin/sh (dash on Debian), with HOME pointed at a temp folder:
// the same shell code the box runs, without SSH in between.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelScript, commandFileText, isJobId, launchScript, newJobId, statusScript, streamScript } from './job-scripts';
import { LogFrameParser, type LogFrame } from './log-frames';

let home: string;

function runSh(script: string): Promise<{ stdout: Buffer; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-s'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, cwd: home });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ stdout: Buffer.concat(out), stderr: err, code }));
    child.stdin.end(script);
  });
}

async function launch(argv: string[], extra: { env?: Record<string, string>; secretEnv?: Record<string, string>; cwd?: string } = {}) {
  const id = newJobId();
  const result = await runSh(launchScript({ id, argv, env: extra.env ?? {}, secretEnv: extra.secretEnv ?? {}, ...(extra.cwd ? { cwd: extra.cwd } : {}) }));
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const dir = /^started (.+)$/m.exec(result.stdout.toString())?.[1] as string;
  return { id, dir };
}

async function streamAll(dir: string, offset = 0, maxFrameBytes = 1 << 20): Promise<{ log: Buffer; end: LogFrame | undefined }> {
  const result = await runSh(streamScript({ remoteDir: dir, offset, maxFrameBytes, pollSeconds: 0.02, heartbeatPolls: 5 }));
  const parser = new LogFrameParser();
  const data: Buffer[] = [];
  let end: LogFrame | undefined;
  for (const frame of parser.push(result.stdout)) {
    if (frame.kind === 'data') data.push(frame.bytes);
    else if (frame.kind !== 'heartbeat') end = frame;
  }
  return { log: Buffer.concat(data), end };
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'servelab-jobs-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('job ids', () => {
  it('sort by time and use only safe characters', () => {
    const a = newJobId(new Date('2025-01-02T03:04:05.678Z'));
    const b = newJobId(new Date('2025-01-02T03:04:05.679Z'));
    expect(a).toMatch(/^20250102T030405678Z-[0-9a-f]{8}$/);
    expect(a < b).toBe(true);
    expect(isJobId(a)).toBe(true);
    expect(isJobId('../etc')).toBe(false);
  });
});

describe('command file', () => {
  it('names secret variables but never holds their values', () => {
    const text = commandFileText({ argv: ['vllm', 'serve', "it's"], cwd: '~/work dir', env: { A: 'b c' }, secretEnv: { HF_TOKEN: 'hf_secret' } });
    expect(text).toBe(`# secret environment (values not stored): HF_TOKEN\ncd "$HOME"/'work dir' && A='b c' vllm serve 'it'\\''s'`);
    expect(text).not.toContain('hf_secret');
  });

  it('never holds the value of a credential flag', () => {
    const text = commandFileText({ argv: ['vllm', 'serve', 'm', '--api-key', 'sk-0123456789abcdefghijkl', '--hf-token=abc123'], env: {}, secretEnv: {} });
    expect(text).toBe("vllm serve m --api-key '<redacted>' '--hf-token=<redacted>'");
  });
});

describe('job scripts under the local sh', () => {
  it('launch records the job folder and the stream reads it to its exit code', async () => {
    const { id, dir } = await launch(['sh', '-c', 'echo "A=$A"; printf "héllo\\n" >&2; exit 7'], { env: { A: 'b c' } });
    expect(dir).toBe(join(home, '.servelab/jobs', id));
    const { log, end } = await streamAll(dir);
    expect(log.toString()).toBe('A=b c\nhéllo\n');
    expect(end).toEqual({ kind: 'exit', code: 7 });
    expect((await readdir(dir)).sort()).toEqual(['.launch', 'boot', 'command', 'exit', 'log', 'pgid', 'pgstart', 'pid', 'started']);
    expect((await readFile(join(dir, 'exit'), 'utf8')).trim()).toBe('7');
    expect(await readFile(join(dir, 'pid'), 'utf8')).toBe(await readFile(join(dir, 'pgid'), 'utf8'));
    expect((await runSh(statusScript(dir))).stdout.toString()).toBe('exited 7\n');
  });

  it('runs the job with the login umask, while its own folder and files stay private', async () => {
    const id = newJobId();
    const result = await runSh(`umask 0002\n${launchScript({ id, argv: ['sh', '-c', 'umask; env | grep -c SERVELAB_LOGIN_UMASK || :'], env: {}, secretEnv: {} })}`);
    expect(result.stderr).toBe('');
    const dir = /^started (.+)$/m.exec(result.stdout.toString())?.[1] as string;
    const { log } = await streamAll(dir);
    expect(log.toString()).toBe('0002\n0\n');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'log'))).mode & 0o777).toBe(0o600);
  });

  it('streams from an offset in frames of a given size', async () => {
    const { dir } = await launch(['printf', '0123456789']);
    const { log, end } = await streamAll(dir, 3, 2);
    expect(log.toString()).toBe('3456789');
    expect(end).toEqual({ kind: 'exit', code: 0 });
  });

  it('does not start the same id twice', async () => {
    const id = newJobId();
    const script = launchScript({ id, argv: ['sh', '-c', 'echo once'], env: {}, secretEnv: {} });
    await runSh(script);
    const again = await runSh(script);
    expect(again.code).toBe(0);
    const dir = join(home, '.servelab/jobs', id);
    expect((await streamAll(dir)).log.toString()).toBe('once\n');
  });

  it('starts the job without SIGINT ignored', async () => {
    const { dir } = await launch(['sh', '-c', 'grep SigIgn /proc/$$/status']);
    const { log } = await streamAll(dir);
    // nohup ignores SIGHUP (bit 1) only; SIGINT (bit 2) and SIGQUIT (bit 3) must stay deliverable.
    const mask = BigInt(`0x${/SigIgn:\s*([0-9a-f]+)/.exec(log.toString())?.[1] ?? 'ff'}`);
    expect(mask & 0b110n).toBe(0n);
  });

  it('fails before creating anything when the working folder is missing', async () => {
    const id = newJobId();
    const result = await runSh(launchScript({ id, argv: ['true'], cwd: '~/no such folder', env: {}, secretEnv: {} }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no such folder');
  });

  it('enters a relative working folder whose name starts with a dash instead of reading it as an option of cd', async () => {
    for (const cwd of ['-', '-P', '-L x']) {
      await mkdir(join(home, cwd), { recursive: true });
      const { dir } = await launch(['pwd', '-P'], { cwd });
      expect((await streamAll(dir)).log.toString()).toBe(`${join(home, cwd)}\n`);
    }
  });

  it('reports a job whose process vanished without an exit code as lost', async () => {
    const { dir } = await launch(['sleep', '30']);
    const pid = Number(await readFile(join(dir, 'pid'), 'utf8'));
    expect((await runSh(statusScript(dir))).stdout.toString()).toBe('running\n');
    process.kill(-pid, 'SIGKILL');
    await waitFor(async () => (await runSh(statusScript(dir))).stdout.toString().startsWith('lost'));
    expect((await streamAll(dir)).end).toMatchObject({ kind: 'lost' });
  });

  it('reports a pid from an earlier boot as lost', async () => {
    const { dir } = await launch(['sleep', '30']);
    const pid = Number(await readFile(join(dir, 'pid'), 'utf8'));
    try {
      await writeFile(join(dir, 'boot'), 'another-boot\n');
      expect((await runSh(statusScript(dir))).stdout.toString()).toMatch(/^lost /);
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
  });

  it('does not run the job when it cannot record its pid, and says why', async () => {
    const id = newJobId();
    const dir = join(home, '.servelab/jobs', id);
    const marker = join(home, `ran-${id}`);
    // What a full disk does to the wrapper's first write, without a full disk: the pid file cannot be written.
    await mkdir(join(dir, 'pgid.tmp'), { recursive: true });
    const result = await runSh(launchScript({ id, argv: ['sh', '-c', `: > ${marker}; sleep 30`], env: {}, secretEnv: {} }));
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/could not record its pid .* was not run/);
    await new Promise((r) => setTimeout(r, 300));
    await expect(readFile(marker)).rejects.toThrow();
  });

  it('reports a pid whose process has another start time than the one recorded (a reused pid) as lost', async () => {
    const { dir } = await launch(['sleep', '30']);
    const pid = Number(await readFile(join(dir, 'pid'), 'utf8'));
    try {
      await writeFile(join(dir, 'pgstart'), '1\n');
      expect((await runSh(statusScript(dir))).stdout.toString()).toMatch(/^lost /);
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
  });

  it('a launch removes finished job folders older than two weeks and keeps the rest (L10)', async () => {
    const jobs = join(home, '.servelab/jobs');
    const boot = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim();
    const make = async (files: Record<string, string>, daysOld: number) => {
      const id = newJobId(new Date(Date.now() - daysOld * 86_400_000));
      await mkdir(join(jobs, id), { recursive: true });
      for (const [name, text] of Object.entries(files)) await writeFile(join(jobs, id, name), text);
      const when = new Date(Date.now() - daysOld * 86_400_000);
      await utimes(join(jobs, id), when, when);
      return id;
    };
    const oldFinished = await make({ exit: '0\n', boot: `${boot}\n` }, 20);
    const oldEarlierBoot = await make({ boot: 'an-earlier-boot\n', pgid: '12345\n' }, 20);
    const oldUnfinished = await make({ boot: `${boot}\n`, pgid: '12345\n' }, 20);
    const recentFinished = await make({ exit: '0\n', boot: `${boot}\n` }, 2);
    await launch(['true']);
    const left = await readdir(jobs);
    expect(left).not.toContain(oldFinished);
    expect(left).not.toContain(oldEarlierBoot);
    expect(left).toContain(oldUnfinished);
    expect(left).toContain(recentFinished);
  });

  it('cancel stops a job that ignores TERM with KILL and records an exit code', async () => {
    const { dir } = await launch(['sh', '-c', 'trap "" TERM; sleep 30 & wait']);
    const result = await runSh(cancelScript(dir, 0.3));
    expect(result.stdout.toString()).toBe('gone KILL\n');
    expect((await runSh(statusScript(dir))).stdout.toString()).toBe('exited 137\n');
  });

  it('cancel with TERM lets the job record its own exit code', async () => {
    const { dir } = await launch(['sleep', '30']);
    expect((await runSh(cancelScript(dir, 5))).stdout.toString()).toBe('gone TERM\n');
    expect((await runSh(statusScript(dir))).stdout.toString()).toBe('exited 143\n');
    expect((await runSh(cancelScript(dir, 5))).stdout.toString()).toBe('gone none\n');
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
