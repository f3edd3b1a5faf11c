// sshd's MaxSessions against one pooled connection: more commands at once than it allows wait for a free session
// rather than fail, at OpenSSH's default of 10 and at a lower limit the server sets, for commands, remote jobs' log
// streams and SFTP alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { openTestSshBox, type TestSshBox } from '../helpers/ssh-box';
import { sessionUsage } from '../../src/core/ssh/session-gate';
import { RemoteJobRunner } from '../../src/core/jobs/remote-job-runner';
import { sshCommandChannel } from '../../src/core/jobs/command-channel';

describe('sessions of one SSH connection beyond sshd MaxSessions', () => {
  let scratch: string;
  const sshds: TestSshd[] = [];
  const boxes: TestSshBox[] = [];
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'servelab-session-limit-'));
  });
  afterAll(async () => {
    for (const box of boxes) await box.close();
    for (const sshd of sshds) await sshd.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  async function boxOn(extraConfig: string[]): Promise<TestSshBox> {
    const sshd = await startTestSshd({ nvidiaSmi: false, extraConfig });
    sshds.push(sshd);
    const box = await openTestSshBox(sshd, `limit-${sshds.length}`);
    boxes.push(box);
    return box;
  }

  it("runs 14 commands at once on sshd's default limit of 10, never more than 10 open", async () => {
    const { box } = await boxOn([]);
    const client = await box.client();
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, sessionUsage(client).open)), 20);
    try {
      const results = await Promise.all(Array.from({ length: 14 }, (_, i) => box.run(`sleep 1; echo ${i}`, { timeoutSeconds: 60 })));
      expect(results.map((r) => r.stdout.trim().split('\n').pop())).toEqual(Array.from({ length: 14 }, (_, i) => String(i)));
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(10);
    expect(sessionUsage(client)).toEqual({ open: 0, limit: 10, waiting: 0 });
  }, 60_000);

  it('learns a lower MaxSessions from its refusals and runs commands, a job log stream and SFTP through it', async () => {
    const { box } = await boxOn(['MaxSessions 3']);
    const client = await box.client();
    const job = await box.jobs().start({ command: ['sh', '-c', 'for i in 1 2 3; do echo line $i; sleep 0.5; done'] });
    let log = '';
    const streamed = job.stream((text) => (log += text));
    const local = join(scratch, 'up.txt');
    await writeFile(local, 'payload\n');
    const [runs, upload] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, (_, i) => box.run(`sleep 0.5; echo ${i}`, { timeoutSeconds: 60 }))),
      box.upload(local, 'uploaded.txt'),
    ]);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(upload.bytes).toBe(8);
    expect(await streamed).toBe(0);
    expect(log).toBe('line 1\nline 2\nline 3\n');
    // sshd frees a session a moment after its channel closed: what the gate learned may be below MaxSessions.
    expect(sessionUsage(client).limit).toBeGreaterThanOrEqual(1);
    expect(sessionUsage(client).limit).toBeLessThanOrEqual(3);
    const back = join(scratch, 'back.txt');
    await box.download('uploaded.txt', back);
    expect(await readFile(back, 'utf8')).toBe('payload\n');
  }, 60_000);

  it('log streams of long jobs that fill every session make way for a short command, and lose no byte', async () => {
    const { box } = await boxOn(['MaxSessions 2']);
    const client = await box.client();
    const runner = new RemoteJobRunner({ hostId: 'streams', provider: () => box.client(), streamTurnMs: 1000 });
    // Two jobs that print for 8 s: their streams hold both sessions for all that time unless they make way.
    const script = 'i=0; while [ $i -lt 40 ]; do echo tick $i; i=$((i + 1)); sleep 0.2; done';
    const jobs = await Promise.all([0, 1].map(() => runner.start({ command: ['sh', '-c', script] })));
    const logs = ['', ''];
    const streams = jobs.map((job, i) => job.stream((text) => (logs[i] += text)));
    let ended = 0;
    for (const stream of streams) void stream.then(() => ended++);
    await new Promise((r) => setTimeout(r, 1500));
    const short = await box.run('echo short', { timeoutSeconds: 30 });
    expect(short.stdout).toContain('short');
    // The short command ran while both jobs still printed: a stream gave up its session for it.
    expect(ended).toBe(0);
    expect(await Promise.all(streams)).toEqual([0, 0]);
    const expected = Array.from({ length: 40 }, (_, i) => `tick ${i}\n`).join('');
    expect(logs).toEqual([expected, expected]);
    // A stream ends on the job's exit frame; its channel's close comes a moment later.
    await expect.poll(() => sessionUsage(client).open).toBe(0);
  }, 60_000);

  it('gives a session back when its command is abandoned unread, or given up while it waits for one', async () => {
    const { box } = await boxOn([]);
    const client = await box.client();
    // Opened and closed with nothing read: ssh2 reports the channel closed only once its output ended.
    const unread = await sshCommandChannel(client).exec('sh -s');
    unread.close();
    await expect.poll(() => sessionUsage(client).open).toBe(0);
    // Ten sessions busy; three more commands wait, and their caller gives up on them.
    const busy = Array.from({ length: 10 }, () => box.run('sleep 2', { timeoutSeconds: 60 }));
    await expect.poll(() => sessionUsage(client).open).toBe(10);
    const giveUp = new AbortController();
    const waiting = Array.from({ length: 3 }, () => box.run('echo never', { timeoutSeconds: 60, signal: giveUp.signal }).catch((error: unknown) => error));
    await expect.poll(() => sessionUsage(client).waiting).toBe(3);
    giveUp.abort(new Error('given up'));
    expect(await Promise.all(waiting)).toEqual([new Error('given up'), new Error('given up'), new Error('given up')]);
    expect(sessionUsage(client).waiting).toBe(0);
    await Promise.all(busy);
    await expect.poll(() => sessionUsage(client)).toEqual({ open: 0, limit: 10, waiting: 0 });
    // Nothing leaked: ten at once still run.
    const again = await Promise.all(Array.from({ length: 10 }, (_, i) => box.run(`echo ${i}`, { timeoutSeconds: 60 })));
    expect(again.every((r) => r.code === 0)).toBe(true);
  }, 60_000);

  it('a server that allows no session at all fails the command with the server\'s refusal', async () => {
    const { box } = await boxOn(['MaxSessions 0']);
    await expect(box.run('echo hi', { timeoutSeconds: 20 })).rejects.toMatchObject({ code: 'REMOTE_COMMAND_FAILED', message: expect.stringContaining('open failed') });
  }, 60_000);
});
