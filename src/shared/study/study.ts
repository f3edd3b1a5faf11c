import { z } from 'zod';
import { ENGINE_IDS, type EngineId } from '../engines/types';
import { ModelRefSchema, ServerConfigSchema, type ServerConfig } from '../engines/server-config';
import { serverGpuCount } from '../engines/parallelism';
import { arrivalRefusal } from '../bench/arrival-support';
import { WorkloadSchema, type Workload } from '../bench/workload';
import { ConfigFileSchema, fileRefsOf, MAX_CONFIG_FILES } from '../engines/config-files';
import { METRIC_CATALOGUE } from '../results/metrics';
import { ResultEntrySchema } from '../results/result-entry';
import { BenchResultSchema } from '../results/bench-result';
import { DEFAULT_REPEAT_BUDGET, defaultMarginPct } from './noise';
import { RefusalSchema, RunFailureSchema } from './trial-problem';
import { REPORT_LANGS } from './report/text';

/**
 * A study: what the reference tuning guides do by hand (the reference studies) as data. A definition says what to try; the
 * state records what was tried, what it measured and what was decided. Both live in the `.servelab` project file.
 */

const Slug = z
  .string()
  .min(1, 'is required')
  .max(64, 'is longer than 64 characters')
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'may only hold lower-case letters, digits and . _ - (starting with a letter or digit)');

const EngineIdSchema = z.enum(ENGINE_IDS, { error: `must be one of ${ENGINE_IDS.join(', ')}` });
export const VersionSchema = z.string().regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/, 'is not a version number');

/** Settings a candidate changes on top of the best configuration so far; the model comes from the study. */
// No defaults inside a patch: reading a saved project must give back exactly what was written.
export const ConfigPatchSchema = ServerConfigSchema.omit({ model: true, host: true, port: true, extraArgs: true, env: true })
  .partial()
  .extend({ extraArgs: ServerConfigSchema.shape.extraArgs.unwrap().optional(), env: ServerConfigSchema.shape.env.unwrap().optional() })
  .strict();
export type ConfigPatch = z.infer<typeof ConfigPatchSchema>;

/** Another checkpoint of the study's model (a quantized one, say), chosen by a candidate. */
export const ModelVariantSchema = z
  .object({
    id: Slug,
    model: ModelRefSchema,
    label: z.string().max(200).optional(),
    /** Weight precision, for the fit check: bf16 (2 bytes/param), fp8 (1), awq/int4 (0.5), mxfp4 (MoE experts at 4.25 bits). */
    precision: z.enum(['bf16', 'fp16', 'fp8', 'int8', 'awq', 'int4', 'fp4', 'mxfp4']).optional(),
    /** The checkpoint uses block-scaled FP8 GEMMs (DeepSeek/Qwen3 `-FP8`): TensorRT-LLM needs sm ≥ 8.9 for them. */
    fp8BlockScaled: z.boolean().optional(),
  })
  .strict();
export type ModelVariant = z.infer<typeof ModelVariantSchema>;

export const CandidateSchema = z
  .object({
    id: Slug,
    label: z.string().min(1).max(200),
    /** Applied on top of the best configuration so far (greedy) or of the engine's base (grid). */
    config: ConfigPatchSchema.default({}),
    /** A model variant's id instead of the current model. */
    variant: Slug.optional(),
  })
  .strict();
export type Candidate = z.infer<typeof CandidateSchema>;

export const StageSchema = z
  .object({
    id: Slug,
    label: z.string().min(1).max(200),
    /** The engines whose flags these candidates use; other engines skip the stage. Absent: every engine. */
    engines: z.array(EngineIdSchema).optional(),
    candidates: z.array(CandidateSchema).min(1, 'needs at least one candidate').max(500),
  })
  .strict();
export type Stage = z.infer<typeof StageSchema>;

export const EngineChoiceSchema = z
  .object({
    engine: EngineIdSchema,
    version: VersionSchema,
    mode: z.enum(['env', 'docker']).default('env'),
    /** Settings every trial of this engine starts from (e.g. vLLM `maxModelLen: 32768`). */
    config: ConfigPatchSchema.default({}),
  })
  .strict();
