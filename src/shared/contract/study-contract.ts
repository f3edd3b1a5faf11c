// The studies part of the contract (merged into CALLS / EVENTS): project files, plans, runs and reports.
import { z } from 'zod';
import { GuideProblemSchema, LostCandidateSchema, ProjectFileSchema, StageDecisionSchema, StudyDefinitionSchema, StudyStateSchema, TrialSchema, UntabledVersionSchema, VersionSchema } from '../study/study';
import { ENGINE_IDS } from '../engines/types';
import { GpuMemorySampleSchema } from '../study/gpu-memory';
import { REPORT_LANGS } from '../study/report/text';
import { PROJECT_SUFFIX } from '../project-document';

/** An absolute path of a `.servelab` project file on this machine. */
const ProjectPathSchema = z
  .string()
  .min(1, 'is required')
  .max(4096, 'is too long')
  .refine((p) => !p.includes('\0'), 'must not contain NUL')
  .refine((p) => p.endsWith(PROJECT_SUFFIX), `must end with ${PROJECT_SUFFIX}`);
const PathInput = z.object({ path: ProjectPathSchema });

export const REPORT_FORMATS = ['md', 'html', 'csv'] as const;

export const GpuFactsSchema = z.object({ hostId: z.string(), index: z.string(), name: z.string(), memoryMiB: z.number(), computeCapability: z.string().nullable() });

export const PlanEstimateSchema = z.object({
  trials: z.number().int(),
  rejected: z.number().int(),
  launches: z.number().int(),
  expectedRepeats: z.number().int(),
  gpuSeconds: z.number(),
  perTrialSeconds: z.record(z.string(), z.number()),
  perServerSeconds: z.record(z.string(), z.number()),
  wallSeconds: z.number().optional(),
  peakGpus: z.number().int().optional(),
});

