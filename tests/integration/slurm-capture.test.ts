// Makes the captures in tests/fixtures/slurm/ from the real Slurm test cluster (see the README there). It runs only when
// asked, since it rewrites the fixtures:  SERVELAB_CAPTURE_SLURM=1 npx vitest run tests/integration/slurm-capture.test.ts
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBoxTransport } from '../../src/core/box/local-box-transport';
import { clusterScript } from '../../src/core/cluster/cluster-script';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm';
import { repoRoot } from '../helpers/repo';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { spawnSync } from 'node:child_process';

const FIXTURES = join(repoRoot, 'tests', 'fixtures', 'slurm');
const asked = process.env.SERVELAB_CAPTURE_SLURM === '1';
const unavailable = slurmUnavailable({ nodes: 2, accounting: true });

describe.runIf(asked && unavailable === null)('captures from the Slurm test cluster', () => {
  const clusters: SlurmCluster[] = [];
  const homes: string[] = [];
  const sshds: TestSshd[] = [];
  afterAll(async () => {
    await Promise.all(sshds.map((sshd) => sshd.stop()));
    await Promise.all(clusters.map((cluster) => cluster.stop()));
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
  });

  async function boxOf(cluster: SlurmCluster): Promise<LocalBoxTransport> {
    const home = await mkdtemp(join(tmpdir(), 'servelab-slurm-home-'));
    homes.push(home);
    return new LocalBoxTransport({ hostId: 'capture', home, env: cluster.env });
  }

  async function capture(box: LocalBoxTransport, name: string): Promise<void> {
    const result = await box.run(clusterScript(), { timeoutSeconds: 120 });
    expect(result.code).toBe(0);
    await writeFile(join(FIXTURES, name), result.stdout);
  }

  async function waitForState(cluster: SlurmCluster, node: string, state: string): Promise<void> {
    const until = Date.now() + 20_000;
    while (!cluster.client('sinfo', ['-h', '-N', '-o', '%N %T']).stdout.split('\n').includes(`${node} ${state}`)) {
      if (Date.now() > until) throw new Error(`${node} did not become ${state}: ${cluster.client('sinfo', ['-h', '-N', '-o', '%N %T']).stdout} ${cluster.client('squeue', ['-o', '%i %T %r %N']).stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('two nodes with accounting: one busy, one drained, then down', async () => {
    const cluster = await startSlurmCluster({ nodes: 2, accounting: true });
    clusters.push(cluster);
    const sshd = await startTestSshd({ nvidiaSmi: false });
    sshds.push(sshd);
    await cluster.addToProfile(sshd.homeDir);
    cluster.addUser(sshd.user, { account: 'research', qos: 'short-gpu' });
    // A second account the user may use in one partition only.
    cluster.client('sacctmgr', ['-i', 'add', 'account', 'teaching', `Cluster=${cluster.clusterName}`]);
    cluster.client('sacctmgr', ['-i', 'add', 'user', sshd.user, 'Account=teaching', 'Partition=short', `Cluster=${cluster.clusterName}`]);
    cluster.client('scontrol', ['update', 'NodeName=gpu2', 'State=DRAIN', 'Reason=fake GPU check']);
    const job = cluster.client('sbatch', ['--parsable', '-w', 'gpu1', '-n', '1', '--gres=gpu:fake:1', '--output=/dev/null', '--wrap', 'sleep 120']);
    expect(job.stdout.trim()).toMatch(/^\d+$/);
    await waitForState(cluster, 'gpu1', 'mixed');
    // As the login user, over SSH, as Servelab runs it (sh -l -s).
    const ssh = spawnSync(
      'ssh',
      ['-p', String(sshd.port), '-i', sshd.identityFile, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', `${sshd.user}@${sshd.host}`, 'sh -l -s'],
      { encoding: 'utf8', input: clusterScript(), timeout: 60_000 },
    );
    expect(ssh.status, ssh.stderr).toBe(0);
    // The test user's random name, made stable.
    await writeFile(join(FIXTURES, 'two-nodes-accounting.out'), ssh.stdout.replaceAll(sshd.user, 'alice'));
    await writeFile(join(FIXTURES, 'sinfo-states-drained.txt'), cluster.client('sinfo', ['-h', '-N', '-o', '%N|%t|%T']).stdout);
    expect(cluster.client('scontrol', ['update', 'NodeName=gpu2', 'State=RESUME']).stderr).toBe('');
    // A running slurmd would register again and be returned to service (ReturnToService=2).
    await cluster.stopDaemon('slurmd gpu2');
    const down = cluster.client('scontrol', ['update', 'NodeName=gpu2', 'State=DOWN', 'Reason=cable swap']);
    expect(down.stderr).toBe('');
    // A stopped slurmd says so to slurmctld: the node is at once not responding as well (`*`).
    await waitForState(cluster, 'gpu2', 'down*');
    await writeFile(join(FIXTURES, 'scontrol-show-node-down.txt'), cluster.client('scontrol', ['-o', 'show', 'node']).stdout);
    await writeFile(join(FIXTURES, 'sinfo-states-down.txt'), cluster.client('sinfo', ['-h', '-N', '-o', '%N|%t|%T']).stdout);
    cluster.client('scancel', [job.stdout.trim()]);
  }, 90_000);

  it('one node without accounting', async () => {
    const cluster = await startSlurmCluster({ nodes: 1, accounting: false });
    clusters.push(cluster);
    await capture(await boxOf(cluster), 'one-node.out');
  });
});