export type EngineChoice = z.infer<typeof EngineChoiceSchema>;

export const SloSchema = z
  .object({
    /** A metric key of the result (vLLM's JSON name), e.g. `p99_ttft_ms`. */
    metric: z.string().regex(/^[a-z0-9_.]+$/, 'is not a metric name'),
    max: z.number().optional(),
    min: z.number().optional(),
  })
  .strict()
  .refine((s) => s.max !== undefined || s.min !== undefined, 'needs max or min');
export type Slo = z.infer<typeof SloSchema>;

export const GOALS = ['latency', 'throughput'] as const;
export type GoalKind = (typeof GOALS)[number];

/**
 * What a throughput objective is measured on (`objective.ts`): one server as it runs (`server`), each GPU it holds
 * (`per-gpu`), or a budget of GPUs filled with whole replicas of each configuration (`gpu-budget`).
 */
export const OBJECTIVE_BASES = ['server', 'per-gpu', 'gpu-budget'] as const;
export type ObjectiveBasis = (typeof OBJECTIVE_BASES)[number];

export const GoalSchema = z
  .object({
    /** latency: lowest mean end-to-end latency per request; throughput: highest total token throughput. */
    kind: z.enum(GOALS),
    slos: z.array(SloSchema).max(20).default([]),
    /**
     * A candidate replaces the best so far only when the interval of its gain clears this many percent; within it,
     * the two are "no difference". The default is the smallest effect the published run-to-run noise lets one run of
     * each tell apart.
     */
    marginPct: z.number().min(0).max(100).default(defaultMarginPct()),
    /** Measured runs a configuration gets at most in a stage while its comparison stays undecided. */
    repeatBudget: z.number().int().min(1).max(20).default(DEFAULT_REPEAT_BUDGET),
    /**
     * What the throughput is compared on; absent: `server`. Written only when it is another, so a study on one server's
     * numbers stays readable by a Servelab from before bases, and one that would decide otherwise is refused by it.
     */
    basis: z.enum(OBJECTIVE_BASES, { error: `must be one of ${OBJECTIVE_BASES.join(', ')}` }).optional(),
    /** The GPUs the replicas of `gpu-budget` share (the box's GPU count, say). */
    gpuBudget: z.number().int().min(1).max(512).optional(),
  })
  .strict()
  .superRefine((goal, ctx) => {
    const basis = goal.basis ?? 'server';
    // A request's latency does not divide by GPUs, and N replicas would each serve 1/N of the load: a workload the
    // study never measured. Comparing latency at equal hardware is done with a throughput goal and a latency SLO.
    if (goal.kind === 'latency' && basis !== 'server') {
      ctx.addIssue({
        code: 'custom',
        path: ['basis'],
        message: `"${basis}" applies to a throughput goal only: a latency per request does not divide by GPUs; compare latency on "server", or use a throughput goal with a latency SLO`,
      });
    }
    if (basis === 'gpu-budget' && goal.gpuBudget === undefined) ctx.addIssue({ code: 'custom', path: ['gpuBudget'], message: 'is required with the basis "gpu-budget": the GPUs the replicas share' });
    if (basis !== 'gpu-budget' && goal.gpuBudget !== undefined) ctx.addIssue({ code: 'custom', path: ['gpuBudget'], message: 'is read only with the basis "gpu-budget"' });
  });
export type Goal = z.infer<typeof GoalSchema>;