export const STUDY_CALLS = {
  /** Writes a new project file (refuses to overwrite) with its definition and an empty state. */
  'studies:create': {
    input: PathInput.extend({ study: StudyDefinitionSchema }),
    output: ProjectFileSchema,
  },
  /** Reads a project; a damaged or newer file is refused with the field or version named, and left untouched. */
  'studies:open': {
    input: PathInput,
    output: ProjectFileSchema,
  },
  /** Replaces the definition of a study that has not run yet. */
  'studies:save': {
    input: PathInput.extend({ study: StudyDefinitionSchema }),
    output: ProjectFileSchema,
  },
  /**
   * Copies the project file and its `<name>.servelab-data/` folder (journal, runs, logs) to `out`; refuses an
   * existing file or folder there, and a study that is running. The copy is added to recent projects.
   */
  'studies:saveAs': {
    input: PathInput.extend({ out: ProjectPathSchema }),
    output: ProjectFileSchema,
  },
  /**
   * Writes a new project at `out` that re-runs the finished study at `path` (rerun.ts): the same stages, candidates
   * and workloads with the engines at `engineVersions` and, when given, on `hostId`; its `rerunOf` points back at the
   * original. Refuses an existing file and a study that has not finished. `lost`: candidates the new versions cannot
   * launch (kept in the study, where the pre-flight check rejects them); `untabled`: versions without a flag table.
   */
  'studies:rerun': {
    input: PathInput.extend({
      out: ProjectPathSchema,
      engineVersions: z.partialRecord(z.enum(ENGINE_IDS), VersionSchema),
      hostId: z.string().min(1).max(200).optional(),
      name: StudyDefinitionSchema.shape.name.optional(),
    }),
    output: z.object({
      path: z.string(),
      project: ProjectFileSchema,
      lost: z.array(LostCandidateSchema),
      untabled: z.array(UntabledVersionSchema),
    }),
  },
  /** The project a re-run repeats (its `rerunOf.path`), read without opening it, for the comparison with it. */
  'studies:rerunOriginal': {
    input: PathInput,
    output: z.object({ path: z.string(), project: ProjectFileSchema }),
  },
  /** The trials the study would run first (the engine stage, or the whole grid) with pre-flight verdicts and an estimate. */
  'studies:plan': {
    input: PathInput,
    output: z.object({ trials: z.array(TrialSchema), estimate: PlanEstimateSchema, gpus: z.array(GpuFactsSchema) }),
  },
  /**
   * Starts (or resumes) the study; progress as studies:* events. A project not written by this user that turns on
   * remote code, env, extra args or dataset files is refused until `trust` carries the hash `studies:trustCheck`
   * returned, after the user confirmed what it runs (remembered in the data folder, not the project).
   */
  'studies:run': {
    input: PathInput.extend({ trust: z.string().regex(/^[0-9a-f]{64}$/, 'must be the hash from studies:trustCheck').optional() }),
    output: z.object({ started: z.boolean() }),
  },
  /** What the project runs beyond the typed knobs, and whether the user has accepted exactly that already. */
  'studies:trustCheck': {
    input: PathInput,
    output: z.object({ trusted: z.boolean(), runs: z.array(z.string()), hash: z.string() }),
  },
  'studies:cancel': {
    input: PathInput,
    output: z.object({ cancelled: z.boolean() }),
  },
  /**
   * The report as text (Markdown, self-contained HTML, or CSV), in `lang` (English when absent; the UI passes its
   * own). The CSV is the same in every language.
   */
  'studies:report': {
    input: PathInput.extend({ format: z.enum(REPORT_FORMATS), lang: z.enum(REPORT_LANGS).optional() }),
    output: z.object({ text: z.string() }),
  },
  /**
   * Writes the report to a file (atomically): the one picked in `dialogs:saveFile` (by its single-use
   * `saveHandle`), or a `.<format>` path inside the project's folder or the data folder's `exports/`. Any other
   * path is refused (BAD_INPUT).
   */
  'studies:export': {
    input: PathInput.extend({
      format: z.enum(REPORT_FORMATS),
      /** The report's language (English when absent); the export control defaults to the UI's. */
      lang: z.enum(REPORT_LANGS).optional(),
      out: z.union([z.string().min(1).max(4096), z.object({ saveHandle: z.string().min(1).max(200) }).strict()]),
    }),
    output: z.object({ path: z.string() }),
  },
  /** The example studies shipped with the app, and recently opened projects. */
  'studies:examples': {
    input: z.object({}).strict(),
    /** `translations`: the example's name and description in other languages, from the study's own translations. */
    output: z.array(
      z.object({
        name: z.string(),
        path: z.string(),
        description: z.string(),
        translations: z.partialRecord(z.enum(REPORT_LANGS), z.object({ name: z.string().optional(), description: z.string().optional() })).optional(),
      }),
    ),
  },
  /**
   * Opens a tuning guide (Markdown, HTML or text, at most 8 MiB) as a new study at `path` (refuses to overwrite): its
   * goal, box, engines, workloads, stages and candidates, and every result block it prints as a published reference
   * trial. `problems` lists, with their line, what the study could not take and what the guide gets wrong; the project
   * keeps them too (`state.guide`).
   */
  'studies:fromGuide': {
    input: PathInput.extend({
      guide: z.string().min(1, 'is required').max(4096, 'is too long').refine((p) => !p.includes('\0'), 'must not contain NUL'),
      hostId: z.string().min(1).max(200).optional(),
    }),
    output: z.object({ project: ProjectFileSchema, problems: z.array(GuideProblemSchema) }),
  },
  /** Copies an example into the given project path, so the user's copy can run and be edited. */
  'studies:fromExample': {
    input: PathInput.extend({ example: z.string().min(1) }),
    output: ProjectFileSchema,
  },
  /**
   * A native save / open dialog (desktop app only; NOT_SUPPORTED in a browser, where the UI downloads instead).
   * Resolves to the chosen path, or null when the user cancelled. A save also gives a `saveHandle`, which
   * `studies:export` accepts once, within 10 minutes, as permission to write that file.
   */
  'dialogs:saveFile': {
    input: z.object({ title: z.string().max(200), defaultName: z.string().max(255), extensions: z.array(z.string().regex(/^[a-z0-9]{1,10}$/)).max(10) }),
    output: z.object({ path: z.string().nullable(), saveHandle: z.string().nullable() }),
  },
  'dialogs:openFile': {
    input: z.object({ title: z.string().max(200), extensions: z.array(z.string().regex(/^[a-z0-9]{1,10}$/)).max(10) }),
    output: z.object({ path: z.string().nullable() }),
  },
  'studies:recent': {
    input: z.object({}).strict(),
    /** `names`: the study's name in each language it is translated into. */
    output: z.array(z.object({ path: z.string(), name: z.string(), names: z.record(z.string(), z.string()).optional(), openedAt: z.string() })),
  },
  /**
   * A trial's server log (shared by every trial of its server) and benchmark output as written beside the project,
   * the last ~1 MiB of each; null when there is none (the trial never launched, or was not measured yet).
   */
  'studies:trialLogs': {
    input: PathInput.extend({ trialId: z.string().min(1).max(1000) }),
    output: z.object({ server: z.string().nullable(), bench: z.string().nullable(), truncated: z.boolean() }),
  },
  /** The GPU memory samples of the study's runs, oldest first, at most ~2,000 per GPU. */
  'studies:gpuMemory': {
    input: PathInput,
    output: z.array(GpuMemorySampleSchema),
  },
} as const;

export const STUDY_EVENTS = {
  /** The study's state after each change (trials, decisions, status). */
  'studies:state': z.object({ path: z.string(), state: StudyStateSchema }),
  'studies:phase': z.object({ path: z.string(), text: z.string() }),
  /**
   * A log line of the run. `source` says whose: the runner's own (`study`, also when absent), a server's log
   * (`server`, with its `serverId`: it belongs to every trial of that server) or a benchmark's output (`bench`, with
   * the `trialId` measured and its `serverId`).
   */
  'studies:log': z.object({
    path: z.string(),
    text: z.string(),
    source: z.enum(['study', 'server', 'bench']).optional(),
    serverId: z.string().optional(),
    trialId: z.string().optional(),
  }),
  /** One GPU memory sample of one of the study's hosts, taken every ~2 s while the study runs. */
  'studies:gpu': GpuMemorySampleSchema.extend({ path: z.string() }),
  'studies:decision': z.object({ path: z.string(), decision: StageDecisionSchema }),
} as const;
