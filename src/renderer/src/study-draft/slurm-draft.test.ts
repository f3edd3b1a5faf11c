import { describe, expect, it } from 'vitest';
import latencyExampleText from '../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import { KNOWN_GPUS } from '../../../shared/study/slurm-plan';
import { ProjectFileSchema, StudyDefinitionSchema, type StudyDefinition } from '../../../shared/study/study';
import { currentMessages } from '../i18n';
import { ONE_NODE_CLUSTER, TWO_NODE_CLUSTER } from '../testing/fixtures';
import { assemble } from './assemble';
import { draftFromDefinition } from './draft';
import { accountQos, chosenPartition, emptySlurmDraft, partitionAccounts, partitionGpuTypes, presetFromCluster, withGpuType, withPartition } from './slurm-draft';

// The choices a cluster read offers, on the parser's readings of the test cluster's captures (tests/fixtures/slurm).

describe('what a cluster offers', () => {
  it("lists the user's accounts and QOS per partition (two-node capture, accounting on)", () => {
    const debug = chosenPartition(TWO_NODE_CLUSTER, { partition: '' });
    const short = chosenPartition(TWO_NODE_CLUSTER, { partition: 'short' });
    expect(debug?.name).toBe('debug');
    expect(partitionAccounts(TWO_NODE_CLUSTER, debug)).toEqual(['research']);
    expect(partitionAccounts(TWO_NODE_CLUSTER, short)).toEqual(['teaching', 'research']);
    // No account: the user's default (research).
    expect(accountQos(TWO_NODE_CLUSTER, short, '')).toEqual(['normal', 'short-gpu']);
    expect(accountQos(TWO_NODE_CLUSTER, short, 'teaching')).toEqual(['normal']);
    expect(partitionGpuTypes(TWO_NODE_CLUSTER, 'short')).toEqual([{ type: 'fake', gpusPerNode: 2 }]);
    expect(partitionGpuTypes(TWO_NODE_CLUSTER, 'gpu-less')).toEqual([]);
  });

  it('offers no account when accounting is off (one-node capture)', () => {
    expect(partitionAccounts(ONE_NODE_CLUSTER, chosenPartition(ONE_NODE_CLUSTER, { partition: '' }))).toEqual([]);
  });

  it("presets the partition's GPU type and node size, and the known GPU a type names", () => {
    expect(presetFromCluster(emptySlurmDraft(), TWO_NODE_CLUSTER)).toMatchObject({ gpuType: 'fake', gpusPerNode: '2', gpu: null });
    expect(withGpuType(emptySlurmDraft(), TWO_NODE_CLUSTER, '')).toMatchObject({ gpuType: '', gpusPerNode: '2' });
    // A saved study's choices stand.
    const saved = { ...emptySlurmDraft(), gpuType: 'fake', gpusPerNode: '1', gpu: KNOWN_GPUS.h200 };
    expect(presetFromCluster(saved, TWO_NODE_CLUSTER)).toEqual(saved);
  });

  it('drops an account the new partition does not allow the user', () => {
    const inShort = { ...emptySlurmDraft(), partition: 'short', account: 'teaching', qos: 'normal', gpuType: 'fake' };
    // teaching may submit only to short; the default account (research) has QOS normal too, so it stays.
    expect(withPartition(inShort, TWO_NODE_CLUSTER, 'debug')).toMatchObject({ partition: 'debug', account: '', qos: 'normal', gpuType: 'fake', gpusPerNode: '2' });
    expect(withPartition({ ...inShort, qos: 'high' }, TWO_NODE_CLUSTER, 'debug')).toMatchObject({ account: '', qos: '' });
    expect(withPartition({ ...inShort, account: 'research', qos: 'short-gpu' }, TWO_NODE_CLUSTER, 'debug')).toMatchObject({ account: 'research', qos: 'short-gpu' });
  });
});

describe('a cluster host in the draft', () => {
  const example = ProjectFileSchema.parse(JSON.parse(latencyExampleText)).study;
  const clusterStudy: StudyDefinition = StudyDefinitionSchema.parse({
    ...example,
    demoLab: undefined,
    hosts: [{ hostId: 'hpc', slurm: { partition: 'short', account: 'teaching', gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, timeLimitMinutes: 50, maxQueuedJobs: 3 } }],
  });

  it('assembles back to the saved definition', () => {
    const draft = draftFromDefinition(clusterStudy);
    expect(draft.hosts).toEqual([
      {
        hostId: 'hpc',
        gpus: null,
        allGpus: null,
        slurm: { partition: 'short', account: 'teaching', qos: '', gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: '2', timeLimit: 'minutes', timeLimitMinutes: '50', maxQueuedJobs: '3' },
      },
    ]);
    const assembled = assemble(draft, () => false, currentMessages());
    expect(assembled.issues).toEqual([]);
    expect(assembled.parsed?.hosts).toEqual(clusterStudy.hosts);
  });

  it('names the fields the plan needs, and bounds a trial by one node', () => {
    const draft = draftFromDefinition(clusterStudy);
    const empty = { ...draft, gpusPerTrial: '4', hosts: [{ ...draft.hosts[0]!, slurm: { ...emptySlurmDraft(), maxQueuedJobs: '' } }] };
    expect(assemble(empty, () => false, currentMessages()).issues.map((i) => [i.field, i.message])).toEqual([
      ['hosts.hpc.slurm.gpusPerNode', 'GPUs per node on hpc is required'],
      ['hosts.hpc.slurm.gpu', 'GPU to plan for on hpc is required: the GPU type names no GPU Servelab knows, so choose the one its nodes have'],
      ['hosts.hpc.slurm.maxQueuedJobs', 'Jobs in the queue at once on hpc is required'],
    ]);
    const wide = { ...draft, gpusPerTrial: '4' };
    expect(assemble(wide, () => false, currentMessages()).issues.map((i) => i.field)).toEqual(['gpusPerTrial']);
  });

  it("places the schema's own problems on the Slurm field", () => {
    const draft = draftFromDefinition(clusterStudy);
    const bad = { ...draft, hosts: [{ ...draft.hosts[0]!, slurm: { ...draft.hosts[0]!.slurm!, account: 'my account' } }] };
    expect(assemble(bad, () => false, currentMessages()).issues.map((i) => [i.step, i.field, i.message])).toEqual([['hardware', 'hosts.hpc.slurm.account', 'Account on hpc is not a Slurm name']]);
  });

  it('names the host by its label once the host list gave it, not by its id', () => {
    const draft = draftFromDefinition(clusterStudy);
    const label = (id: string) => (id === 'hpc' ? 'HPC login' : id);
    const noGpu = { ...draft, hosts: [{ ...draft.hosts[0]!, slurm: { ...draft.hosts[0]!.slurm!, gpu: null } }] };
    expect(assemble(noGpu, () => false, currentMessages(), label).issues.map((i) => [i.field, i.message])).toEqual([
      ['hosts.hpc.slurm.gpu', 'GPU to plan for on HPC login is required: the GPU type names no GPU Servelab knows, so choose the one its nodes have'],
    ]);
    const bad = { ...draft, hosts: [{ ...draft.hosts[0]!, slurm: { ...draft.hosts[0]!.slurm!, account: 'my account' } }] };
    expect(assemble(bad, () => false, currentMessages(), label).issues.map((i) => i.message)).toEqual(['Account on HPC login is not a Slurm name']);
  });
});
