import type { ClusterInventory, ClusterPartition } from '../../../shared/model/cluster';
import { KNOWN_GPUS, KNOWN_GPU_IDS, knownGpuForGresType } from '../../../shared/study/slurm-plan';
import type { StudyGpuFacts, StudySlurm } from '../../../shared/study/study';

/**
 * A cluster host's Slurm settings as the wizard holds them (text as typed, '' for "the cluster's default"), how they
 * come back from a saved study, and the choices a cluster read offers: its partitions, the partition's GPU types and
 * node sizes, and the user's accounts and QOS there. Pure, like the rest of the draft.
 */
export interface SlurmDraft {
  /** '' : the cluster's default partition. */
  partition: string;
  /** '' : the user's default account. */
  account: string;
  /** '' : the association's default QOS. */
  qos: string;
  /** '' : any GPU of the partition. */
  gpuType: string;
  /** The GPU the plan assumes; null until chosen or preset from the GPU type. */
  gpu: StudyGpuFacts | null;
  gpusPerNode: string;
  timeLimit: 'estimate' | 'minutes';
  timeLimitMinutes: string;
  maxQueuedJobs: string;
}

export const SLURM_DEFAULT_QUEUED_JOBS = 2;

export function emptySlurmDraft(): SlurmDraft {
  return { partition: '', account: '', qos: '', gpuType: '', gpu: null, gpusPerNode: '', timeLimit: 'estimate', timeLimitMinutes: '', maxQueuedJobs: String(SLURM_DEFAULT_QUEUED_JOBS) };
}

/** A saved study's Slurm settings as the draft. */
export function slurmDraftOf(slurm: StudySlurm): SlurmDraft {
  return {
    partition: slurm.partition ?? '',
    account: slurm.account ?? '',
    qos: slurm.qos ?? '',
    gpuType: slurm.gpuType ?? '',
    gpu: slurm.gpu ?? null,
    gpusPerNode: slurm.gpusPerNode === undefined ? '' : String(slurm.gpusPerNode),
    timeLimit: slurm.timeLimitMinutes === undefined ? 'estimate' : 'minutes',
    timeLimitMinutes: slurm.timeLimitMinutes === undefined ? '' : String(slurm.timeLimitMinutes),
    maxQueuedJobs: String(slurm.maxQueuedJobs),
  };
}

/** The draft's field key of one Slurm setting of a host, for touched fields and issues. */
export function slurmField(hostId: string, field: SlurmField): string {
  return `hosts.${hostId}.slurm.${field}`;
}

/** The known GPU whose facts these are, or null for facts of another GPU (a saved study's own). */
export function knownGpuIdOf(gpu: StudyGpuFacts | null): string | null {
  if (!gpu) return null;
  return KNOWN_GPU_IDS.find((id) => KNOWN_GPUS[id].name === gpu.name && KNOWN_GPUS[id].memoryMiB === gpu.memoryMiB) ?? null;
}

// ---------------------------------------------------------------------------------------------------------------
// What a cluster read offers

/** The partition a job goes to: the chosen one, else the cluster's default. */
export function chosenPartition(cluster: ClusterInventory, draft: Pick<SlurmDraft, 'partition'>): ClusterPartition | null {
  return cluster.partitions.find((p) => (draft.partition ? p.name === draft.partition : p.isDefault)) ?? null;
}

/** The GPU GRES types of the partition's nodes, each with the most GPUs one of its nodes has. */
export function partitionGpuTypes(cluster: ClusterInventory, partition: string | null): { type: string; gpusPerNode: number }[] {
  const types = new Map<string, number>();
  for (const nodeType of cluster.nodeTypes) {
    if (nodeType.gpusPerNode === 0 || nodeType.gpuType === null) continue;
    if (partition !== null && !nodeType.partitions.includes(partition)) continue;
    types.set(nodeType.gpuType, Math.max(types.get(nodeType.gpuType) ?? 0, nodeType.gpusPerNode));
  }
  return [...types].map(([type, gpusPerNode]) => ({ type, gpusPerNode }));
}

