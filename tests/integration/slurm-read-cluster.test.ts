// Reading a real Slurm cluster (src/core/cluster/read-cluster.ts) through both box transports: on the login node
// itself, and over SSH as the login user of a real sshd whose ~/.profile points at the cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClusterInventory } from '../../src/core/cluster/read-cluster';
import { LocalBoxTransport } from '../../src/core/box/local-box-transport';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import type { ClusterInventory } from '../../src/shared/model/cluster';
import { slurmUnavailable, type SlurmCluster } from '../helpers/slurm';
import type { TestSshd } from '../helpers/sshd';
import { startSlurmLoginLab, type SlurmLoginLab } from '../helpers/slurm-login';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-read-cluster] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('reading a one-node Slurm cluster', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  let scratch: string;
  let local: LocalBoxTransport;
  let lab: SlurmLoginLab;
  let ssh: SshBoxTransport;

  beforeAll(async () => {
    lab = await startSlurmLoginLab(options);
    ({ cluster, sshd, ssh } = lab);
    scratch = await mkdtemp(join(tmpdir(), 'servelab-slurm-read-'));
    local = new LocalBoxTransport({ hostId: 'here', home: join(scratch, 'home'), env: cluster.env });
  });
  afterAll(async () => {
    local?.release();
    await lab?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  /** What the test cluster was configured with (tests/helpers/slurm.ts), whoever reads it. */
  function expectTheTestCluster(inventory: ClusterInventory): void {
    expect(`slurm-wlm ${inventory.slurmVersion}`).toBe(cluster.client('sinfo', ['--version']).stdout.trim());
    expect(inventory.clusterName).toBe(cluster.clusterName);
    expect(inventory.partitions.map((p) => [p.name, p.state, p.isDefault, p.maxTimeMinutes, p.defaultTimeMinutes, p.nodes])).toEqual([
      ['debug', 'UP', true, null, null, ['node1']],
      ['short', 'UP', false, 60, 10, ['node1']],
    ]);
    expect(inventory.nodes).toHaveLength(1);
    expect(inventory.nodes[0]).toMatchObject({
      name: 'node1',
      state: { text: 'IDLE', base: 'idle', flags: [], schedulable: true },
      reason: null,
      cpus: 2,
      memoryMiB: 4000,
      gres: [{ name: 'gpu', type: 'fake', count: 2 }],
    });
    expect(inventory.nodeTypes).toEqual([{ cpus: 2, memoryMiB: 4000, gpuType: 'fake', gpusPerNode: 2, nodes: ['node1'], partitions: ['debug', 'short'] }]);
    expect(inventory.accounting.available).toBe(false);
    expect(inventory.accounting.message).toContain('accounting_storage');
    expect(inventory.user.associations).toEqual([]);
  }

  it('on the login node itself', async () => {
    const inventory = await readClusterInventory(local);
    expectTheTestCluster(inventory);
    expect(inventory.hostId).toBe('here');
    expect(inventory.user.name).toBe('root');
  });

  it('over SSH as the login user, whose profile sets SLURM_CONF', async () => {
    const inventory = await readClusterInventory(ssh);
    expectTheTestCluster(inventory);
    expect(inventory.hostId).toBe('login');
    expect(inventory.user.name).toBe(sshd.user);
  });

  it('sees a node an administrator drained, with the reason', async () => {
    const drained = cluster.client('scontrol', ['update', 'NodeName=node1', 'State=DRAIN', "Reason=it's the fan"]);
    expect(drained.stderr).toBe('');
    const inventory = await readClusterInventory(ssh);
    expect(inventory.nodes[0]?.state).toEqual({ text: 'IDLE+DRAIN', base: 'idle', flags: ['DRAIN'], schedulable: false });
    expect(inventory.nodes[0]?.reason).toBe("it's the fan");
  });

  it('fails naming the command when slurmctld does not answer', async () => {
    await cluster.stopDaemon('slurmctld');
    await expect(readClusterInventory(ssh)).rejects.toMatchObject({ code: 'REMOTE_COMMAND_FAILED', message: expect.stringMatching(/^scontrol -o show partition failed on the login node \(exit code 1\): .*Unable to contact slurm controller/) });
  });
});
