// The Slurm test cluster itself (tests/helpers/slurm.ts): a real slurmctld, slurmd and munged that run jobs on fake GPU
// GRES, reached locally and from an SSH session on a login node (a real sshd on 127.0.0.1), and nothing left after stop().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { processesWith, uniqueSleep } from '../helpers/processes';
import { leftoverProcesses, RUN_MARK, statOf } from '../../scripts/leftover-processes.mjs';

// Under `npm test` every process the run starts carries its mark; alone, this file makes one up to check the same.
const runId = (process.env[RUN_MARK] ??= `slurm-cluster-${process.pid}`);

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-cluster] skipped: ${unavailable}\n`);

/** Waits for a batch job to leave the queue and returns what it wrote. */
async function jobOutput(cluster: SlurmCluster, jobId: string, outputFile: string, runAs?: string): Promise<string> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const queued = cluster.client('squeue', ['-h', '-j', jobId, '-o', '%T']).stdout.trim();
    if (queued === '' && existsSync(outputFile)) return spawnSync('cat', [outputFile], { encoding: 'utf8' }).stdout;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`job ${jobId}${runAs ? ` of ${runAs}` : ''} did not finish in 20 s\n${cluster.logs()}`);
}

describe.skipIf(unavailable !== null)('a one-node Slurm test cluster', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  /** The duration of a job left running for the leftover checks. */
  const sleep = uniqueSleep();

  beforeAll(async () => {
    // One after the other, so that afterAll stops whichever started when the other fails.
    sshd = await startTestSshd({ nvidiaSmi: false });
    cluster = await startSlurmCluster(options);
    await cluster.addToProfile(sshd.homeDir);
  });
  afterAll(async () => {
    await Promise.all([cluster?.stop(), sshd?.stop()]);
  });

  it('runs a batch job on a fake GPU and says which one it got', async () => {
    const out = `${cluster.dir}/job-%j.out`;
    const submitted = cluster.client('sbatch', ['--parsable', '--gres=gpu:fake:2', `--output=${out}`, '--wrap', 'echo "CVD=$CUDA_VISIBLE_DEVICES node=$SLURMD_NODENAME"']);
    expect(submitted.stderr).toBe('');
    const jobId = submitted.stdout.trim();
    expect(jobId).toMatch(/^\d+$/);
    expect(await jobOutput(cluster, jobId, out.replace('%j', jobId))).toBe('CVD=0,1 node=node1\n');
  });

  it("answers the client commands in an SSH session on the login node, whose jobs carry the cluster's mark", async () => {
    // The session's environment has no mark: the job gets it from the cluster's TaskProlog.
    const ssh = spawnSync(
      'ssh',
      [
        ...['-p', String(sshd.port), '-i', sshd.identityFile, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes'],
        `${sshd.user}@${sshd.host}`,
        `sh -l -c 'id -un; sinfo -h -o %R; sbatch --parsable --output="$HOME/job.out" --wrap "echo mark=\\$SERVELAB_SLURM_CLUSTER user=\\$(id -un)"'`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(ssh.status, ssh.stderr).toBe(0);
    const [jobId, ...rest] = ssh.stdout.trim().split('\n').reverse();
    expect(rest.slice(0, 3).reverse()).toEqual([sshd.user, ...cluster.partitions]);
    expect(await jobOutput(cluster, jobId as string, `${sshd.homeDir}/job.out`, sshd.user)).toBe(`mark=${cluster.dir} user=${sshd.user}\n`);
  });

  it("marks every daemon and job process as the test run's, so a crashed run's leftovers are found", async () => {
    const ssh = spawnSync(
      'ssh',
      [
        ...['-p', String(sshd.port), '-i', sshd.identityFile, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes'],
        `${sshd.user}@${sshd.host}`,
        `sh -l -c 'sbatch --parsable --output=/dev/null --wrap "sleep ${sleep}"'`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(ssh.status, ssh.stderr).toBe(0);
    const until = Date.now() + 20_000;
    while (processesWith(sleep).length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 200));
    const job = processesWith(sleep);
    expect(job).toHaveLength(1);
    const found = new Set(leftoverProcesses({ runId }).map((p) => p.pid));
    for (const pid of [...processesWith(cluster.dir), ...job]) expect(found).toContain(pid);
  });

  it('leaves no daemon, job or folder behind once stopped', async () => {
    // The daemons name the cluster's folder on their command lines (so does the running job's batch script).
    const named = () => processesWith(cluster.dir).map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
    expect(named()).toEqual(expect.arrayContaining(['munged', 'slurmctld', 'slurmd']));
    const job = processesWith(`sleep ${sleep}`);
    expect(job.length).toBeGreaterThan(0);
    await cluster.stop();
    expect(processesWith(cluster.dir)).toEqual([]);
    // Killed; a zombie is dead already, waiting for its new parent to reap it.
    expect(job.filter((pid) => ![undefined, 'Z', 'X'].includes(statOf(pid)?.state))).toEqual([]);
    expect(existsSync(cluster.dir)).toBe(false);
  });
});
