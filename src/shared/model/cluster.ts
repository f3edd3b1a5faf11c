import { z } from 'zod';

// What Servelab knows of a Slurm cluster reached through a login node: read with sinfo, scontrol and sacctmgr
// (src/core/cluster/read-cluster.ts). Times are minutes, as Slurm keeps partition limits; memory is Slurm's MB, which
// are MiB (RealMemory in slurm.conf(5)).

/** A node's base state, Slurm's node_states table (src/common/slurm_protocol_defs.c, 22.05) in lower case. */
export const SLURM_NODE_BASE_STATES = ['idle', 'allocated', 'mixed', 'down', 'error', 'future', 'unknown'] as const;

export const SlurmNodeStateSchema = z.object({
  /** As Slurm printed it: `IDLE+DRAIN` (scontrol), `idle*` or `mix~` (sinfo). */
  text: z.string(),
  /** null when Slurm's word names no base state (`DRAINED` says only that no job runs; `INVAL`, `?`). */
  base: z.enum(SLURM_NODE_BASE_STATES).nullable(),
  /** Slurm's flag names in upper case (node_state_flags): DRAIN, NOT_RESPONDING, POWERED_DOWN, MAINTENANCE, … */
  flags: z.array(z.string()),
  /** Whether the scheduler may start new jobs on the node now or once it powers up. */
  schedulable: z.boolean(),
});
export type SlurmNodeState = z.infer<typeof SlurmNodeStateSchema>;

/** One generic resource of a node, e.g. `gpu:a100:4(S:0-1)` → { name: gpu, type: a100, count: 4 }. */
export const GresSchema = z.object({
  name: z.string().min(1),
  type: z.string().min(1).nullable(),
  count: z.number().int().nonnegative(),
});
export type Gres = z.infer<typeof GresSchema>;

export const ClusterNodeSchema = z.object({
  name: z.string().min(1),
  state: SlurmNodeStateSchema,
  /** Why an administrator drained or downed it (`Reason=`, without Slurm's `[user@time]`); null when none. */
  reason: z.string().nullable(),
  partitions: z.array(z.string()),
  cpus: z.number().int().nonnegative(),
  memoryMiB: z.number().int().nonnegative().nullable(),
  gres: z.array(GresSchema),
  features: z.array(z.string()),
  arch: z.string().nullable(),
});
export type ClusterNode = z.infer<typeof ClusterNodeSchema>;

export const PARTITION_STATES = ['UP', 'DOWN', 'DRAIN', 'INACTIVE', 'UNKNOWN'] as const;

export const ClusterPartitionSchema = z.object({
  name: z.string().min(1),
  /** `State=`: only UP partitions start jobs; DRAIN ones take none new; DOWN ones queue them. */
  state: z.enum(PARTITION_STATES),
  isDefault: z.boolean(),
  /** The partition's node list as Slurm prints it (a hostlist such as `gpu[1-2]`). */
  nodeList: z.string(),
  /** The nodes whose `Partitions=` name this partition. */
  nodes: z.array(z.string()),
  /** null: UNLIMITED. */
  maxTimeMinutes: z.number().int().nonnegative().nullable(),
  /** null: NONE or UNLIMITED, where a job without --time gets the partition's maximum. */
  defaultTimeMinutes: z.number().int().nonnegative().nullable(),
  totalCpus: z.number().int().nonnegative().nullable(),
  totalNodes: z.number().int().nonnegative().nullable(),
  /** `AllowAccounts=`/`AllowQos=`; null: ALL. A partition with DenyAccounts instead lists none here. */
  allowAccounts: z.array(z.string()).nullable(),
  allowQos: z.array(z.string()).nullable(),
  /** The partition's own QOS (`QoS=`), null for N/A. */
  qos: z.string().nullable(),
});
export type ClusterPartition = z.infer<typeof ClusterPartitionSchema>;

/** Nodes alike in what a job can ask of them: CPUs, memory and GPUs. */
export const ClusterNodeTypeSchema = z.object({
  cpus: z.number().int().nonnegative(),
  memoryMiB: z.number().int().nonnegative().nullable(),
  /** The `gpu` GRES type (`a100`); null for untyped GPUs or none. */
  gpuType: z.string().nullable(),
  gpusPerNode: z.number().int().nonnegative(),
  nodes: z.array(z.string()).min(1),
  partitions: z.array(z.string()),
});
export type ClusterNodeType = z.infer<typeof ClusterNodeTypeSchema>;

/** One row of `sacctmgr show assoc`: the user may submit under this account (in this partition, when one is named). */
export const ClusterAssociationSchema = z.object({
  cluster: z.string(),
  account: z.string().min(1),
  /** null: every partition. */
  partition: z.string().nullable(),
  qos: z.array(z.string()),
  defaultQos: z.string().nullable(),
});
export type ClusterAssociation = z.infer<typeof ClusterAssociationSchema>;

export const ClusterInventorySchema = z.object({
  hostId: z.string(),
  collectedAt: z.string(),
  /** `sinfo --version`, e.g. `22.05.8`. */
  slurmVersion: z.string(),
  clusterName: z.string().nullable(),
  partitions: z.array(ClusterPartitionSchema),
  nodes: z.array(ClusterNodeSchema),
  nodeTypes: z.array(ClusterNodeTypeSchema),
  user: z.object({
    name: z.string().min(1),
    /** From sacctmgr; null when accounting cannot be read. */
    defaultAccount: z.string().nullable(),
    associations: z.array(ClusterAssociationSchema),
  }),
  /** Whether sacctmgr answered; when not, `message` is what it said (no slurmdbd, not allowed, timed out). */
  accounting: z.object({ available: z.boolean(), message: z.string().nullable() }),
});
export type ClusterInventory = z.infer<typeof ClusterInventorySchema>;