/** A Slurm name (partition, account, QOS, GRES type) as sbatch takes it: one word, no `:`, `,` or space. */
const SlurmWordSchema = z.string().min(1, 'is required').max(100).regex(/^[^:,\s'"`$\\]+$/, 'is not a Slurm name');

/** What one GPU is, for planning on a cluster before a job has read it (`nvidia-smi` names and memory). */
export const StudyGpuFactsSchema = z
  .object({
    name: z.string().min(1).max(200),
    memoryMiB: z.number().int().min(1),
    computeCapability: z.string().regex(/^\d{1,2}\.\d$/, 'is not a compute capability (e.g. 9.0)'),
  })
  .strict();
export type StudyGpuFacts = z.infer<typeof StudyGpuFactsSchema>;

/**
 * How a study uses a Slurm cluster host (`scheduler: 'slurm'`): each server configuration is one batch job asking for
 * its GPUs as GRES in this partition, account and QOS. Absent fields are the cluster's defaults.
 */
export const StudySlurmSchema = z
  .object({
    partition: SlurmWordSchema.optional(),
    account: SlurmWordSchema.optional(),
    qos: SlurmWordSchema.optional(),
    /** The GRES type (`--gres=gpu:<type>:<count>`); absent: any GPU of the partition. */
    gpuType: SlurmWordSchema.optional(),
    /** The GPU that type is, for planning before a job has read `nvidia-smi` on a node (a job's reading replaces it). */
    gpu: StudyGpuFactsSchema.optional(),
    /** GPUs per node of that type, for planning (the largest layout one job can ask for). */
    gpusPerNode: z.number().int().min(1).max(64).optional(),
    /** `--time` of each job in minutes; absent: worked out from the plan's estimate for that job. */
    timeLimitMinutes: z.number().int().min(1).max(366 * 24 * 60).optional(),
    /** Most of the study's jobs in the queue (pending or running) at once. */
    maxQueuedJobs: z.number().int().min(1).max(64).default(2),
  })
  .strict();
export type StudySlurm = z.infer<typeof StudySlurmSchema>;

export const StudyHostSchema = z
  .object({
    hostId: z.string().min(1, 'is required'),
    /** GPU indices the study may use on that host; absent: all. */
    gpus: z.array(z.string().regex(/^\d{1,2}$/, 'is not a GPU index')).max(64).optional(),
    /** The host is a Slurm cluster's login node: how the study's jobs ask for GPUs there. */
    slurm: StudySlurmSchema.optional(),
  })
  .strict();

/**
 * Where a re-run comes from (`rerun.ts`): the finished project it repeats, by path, with its study name and the
 * engine versions and hosts it ran on, so the two can be compared trial by trial.
 */
export const RerunOfSchema = z
  .object({
    path: z.string().min(1).max(4096),
    name: z.string().min(1).max(200),
    engines: z.array(z.object({ engine: EngineIdSchema, version: VersionSchema, mode: z.enum(['env', 'docker']) }).strict()).min(1),
    hostIds: z.array(z.string().min(1)).min(1),
    /** When the original study finished. */
    finishedAt: z.string().optional(),
  })
  .strict();
export type RerunOf = z.infer<typeof RerunOfSchema>;

// What `rerunDefinition` (rerun.ts) reports beside a re-run's definition, in the studies:rerun answer.

/** A candidate the original's version could launch and the new version cannot, with the pre-flight's reason. */
export const LostCandidateSchema = z.object({
  engine: EngineIdSchema,
  version: z.string(),
  /** `engine` for an engine's defaults, else the stage's id. */
  stageId: z.string(),
  candidateId: z.string(),
  label: z.string(),
  /** The refusal in English; `refusal` as its code and facts, for wording it in the reader's language. */
  reason: z.string(),
  refusal: RefusalSchema.optional(),
});
export type LostCandidate = z.infer<typeof LostCandidateSchema>;

/** A version Servelab has no flag table of: its flags are checked against the nearest tabled version's. */
export const UntabledVersionSchema = z.object({ engine: EngineIdSchema, version: z.string(), checkedAgainst: z.string() });
export type UntabledVersion = z.infer<typeof UntabledVersionSchema>;

/**
 * The study's own words in another report language: its name, description and labels, keyed by what they name
 * (`candidates` by "stageId/candidateId"). Anything left out is shown as written (`study-text.ts`).
 */
const label = z.string().min(1).max(200);
export const StudyTextSchema = z
  .object({
    name: label.optional(),
    description: z.string().max(4000).optional(),
    stages: z.record(z.string(), label).optional(),
    candidates: z.record(z.string(), label).optional(),
    workloads: z.record(z.string(), label).optional(),
    variants: z.record(z.string(), label).optional(),
  })
  .strict();
export type StudyText = z.infer<typeof StudyTextSchema>;
export const StudyTranslationsSchema = z.partialRecord(z.enum(REPORT_LANGS), StudyTextSchema);

export const StudyDefinitionSchema = z
  .object({
    name: z.string().min(1, 'is required').max(200),
    description: z.string().max(4000).optional(),
    model: z
      .object({
        id: ModelRefSchema,
        precision: ModelVariantSchema.shape.precision,
        variants: z.array(ModelVariantSchema).max(50).default([]),
      })
      .strict(),
    hosts: z.array(StudyHostSchema).min(1, 'needs at least one host'),
    /**
     * The demo lab's simulated box for this study (a study modelled on an A100 wants an A100): every demo host the
     * study lists (`demo-lab`, and `demo-lab-2`… for a study spread over several boxes) becomes `count` such GPUs.
     */
    demoLab: z
      .object({ gpu: z.enum(['h100', 'a100', 'h200']), count: z.number().int().min(1).max(8).default(1) })
      .strict()
      .optional(),
    goal: GoalSchema,
    engines: z.array(EngineChoiceSchema).min(1, 'needs at least one engine'),
    /** Tuning stages after engine selection, in order. */
    stages: z.array(StageSchema).max(50).default([]),
    workloads: z
      .object({
        /** The workload the objective is measured on. */
        primary: WorkloadSchema,
        /** Scenarios the baseline and the recommendation are compared on at the end. */
        generalisation: z.array(WorkloadSchema).max(50).default([]),
      })
      .strict(),
    strategy: z.enum(['greedy', 'grid']).default('greedy'),
    repeats: z.number().int().min(1).max(10).default(1),
    /**
     * The fewest GPUs a trial's server holds. Each trial takes as many as its parallel layout needs
     * (`serverGpuCount`), and at least this many.
     */
    gpusPerTrial: z.number().int().min(1).max(8).default(1),
    /** Most servers running at once across all hosts; absent: as many as the GPUs hold side by side. */
    parallelism: z.number().int().min(1).max(64).optional(),
    /** The vLLM version whose `vllm bench serve` measures every trial. */
    clientVersion: VersionSchema.default('0.11.0'),
    readinessTimeoutSeconds: z.number().int().min(10).max(24 * 3600).default(1800),
    /** Set on a study made by "Re-run with…": the project it repeats. */
    rerunOf: RerunOfSchema.optional(),
    /** The name, description and labels in other report languages. */
    translations: StudyTranslationsSchema.optional(),
    /** Files the configs name (`chatTemplate`, `optionsFile`), kept whole in the project and copied to the box at launch. */
    files: z.array(ConfigFileSchema).max(MAX_CONFIG_FILES, `has more than ${MAX_CONFIG_FILES} files`).optional(),
  })
  .strict()
  .superRefine((study, ctx) => {
    checkFileRefs(study, ctx);
    const variants = new Set(study.model.variants.map((v) => v.id));
    const stageIds = new Set<string>();
    study.stages.forEach((stage, s) => {
      if (stageIds.has(stage.id) || stage.id === 'engine' || stage.id === 'generalisation') {
        ctx.addIssue({ code: 'custom', path: ['stages', s, 'id'], message: `"${stage.id}" is used twice or reserved` });
      }
      stageIds.add(stage.id);
      const ids = new Set<string>();
      stage.candidates.forEach((c, i) => {
        if (ids.has(c.id)) ctx.addIssue({ code: 'custom', path: ['stages', s, 'candidates', i, 'id'], message: `"${c.id}" is used twice in this stage` });
        ids.add(c.id);
        if (c.variant !== undefined && !variants.has(c.variant)) {
          ctx.addIssue({ code: 'custom', path: ['stages', s, 'candidates', i, 'variant'], message: `names no variant of the model (${[...variants].join(', ') || 'none defined'})` });
        }
      });
    });
    if (study.goal.gpuBudget !== undefined && study.goal.gpuBudget < study.gpusPerTrial) {
      ctx.addIssue({ code: 'custom', path: ['goal', 'gpuBudget'], message: `is less than gpusPerTrial (${study.gpusPerTrial}): no configuration fits in it` });
    }
    const engines = new Set<string>();
    study.engines.forEach((e, i) => {
      const key = `${e.engine}@${e.version}/${e.mode}`;
      if (engines.has(key)) ctx.addIssue({ code: 'custom', path: ['engines', i], message: `${e.engine} ${e.version} is listed twice` });
      engines.add(key);
    });
    // Arrivals the study's benchmark client cannot produce are refused here, before any server is launched.
    const arrivalIssue = (w: Workload, path: (string | number)[]) => {
      const refusal = arrivalRefusal(w, study.clientVersion);
      if (refusal !== undefined) ctx.addIssue({ code: 'custom', path: ['workloads', ...path, w.rampUp ? 'rampUp' : 'burstiness'], message: refusal });
    };
    arrivalIssue(study.workloads.primary, ['primary']);
    study.workloads.generalisation.forEach((w, i) => arrivalIssue(w, ['generalisation', i]));
    // A translation names something of this study, so a renamed id cannot leave a translation of nothing behind.
    const named = {
      stages: new Set(study.stages.map((s) => s.id)),
      candidates: new Set(study.stages.flatMap((s) => s.candidates.map((c) => `${s.id}/${c.id}`))),
      workloads: new Set([study.workloads.primary, ...study.workloads.generalisation].map((w) => w.id)),
      variants,
    };
    for (const [lang, text] of Object.entries(study.translations ?? {})) {
      for (const kind of ['stages', 'candidates', 'workloads', 'variants'] as const) {
        for (const key of Object.keys(text?.[kind] ?? {})) {
          if (!named[kind].has(key)) ctx.addIssue({ code: 'custom', path: ['translations', lang, kind, key], message: `names no ${kind.slice(0, -1)} of the study` });
        }
      }
    }
  });
export type StudyDefinition = z.infer<typeof StudyDefinitionSchema>;
export type StudyDefinitionInput = z.input<typeof StudyDefinitionSchema>;

/** Every file a config names is one of the study's (of the checksum it is pinned to, if any); no two files share a name. */
function checkFileRefs(study: Pick<StudyDefinition, 'files' | 'engines' | 'stages'>, ctx: z.RefinementCtx): void {
  const files = study.files ?? [];
  const names = new Set<string>();
  files.forEach((f, i) => {
    if (names.has(f.name)) ctx.addIssue({ code: 'custom', path: ['files', i, 'name'], message: `"${f.name}" is used by two files` });
    names.add(f.name);
  });
  const check = (config: ConfigPatch, path: (string | number)[]) => {
    for (const { field, ref } of fileRefsOf(config)) {
      const file = files.find((f) => f.name === ref.file);
      if (!file) ctx.addIssue({ code: 'custom', path: [...path, field, 'file'], message: `names no file of the study (${[...names].join(', ') || 'it has none'})` });
      else if (ref.sha256 !== undefined && ref.sha256 !== file.sha256) {
        ctx.addIssue({ code: 'custom', path: [...path, field, 'sha256'], message: `is not the checksum of the study's ${file.name} (${file.sha256})` });
      }
    }
  };
  study.engines.forEach((e, i) => check(e.config, ['engines', i, 'config']));
  study.stages.forEach((s, i) => s.candidates.forEach((c, j) => check(c.config, ['stages', i, 'candidates', j, 'config'])));
}

export const TRIAL_STATUSES = ['planned', 'rejected', 'running', 'done', 'failed', 'cancelled'] as const;
export type TrialStatus = (typeof TRIAL_STATUSES)[number];

/** One server configuration measured on one workload (one repeat). */
export const TrialSchema = z.object({
  /** Stable across plans: `<stage>/<candidate path>/<workload>/r<repeat>`. */
  id: z.string(),
  /** `engine` (engine selection), a stage id, or `generalisation`. */
  stageId: z.string(),
  candidateId: z.string(),
  label: z.string(),
  engine: EngineIdSchema,
  version: z.string(),
  mode: z.enum(['env', 'docker']),
  /** The full server config (model included) this trial launches. */
  config: ServerConfigSchema,
  /** Trials with the same key share one server launch. */
  serverKey: z.string(),
  /** The launch command as the adapter builds it (no host or port), for the report. */
  command: z.string(),
  workloadId: z.string(),
  repeat: z.number().int().min(1),
  status: z.enum(TRIAL_STATUSES),
  /** Why the planner refused it before anything ran, in English (`refusal` worded; projects before it have only this). */
  rejectReason: z.string().optional(),
  /** The pre-flight refusal as a code and its facts, for wording it in the reader's language. */
  refusal: RefusalSchema.optional(),
  /** Why it failed, in English (`failure` worded when the runner made it; else the raised error). */
  error: z.string().optional(),
  /** The runner's failure as a code and its facts; absent for an error raised while measuring and in older projects. */
  failure: RunFailureSchema.optional(),
  /** GPUs its server holds (`trialGpuCount`); absent in projects written before layouts had sizes: `gpusPerTrial`. */
  gpuCount: z.number().int().min(1).max(512).optional(),
  hostId: z.string().optional(),
  gpus: z.array(z.string()).optional(),
  serverId: z.string().optional(),
  /**
   * On a Slurm cluster: the batch job its server configuration runs in, Slurm's last word on it (state and reason,
   * e.g. PENDING for Resources) and the node it runs on.
   */
  slurmJob: z
    .object({
      jobId: z.string().regex(/^\d+$/),
      /** The job's folder on the shared storage (its agent's mailbox), so a restarted run can re-attach to it. */
      dir: z.string().max(4096).optional(),
      state: z.string().max(40).optional(),
      reason: z.string().max(200).optional(),
      node: z.string().max(200).optional(),
    })
    .optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** The measured result (also in the project's results folder). */
  result: ResultEntrySchema.optional(),
  /**
   * The warm-up run sent to this trial's server on this workload just before the trial was measured (its numbers are
   * discarded): how many requests, how long it took, or why it failed.
   */
  warmup: z.object({ requests: z.number().int().min(1), seconds: z.number().min(0).optional(), error: z.string().optional() }).optional(),
});
export type Trial = z.infer<typeof TrialSchema>;

/** The GPUs one server of this configuration holds: what its parallel layout needs, and at least `gpusPerTrial`. */
export function configGpuCount(study: Pick<StudyDefinition, 'gpusPerTrial'>, engine: EngineId, config: ServerConfig): number {
  return Math.max(serverGpuCount(engine, config), study.gpusPerTrial);
}

/** The GPUs a trial's server holds, also for trials stored before each had its own count. */
export function trialGpuCount(study: Pick<StudyDefinition, 'gpusPerTrial'>, trial: Pick<Trial, 'gpuCount'>): number {
  return trial.gpuCount ?? study.gpusPerTrial;
}

/** A change of a metric in percent of the reference (the metric itself: −20% latency is a fifth less), with its interval. */
export const ChangeSchema = z.object({ pct: z.number(), low: z.number(), high: z.number(), level: z.number().gt(0).lt(1) });

/** What a stage concluded of its best candidate against the best so far (verdict.ts `stageOutcome`). */
export const STAGE_VERDICTS = ['kept', 'no-difference', 'worse', 'no-gain', 'inconclusive'] as const;

/** Why a candidate has no objective: the pre-flight's reason, the engine's first error line, the missed SLOs or the GPU budget. */
export const UnmeasuredCandidateSchema = z.object({
  label: z.string(),
  /** `over-budget`: its server needs more GPUs (`gpus`) than the goal's budget (`budget`), so it has no place in it. */
  why: z.enum(['rejected', 'failed', 'missed-slos', 'no-result', 'over-budget']),
  gpus: z.number().int().min(1).optional(),
  budget: z.number().int().min(1).optional(),
  /** The pre-flight's or engine's own text, or the SLO misses ("mean_ttft_ms 412 > 300"), in English when ours. */
  detail: z.string().optional(),
  /** The refusal or failure behind `detail` as facts, for wording it in the reader's language. */
  refusal: RefusalSchema.optional(),
  failure: RunFailureSchema.optional(),
});
export type UnmeasuredCandidate = z.infer<typeof UnmeasuredCandidateSchema>;

/**
 * What a decision's `reason` says, as facts, so a report can word it in any language. `incumbent` names the best
 * so far (engine and kept candidates), `reference` the configuration a winner was compared with.
 */
export const DecisionBasisSchema = z.discriminatedUnion('kind', [
  /** The stage's settings are for other engines than the best so far's. */
  z.object({ kind: z.literal('skipped'), stageEngines: z.array(EngineIdSchema), bestEngine: EngineIdSchema }),
  /** Nothing measured met the SLOs; the incumbent stays (engine stage: the first engine as the starting point). */
  z.object({ kind: z.literal('no-valid-result'), incumbent: z.string() }),
  /** The engine stage's best, with the other engines' objectives and the baseline (first) engine. */
  z.object({
    kind: z.literal('engine'),
    baseline: z.string(),
    others: z.array(z.object({ label: z.string(), value: z.number() })),
    reference: z.string().optional(),
  }),
  /** The best so far had no valid result, so the stage's best is kept as it is. */
  z.object({ kind: z.literal('first-valid') }),
  /** The stage's best (`value`: its objective) against the incumbent (`compared`, `change`, `runs`; no `verdict`: another run of both). */
  z.object({ kind: z.literal('compared'), incumbent: z.string(), marginPct: z.number(), value: z.number() }),
  /** The single-run rule: the point change against the margin. */
  z.object({ kind: z.literal('single-run'), incumbent: z.string(), marginPct: z.number(), changePct: z.number(), value: z.number() }),
  /** A grid: the best of the measured combinations. */
  z.object({ kind: z.literal('grid'), measured: z.number().int(), total: z.number().int(), baseline: z.string() }),
]);
export type DecisionBasis = z.infer<typeof DecisionBasisSchema>;

export const StageDecisionSchema = z.object({
  stageId: z.string(),
  /** The candidate kept (its id), or null when none beat the best so far. */
  winner: z.string().nullable(),
  /** e.g. "FP8: −22.0% mean latency, kept" or "no candidate beat the best by more than 1%". */
  reason: z.string(),
  /** The objective of the best so far before and after this stage. */
  before: z.number().nullable(),
  after: z.number().nullable(),
  decidedAt: z.string(),
  /** The candidate the stage's verdict is about (its best), when one was measured against the best so far. */
  compared: z.string().optional(),
  verdict: z.enum(STAGE_VERDICTS).optional(),
  /** The objective's change of `compared` against the best so far, with its interval. */
  change: ChangeSchema.optional(),
  /** Measured runs behind the verdict: of `compared`, and of the configuration it was compared with. */
  runs: z.object({ candidate: z.number().int().min(0), reference: z.number().int().min(0) }).optional(),
  /** `reason` as facts (absent in projects written before it: a report then quotes `reason`). */
  basis: DecisionBasisSchema.optional(),
  /** The stage's candidates without an objective, and why. */
  unmeasured: z.array(UnmeasuredCandidateSchema).optional(),
});
export type StageDecision = z.infer<typeof StageDecisionSchema>;

export const RecommendationSchema = z.object({
  engine: EngineIdSchema,
  version: z.string(),
  mode: z.enum(['env', 'docker']),
  config: ServerConfigSchema,
  /** The exact launch command. */
  command: z.string(),
  /** The candidate ids kept, stage by stage. */
  path: z.array(z.string()),
  /** The trials of this configuration share this key. */
  serverKey: z.string().optional(),
});
export type Recommendation = z.infer<typeof RecommendationSchema>;

/** Where a published number was printed: the guide's file and title, and the line of its result block. */
export const PublishedSourceSchema = z
  .object({
    file: z.string().min(1, 'is required').max(500),
    title: z.string().max(500),
    line: z.number().int().min(1),
  })
  .strict();
export type PublishedSource = z.infer<typeof PublishedSourceSchema>;

/**
 * A result someone else published (a tuning guide's result block), kept beside the study's own trials to compare
 * with. Never a measurement: the decision rule, the ranking and the recommendation read `trials` only, and every view
 * labels these "published" with their source.
 */
export const ReferenceTrialSchema = z
  .object({
    id: z.string().min(1, 'is required').max(200),
    kind: z.literal('published'),
    source: PublishedSourceSchema,
    /** Where the study tries the same configuration: `engine`, a stage id or `generalisation`; absent when no stage does. */
    stageId: z.string().max(200).optional(),
    candidateId: z.string().max(200).optional(),
    workloadId: z.string().max(200).optional(),
    label: z.string().max(2000),
    engine: EngineIdSchema.optional(),
    version: VersionSchema.optional(),
    /** The server command as the guide printed it. */
    command: z.string().max(100_000).optional(),
    /** `failed`: the guide shows the launch failing (its error in `error`) instead of a result. */
    status: z.enum(['ok', 'failed']),
    error: z.string().max(4000).optional(),
    /** The printed numbers, exactly as printed, under the names `vllm bench serve` gives them. */
    result: BenchResultSchema.optional(),
  })
  .strict();
export type ReferenceTrial = z.infer<typeof ReferenceTrialSchema>;

/** Something of a guide the study could not take (`unmapped`), or that the guide gets wrong (`wrong`), with its line. */
export const GuideProblemSchema = z
  .object({
    line: z.number().int().min(1),
    kind: z.enum(['unmapped', 'wrong']),
    message: z.string().min(1).max(4000),
  })
  .strict();
export type GuideProblem = z.infer<typeof GuideProblemSchema>;

/** The guide a study was opened from, and what of it the study could not take or found wrong. */
export const GuideReadingSchema = z
  .object({
    file: z.string().min(1).max(500),
    title: z.string().max(500),
    problems: z.array(GuideProblemSchema).max(2000),
  })
  .strict();
export type GuideReading = z.infer<typeof GuideReadingSchema>;

export const STUDY_STATUSES = ['draft', 'running', 'done', 'cancelled', 'failed'] as const;

export const StudyStateSchema = z.object({
  status: z.enum(STUDY_STATUSES),
  trials: z.array(TrialSchema).default([]),
  decisions: z.array(StageDecisionSchema).default([]),
  /** The baseline the report's gains are stated against (the first engine at its defaults, or the engine stage's). */
  baselineTrialServerKey: z.string().optional(),
  recommendation: RecommendationSchema.optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** Why a run stopped early. */
  message: z.string().optional(),
  /** Published results to compare with (never measured here, never decided on). */
  references: z.array(ReferenceTrialSchema).max(5000).optional(),
  /** Set when the study was opened from a tuning guide. */
  guide: GuideReadingSchema.optional(),
});
export type StudyState = z.infer<typeof StudyStateSchema>;

/**
 * 2: the state may hold published reference results. An older Servelab would drop them on its next save, so it must
 * refuse the file instead (it reads up to 1); a version-1 file reads as version 2 with no references.
 */
/**
 * 3: configurations may hold parallel layouts (pipeline, data and expert parallelism…), files (`study.files`) and a
 * goal basis; a version-2 file reads unchanged, and an older Servelab refuses a version-3 file as newer instead of
 * calling its new fields damaged.
 */
export const PROJECT_SCHEMA_VERSION = 3;

/** `PROJECT_MIGRATIONS[v]` turns a version-v project file into version v+1 (see `readVersionedFile`). */
export const PROJECT_MIGRATIONS: Readonly<Record<number, (doc: unknown) => unknown>> = {
  1: (doc) => ({ ...(doc as Record<string, unknown>), schemaVersion: 2 }),
  2: (doc) => ({ ...(doc as Record<string, unknown>), schemaVersion: 3 }),
};

export const ProjectFileSchema = z.object({
  schemaVersion: z.literal(PROJECT_SCHEMA_VERSION),
  study: StudyDefinitionSchema,
  state: StudyStateSchema,
});
export type ProjectFile = z.infer<typeof ProjectFileSchema>;

/** The objective's metric and direction (the metric catalogue's), with the words the report and decisions use for it. */
export function objectiveOf(goal: GoalKind): { metric: 'mean_latency_s' | 'total_token_throughput'; better: 'lower' | 'higher'; label: string; unit: string } {
  return goal === 'latency'
    ? { metric: 'mean_latency_s', better: METRIC_CATALOGUE.mean_latency_s.better, label: 'mean latency', unit: 's/request' }
    : { metric: 'total_token_throughput', better: METRIC_CATALOGUE.total_token_throughput.better, label: 'total token throughput', unit: METRIC_CATALOGUE.total_token_throughput.unit };
}
