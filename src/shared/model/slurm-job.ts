import { z } from 'zod';
import { SHELL_ENV_NAME as ENV_NAME } from '../shell-quote';

// A batch job on a Slurm cluster, submitted and watched through the login node (src/core/cluster/slurm-jobs.ts).

/** Slurm's job ids as sbatch prints them: plain numbers (arrays and heterogeneous jobs are not submitted). */
export const SlurmJobIdSchema = z.string().regex(/^\d+$/, 'a Slurm job id is a number');

/** Environment names a batch script may export. */
/** A path on the cluster's shared storage: absolute, or `~/…` under the login user's HOME. */
const SharedPathSchema = z
  .string()
  .min(1)
  .refine((path) => path.startsWith('/') || path.startsWith('~/'), 'must be absolute or start with ~/')
  .refine((path) => !path.includes('\n'), 'must be one line')
  // sbatch reads `%j`, `%x`, … in --output and --error as patterns (and `\\` as their escape): a path names one file.
  .refine((path) => !/[%\\]/.test(path), 'must not contain % or \\ (Slurm file name patterns)');

export const SlurmJobSpecSchema = z.object({
  /** `--job-name`; a study's jobs share a prefix so they can be found and cancelled together. */
  name: z.string().min(1).max(200).refine((name) => !/[\n\r]/.test(name), 'must be one line'),
  /** The batch script's commands (POSIX sh); a `#!/bin/sh` line is added when it has none. */
  script: z.string().min(1),
  /** Exported at the top of the batch script. */
  env: z.record(z.string().regex(ENV_NAME, 'not an environment variable name'), z.string()).default({}),
  /** `--partition`; the cluster's default partition when absent. */
  partition: z.string().min(1).optional(),
  account: z.string().min(1).optional(),
  qos: z.string().min(1).optional(),
  /** `--gres=gpu[:type]:count`, per node. */
  gpus: z
    .object({
      type: z.string().min(1).regex(/^[^:,\s]+$/, 'a GPU type has no `:`, `,` or space').nullable().default(null),
      count: z.number().int().positive(),
    })
    .optional(),
  cpusPerTask: z.number().int().positive().optional(),
  /** `--mem`, per node. */
  memoryMiB: z.number().int().positive().optional(),
  /** `--time` in whole minutes: Slurm keeps time limits in minutes. */
  timeLimitMinutes: z.number().int().positive(),
  /** `--output`: where the job's standard output goes, on storage the compute nodes and the login node share. */
  outputPath: SharedPathSchema,
  /** `--error`; with the output when absent. */
  errorPath: SharedPathSchema.optional(),
  /** `--chdir`: the job's working folder, shared as well. */
  workDir: SharedPathSchema,
  /**
   * Whether Slurm may run the job again after a node failure or preemption (`--requeue`). Off by default
   * (`--no-requeue`): one job is one attempt, and a job Slurm ended is reported with Slurm's cause.
   */
  requeue: z.boolean().default(false),
});
export type SlurmJobSpec = z.input<typeof SlurmJobSpecSchema>;
export type SlurmJobSpecParsed = z.output<typeof SlurmJobSpecSchema>;

export const SlurmSubmittedJobSchema = z.object({
  jobId: SlurmJobIdSchema,
  /** What `sbatch --parsable` printed after `;` on a multi-cluster setup; null otherwise. */
  cluster: z.string().nullable(),
});
export type SlurmSubmittedJob = z.infer<typeof SlurmSubmittedJobSchema>;

/**
 * The words Slurm prints for a job's state, job_state_string in src/common/slurm_protocol_defs.c (SchedMD/slurm,
 * slurm-22-05-8-1): the base states, then the flags it prints instead of the base when set. `UNKNOWN` is ours: no
 * source knows the job any more (it left slurmctld's memory after MinJobAge and there is no accounting).
 */
export const SLURM_JOB_STATES = [
  'PENDING',
  'RUNNING',
  'SUSPENDED',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'TIMEOUT',
  'NODE_FAIL',
  'PREEMPTED',
  'BOOT_FAIL',
  'DEADLINE',
  'OUT_OF_MEMORY',
  'COMPLETING',
  'STAGE_OUT',
  'CONFIGURING',
  'RESIZING',
  'REQUEUED',
  'REQUEUE_FED',
  'REQUEUE_HOLD',
  'SPECIAL_EXIT',
  'STOPPED',
  'REVOKED',
  'RESV_DEL_HOLD',
  'SIGNALING',
  'UNKNOWN',
] as const;
export type SlurmJobStateName = (typeof SLURM_JOB_STATES)[number];

/**
 * Where a job is in its life: waiting for resources (or held, or requeued), holding them (including configuring,
 * suspended and completing), over for good, or unknown to every source.
 */
export const SLURM_JOB_PHASES = ['pending', 'running', 'ended', 'unknown'] as const;

export const SlurmJobStateSchema = z.object({
  jobId: SlurmJobIdSchema,
  state: z.enum(SLURM_JOB_STATES),
  phase: z.enum(SLURM_JOB_PHASES),
  /** Which command answered: squeue for jobs in the queue, scontrol or sacct for ended ones, none when unknown. */
  source: z.enum(['squeue', 'scontrol', 'sacct', 'none']),
  /** Slurm's reason (`Resources`, `Priority`, `NonZeroExitCode`, `TimeLimit`, …); null for `None`. */
  reason: z.string().nullable(),
  /** The allocated nodes as Slurm's hostlist (`gpu[1-2]`); null while pending. */
  nodeList: z.string().nullable(),
  /** Slurm's local time on the cluster, `YYYY-MM-DDThh:mm:ss`; null while unknown. */
  startTime: z.string().nullable(),
  endTime: z.string().nullable(),
  /** The batch script's exit code and the signal that ended it (`ExitCode=3:0`); null until the job ended. */
  exitCode: z.number().int().nullable(),
  signal: z.number().int().nullable(),
});
export type SlurmJobState = z.infer<typeof SlurmJobStateSchema>;