/** The most GPUs a node of the partition has, of this type ('' : any type, untyped GPUs included). */
export function gpusPerNodeOf(cluster: ClusterInventory, partition: string | null, gpuType: string): number | null {
  const counts = cluster.nodeTypes
    .filter((n) => n.gpusPerNode > 0 && (partition === null || n.partitions.includes(partition)) && (gpuType === '' || n.gpuType === gpuType))
    .map((n) => n.gpusPerNode);
  return counts.length === 0 ? null : Math.max(...counts);
}

/** The user's accounts that may submit to the partition (sacctmgr associations, and the partition's AllowAccounts). */
export function partitionAccounts(cluster: ClusterInventory, partition: ClusterPartition | null): string[] {
  const accounts = cluster.user.associations.filter((a) => a.partition === null || a.partition === partition?.name).map((a) => a.account);
  const allowed = partition?.allowAccounts;
  return [...new Set(accounts)].filter((a) => !allowed || allowed.includes(a));
}

/** The QOS the account's associations give in the partition ('' account: the user's default account). */
export function accountQos(cluster: ClusterInventory, partition: ClusterPartition | null, account: string): string[] {
  const who = account || cluster.user.defaultAccount;
  const qos = cluster.user.associations.filter((a) => a.account === who && (a.partition === null || a.partition === partition?.name)).flatMap((a) => a.qos);
  const allowed = partition?.allowQos;
  return [...new Set(qos)].filter((q) => !allowed || allowed.includes(q));
}

/**
 * The draft with what the cluster says filled in where the user has not chosen: the partition's first GPU type, its
 * node's GPU count and the known GPU the type names. A choice the partition does not offer is left for the user to see.
 */
export function presetFromCluster(draft: SlurmDraft, cluster: ClusterInventory): SlurmDraft {
  const partition = chosenPartition(cluster, draft);
  const types = partitionGpuTypes(cluster, partition?.name ?? null);
  const gpuType = draft.gpuType || (types[0]?.type ?? '');
  return withGpuType(draft, cluster, gpuType, { keepCount: draft.gpusPerNode !== '' });
}

/** The draft after choosing a GPU type: that type's node size, and the known GPU it names (else the GPU chosen before). */
export function withGpuType(draft: SlurmDraft, cluster: ClusterInventory, gpuType: string, opts: { keepCount?: boolean } = {}): SlurmDraft {
  const partition = chosenPartition(cluster, draft);
  const count = gpusPerNodeOf(cluster, partition?.name ?? null, gpuType);
  const known = knownGpuForGresType(gpuType);
  return {
    ...draft,
    gpuType,
    gpusPerNode: opts.keepCount || count === null ? draft.gpusPerNode : String(count),
    gpu: draft.gpu && opts.keepCount ? draft.gpu : known ? KNOWN_GPUS[known] : draft.gpu,
  };
}

/**
 * The draft after choosing a partition: an account or QOS it does not allow goes back to the default, and a GPU type
 * its nodes lack to the partition's first.
 */
export function withPartition(draft: SlurmDraft, cluster: ClusterInventory, partitionName: string): SlurmDraft {
  const next = { ...draft, partition: partitionName };
  const partition = chosenPartition(cluster, next);
  const accounts = partitionAccounts(cluster, partition);
  if (next.account && cluster.user.associations.length > 0 && !accounts.includes(next.account)) next.account = '';
  if (next.qos && cluster.user.associations.length > 0 && !accountQos(cluster, partition, next.account).includes(next.qos)) next.qos = '';
  const types = partitionGpuTypes(cluster, partition?.name ?? null);
  if (next.gpuType && !types.some((t) => t.type === next.gpuType)) return withGpuType(next, cluster, types[0]?.type ?? '');
  return withGpuType(next, cluster, next.gpuType);
}

/** The Slurm settings a study definition names (`StudySlurmSchema`), each one of the draft's fields. */
export const SLURM_FIELDS = ['partition', 'account', 'qos', 'gpuType', 'gpu', 'gpusPerNode', 'timeLimitMinutes', 'maxQueuedJobs'] as const;
export type SlurmField = (typeof SLURM_FIELDS)[number];

export function isSlurmField(field: string): field is SlurmField {
  return (SLURM_FIELDS as readonly string[]).includes(field);
}
