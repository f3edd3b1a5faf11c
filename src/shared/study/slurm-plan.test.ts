import { describe, expect, it } from 'vitest';
import { ServelabError } from '../contract/errors';
import { ClusterInventorySchema } from '../model/cluster';
import twoNodeClusterJson from '../../../tests/fixtures/slurm/two-nodes-accounting.cluster.json';
import { estimatePlan, planEngineStage, planGrid } from './planner';
import {
  KNOWN_GPUS,
  clusterPlanContext,
  gresRequest,
  jobTimeLimitMinutes,
  knownGpuForGresType,
  plannedSlurmJobs,
  slurmJobName,
  slurmJobPrefix,
} from './slurm-plan';
import { StudyDefinitionSchema, StudySlurmSchema, type StudyDefinitionInput } from './study';

// The parser's reading of the real test cluster's capture (tests/fixtures/slurm/README.md): partitions `debug`
// (default, MaxTime UNLIMITED) and `short` (MaxTime 60 min), nodes with `Gres=gpu:fake:2`.
const cluster = ClusterInventorySchema.parse(twoNodeClusterJson);

const slurm = (fields: Record<string, unknown> = {}) => StudySlurmSchema.parse({ gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, ...fields });

function study(overrides: Partial<StudyDefinitionInput> = {}, slurmFields: Record<string, unknown> = {}) {
  return StudyDefinitionSchema.parse({
    name: 'Qwen3-8B latency on the cluster',
    model: { id: 'Qwen/Qwen3-8B', variants: [] },
    hosts: [{ hostId: 'host-1', slurm: slurm(slurmFields) }],
    goal: { kind: 'latency' },
    engines: [
      { engine: 'vllm', version: '0.11.0' },
      { engine: 'sglang', version: '0.5.3.post3' },
    ],
    stages: [],
    workloads: {
      primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 },
      generalisation: [{ id: 'sharegpt-c1', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 1 }],
    },
    ...overrides,
  });
}

