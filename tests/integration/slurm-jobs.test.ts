// Slurm job control (src/core/cluster/slurm-jobs.ts) on a real one-node cluster with fake GPUs and no accounting:
// over SSH as the login user of a real sshd whose ~/.profile points at the cluster, and on the login node itself.
// A job with a one-minute limit runs from the start beside the others: Slurm looks at limits about every 30 s, so it
// ends 60 to 90 s after it started (87 s in tests/fixtures/slurm/jobs/observe-one-node-timeout.out).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBoxTransport } from '../../src/core/box/local-box-transport';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { cancelSlurmJobs, cancelSlurmJobsNamed, followSlurmJobOutput, observeSlurmJobs, readSlurmJobOutput, submitSlurmJob } from '../../src/core/cluster/slurm-jobs';
import type { SlurmJobSpec, SlurmJobState } from '../../src/shared/model/slurm-job';
import { slurmUnavailable, TEST_GPU_TYPE, type SlurmCluster } from '../helpers/slurm';
import type { TestSshd } from '../helpers/sshd';
import { startSlurmLoginLab, type SlurmLoginLab } from '../helpers/slurm-login';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-jobs] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('Slurm jobs on a one-node cluster', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  let scratch: string;
  let local: LocalBoxTransport;
  let lab: SlurmLoginLab;
  let ssh: SshBoxTransport;
  let timeLimited: string;
  let timeLimitedSubmittedAt: number;

  /** A spec writing under the login user's home (`~/`), which the test user's jobs can write to. */
  const sshSpec = (name: string, script: string, more: Partial<SlurmJobSpec> = {}): SlurmJobSpec => ({
    name,
    script,
    timeLimitMinutes: 5,
    outputPath: `~/shared/out/${name}.out`,
    workDir: '~/shared/work',
    ...more,
  });
  /** Root's jobs, on the login node itself, write to a scratch folder. */
  const localSpec = (name: string, script: string, more: Partial<SlurmJobSpec> = {}): SlurmJobSpec => ({
    name,
    script,
    timeLimitMinutes: 5,
    outputPath: join(scratch, 'out', `${name}.out`),
    workDir: join(scratch, 'work'),
    ...more,
  });
  const squeueIds = () => cluster.client('squeue', ['-h', '-o', '%i']).stdout.trim().split('\n').filter(Boolean);

  async function waitFor(box: LocalBoxTransport | SshBoxTransport, ids: string[], done: (states: SlurmJobState[]) => boolean, timeoutMs = 30_000): Promise<SlurmJobState[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const states = await observeSlurmJobs(box, ids);
      if (done(states)) return states;
      if (Date.now() > until) throw new Error(`jobs did not get there: ${JSON.stringify(states)}\n${cluster.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }

  beforeAll(async () => {
    lab = await startSlurmLoginLab(options);
    ({ cluster, sshd, ssh } = lab);
    scratch = await mkdtemp(join(tmpdir(), 'servelab-slurm-jobs-'));
    local = new LocalBoxTransport({ hostId: 'here', home: join(scratch, 'home'), env: cluster.env });
    // The time limit first, so that it runs out while the other tests run.
    timeLimitedSubmittedAt = Date.now();
    timeLimited = (await submitSlurmJob(local, localSpec('limited', 'echo started; sleep 300', { timeLimitMinutes: 1 }))).jobId;
  });
  afterAll(async () => {
    local?.release();
    await lab?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('over SSH: a job with a GPU request runs on the node with one GPU, its output streamed as it is written', async () => {
    // Multi-byte characters and a 5-byte read size: pieces are cut inside characters and must join back exactly.
    const script = 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES nodes=$SLURM_JOB_NODELIST"\nfor i in 1 2 3; do echo "ölçüm $i"; sleep 1; done\necho "value=$VALUE"';
    const submitted = await submitSlurmJob(ssh, sshSpec('gpu', script, { gpus: { type: TEST_GPU_TYPE, count: 1 }, env: { VALUE: `it's "$(quoted)" ;` } }));
    expect(submitted).toEqual({ jobId: expect.stringMatching(/^\d+$/), cluster: null });
    const pieces: string[] = [];
    const states: SlurmJobState[] = [];
    const final = await followSlurmJobOutput(ssh, submitted.jobId, '~/shared/out/gpu.out', {
      onOutput: (text) => pieces.push(text),
      onState: (state) => states.push(state),
      pollMs: 300,
      maxBytes: 5,
    });
    expect(final).toMatchObject({ jobId: submitted.jobId, state: 'COMPLETED', phase: 'ended', exitCode: 0, signal: 0, nodeList: 'node1' });
    const text = pieces.join('');
    expect(text).toBe(`CUDA_VISIBLE_DEVICES=0 nodes=node1\nölçüm 1\nölçüm 2\nölçüm 3\nvalue=it's "$(quoted)" ;\n`);
    expect(text).toBe(await readFile(join(sshd.homeDir, 'shared', 'out', 'gpu.out'), 'utf8'));
    // Seen running while it wrote: the output arrived live, not only at the end.
    expect(states.some((state) => state.state === 'RUNNING' && state.nodeList === 'node1')).toBe(true);
    // The job ran as the login user, in the working folder made for it.
    expect(cluster.client('scontrol', ['-o', 'show', 'job', submitted.jobId]).stdout).toMatch(new RegExp(`UserId=${sshd.user}\\(\\d+\\).* WorkDir=${join(sshd.homeDir, 'shared', 'work')} `));
  });

  it('over SSH: a job name with quotes and spaces reaches Slurm unchanged', async () => {
    const name = `study "a" it's $(x); b`;
    const { jobId } = await submitSlurmJob(ssh, sshSpec('named', 'true', { name }));
    expect(cluster.client('squeue', ['-h', '-t', 'all', '-j', jobId, '-o', '%j']).stdout.trim()).toBe(name);
  });

  it('a failing job is FAILED with its exit code', async () => {
    const { jobId } = await submitSlurmJob(local, localSpec('failing', 'echo before; exit 3'));
    const [state] = await waitFor(local, [jobId], ([s]) => s?.phase === 'ended');
    expect(state).toMatchObject({ state: 'FAILED', source: 'scontrol', reason: 'NonZeroExitCode', exitCode: 3, signal: 0, nodeList: 'node1' });
    expect((await readSlurmJobOutput(local, join(scratch, 'out', 'failing.out'), 0)).text).toBe('before\n');
  });

  it('cancelling a running and a pending job leaves them CANCELLED and out of the queue', async () => {
    // This one takes both GPUs, so the next waits, whether or not the time-limited job still holds a CPU.
    const gpus = (count: number) => ({ gpus: { type: TEST_GPU_TYPE, count } });
    const running = (await submitSlurmJob(ssh, sshSpec('running', 'sleep 300', gpus(2)))).jobId;
    await waitFor(ssh, [running], ([s]) => s?.state === 'RUNNING');
    const pending = (await submitSlurmJob(ssh, sshSpec('pending', 'sleep 300', gpus(1)))).jobId;
    const [, waiting] = await waitFor(ssh, [running, pending], ([, p]) => p?.reason !== null);
    expect(waiting).toMatchObject({ state: 'PENDING', phase: 'pending', source: 'squeue', nodeList: null, startTime: null });
    expect(['Resources', 'Priority']).toContain(waiting?.reason);
    const states = await cancelSlurmJobs(ssh, [running, pending]);
    expect(states.map((s) => [s.jobId, s.state, s.phase])).toEqual([
      [running, 'CANCELLED', 'ended'],
      [pending, 'CANCELLED', 'ended'],
    ]);
    expect(squeueIds()).not.toContain(running);
    expect(squeueIds()).not.toContain(pending);
    // Cancelling again is not an error.
    await expect(cancelSlurmJobs(ssh, [running])).resolves.toMatchObject([{ state: 'CANCELLED' }]);
  });

  it("cancels a study's jobs by their name prefix, and only those", async () => {
    const ids: string[] = [];
    for (const name of ['studyA-1', 'studyA-2', 'studyB-1']) ids.push((await submitSlurmJob(ssh, sshSpec(name, 'sleep 300', { name }))).jobId);
    const states = await cancelSlurmJobsNamed(ssh, 'studyA-');
    expect(states.map((s) => [s.jobId, s.state])).toEqual([
      [ids[0], 'CANCELLED'],
      [ids[1], 'CANCELLED'],
    ]);
    expect(squeueIds()).toContain(ids[2]);
    await cancelSlurmJobs(ssh, [ids[2] as string]);
    expect(squeueIds().filter((id) => ids.includes(id))).toEqual([]);
  });

  it('sbatch refusing a job fails with what sbatch said', async () => {
    await expect(submitSlurmJob(ssh, sshSpec('nowhere', 'true', { partition: 'nowhere' }))).rejects.toMatchObject({
      code: 'REMOTE_COMMAND_FAILED',
      message: expect.stringMatching(/^sbatch failed on the login node \(exit code 1\): sbatch: error: .*invalid partition/i),
    });
  });

  it('refuses a spec naming the wrong field before anything runs', async () => {
    await expect(submitSlurmJob(ssh, sshSpec('bad', 'true', { outputPath: 'relative/out' }))).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('outputPath') });
  });

  it('a job that never existed is UNKNOWN', async () => {
    expect(await observeSlurmJobs(ssh, ['999999'])).toEqual([
      { jobId: '999999', state: 'UNKNOWN', phase: 'unknown', source: 'none', reason: null, nodeList: null, startTime: null, endTime: null, exitCode: null, signal: null },
    ]);
  });

  it('a job killed by its time limit is TIMEOUT', async () => {
    const [state] = await waitFor(local, [timeLimited], ([s]) => s?.phase === 'ended', 120_000 - (Date.now() - timeLimitedSubmittedAt));
    // The exit code is the batch shell's: 0:15 when SIGTERM ended it, 143:0 when it outlived its `sleep` by an instant.
    expect(state).toMatchObject({ state: 'TIMEOUT', phase: 'ended', reason: 'TimeLimit', nodeList: 'node1' });
    expect((await readSlurmJobOutput(local, join(scratch, 'out', 'limited.out'), 0)).text).toMatch(/^started\n/);
  }, 130_000);

  it('fails naming squeue when slurmctld does not answer', async () => {
    await cluster.stopDaemon('slurmctld');
    await expect(observeSlurmJobs(ssh, ['1'])).rejects.toMatchObject({ code: 'REMOTE_COMMAND_FAILED', message: expect.stringMatching(/^squeue failed on the login node \(exit code 1\): /) });
  }, 60_000);
});
