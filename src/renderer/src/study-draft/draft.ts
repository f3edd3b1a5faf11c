import { arrivalOf, type ArrivalFields, type ArrivalKind, type RampStrategy } from '../../../shared/bench/arrival';
import { CONSTANT_RATE_SWEEP, WORKLOAD_PRESETS, type Workload, type WorkloadInput } from '../../../shared/bench/workload';
import { ENGINE_ADAPTERS } from '../../../shared/engines/adapters';
import { ENGINE_IDS, type EngineId } from '../../../shared/engines/types';
import { metricSpec, type MetricKey } from '../../../shared/results/metrics';
import { defaultStages } from '../../../shared/study/defaults';
import { joinArgs } from '../../../shared/engines/argv-text';
import { ModelVariantSchema, type ModelVariant, type ObjectiveBasis, type Stage, type StudyDefinition } from '../../../shared/study/study';
import { DEFAULT_REPEAT_BUDGET, defaultMarginPct } from '../../../shared/study/noise';
import type { ConfigFile } from '../../../shared/engines/config-files';
import { splitFileRefs, type FileRefs } from './draft-files';
import { slurmDraftOf, type SlurmDraft } from './slurm-draft';

/**
 * The study wizard's draft: what the user typed, as typed (numbers stay strings until they are checked), how a saved
 * definition becomes a draft again, and the stages, names and workloads it suggests. `assemble.ts` turns a draft into
 * a definition; nothing here depends on the UI or its language, so the store and the wizard both stand on it.
 */