describe('KNOWN_GPUS', () => {
  it('keeps the simulated box nvidia-smi names and memory', () => {
    expect(KNOWN_GPUS.h100).toEqual({ name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' });
    expect(KNOWN_GPUS.a100).toEqual({ name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' });
    expect(KNOWN_GPUS.h200).toEqual({ name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' });
  });
});

describe('knownGpuForGresType', () => {
  it.each([
    ['h100', 'h100'],
    ['H100', 'h100'],
    ['nvidia_h100_80gb_hbm3', 'h100'],
    ['a100', 'a100'],
    ['a100-sxm4-80gb', 'a100'],
    ['h200', 'h200'],
    ['nvidia_h200_141gb', 'h200'],
  ])('%s is the %s', (type, id) => {
    expect(knownGpuForGresType(type)).toBe(id);
  });

  it.each([
    // The test cluster's type.
    'fake',
    // Another GPU whose name starts the same, another memory size, the H100 NVL.
    'a1000',
    'a100_40gb',
    'nvidia_h100_nvl',
    // MIG slices are GRES types of their own, a fraction of the GPU (as in public sbatch scripts for such clusters).
    'nvidia_h100_80gb_hbm3_1g.10gb',
    'a100_1g.5gb',
    'l40s',
  ])('%s is none of them', (type) => {
    expect(knownGpuForGresType(type)).toBeNull();
  });

  it('is none for no type', () => {
    expect(knownGpuForGresType(null)).toBeNull();
    expect(knownGpuForGresType(undefined)).toBeNull();
  });
});

describe('clusterPlanContext', () => {
  it('is one node of the chosen GPU', () => {
    expect(clusterPlanContext('host-1', slurm({ gpusPerNode: 4 })).gpus).toEqual(
      ['0', '1', '2', '3'].map((index) => ({ hostId: 'host-1', index, name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' })),
    );
  });

  it('takes the known GPU the GRES type names when none is chosen', () => {
    const ctx = clusterPlanContext('c', StudySlurmSchema.parse({ gpuType: 'nvidia_h100_80gb_hbm3', gpusPerNode: 1 }));
    expect(ctx.gpus).toEqual([{ hostId: 'c', index: '0', ...KNOWN_GPUS.h100 }]);
  });

  it('names each missing field', () => {
    const attempt = () => clusterPlanContext('host-1', StudySlurmSchema.parse({ gpuType: 'fake' }));
    expect(attempt).toThrow(ServelabError);
    try {
      attempt();
    } catch (e) {
      expect((e as ServelabError).code).toBe('BAD_INPUT');
      expect((e as ServelabError).issues?.map((i) => i.path)).toEqual(['slurm.gpu', 'slurm.gpusPerNode']);
      expect((e as ServelabError).message).toContain('"fake" names no GPU Servelab knows');
    }
    expect(() => clusterPlanContext('host-1', StudySlurmSchema.parse({ gpuType: 'h100' }))).toThrow(/slurm\.gpusPerNode is required/);
  });
});

describe('jobTimeLimitMinutes', () => {
  it("keeps the study's own limit", () => {
    expect(jobTimeLimitMinutes({ timeLimitMinutes: 45 }, 10_000)).toBe(45);
  });

  it('doubles the estimate, adds 15 minutes and rounds up to 5', () => {
    // 10 min → 20 + 15 = 35; 11 min → 22 + 15 = 37 → 40; nothing → 15.
    expect(jobTimeLimitMinutes({}, 600)).toBe(35);
    expect(jobTimeLimitMinutes({}, 660)).toBe(40);
    expect(jobTimeLimitMinutes({}, 0)).toBe(15);
  });

  it("never goes above the partition's MaxTime; UNLIMITED or unknown leaves it", () => {
    expect(jobTimeLimitMinutes({}, 3600, 60)).toBe(60);
    expect(jobTimeLimitMinutes({ timeLimitMinutes: 600 }, 0, 60)).toBe(60);
    expect(jobTimeLimitMinutes({}, 3600, null)).toBe(135);
    expect(jobTimeLimitMinutes({}, 3600)).toBe(135);
  });
});

describe('slurmJobName', () => {
  it('is deterministic, short, of safe characters, and starts with its study prefix', () => {
    const name = slurmJobName('/home/alice/Qwen3 8B — latency!.servelab', 'ab12CD34ef56');
    expect(name).toBe(slurmJobName('/home/alice/Qwen3 8B — latency!.servelab', 'ab12CD34ef56'));
    expect(name).toMatch(/^[a-z0-9-]+$/);
    expect(name.length).toBeLessThanOrEqual(48);
    expect(name.startsWith(slurmJobPrefix('/home/alice/Qwen3 8B — latency!.servelab'))).toBe(true);
    expect(name.endsWith('-ab12cd34')).toBe(true);
  });

  it('gives two studies prefixes neither of which starts the other', () => {
    const a = slurmJobPrefix('study');
    const b = slurmJobPrefix('study 2');
    expect(a).not.toBe(b);
    expect(a.startsWith(b) || b.startsWith(a)).toBe(false);
    expect(slurmJobPrefix('!!!')).toMatch(/^servelab-[0-9a-f]{6}-$/);
  });
});

describe('plannedSlurmJobs', () => {
  it('is one job per configuration with its trials, workloads, GRES and the time from the estimate', () => {
    const s = study();
    const ctx = clusterPlanContext('host-1', s.hosts[0]!.slurm!);
    const trials = planGrid(s, ctx);
    const estimate = estimatePlan(s, trials, ctx);
    const jobs = plannedSlurmJobs(s, trials, estimate, cluster);
    expect(jobs).toHaveLength(estimate.launches);
    expect(jobs.map((j) => j.serverKey)).toEqual([...new Set(trials.map((t) => t.serverKey))]);
    for (const job of jobs) {
      const own = trials.filter((t) => t.serverKey === job.serverKey);
      expect(job.trials).toBe(own.length);
      expect(job.workloads).toBe(new Set(own.map((t) => t.workloadId)).size);
      expect(job.gres).toBe('gpu:fake:1');
      expect(job.name).toBe(slurmJobName(s.name, job.serverKey));
      // The default partition (debug) is UNLIMITED: the estimate's headroom stands.
      expect(job.timeLimitMinutes).toBe(jobTimeLimitMinutes({}, estimate.perServerSeconds[job.serverKey]!));
      expect(job.timeLimitFrom).toBe('estimate');
      expect(job.cappedByPartition).toBe(false);
      expect(job.estimatedMinutes).toBe(Math.ceil(estimate.perServerSeconds[job.serverKey]! / 60));
      expect(job).toMatchObject({ hostId: 'host-1', partition: null, account: null, qos: null, gpus: 1 });
    }
  });

  it('counts the workloads a job serves', () => {
    const s = study();
    const ctx = clusterPlanContext('host-1', s.hosts[0]!.slurm!);
    const trials = planEngineStage(s, ctx);
    // The same configuration on the second workload, as the generalisation pass plans it: the same job.
    const both = [...trials, ...trials.map((t) => ({ ...t, id: t.id.replace('sharegpt-c4', 'sharegpt-c1'), workloadId: 'sharegpt-c1' }))];
    const jobs = plannedSlurmJobs(s, both, estimatePlan(s, both, ctx), cluster);
    expect(jobs.map((j) => [j.trials, j.workloads])).toEqual([
      [2, 2],
      [2, 2],
    ]);
  });

  it("caps at the chosen partition's MaxTime and keeps the chosen account and QOS", () => {
    const s = study({}, { partition: 'short', account: 'teaching', qos: 'normal', timeLimitMinutes: 120 });
    const ctx = clusterPlanContext('host-1', s.hosts[0]!.slurm!);
    const trials = planEngineStage(s, ctx);
    const [job] = plannedSlurmJobs(s, trials, estimatePlan(s, trials, ctx), cluster);
    expect(job).toMatchObject({ partition: 'short', account: 'teaching', qos: 'normal', timeLimitMinutes: 60, timeLimitFrom: 'study', cappedByPartition: true });
  });

  it('asks for the layout\'s GPUs, and starts nothing for a rejected trial (a layout larger than a node)', () => {
    const s = study({ gpusPerTrial: 2, engines: [{ engine: 'vllm', version: '0.11.0' }] });
    const ctx = clusterPlanContext('host-1', s.hosts[0]!.slurm!);
    const trials = planEngineStage(s, ctx);
    expect(plannedSlurmJobs(s, trials, estimatePlan(s, trials, ctx), cluster).map((j) => j.gres)).toEqual(['gpu:fake:2']);
    const wide = study({ gpusPerTrial: 4, engines: [{ engine: 'vllm', version: '0.11.0' }] });
    const refused = planEngineStage(wide, ctx);
    expect(refused.every((t) => t.status === 'rejected')).toBe(true);
    expect(plannedSlurmJobs(wide, refused, estimatePlan(wide, refused, ctx), cluster)).toEqual([]);
  });

  it('is nothing for a study without a cluster host', () => {
    const s = study({ hosts: [{ hostId: 'box' }] });
    expect(plannedSlurmJobs(s, [], { perServerSeconds: {} })).toEqual([]);
    expect(gresRequest(undefined, 2)).toBe('gpu:2');
  });
});
