// A host marked as a Slurm cluster's login node, read through a whole core (hosts:cluster) as the UI drives it: over a
// real sshd whose login user's ~/.profile points at a real one-node Slurm cluster with fake GPU GRES
// (tests/helpers/slurm.ts). A host not marked as a cluster is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { MemorySecretStore } from '../../src/core/secrets/secret-store';
import type { Envelope } from '../../src/shared/contract';
import type { ClusterInventory } from '../../src/shared/model/cluster';
import type { Host } from '../../src/shared/model/host';
import { slurmUnavailable, startSlurmCluster, TEST_GPU_TYPE, TEST_PARTITIONS, type SlurmCluster } from '../helpers/slurm';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[core-slurm-host] skipped: ${unavailable}\n`);

function ok<T>(envelope: Envelope<unknown>): T {
  if (!envelope.ok) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.data as T;
}

describe.skipIf(unavailable !== null)('a Slurm cluster host through the core', () => {
  let cluster: SlurmCluster;
  let sshd: TestSshd;
  let dataDir: string;
  let core: Core;

  beforeAll(async () => {
    // One after the other, so that afterAll stops whichever started when the other fails.
    sshd = await startTestSshd({ nvidiaSmi: false });
    cluster = await startSlurmCluster(options);
    await cluster.addToProfile(sshd.homeDir);
    dataDir = await mkdtemp(join(tmpdir(), 'servelab-slurm-host-'));
    core = await createCore({
      dataDir,
      secrets: new MemorySecretStore(),
      userKnownHostsFiles: [],
      sshConfigPath: join(dataDir, 'no-ssh-config'),
      env: { HOME: dataDir, USER: 'tester', PATH: process.env.PATH ?? '/usr/bin:/bin' },
      connectTimeoutSeconds: 10,
      simboxBinDir: null,
    });
  });
  afterAll(async () => {
    await core?.close();
    await Promise.all([cluster?.stop(), sshd?.stop()]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const login = () => ({ address: '127.0.0.1', port: sshd.port, user: sshd.user, identityFile: sshd.identityFile });

  it('reads the partitions and the fake GPU GRES of the cluster behind the login node, and remembers them', async () => {
    const host = ok<Host>(await core.dispatch('hosts:add', { ...login(), label: 'test cluster', scheduler: 'slurm' }));
    expect(host.scheduler).toBe('slurm');
    const saved = JSON.parse(await readFile(join(dataDir, 'hosts.json'), 'utf8')) as { hosts: Host[] };
    expect(saved.hosts.find((h) => h.id === host.id)?.scheduler).toBe('slurm');

    const first = await core.dispatch('hosts:cluster', { hostId: host.id });
    expect(first).toMatchObject({ ok: false, error: { code: 'HOST_KEY_UNKNOWN' } });
    ok(await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));

    const read = ok<ClusterInventory>(await core.dispatch('hosts:cluster', { hostId: host.id }));
    expect(read.hostId).toBe(host.id);
    expect(read.clusterName).toBe(cluster.clusterName);
    expect(`slurm-wlm ${read.slurmVersion}`).toBe(cluster.client('sinfo', ['--version']).stdout.trim());
    expect(read.partitions.map((p) => [p.name, p.isDefault, p.maxTimeMinutes, p.nodes])).toEqual([
      [TEST_PARTITIONS[0].name, true, null, ['node1']],
      [TEST_PARTITIONS[1].name, false, 60, ['node1']],
    ]);
    expect(read.nodes.map((n) => [n.name, n.gres])).toEqual([['node1', [{ name: 'gpu', type: TEST_GPU_TYPE, count: 2 }]]]);
    expect(read.nodeTypes.map((t) => [t.gpuType, t.gpusPerNode, t.nodes])).toEqual([[TEST_GPU_TYPE, 2, ['node1']]]);
    expect(read.user.name).toBe(sshd.user);
    expect(read.accounting.available).toBe(false);
    expect(core.lastClusterInventory(host.id)).toEqual(read);

    // Unmarking the host forgets what was read and refuses the next read.
    ok(await core.dispatch('hosts:update', { hostId: host.id, scheduler: null }));
    expect(core.lastClusterInventory(host.id)).toBeNull();
    expect(await core.dispatch('hosts:cluster', { hostId: host.id })).toMatchObject({ ok: false, error: { code: 'NOT_SUPPORTED' } });
  });

  it('refuses a host not marked as a cluster, naming it', async () => {
    const host = ok<Host>(await core.dispatch('hosts:add', { ...login(), label: 'plain box' }));
    expect(host.scheduler).toBeNull();
    const refused = await core.dispatch('hosts:cluster', { hostId: host.id });
    expect(refused).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'NOT_SUPPORTED', message: expect.stringMatching(/^plain box is not marked as a Slurm cluster/) }),
    });
    expect(core.lastClusterInventory(host.id)).toBeNull();
  });
});