export const WIZARD_STEPS = ['model', 'hardware', 'goal', 'engines', 'stages', 'workloads', 'strategy', 'review'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

export const PRECISIONS = ModelVariantSchema.shape.precision.unwrap().options;
export type Precision = (typeof PRECISIONS)[number];
export const DEMO_GPUS = ['h100', 'a100', 'h200'] as const;
export type DemoGpu = (typeof DEMO_GPUS)[number];

/** Result metrics an SLO can bound (catalogue keys); times in ms, throughputs per second. */
export const SLO_METRICS = [
  'p99_ttft_ms',
  'mean_ttft_ms',
  'median_ttft_ms',
  'p99_tpot_ms',
  'mean_tpot_ms',
  'p99_itl_ms',
  'mean_itl_ms',
  'p99_e2el_ms',
  'mean_e2el_ms',
  'request_throughput',
  'output_throughput',
  'total_token_throughput',
] as const satisfies readonly MetricKey[];

/**
 * The GPUs of the study's largest box, as far as the draft knows them: the GPUs ticked on each host (the demo lab's
 * count when none are listed, a cluster's GPUs per node); null when no host's GPUs are known yet. A GPU budget left
 * empty is this many.
 */
export function boxGpuCount(d: Pick<WizardDraft, 'hosts' | 'demoCount'>, isDemoHost: (hostId: string) => boolean): number | null {
  const counts = d.hosts
    .map((h) => (h.slurm ? Number(h.slurm.gpusPerNode || NaN) : (h.gpus?.length ?? (isDemoHost(h.hostId) ? Number(d.demoCount) : NaN))))
    .filter((n) => Number.isInteger(n) && n > 0);
  return counts.length === 0 ? null : Math.max(...counts);
}

/** The bound an SLO on a metric starts with: a floor for what should be high, a ceiling for what should be low. */
export function defaultSloBound(metric: string): 'max' | 'min' {
  return metricSpec(metric)?.better === 'higher' ? 'min' : 'max';
}

export interface VariantDraft {
  key: string;
  id: string;
  model: string;
  label: string;
  precision: Precision | '';
  fp8BlockScaled: boolean;
}

export interface HostDraft {
  hostId: string;
  /** GPU indices the user left ticked; null when the inventory could not list them (the study may use all). */
  gpus: string[] | null;
  /** Every GPU index the host has, to tell "all ticked" (stored as absent) from a subset. */
  allGpus: string[] | null;
  /** A Slurm cluster host: how its jobs ask for GPUs (its login node has none to tick). */
  slurm?: SlurmDraft;
}

export interface SloDraft {
  key: string;
  metric: string;
  bound: 'max' | 'min';
  value: string;
}

export interface EngineDraft {
  engine: EngineId;
  enabled: boolean;
  version: string;
  mode: 'env' | 'docker';
  maxModelLen: string;
  /** Further base settings as a JSON object (ConfigPatch). */
  settings: string;
  /** Extra arguments for the engine's command line, as typed (checked against that version's flags). */
  extraArgs: string;
  /** The draft's files its base settings name (chat template, options file). */
  files?: FileRefs;
}

export interface CandidateDraft {
  key: string;
  id: string;
  label: string;
  config: string;
  variant: string;
  /** The draft's files this candidate names (chat template, options file). */
  files?: FileRefs;
}

export interface StageDraft {
  key: string;
  id: string;
  label: string;
  engines: EngineId[] | undefined;
  candidates: CandidateDraft[];
}

export type DatasetKind = 'sharegpt' | 'random' | 'custom';

export interface WorkloadDraft {
  key: string;
  /** The preset it started from, so an untouched preset keeps its own label. */
  presetId: string;
  id: string;
  /** The user's own label; empty: the preset's, or one that describes the workload. */
  label: string;
  kind: DatasetKind;
  path: string;
  inputLen: string;
  outputLen: string;
  numPrompts: string;
  maxConcurrency: string;
  /** How the requests arrive (src/shared/bench/arrival.ts); each kind reads only its own fields below. */
  arrival: ArrivalKind;
  requestRate: string;
  /** A number, or `inf` (a ramp's constant gaps); blank: the client's 1 (Poisson). */
  burstiness: string;
  rampStrategy: RampStrategy;
  rampStart: string;
  rampEnd: string;
  seed: string;
}

/** The scenarios the wizard offers ticked or not: the reference studies' workloads, then the constant-rate sweep. */
export const SCENARIO_PRESETS: readonly Workload[] = [...WORKLOAD_PRESETS, ...CONSTANT_RATE_SWEEP];

type ArrivalDraft = Pick<WorkloadDraft, 'arrival' | 'requestRate' | 'burstiness' | 'rampStrategy' | 'rampStart' | 'rampEnd'>;

/** A workload's arrival fields as the wizard's text fields hold them. */
function arrivalDraftOf(w: ArrivalFields | undefined): ArrivalDraft {
  const a = arrivalOf(w ?? {});
  const none = { requestRate: '', burstiness: '', rampStrategy: 'linear' as const, rampStart: '', rampEnd: '' };
  switch (a.kind) {
    case 'burst':
      return { ...none, arrival: 'burst' };
    case 'poisson':
    case 'constant':
      return { ...none, arrival: a.kind, requestRate: String(a.rate) };
    case 'gamma':
      return { ...none, arrival: 'gamma', requestRate: String(a.rate), burstiness: String(a.burstiness) };
    case 'ramp':
      return { ...none, arrival: 'ramp', burstiness: a.burstiness === undefined ? '' : String(a.burstiness), rampStrategy: a.strategy, rampStart: String(a.startRps), rampEnd: String(a.endRps) };
  }
}

export interface WizardDraft {
  modelId: string;
  precision: Precision | '';
  variants: VariantDraft[];
  hosts: HostDraft[];
  gpusPerTrial: string;
  demoGpu: DemoGpu;
  demoCount: string;
  goal: 'latency' | 'throughput';
  /** What a throughput goal compares on (`objective.ts`); a latency goal is always per server. */
  basis: ObjectiveBasis;
  /** The GPUs of the `gpu-budget` basis, as typed; empty: the box's GPU count (`boxGpuCount`). */
  gpuBudget: string;
  slos: SloDraft[];
  marginPct: string;
  repeatBudget: string;
  engines: EngineDraft[];
  /** Engines whose reference-study stages prefill step 5. */
  tuned: EngineId[];
  stages: StageDraft[];
  /** What the stages were generated from; a change regenerates them unless the user edited them. */
  stagesSource: string;
  stagesEdited: boolean;
  primary: WorkloadDraft;
  generalisationPresets: string[];
  generalisationCustom: WorkloadDraft[];
  strategy: 'greedy' | 'grid';
  repeats: string;
  parallelism: string;
  clientVersion: string;
  readinessTimeout: string;
  name: string;
  description: string;
  /** The files the engines and candidates name, each once (draft-files.ts). */
  files: ConfigFile[];
  /**
   * The study the draft was read from, when it carries translations: the wizard shows only the written text, and
   * keeps each translation whose text the user left unchanged (`translationsStillTrue`).
   */
  translatedFrom: StudyDefinition | null;
}

let keySeq = 0;
/** A React key for a row; never part of the definition. */
export function rowKey(): string {
  keySeq += 1;
  return `row${keySeq}`;
}

export function workloadDraft(preset: Workload | undefined): WorkloadDraft {
  const d = preset?.dataset;
  return {
    key: rowKey(),
    presetId: preset?.id ?? '',
    id: preset?.id ?? '',
    label: '',
    kind: d?.kind ?? 'sharegpt',
    path: d && d.kind !== 'random' ? (d.path ?? '') : '',
    inputLen: d?.kind === 'random' ? String(d.inputLen) : '',
    outputLen: d && d.outputLen !== undefined ? String(d.outputLen) : '',
    numPrompts: preset ? String(preset.numPrompts) : '100',
    maxConcurrency: preset?.maxConcurrency !== undefined ? String(preset.maxConcurrency) : '',
    ...arrivalDraftOf(preset),
    seed: preset?.seed !== undefined ? String(preset.seed) : '',
  };
}

function defaultVersion(engine: EngineId): string {
  return ENGINE_ADAPTERS[engine].defaultVersion;
}

export function initialDraft(): WizardDraft {
  return {
    modelId: '',
    precision: '',
    variants: [],
    hosts: [],
    gpusPerTrial: '1',
    demoGpu: 'h100',
    demoCount: '1',
    goal: 'latency',
    basis: 'server',
    gpuBudget: '',
    slos: [],
    marginPct: String(defaultMarginPct()),
    repeatBudget: String(DEFAULT_REPEAT_BUDGET),
    engines: ENGINE_IDS.map((engine) => ({ engine, enabled: false, version: defaultVersion(engine), mode: 'env', maxModelLen: '', settings: '', extraArgs: '' })),
    tuned: [],
    stages: [],
    stagesSource: '',
    stagesEdited: false,
    primary: workloadDraft(WORKLOAD_PRESETS.find((w) => w.id === 'sharegpt-c4')),
    generalisationPresets: [],
    generalisationCustom: [],
    strategy: 'greedy',
    repeats: '1',
    parallelism: '',
    clientVersion: defaultVersion('vllm'),
    readinessTimeout: '1800',
    name: '',
    description: '',
    files: [],
    translatedFrom: null,
  };
}

function demoIndexList(count: number): string[] {
  return Array.from({ length: Math.min(8, Math.max(1, count)) }, (_, i) => String(i));
}

const text = (value: number | undefined): string => (value === undefined ? '' : String(value));

/** A workload as the wizard's rows hold it; its own label is kept, so it assembles back to itself. */
function workloadDraftOf(w: WorkloadInput): WorkloadDraft {
  const d = w.dataset;
  return {
    key: rowKey(),
    presetId: WORKLOAD_PRESETS.some((p) => p.id === w.id) ? w.id : '',
    id: w.id,
    label: w.label ?? '',
    kind: d.kind,
    path: d.kind !== 'random' ? (d.path ?? '') : '',
    inputLen: d.kind === 'random' ? String(d.inputLen) : '',
    outputLen: text(d.outputLen),
    numPrompts: String(w.numPrompts),
    maxConcurrency: text(w.maxConcurrency),
    ...arrivalDraftOf(w),
    seed: text(w.seed),
  };
}

/**
 * The inverse of `assemble`: a saved definition as the wizard's draft, so a study that has not run can be edited
 * again. Its stages count as edited (they are the file's, not regenerated), and the scenarios that are presets, in
 * the presets' order, are ticked as presets; any other scenario is a row of its own.
 */
export function draftFromDefinition(study: StudyDefinition): WizardDraft {
  const base = initialDraft();
  const chosen = study.engines.map((e) => e.engine);
  const engines = [...chosen, ...ENGINE_IDS.filter((id) => !chosen.includes(id))].map((engine): EngineDraft => {
    const choice = study.engines.find((e) => e.engine === engine);
    if (!choice) return base.engines.find((e) => e.engine === engine)!;
    const { maxModelLen, extraArgs, ...patch } = choice.config;
    const { refs, rest: settings } = splitFileRefs(patch);
    return {
      engine,
      enabled: true,
      version: choice.version,
      mode: choice.mode,
      maxModelLen: text(maxModelLen),
      settings: Object.keys(settings).length > 0 ? JSON.stringify(settings) : '',
      extraArgs: extraArgs && extraArgs.length > 0 ? joinArgs(extraArgs) : '',
      ...(refs ? { files: refs } : {}),
    };
  });
  // Presets are listed first and in their own order (SCENARIO_PRESETS) when assembled: only such a leading run can be ticked.
  const generalisation = study.workloads.generalisation;
  let presetIndex = -1;
  let ticked = 0;
  for (const w of generalisation) {
    const index = SCENARIO_PRESETS.findIndex((p) => sameJson(p, w));
    if (index <= presetIndex) break;
    presetIndex = index;
    ticked += 1;
  }
  const demo = study.demoLab;
  const draft: WizardDraft = {
    ...base,
    modelId: study.model.id,
    precision: study.model.precision ?? '',
    variants: study.model.variants.map((v) => ({ key: rowKey(), id: v.id, model: v.model, label: v.label ?? '', precision: v.precision ?? '', fp8BlockScaled: v.fp8BlockScaled ?? false })),
    hosts: study.hosts.map((h) => {
      if (demo && h.hostId === 'demo-lab') {
        const all = demoIndexList(demo.count);
        return { hostId: h.hostId, gpus: h.gpus ? [...h.gpus] : all, allGpus: all };
      }
      if (h.slurm) return { hostId: h.hostId, gpus: null, allGpus: null, slurm: slurmDraftOf(h.slurm) };
      // The host's own GPU list arrives with its inventory; until then a subset stands as chosen.
      return { hostId: h.hostId, gpus: h.gpus ? [...h.gpus] : null, allGpus: null };
    }),
    gpusPerTrial: String(study.gpusPerTrial),
    demoGpu: demo?.gpu ?? base.demoGpu,
    demoCount: demo ? String(demo.count) : base.demoCount,
    goal: study.goal.kind,
    basis: study.goal.basis ?? 'server',
    gpuBudget: text(study.goal.gpuBudget),
    slos: study.goal.slos.map((slo) => ({ key: rowKey(), metric: slo.metric, bound: slo.max !== undefined ? 'max' : 'min', value: text(slo.max ?? slo.min) })),
    marginPct: String(study.goal.marginPct),
    repeatBudget: String(study.goal.repeatBudget),
    engines,
    tuned: [],
    stages: stageDrafts(study.stages),
    stagesEdited: true,
    primary: workloadDraftOf(study.workloads.primary),
    generalisationPresets: generalisation.slice(0, ticked).map((w) => w.id),
    generalisationCustom: generalisation.slice(ticked).map(workloadDraftOf),
    strategy: study.strategy,
    repeats: String(study.repeats),
    parallelism: text(study.parallelism),
    clientVersion: study.clientVersion,
    readinessTimeout: String(study.readinessTimeoutSeconds),
    name: study.name,
    description: study.description ?? '',
    files: study.files ? [...study.files] : [],
    translatedFrom: study.translations ? study : null,
  };
  return { ...draft, stagesSource: stagesSourceOf(draft) };
}

/** `-FP8` and `-AWQ` checkpoints Qwen publishes for each Qwen3 model; nothing for other ids. */
export function suggestedVariants(modelId: string): Omit<VariantDraft, 'key'>[] {
  const id = modelId.trim();
  if (!/^qwen\/qwen3-/i.test(id) || /-(fp8|awq)$/i.test(id)) return [];
  return [
    { id: 'fp8', model: `${id}-FP8`, label: `FP8 checkpoint (${id}-FP8)`, precision: 'fp8', fp8BlockScaled: true },
    { id: 'awq', model: `${id}-AWQ`, label: `AWQ checkpoint (${id}-AWQ)`, precision: 'awq', fp8BlockScaled: false },
  ];
}

export function variantOf(v: VariantDraft): ModelVariant {
  return {
    id: v.id.trim(),
    model: v.model.trim(),
    ...(v.label.trim() ? { label: v.label.trim() } : {}),
    ...(v.precision ? { precision: v.precision } : {}),
    ...(v.fp8BlockScaled ? { fp8BlockScaled: true } : {}),
  };
}

/** The version of a tuned engine the draft runs (its first enabled choice), or the engine's default. */
function tunedVersion(d: WizardDraft, engine: EngineId): string {
  const chosen = d.engines.find((e) => e.engine === engine && e.enabled)?.version.trim();
  return chosen || ENGINE_ADAPTERS[engine].defaultVersion;
}

export function stagesSourceOf(d: WizardDraft): string {
  return JSON.stringify([d.goal, d.tuned, d.modelId.trim(), d.variants.map(variantOf), d.tuned.map((engine) => tunedVersion(d, engine))]);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The reference studies' stages for each tuned engine, in the order of the first engine's. A stage two engines share word for
 * word (a checkpoint stage) appears once; otherwise each engine gets its own, its id suffixed with the engine.
 */
export function mergedDefaultStages(d: WizardDraft): Stage[] {
  const model = { id: d.modelId.trim(), variants: d.variants.map(variantOf) };
  const perEngine = d.tuned.map((engine) => ({ engine, stages: defaultStages(d.goal, engine, model, tunedVersion(d, engine)) }));
  if (perEngine.length === 1) return perEngine[0]!.stages;
  const merged: Stage[] = [];
  for (const { engine, stages } of perEngine) {
    for (const stage of stages) {
      const same = merged.find((s) => s.id === stage.id);
      if (same && sameJson(same, stage)) continue;
      const clash = perEngine.some((p) => p.engine !== engine && p.stages.some((s) => s.id === stage.id && !sameJson(s, stage)));
      merged.push(clash ? { ...stage, id: `${stage.id}-${engine}`, label: `${stage.label} (${ENGINE_ADAPTERS[engine].displayName})` } : stage);
    }
  }
  // Keep like stages together (all engines' quantization, then all attention backends, …) in the method's order.
  const order = [...new Set(merged.map((s) => s.id.replace(/-(vllm|sglang|trtllm)$/, '')))];
  return order.flatMap((base) => merged.filter((s) => s.id.replace(/-(vllm|sglang|trtllm)$/, '') === base));
}

export function stageDrafts(stages: readonly Stage[]): StageDraft[] {
  return stages.map((s) => ({
    key: rowKey(),
    id: s.id,
    label: s.label,
    engines: s.engines,
    candidates: s.candidates.map((c) => {
      const { refs, rest } = splitFileRefs(c.config ?? {});
      return { key: rowKey(), id: c.id, label: c.label, config: JSON.stringify(rest), variant: c.variant ?? '', ...(refs ? { files: refs } : {}) };
    }),
  }));
}

/** Regenerates the stages when what they derive from changed and the user has not edited them. */
export function withFreshStages(d: WizardDraft): WizardDraft {
  const source = stagesSourceOf(d);
  if (source === d.stagesSource || d.stagesEdited) return d;
  return { ...d, stages: stageDrafts(mergedDefaultStages(d)), stagesSource: source };
}

export function slugOf(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return slug || 'study';
}

const DEMO_GPU_NAMES: Record<DemoGpu, string> = { h100: 'H100', a100: 'A100', h200: 'H200' };

/** "Qwen3-8B, lowest latency on one H100": a name in the reference studies' style. */
export function suggestedName(d: WizardDraft, gpuName: string | null): string {
  const model = d.modelId.trim().split('/').at(-1) ?? '';
  if (!model) return '';
  const goal = d.goal === 'latency' ? 'lowest latency' : 'highest throughput';
  const count = Number(d.gpusPerTrial) === 1 ? 'one' : d.gpusPerTrial;
  return gpuName ? `${model}, ${goal} on ${count} ${gpuName}` : `${model}, ${goal}`;
}

export function demoGpuName(gpu: DemoGpu): string {
  return DEMO_GPU_NAMES[gpu];
}
