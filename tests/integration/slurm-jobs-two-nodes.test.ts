// Slurm job control (src/core/cluster/slurm-jobs.ts) on the two-node test cluster with accounting, over SSH as the
// login user: jobs spread over both nodes, and sacct answers for jobs slurmctld has forgotten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFile } from 'node:fs/promises';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { cancelSlurmJobs, observeSlurmJobs, submitSlurmJob } from '../../src/core/cluster/slurm-jobs';
import type { SlurmJobSpec, SlurmJobState } from '../../src/shared/model/slurm-job';
import { slurmUnavailable, TEST_GPU_TYPE, type SlurmCluster } from '../helpers/slurm';
import type { TestSshd } from '../helpers/sshd';
import { startSlurmLoginLab, type SlurmLoginLab } from '../helpers/slurm-login';

const options = { nodes: 2, accounting: true } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-jobs-two-nodes] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('Slurm jobs on two nodes with accounting', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  let lab: SlurmLoginLab;
  let ssh: SshBoxTransport;

  const spec = (name: string, script: string, more: Partial<SlurmJobSpec> = {}): SlurmJobSpec => ({
    name,
    script,
    partition: 'short',
    account: 'research',
    qos: 'gpu-short',
    timeLimitMinutes: 5,
    outputPath: `~/shared/out/${name}.out`,
    workDir: '~/shared/work',
    ...more,
  });

  async function waitFor(ids: string[], done: (states: SlurmJobState[]) => boolean, timeoutMs = 40_000): Promise<SlurmJobState[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const states = await observeSlurmJobs(ssh, ids);
      if (done(states)) return states;
      if (Date.now() > until) throw new Error(`jobs did not get there: ${JSON.stringify(states)}\n${cluster.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  beforeAll(async () => {
    lab = await startSlurmLoginLab(options);
    ({ cluster, sshd, ssh } = lab);
    cluster.addUser(sshd.user, { account: 'research', qos: 'gpu-short' });
    // Ended jobs leave slurmctld's memory 2 s after they end instead of 300 s, so that sacct has to answer for them.
    await appendFile(cluster.slurmConf, 'MinJobAge=2\n');
    const reconfigured = cluster.client('scontrol', ['reconfigure']);
    expect(reconfigured.code, reconfigured.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('two jobs that each want all GPUs of a node run on different nodes; a third waits', async () => {
    const whole = (name: string) => spec(name, 'echo "$SLURM_JOB_NODELIST $CUDA_VISIBLE_DEVICES"; sleep 300', { gpus: { type: TEST_GPU_TYPE, count: 2 } });
    const ids: string[] = [];
    for (const name of ['first', 'second', 'third']) ids.push((await submitSlurmJob(ssh, whole(name))).jobId);
    const states = await waitFor(ids, ([a, b, c]) => a?.state === 'RUNNING' && b?.state === 'RUNNING' && c?.reason !== null);
    expect(states.map((s) => s.nodeList).slice(0, 2).sort()).toEqual(['gpu1', 'gpu2']);
    expect(states[2]).toMatchObject({ state: 'PENDING', nodeList: null });
    expect(['Resources', 'Priority']).toContain(states[2]?.reason);
    const cancelled = await cancelSlurmJobs(ssh, ids);
    expect(cancelled.map((s) => s.state)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    expect(cluster.client('squeue', ['-h', '-o', '%i']).stdout.trim()).toBe('');
    // Once slurmctld forgot them, sacct still knows where they ran and that they were cancelled.
    const remembered = await waitFor(ids, (all) => all.every((s) => s.source === 'sacct'));
    expect(remembered.map((s) => [s.state, s.phase])).toEqual([
      ['CANCELLED', 'ended'],
      ['CANCELLED', 'ended'],
      ['CANCELLED', 'ended'],
    ]);
    expect(remembered.map((s) => s.nodeList).slice(0, 2).sort()).toEqual(['gpu1', 'gpu2']);
    expect(remembered[2]).toMatchObject({ nodeList: null, startTime: null });
  }, 90_000);

  it('sacct gives the final state and exit code of jobs slurmctld forgot', async () => {
    const done = (await submitSlurmJob(ssh, spec('done', 'true'))).jobId;
    const failing = (await submitSlurmJob(ssh, spec('failing', 'exit 3'))).jobId;
    const states = await waitFor([done, failing], (all) => all.every((s) => s.source === 'sacct'));
    expect(states.map((s) => [s.state, s.exitCode, s.signal])).toEqual([
      ['COMPLETED', 0, 0],
      ['FAILED', 3, 0],
    ]);
    expect(states.every((s) => /^gpu[12]$/.test(s.nodeList ?? '') && s.startTime !== null && s.endTime !== null)).toBe(true);
    // The account and QOS the job was submitted with.
    const accounted = cluster.client('sacct', ['-nP', '-X', '-j', failing, '--format=Account,QOS,Partition']).stdout.trim();
    expect(accounted).toBe('research|gpu-short|short');
  }, 60_000);

  it('a job on a node an administrator sets DOWN is NODE_FAIL, and not run again', async () => {
    const { jobId } = await submitSlurmJob(ssh, spec('on-gpu2', 'sleep 300', { partition: undefined }));
    const [running] = await waitFor([jobId], ([s]) => s?.state === 'RUNNING');
    const node = running?.nodeList as string;
    const down = cluster.client('scontrol', ['update', `NodeName=${node}`, 'State=DOWN', 'Reason=test']);
    expect(down.stderr).toBe('');
    try {
      const [failed] = await waitFor([jobId], ([s]) => s?.phase === 'ended');
      expect(failed).toMatchObject({ state: 'NODE_FAIL', phase: 'ended', nodeList: node });
    } finally {
      cluster.client('scontrol', ['update', `NodeName=${node}`, 'State=RESUME']);
    }
  }, 60_000);
});
