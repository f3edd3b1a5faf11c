// A Slurm batch job as a box (src/core/cluster/job-box.ts): its agent runs on the node of a real one-node test cluster
// (fake GPUs, no accounting); the app reaches it over SSH to the login node, through the mailbox on the shared HOME.
// The node is this machine, so what runs there is checked in /proc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BoxTransport } from '../../src/core/box/box-transport';
import { httpFailureOf } from '../../src/core/box/http-request';
import { submitAgentJob, waitForAgent, type AgentJob, type AgentJobSpec, type SlurmJobBox } from '../../src/core/cluster/job-box';
import { cancelSlurmJobs, observeSlurmJobs, submitSlurmJob } from '../../src/core/cluster/slurm-jobs';
import type { JobRecord } from '../../src/core/jobs/job-registry';
import { ServelabError } from '../../src/shared/contract';
import type { SlurmJobState } from '../../src/shared/model/slurm-job';
import { processesWith, uniqueSleep } from '../helpers/processes';
import { slurmUnavailable, TEST_GPU_TYPE } from '../helpers/slurm';
import { startSlurmLoginLab, type SlurmLoginLab } from '../helpers/slurm-login';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-job-box] skipped: ${unavailable}\n`);

/** What the test user's ~/.profile prints: every `sh -l` on the node starts with it, as over SSH. */
const NOISE = 'profile noise: welcome to the test box\n';
/** A sleep no other process runs, longer than the suite. */
const longSleep = () => uniqueSleep().replace(/^30\./, '3000.');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

describe.skipIf(unavailable !== null)('a Slurm batch job as a box', () => {
  let lab: SlurmLoginLab;
  let login: BoxTransport;
  let job: AgentJob;
  let box: SlurmJobBox;
  let started: { node: string; gpus: string[] };

  const squeueIds = () => lab.cluster.client('squeue', ['-h', '-o', '%i']).stdout.trim().split('\n').filter(Boolean);
  const startAgent = async (spec: Partial<AgentJobSpec> = {}, onState?: (state: SlurmJobState) => void) => {
    const submitted = await submitAgentJob(login, { name: 'servelab-box', timeLimitMinutes: 10, ...spec });
    const wait = await waitForAgent(login, submitted, { hostId: 'cluster', pollMs: 300, ...(onState ? { onState } : {}) });
    if (wait.kind !== 'started') throw new Error(`the agent job ended: ${JSON.stringify(wait.state)}\n${lab.cluster.logs()}`);
    return { job: submitted, wait };
  };

  // A job with a one-minute limit, a command running on it when Slurm ends it: Slurm looks at limits about every
  // 30 s, so that is 60 to 90 s after it started, while the other tests run.
  let limited: AgentJob;
  let limitedCall: Promise<unknown>;

  beforeAll(async () => {
    lab = await startSlurmLoginLab(options);
    login = lab.ssh;
    const limitedAgent = await startAgent({ timeLimitMinutes: 1 });
    limited = limitedAgent.job;
    limitedCall = limitedAgent.wait.box.run(`sleep ${longSleep()}`, { timeoutSeconds: 200 }).catch((error: unknown) => error);
    const agent = await startAgent({ gpus: { type: TEST_GPU_TYPE, count: 1 } });
    job = agent.job;
    box = agent.wait.box;
    started = agent.wait;
  });
  afterAll(async () => {
    box?.release();
    await lab?.stop();
  });

  it('starts on the node with the GPU Slurm gave it, its mailbox and output under ~/.servelab/slurm', async () => {
    expect(started).toMatchObject({ node: 'node1', gpus: ['0'] });
    expect(job.dir).toMatch(/^~\/\.servelab\/slurm\/[0-9a-f]{16}$/);
    const ready = await readFile(join(lab.sshd.homeDir, job.dir.slice(2), 'ready'), 'utf8');
    expect(ready).toMatch(/^node=node1\ngpus=0\npid=\d+\n$/);
    expect(box).toMatchObject({ kind: 'ssh', hostId: 'cluster', job });
  });

  it('runs scripts on the node: stdin, stdout, stderr, exit code, the login PATH, the job environment', async () => {
    const result = await box.run('cat; echo "to stderr ölçü" >&2; echo "job=$SLURM_JOB_ID gpus=$CUDA_VISIBLE_DEVICES"; command -v sbatch >/dev/null && echo login-path; exit 3', {
      stdin: "héllo 'quoted' $(not run)\n",
      timeoutSeconds: 30,
    });
    expect(result).toEqual({ stdout: `${NOISE}héllo 'quoted' $(not run)\njob=${job.jobId} gpus=0\nlogin-path\n`, stderr: 'to stderr ölçü\n', code: 3 });
    expect((await box.run('exit 0', { timeoutSeconds: 30 })).code).toBe(0);
  });

  it('carries large output byte for byte, in pieces', async () => {
    const result = await box.run("head -c 3000000 /dev/zero | tr '\\0' x; printf end", { timeoutSeconds: 60 });
    expect(result.code).toBe(0);
    expect(result.stdout === `${NOISE}${'x'.repeat(3_000_000)}end`).toBe(true);
    const exact = await box.run("i=0; while [ $i -lt 40000 ]; do printf 'ölçüm %s\\n' $i; i=$((i + 1)); done", { timeoutSeconds: 60 });
    const expected = NOISE + Array.from({ length: 40000 }, (_, i) => `ölçüm ${i}\n`).join('');
    expect(exact.stdout.length).toBe(expected.length);
    expect(exact.stdout === expected).toBe(true);
  });

  it('streams output while the script runs', async () => {
    const seen: { text: string; at: number }[] = [];
    const errors: string[] = [];
    const result = await box.run('echo first; sleep 2; echo second; echo late >&2', {
      timeoutSeconds: 30,
      onStdout: (text) => seen.push({ text, at: Date.now() }),
      onStderr: (text) => errors.push(text),
    });
    const done = Date.now();
    expect(seen.map((piece) => piece.text).join('')).toBe(`${NOISE}first\nsecond\n`);
    expect(errors.join('')).toBe('late\n');
    expect(result.stdout).toBe(`${NOISE}first\nsecond\n`);
    const first = seen.find((piece) => piece.text.includes('first'));
    expect(done - (first?.at ?? done)).toBeGreaterThan(1500);
  });

  it('measures the overhead of a call', async () => {
    const rounds = 8;
    let start = Date.now();
    for (let i = 0; i < rounds; i++) await login.run('true', { timeoutSeconds: 30 });
    const direct = (Date.now() - start) / rounds;
    start = Date.now();
    for (let i = 0; i < rounds; i++) expect((await box.run('true', { timeoutSeconds: 30 })).code).toBe(0);
    const viaJob = (Date.now() - start) / rounds;
    process.stderr.write(`[slurm-job-box] per call: ${viaJob.toFixed(0)} ms through the job, ${direct.toFixed(0)} ms for a plain run on the login node\n`);
  });

  it('cancels a script by signal and by its time limit, leaving nothing of it on the node', async () => {
    const byAbort = uniqueSleep();
    const controller = new AbortController();
    const aborted = box.run(`echo started; sleep ${byAbort}`, {
      timeoutSeconds: 60,
      signal: controller.signal,
      onStdout: (text) => {
        if (text.includes('started')) controller.abort(new Error('no longer needed'));
      },
    });
    await expect(aborted).rejects.toThrow('no longer needed');
    expect(processesWith(`sleep ${byAbort}`)).toEqual([]);

    const byTimeout = uniqueSleep();
    const timedOut = box.run(`sleep ${byTimeout}`, { timeoutSeconds: 1 }).catch((error: unknown) => error);
    await until('the sleep ran', () => (processesWith(`sleep ${byTimeout}`).length > 0 ? true : undefined));
    const error = await timedOut;
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(processesWith(`sleep ${byTimeout}`)).toEqual([]);
  });

  it('runs detached jobs in the Slurm job: streamed, alive after release and re-attach, cancelled', async () => {
    const handle = await box.jobs().start({ command: ['sh', '-c', 'i=0; while :; do echo "tick $i"; i=$((i + 1)); sleep 0.2; done'], label: 'ticker' });
    let text = '';
    const stop = new AbortController();
    await handle
      .stream(
        (chunk) => {
          text += chunk;
          if (text.includes('tick 3\n')) stop.abort(new Error('enough'));
        },
        { signal: stop.signal, flushIntervalMs: 20 },
      )
      .catch((error: Error) => expect(error.message).toBe('enough'));
    expect(text.startsWith('tick 0\ntick 1\ntick 2\ntick 3\n')).toBe(true);
    // The job runs on the node inside the Slurm job: it carries the job's id.
    const pid = Number((await readFile(join(handle.remoteDir, 'pid'), 'utf8')).trim());
    expect((await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0')).toContain(`SLURM_JOB_ID=${job.jobId}`);

    const offset = handle.offset;
    box.release();
    await expect(box.run('true', { timeoutSeconds: 10 })).rejects.toMatchObject({ code: 'CANCELLED' });
    await sleep(500);
    expect(processesWith('tick')).not.toEqual([]);

    const { SlurmJobBox } = await import('../../src/core/cluster/job-box');
    box = SlurmJobBox.attach(login, job, 'cluster');
    const now = new Date().toISOString();
    const record: JobRecord = { id: handle.id, hostId: 'cluster', remoteDir: handle.remoteDir, command: handle.command, offset, state: 'running', createdAt: now, updatedAt: now };
    const again = box.jobs().reattach(record);
    expect(await again.status()).toEqual({ state: 'running' });
    let more = '';
    const stop2 = new AbortController();
    await again
      .stream(
        (chunk) => {
          more += chunk;
          if (more.split('\n').length > 3) stop2.abort(new Error('enough'));
        },
        { signal: stop2.signal, flushIntervalMs: 20 },
      )
      .catch((error: Error) => expect(error.message).toBe('enough'));
    const first = Number(/^tick (\d+)/.exec(more)?.[1]);
    expect(text.endsWith(`tick ${first - 1}\n`)).toBe(true);
    const cancelled = await again.cancel({ graceSeconds: 2 });
    expect(cancelled.status.state).toBe('exited');
    await until('the ticker ended', () => (processesWith(handle.remoteDir).length === 0 ? true : undefined));
  });

  it('makes HTTP requests on the node to a server the job runs, and tells "nothing listens" apart', async () => {
    const portText = (await box.run('python3 -c "import socket; s = socket.socket(); s.bind((\'127.0.0.1\', 0)); print(s.getsockname()[1])"', { timeoutSeconds: 30 })).stdout;
    const port = Number(portText.trim().split('\n').pop());
    expect(httpFailureOf(await box.httpRequest(port, { path: '/', timeoutMs: 5_000 }).catch((e: unknown) => e))).toBe('refused');
    expect((await box.run('mkdir -p ~/www && printf "hello from the node" > ~/www/hello.txt', { timeoutSeconds: 20 })).code).toBe(0);
    const server = await box.jobs().start({ command: ['python3', '-m', 'http.server', '--bind', '127.0.0.1', String(port)], cwd: '~/www', label: 'http.server' });
    const response = await until('the server answered', async () => {
      try {
        return await box.httpRequest(port, { path: '/hello.txt', timeoutMs: 5_000 });
      } catch (error) {
        expect(httpFailureOf(error), String(error)).toMatch(/refused|reset/);
        return undefined;
      }
    });
    expect(response).toMatchObject({ status: 200, body: 'hello from the node' });
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const post = await box.httpRequest(port, { method: 'POST', path: '/hello.txt', headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs: 5_000 });
    expect(post.status).toBe(501);
    await server.cancel({ graceSeconds: 2 });
    expect(httpFailureOf(await box.httpRequest(port, { path: '/', timeoutMs: 5_000 }).catch((e: unknown) => e))).toBe('refused');
  });

  it('finish() ends the agent and what it left running; the job leaves the queue, its mailbox the shared storage', async () => {
    const left = uniqueSleep();
    await box.jobs().start({ command: ['sleep', left] });
    await until('the detached sleep ran', () => (processesWith(`sleep ${left}`).length > 0 ? true : undefined));
    const mailbox = join(lab.sshd.homeDir, job.dir.slice(2));
    expect(existsSync(join(mailbox, 'ready'))).toBe(true);
    const state = await box.finish();
    expect(state).toMatchObject({ jobId: job.jobId, phase: 'ended', state: 'COMPLETED' });
    expect(existsSync(mailbox)).toBe(false);
    expect(squeueIds()).not.toContain(job.jobId);
    expect(processesWith(`sleep ${left}`)).toEqual([]);
    await expect(box.run('true', { timeoutSeconds: 10 })).rejects.toMatchObject({ code: 'CANCELLED' });
  });

  it('waits PENDING for Resources while the GPUs are taken; after scancel calls fail naming the state', async () => {
    const holder = await submitSlurmJob(login, { name: 'gpu-holder', script: 'sleep 300', gpus: { type: TEST_GPU_TYPE, count: 2 }, timeLimitMinutes: 5, outputPath: '~/holder/out', workDir: '~/holder' });
    await until('the holder ran', async () => ((await observeSlurmJobs(login, [holder.jobId]))[0]?.state === 'RUNNING' ? true : undefined));
    const states: SlurmJobState[] = [];
    const agent = await startAgent({ gpus: { type: TEST_GPU_TYPE, count: 1 } }, (state) => {
      states.push(state);
      if (state.state === 'PENDING' && state.reason === 'Resources') void cancelSlurmJobs(login, [holder.jobId], { waitSeconds: 0 });
    });
    // Slurm's reason as the scheduler gives it: None until it looked at the job, then Resources.
    expect(states[0]).toMatchObject({ jobId: agent.job.jobId, state: 'PENDING' });
    expect(states).toContainEqual(expect.objectContaining({ state: 'PENDING', reason: 'Resources' }));
    expect(agent.wait.gpus).toHaveLength(1);
    const second = agent.wait.box;
    expect((await second.run('echo ok', { timeoutSeconds: 30 })).stdout).toBe(`${NOISE}ok\n`);

    const running = second.run(`sleep ${longSleep()}`, { timeoutSeconds: 60 }).catch((error: unknown) => error);
    await sleep(500);
    await cancelSlurmJobs(login, [agent.job.jobId]);
    const error = await running;
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).message).toContain(agent.job.jobId);
    expect((error as ServelabError).details?.slurmJob).toMatchObject({ jobId: agent.job.jobId });
    const later = await second.run('true', { timeoutSeconds: 30 }).catch((e: unknown) => e);
    expect((later as ServelabError).message).toMatch(new RegExp(`Slurm job ${agent.job.jobId} is CANCELLED`));
    expect((later as ServelabError).details?.slurmJob).toMatchObject({ state: 'CANCELLED', phase: 'ended' });
    second.release();
  });

  it('ends itself when nothing arrives for idleMinutes', async () => {
    const agent = await startAgent({ idleMinutes: 0.1 });
    const state = await until(
      'the idle agent ended',
      async () => {
        const [now] = await observeSlurmJobs(login, [agent.job.jobId]);
        return now?.phase === 'ended' ? now : undefined;
      },
      40_000,
    );
    expect(state.state).toBe('COMPLETED');
    expect(await readFile(join(lab.sshd.homeDir, agent.job.dir.slice(2), 'ended'), 'utf8')).toBe('idle\n');
    const error = await agent.wait.box.run('true', { timeoutSeconds: 30 }).catch((e: unknown) => e);
    expect((error as ServelabError).message).toMatch(new RegExp(`Slurm job ${agent.job.jobId} is COMPLETED.*ended \\(idle\\)`));
  });

  it('fails a command in flight when Slurm ends the job at its time limit, naming the state', async () => {
    const error = await limitedCall;
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).message).toMatch(new RegExp(`^Slurm job ${limited.jobId} is TIMEOUT.*ended \\(signal TERM\\)`));
    expect((error as ServelabError).details?.slurmJob).toMatchObject({ jobId: limited.jobId, state: 'TIMEOUT', phase: 'ended' });
  }, 150_000);
});
