// The two-node Slurm test cluster with accounting (tests/helpers/slurm.ts): compute nodes gpu1 and gpu2 in network
// namespaces of their own, slurmdbd and MariaDB in another, and sacct/sacctmgr answering from the root namespace; the
// cluster read over SSH as a login user with accounts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slurmUnavailable, type SlurmCluster } from '../helpers/slurm';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { processesWith } from '../helpers/processes';
import type { TestSshd } from '../helpers/sshd';
import { startSlurmLoginLab, type SlurmLoginLab } from '../helpers/slurm-login';
import { readClusterInventory } from '../../src/core/cluster/read-cluster';

const options = { nodes: 2, accounting: true } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-cluster-two-nodes] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('a two-node Slurm test cluster with accounting', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  let lab: SlurmLoginLab;
  let ssh: SshBoxTransport;

  beforeAll(async () => {
    lab = await startSlurmLoginLab(options);
    ({ cluster, sshd, ssh } = lab);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('spreads jobs over both nodes, each with two fake GPUs', async () => {
    const ids = [1, 2].map(() => {
      const submitted = cluster.client('sbatch', ['--parsable', '--gres=gpu:fake:2', '--output=/dev/null', '--wrap', 'sleep 1']);
      expect(submitted.stderr).toBe('');
      return submitted.stdout.trim();
    });
    const until = Date.now() + 20_000;
    let rows: string[] = [];
    while (Date.now() < until) {
      rows = cluster.client('sacct', ['-nP', '-X', '-j', ids.join(','), '-o', 'JobID,State,NodeList,AllocTRES']).stdout.trim().split('\n');
      if (rows.length === 2 && rows.every((row) => row.split('|')[1] === 'COMPLETED')) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(rows.map((row) => row.split('|')[1])).toEqual(['COMPLETED', 'COMPLETED']);
    expect(rows.map((row) => row.split('|')[2]).sort()).toEqual(['gpu1', 'gpu2']);
    for (const row of rows) expect(row.split('|')[3]).toContain('gres/gpu=2');
  });

  it('lists a user added to an account in sacctmgr', () => {
    cluster.addUser('root', { account: 'research', qos: 'short-gpu' });
    const assoc = cluster.client('sacctmgr', ['-nP', 'show', 'assoc', 'user=root', 'format=Cluster,Account,User,QOS']).stdout.trim().split('\n');
    expect(assoc).toContain(`${cluster.clusterName}|research|root|normal,short-gpu`);
  });

  it("reads the cluster over SSH with the login user's accounts and QOS", async () => {
    cluster.addUser(sshd.user, { account: 'research', qos: 'short-gpu' });
    const inventory = await readClusterInventory(ssh);
    expect(inventory.user.name).toBe(sshd.user);
    expect(inventory.accounting).toEqual({ available: true, message: null });
    expect(inventory.user.defaultAccount).toBe('research');
    expect(inventory.user.associations).toEqual([{ cluster: cluster.clusterName, account: 'research', partition: null, qos: ['normal', 'short-gpu'], defaultQos: null }]);
    expect(inventory.nodes.map((node) => [node.name, node.state.schedulable])).toEqual([
      ['gpu1', true],
      ['gpu2', true],
    ]);
    expect(inventory.nodeTypes).toEqual([{ cpus: 2, memoryMiB: 4000, gpuType: 'fake', gpusPerNode: 2, nodes: ['gpu1', 'gpu2'], partitions: ['debug', 'short'] }]);
  });

  it('leaves no daemon or folder behind once stopped', async () => {
    // munged, mariadbd, slurmctld and two slurmd name the folder on their command lines (slurmdbd finds it in SLURM_CONF).
    expect(processesWith(cluster.dir)).toHaveLength(5);
    await cluster.stop();
    expect(processesWith(cluster.dir)).toEqual([]);
  });
});
