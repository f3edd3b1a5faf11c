import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmFixtureDir } from '../../../tests/helpers/repo';
import { ServelabError } from '../../shared/contract';
import { parseClusterOutput, parseSlurmVersion } from './parse-cluster';

const fixture = (name: string) => readFileSync(join(slurmFixtureDir, name), 'utf8');
const now = new Date('2026-12-07T17:30:00Z');

describe('parseClusterOutput on the two-node capture (accounting on, one node busy, one drained)', () => {
  const inventory = parseClusterOutput(fixture('two-nodes-accounting.out'), { hostId: 'cluster', now });

  it('reads the version, the cluster and the login user', () => {
    expect(inventory.slurmVersion).toBe('22.05.8');
    expect(inventory.clusterName).toMatch(/^sl[0-9a-f]{4}$/);
    expect(inventory.hostId).toBe('cluster');
    expect(inventory.collectedAt).toBe('2026-12-07T17:30:00.000Z');
    expect(inventory.user.name).toBe('alice');
  });

  it('reads both partitions with their limits and nodes', () => {
    expect(inventory.partitions).toEqual([
      {
        name: 'debug',
        state: 'UP',
        isDefault: true,
        nodeList: 'gpu[1-2]',
        nodes: ['gpu1', 'gpu2'],
        maxTimeMinutes: null,
        defaultTimeMinutes: null,
        totalCpus: 4,
        totalNodes: 2,
        allowAccounts: null,
        allowQos: null,
        qos: null,
      },
      {
        name: 'short',
        state: 'UP',
        isDefault: false,
        nodeList: 'gpu[1-2]',
        nodes: ['gpu1', 'gpu2'],
        maxTimeMinutes: 60,
        defaultTimeMinutes: 10,
        totalCpus: 4,
        totalNodes: 2,
        allowAccounts: null,
        allowQos: null,
        qos: null,
      },
    ]);
  });

  it('reads the nodes: states, the drain reason without its stamp, CPUs, memory and GPUs', () => {
    expect(inventory.nodes.map((node) => [node.name, node.state.text, node.state.schedulable, node.reason])).toEqual([
      ['gpu1', 'MIXED', true, null],
      ['gpu2', 'IDLE+DRAIN', false, 'fake GPU check'],
    ]);
    expect(inventory.nodes[0]).toMatchObject({ cpus: 2, memoryMiB: 4000, gres: [{ name: 'gpu', type: 'fake', count: 2 }], partitions: ['debug', 'short'], features: [], arch: 'x86_64' });
    expect(inventory.nodeTypes).toEqual([{ cpus: 2, memoryMiB: 4000, gpuType: 'fake', gpusPerNode: 2, nodes: ['gpu1', 'gpu2'], partitions: ['debug', 'short'] }]);
  });

  it("reads the user's accounts, partition-bound ones included, and the default account", () => {
    expect(inventory.accounting).toEqual({ available: true, message: null });
    expect(inventory.user.defaultAccount).toBe('research');
    expect(inventory.user.associations).toEqual([
      { cluster: inventory.clusterName, account: 'teaching', partition: 'short', qos: ['normal'], defaultQos: null },
      { cluster: inventory.clusterName, account: 'research', partition: null, qos: ['normal', 'short-gpu'], defaultQos: null },
    ]);
  });
});

describe('parseClusterOutput on the one-node capture (no accounting)', () => {
  const inventory = parseClusterOutput(fixture('one-node.out'), { hostId: 'local', now });

  it('reads the cluster and says why accounts are unknown', () => {
    expect(inventory.nodes.map((node) => [node.name, node.state.text])).toEqual([['node1', 'IDLE']]);
    expect(inventory.partitions.map((p) => p.name)).toEqual(['debug', 'short']);
    expect(inventory.user).toEqual({ name: 'root', defaultAccount: null, associations: [] });
    expect(inventory.accounting.available).toBe(false);
    expect(inventory.accounting.message).toBe("You are not running a supported accounting_storage plugin Only 'accounting_storage/slurmdbd' is supported.");
  });
});

describe('parseClusterOutput failures', () => {
  it('names the command that failed and what it said', () => {
    // The capture with scontrol's node listing failing as it does when slurmctld is down (edge case: message
    // written after scontrol's "Unable to contact slurm controller (connect failure)").
    const broken = fixture('one-node.out').replace(/(@@servelab:begin slurm-nodes\n)[\s\S]*?(\n@@servelab:end slurm-nodes) rc=0/, '$1slurm_load_node error: Unable to contact slurm controller (connect failure)\n$2 rc=1');
    expect(broken).not.toBe(fixture('one-node.out'));
    let error: unknown;
    try {
      parseClusterOutput(broken, { hostId: 'local', now });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('REMOTE_COMMAND_FAILED');
    expect((error as ServelabError).message).toBe(
      'scontrol -o show node failed on the login node (exit code 1): slurm_load_node error: Unable to contact slurm controller (connect failure)',
    );
  });

  it('reads upstream and Debian version strings', () => {
    expect(parseSlurmVersion('slurm-wlm 22.05.8\n')).toBe('22.05.8');
    // Edge case: upstream builds print `slurm X.Y.Z` (print_slurm_version in src/common/proc_args.c, AC_INIT(slurm…)).
    expect(parseSlurmVersion('slurm 23.11.4\n')).toBe('23.11.4');
    expect(() => parseSlurmVersion('sinfo: command not found')).toThrow('printed no Slurm version');
  });
});

// The UI's tests show clusters read from these captures: the JSON beside each capture is exactly what this parser
// makes of it (for host `host-1`). `SERVELAB_WRITE_CLUSTER_JSON=1` writes them again after a parser change.
describe('the parsed captures the UI tests use', () => {
  for (const capture of ['two-nodes-accounting', 'one-node']) {
    it(`${capture}.cluster.json is the parse of ${capture}.out`, () => {
      const parsed = parseClusterOutput(fixture(`${capture}.out`), { hostId: 'host-1', now });
      const path = join(slurmFixtureDir, `${capture}.cluster.json`);
      if (process.env.SERVELAB_WRITE_CLUSTER_JSON === '1') writeFileSync(path, JSON.stringify(parsed, null, 2) + '\n');
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(parsed);
    });
  }
});
