import { ServelabError } from '../contract/errors';
import type { ClusterInventory, ClusterPartition } from '../model/cluster';
import type { EngineId } from '../engines/types';
import type { PlanContext } from './plan-context';
import { hash64, type PlanEstimate } from './planner';
import { trialGpuCount, type StudyDefinition, type StudyGpuFacts, type StudySlurm, type Trial } from './study';

/**
 * Planning a study on a Slurm cluster before any job ran: which GPU the jobs will get (from the GRES type, or the
 * user's choice), one node's worth of them as the study's hardware, and the batch jobs the runner will submit — one
 * per server configuration, with all of its trials — with their GRES request, partition, account, QOS and time limit.
 */

export type KnownGpuId = 'h100' | 'a100' | 'h200';

/**
 * GPUs Servelab knows by name, as `nvidia-smi --query-gpu=name,memory.total,compute_cap` prints them (the simulated
 * box's captures, resources/simbox): the demo lab's GPU types, and what a cluster study plans on until a job has read
 * its node's GPUs.
 */
export const KNOWN_GPUS: Readonly<Record<KnownGpuId, StudyGpuFacts>> = {
  h100: { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' },
  a100: { name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' },
  h200: { name: 'NVIDIA H200', memoryMiB: 143771, computeCapability: '9.0' },
};
export const KNOWN_GPU_IDS = Object.keys(KNOWN_GPUS) as KnownGpuId[];

/** The nominal memory each known GPU's name states, in GB, to refuse a type naming another size. */
const NOMINAL_GB: Record<KnownGpuId, number> = { h100: 80, a100: 80, h200: 141 };

/**
 * The known GPU a GRES type names, when its name says so: `h100`, `a100`, `h200`, or an NVML-style name such as
 * `nvidia_h100_80gb_hbm3` (Slurm's AutoDetect=nvml types are the device name in lower case). Nothing for a type that
 * names no known GPU (`fake`, `a1000`), a MIG slice (`nvidia_h100_80gb_hbm3_1g.10gb`, `a100_1g.5gb`: a fraction of
 * the GPU, types of their own on real clusters), another memory size (`a100_40gb`) or the H100 NVL (94 GB). A bare
 * `a100` is taken as the 80 GB part; the wizard shows the choice, so a cluster of 40 GB ones changes it.
 */
export function knownGpuForGresType(type: string | null | undefined): KnownGpuId | null {
  if (!type) return null;
  const name = type.toLowerCase();
  if (/\d+g\.\d+gb/.test(name)) return null;
  const tokens = name.split(/[^a-z0-9]+/).filter(Boolean);
  for (const id of KNOWN_GPU_IDS) {
    // `h100` or `h100sxm`, but not `a1000` (another GPU whose name starts the same).
    if (!tokens.some((tok) => tok.startsWith(id) && !/^\d/.test(tok.slice(id.length)))) continue;
    if (tokens.includes('nvl')) return null;
    const sizes = tokens.map((tok) => /^(\d+)gb?$/.exec(tok)?.[1]).filter((n): n is string => n !== undefined);
    if (sizes.some((gb) => Number(gb) !== NOMINAL_GB[id])) return null;
    return id;
  }
  return null;
}

/** The GPU a cluster study plans on: the one the user chose, else the known GPU its GRES type names; null if neither. */
export function slurmPlanningGpu(slurm: Pick<StudySlurm, 'gpu' | 'gpuType'>): StudyGpuFacts | null {
  if (slurm.gpu) return slurm.gpu;
  const known = knownGpuForGresType(slurm.gpuType);
  return known ? KNOWN_GPUS[known] : null;
}

/**
 * What planning knows of a cluster host: one node's GPUs (`gpusPerNode` of the planning GPU), since each job runs on
 * one node and a login node has none of its own. Throws BAD_INPUT naming the field when the GPU or the count is not
 * known (the wizard fills both from the cluster).
 */
export function clusterPlanContext(hostId: string, slurm: StudySlurm): PlanContext {
  const gpu = slurmPlanningGpu(slurm);
  const missing = [
    ...(gpu ? [] : [{ path: 'slurm.gpu', message: `is required: the GPU type ${slurm.gpuType ? `"${slurm.gpuType}"` : '(any)'} names no GPU Servelab knows, so say which GPU it is` }]),
    ...(slurm.gpusPerNode ? [] : [{ path: 'slurm.gpusPerNode', message: 'is required: how many GPUs one node of the partition has' }]),
  ];
  if (!gpu || !slurm.gpusPerNode) {
    throw new ServelabError('BAD_INPUT', `Cannot plan on cluster host ${hostId}: ${missing.map((m) => `${m.path} ${m.message}`).join('; ')}.`, {
      issues: missing,
    });
  }
  return {
    gpus: Array.from({ length: slurm.gpusPerNode }, (_, i) => ({ hostId, index: String(i), name: gpu.name, memoryMiB: gpu.memoryMiB, computeCapability: gpu.computeCapability })),
  };
}

/**
 * A job's `--time` in minutes: the user's limit when set; else the estimate ×2 + 15 min, rounded up to 5 min. The
 * estimate is a roofline, never a measurement, and a job's first launch on a node may also fetch weights and compile;
 * a job that reaches its limit is killed (TIMEOUT) with its configuration's remaining trials, while a longer limit
 * only costs some backfill priority. Never above the partition's MaxTime (null: UNLIMITED; absent: not known), where
 * sbatch would refuse the job or leave it pending for PartitionTimeLimit.
 */
export function jobTimeLimitMinutes(slurm: Pick<StudySlurm, 'timeLimitMinutes'>, serverSeconds: number, partitionMaxMinutes?: number | null): number {
  const wanted = slurm.timeLimitMinutes ?? Math.ceil((2 * (serverSeconds / 60) + 15) / 5) * 5;
  return partitionMaxMinutes ? Math.min(wanted, partitionMaxMinutes) : wanted;
}

const JOB_NAME_PREFIX = 'servelab';

/**
 * The name prefix all of one study's jobs share (`servelab-<slug>-<hash>-`), so `cancelSlurmJobsNamed` finds them:
 * a readable slug of the project (or study) name and a hash of it, so two studies never share a prefix.
 * Only `[a-z0-9-]`: safe in squeue's output and in any shell.
 */
export function slurmJobPrefix(project: string): string {
  const slug = project
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 20)
    .replace(/-+$/, '');
  return `${JOB_NAME_PREFIX}-${slug ? `${slug}-` : ''}${hash64(project).slice(0, 6)}-`;
}

/** One configuration's job name: the study's prefix and the first 8 characters of its server key (deterministic). */
export function slurmJobName(project: string, serverKey: string): string {
  return `${slurmJobPrefix(project)}${serverKey.toLowerCase().replace(/[^a-z0-9]/g, '').slice(0, 8)}`;
}

/** `--gres` as sbatch will get it: `gpu:<type>:<count>`, or `gpu:<count>` for any GPU of the partition. */
export function gresRequest(gpuType: string | undefined, count: number): string {
  return `gpu:${gpuType ? `${gpuType}:` : ''}${count}`;
}

/** The study's first host with Slurm settings (the jobs' cluster), or null for a study of plain boxes. */
export function slurmHostOf(study: Pick<StudyDefinition, 'hosts'>): { hostId: string; slurm: StudySlurm } | null {
  const host = study.hosts.find((h) => h.slurm !== undefined);
  return host?.slurm ? { hostId: host.hostId, slurm: host.slurm } : null;
}

/** The partition a job goes to: the named one, else the cluster's default; null when the cluster is not read. */
export function jobPartition(slurm: Pick<StudySlurm, 'partition'>, cluster: ClusterInventory | undefined): ClusterPartition | null {
  if (!cluster) return null;
  return cluster.partitions.find((p) => (slurm.partition ? p.name === slurm.partition : p.isDefault)) ?? null;
}

export interface PlannedSlurmJob {
  serverKey: string;
  /** `--job-name`. */
  name: string;
  hostId: string;
  /** The configuration's label (its first trial's, workload aside). */
  label: string;
  engine: EngineId;
  version: string;
  mode: 'env' | 'docker';
  gpus: number;
  /** `--gres`, e.g. `gpu:a100:2`. */
  gres: string;
  /** null: the cluster's default (partition), the user's default account, the association's default QOS. */
  partition: string | null;
  account: string | null;
  qos: string | null;
  /** `--time` in minutes. */
  timeLimitMinutes: number;
  /** Where the limit came from: the user's, or the estimate with headroom. */
  timeLimitFrom: 'study' | 'estimate';
  /** The partition's MaxTime lowered it. */
  cappedByPartition: boolean;
  trials: number;
  workloads: number;
  /** The estimate's minutes for the configuration: launch, warm-ups and benchmarks. */
  estimatedMinutes: number;
}

/**
 * The batch jobs a plan submits on its cluster host, in plan order: one per server configuration that starts
 * (rejected trials start nothing). `cluster`, when read, gives the partition's MaxTime; `project` names the study in
 * the job names (`slurmJobName`), the study's name when absent.
 */
export function plannedSlurmJobs(
  study: StudyDefinition,
  trials: readonly Trial[],
  estimate: Pick<PlanEstimate, 'perServerSeconds'>,
  cluster?: ClusterInventory,
  project: string = study.name,
): PlannedSlurmJob[] {
  const host = slurmHostOf(study);
  if (!host) return [];
  const { slurm } = host;
  const partition = jobPartition(slurm, cluster);
  const maxMinutes = partition ? partition.maxTimeMinutes : undefined;
  const jobs = new Map<string, PlannedSlurmJob & { workloadIds: Set<string> }>();
  for (const trial of trials) {
    if (trial.status === 'rejected') continue;
    const existing = jobs.get(trial.serverKey);
    if (existing) {
      existing.trials += 1;
      existing.workloadIds.add(trial.workloadId);
      continue;
    }
    const gpus = trialGpuCount(study, trial);
    const seconds = estimate.perServerSeconds[trial.serverKey] ?? 0;
    const uncapped = jobTimeLimitMinutes(slurm, seconds);
    const timeLimitMinutes = jobTimeLimitMinutes(slurm, seconds, maxMinutes);
    jobs.set(trial.serverKey, {
      serverKey: trial.serverKey,
      name: slurmJobName(project, trial.serverKey),
      hostId: host.hostId,
      label: trial.label,
      engine: trial.engine,
      version: trial.version,
      mode: trial.mode,
      gpus,
      gres: gresRequest(slurm.gpuType, gpus),
      partition: slurm.partition ?? null,
      account: slurm.account ?? null,
      qos: slurm.qos ?? null,
      timeLimitMinutes,
      timeLimitFrom: slurm.timeLimitMinutes !== undefined ? 'study' : 'estimate',
      cappedByPartition: timeLimitMinutes < uncapped,
      trials: 1,
      workloads: 0,
      workloadIds: new Set([trial.workloadId]),
      estimatedMinutes: Math.ceil(seconds / 60),
    });
  }
  return [...jobs.values()].map(({ workloadIds, ...job }) => ({ ...job, workloads: workloadIds.size }));
}
