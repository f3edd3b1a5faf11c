import type { CallOutput } from '../../../../shared/contract';
import { WORKLOAD_PRESETS, describeWorkload, type Workload, type WorkloadInput } from '../../../../shared/bench/workload';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import { ENGINE_IDS, type EngineId } from '../../../../shared/engines/types';
import { metricSpec, type MetricKey } from '../../../../shared/results/metrics';
import { defaultStages } from '../../../../shared/study/defaults';
import {
  ConfigPatchSchema,
  ModelVariantSchema,
  StudyDefinitionSchema,
  type ConfigPatch,
  type ModelVariant,
  type Stage,
  type StudyDefinition,
  type StudyDefinitionInput,
} from '../../../../shared/study/study';
import { t, type PlainMessageKey } from '../../i18n';
import { issueLine, issueMessage } from './wizard-messages';

export { plainMessage } from './wizard-messages';

/**
 * The wizard's draft: what the user typed, as typed (numbers stay strings until they are checked), and the one
 * place that turns it into a study definition and maps the schema's issues back to the step and field they belong to.
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
}

export interface CandidateDraft {
  key: string;
  id: string;
  label: string;
  config: string;
  variant: string;
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
  requestRate: string;
  seed: string;
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
  slos: SloDraft[];
  marginPct: string;
  engines: EngineDraft[];
  /** Engines whose METHOD.md stages prefill step 5. */
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
    requestRate: preset?.requestRate !== undefined ? String(preset.requestRate) : '',
    seed: preset?.seed !== undefined ? String(preset.seed) : '',
  };
}

function newestKnown(engine: EngineId): string {
  return ENGINE_ADAPTERS[engine].knownVersions.at(-1) ?? '';
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
    slos: [],
    marginPct: '1',
    engines: ENGINE_IDS.map((engine) => ({ engine, enabled: false, version: newestKnown(engine), mode: 'env', maxModelLen: '', settings: '' })),
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
    clientVersion: newestKnown('vllm'),
    readinessTimeout: '1800',
    name: '',
    description: '',
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
    requestRate: text(w.requestRate),
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
    const { maxModelLen, ...settings } = choice.config;
    return {
      engine,
      enabled: true,
      version: choice.version,
      mode: choice.mode,
      maxModelLen: text(maxModelLen),
      settings: Object.keys(settings).length > 0 ? JSON.stringify(settings) : '',
    };
  });
  // Presets are listed first and in their own order when assembled: only such a leading run can be ticked.
  const generalisation = study.workloads.generalisation;
  let presetIndex = -1;
  let ticked = 0;
  for (const w of generalisation) {
    const index = WORKLOAD_PRESETS.findIndex((p) => sameJson(p, w));
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
      // The host's own GPU list arrives with its inventory; until then a subset stands as chosen.
      return { hostId: h.hostId, gpus: h.gpus ? [...h.gpus] : null, allGpus: null };
    }),
    gpusPerTrial: String(study.gpusPerTrial),
    demoGpu: demo?.gpu ?? base.demoGpu,
    demoCount: demo ? String(demo.count) : base.demoCount,
    goal: study.goal.kind,
    slos: study.goal.slos.map((slo) => ({ key: rowKey(), metric: slo.metric, bound: slo.max !== undefined ? 'max' : 'min', value: text(slo.max ?? slo.min) })),
    marginPct: String(study.goal.marginPct),
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

export function stagesSourceOf(d: WizardDraft): string {
  return JSON.stringify([d.goal, d.tuned, d.modelId.trim(), d.variants.map(variantOf)]);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * METHOD.md's stages for each tuned engine, in the order of the first engine's. A stage two engines share word for
 * word (a checkpoint stage) appears once; otherwise each engine gets its own, its id suffixed with the engine.
 */
export function mergedDefaultStages(d: WizardDraft): Stage[] {
  const model = { id: d.modelId.trim(), variants: d.variants.map(variantOf) };
  const perEngine = d.tuned.map((engine) => ({ engine, stages: defaultStages(d.goal, engine, model) }));
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
    candidates: s.candidates.map((c) => ({ key: rowKey(), id: c.id, label: c.label, config: JSON.stringify(c.config ?? {}), variant: c.variant ?? '' })),
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

// ---------- Assembly and validation ----------

/** Where the wizard's save-and-plan stands: the json is the definition the plan was made for. */
export type PlanView =
  | { status: 'idle' }
  | { status: 'saving' }
  | { status: 'planning' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; plan: CallOutput<'studies:plan'>; json: string }
  | { status: 'planFailed'; message: string; json: string };

/** A problem with the draft, placed on the step and the field (a key the step's controls use) it belongs to. */
export interface WizardIssue {
  step: WizardStep;
  field: string;
  message: string;
}

export interface Located {
  step: WizardStep;
  field: string;
  /** The field's name in the reader's language, as a problem's line starts with it. */
  label: string;
}

class Builder {
  readonly issues: WizardIssue[] = [];

  /** `problem` is said in the reader's language already (`t()`, `issueMessage`). */
  add(at: Located, problem: string): void {
    this.issues.push({ step: at.step, field: at.field, message: issueLine(at.label, problem) });
  }

  /** '' → undefined (or "is required"); not a number → an issue and undefined. */
  num(at: Located, text: string, required: boolean): number | undefined {
    const trimmed = text.trim();
    if (trimmed === '') {
      if (required) this.add(at, t('wizard.issue.required'));
      return undefined;
    }
    const value = Number(trimmed);
    if (!Number.isFinite(value)) {
      this.add(at, t('wizard.issue.notNumber'));
      return undefined;
    }
    return value;
  }

  /** A ConfigPatch typed as JSON; its own schema's issues name the setting. */
  patch(at: Located, text: string): ConfigPatch {
    const trimmed = text.trim();
    if (trimmed === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.add(at, t('wizard.issue.notJson'));
      return {};
    }
    const parsed = ConfigPatchSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.map(String).join('.');
        const label = where ? t('wizard.issue.inSetting', { field: at.label, setting: where }) : t('wizard.issue.inSettings', { field: at.label });
        this.add({ ...at, label }, issueMessage(issue));
      }
      return {};
    }
    return value as ConfigPatch;
  }
}

const at = (step: WizardStep, field: string, label: string): Located => ({ step, field, label });

type WorkloadField = 'id' | 'label' | 'kind' | 'path' | 'numPrompts' | 'maxConcurrency' | 'requestRate' | 'seed' | 'inputLen' | 'outputLen';

const WORKLOAD_FIELD_LABELS: Record<WorkloadField, PlainMessageKey> = {
  id: 'wizard.field.workload.id',
  label: 'wizard.field.workload.label',
  kind: 'wizard.field.workload.kind',
  path: 'wizard.field.workload.path',
  numPrompts: 'wizard.field.workload.numPrompts',
  maxConcurrency: 'wizard.field.workload.maxConcurrency',
  requestRate: 'wizard.field.workload.requestRate',
  seed: 'wizard.field.workload.seed',
  inputLen: 'wizard.field.workload.inputLen',
  outputLen: 'wizard.field.workload.outputLen',
};

function isWorkloadField(key: string): key is WorkloadField {
  return Object.hasOwn(WORKLOAD_FIELD_LABELS, key);
}

/** "Primary workload prompts": a workload's field named after the workload; a field it does not know keeps its key. */
function workloadLabel(workload: string, field: string): string {
  return t('wizard.field.workloadPart', { workload, part: isWorkloadField(field) ? t(WORKLOAD_FIELD_LABELS[field]) : field });
}

function workloadAt(prefix: string, label: string): (field: WorkloadField) => Located {
  return (field) => at('workloads', `${prefix}.${field}`, workloadLabel(label, field));
}

function buildWorkload(b: Builder, w: WorkloadDraft, locate: (field: WorkloadField) => Located): WorkloadInput {
  const numPrompts = b.num(locate('numPrompts'), w.numPrompts, true);
  const maxConcurrency = b.num(locate('maxConcurrency'), w.maxConcurrency, false);
  const requestRate = b.num(locate('requestRate'), w.requestRate, false);
  const seed = b.num(locate('seed'), w.seed, false);
  const outputLen = b.num(locate('outputLen'), w.outputLen, w.kind === 'random');
  const dataset =
    w.kind === 'random'
      ? { kind: 'random' as const, inputLen: b.num(locate('inputLen'), w.inputLen, true) as number, outputLen: outputLen as number }
      : w.kind === 'sharegpt'
        ? { kind: 'sharegpt' as const, ...(w.path.trim() ? { path: w.path.trim() } : {}), ...(outputLen !== undefined ? { outputLen } : {}) }
        : { kind: 'custom' as const, path: w.path.trim(), ...(outputLen !== undefined ? { outputLen } : {}) };
  const workload: Workload = {
    id: w.id.trim(),
    dataset,
    numPrompts: numPrompts as number,
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...(requestRate !== undefined ? { requestRate } : {}),
    ...(seed !== undefined ? { seed } : {}),
    backend: 'openai-chat',
  };
  const preset = WORKLOAD_PRESETS.find((p) => p.id === w.presetId);
  const { label: presetLabel, ...presetRest } = preset ?? { label: undefined };
  // An untouched preset keeps its own label; a changed one is described as it now is.
  const label = w.label.trim() || (preset && sameJson(presetRest, workload) ? presetLabel : numPrompts !== undefined ? labelOf(workload) : undefined);
  const { id, ...rest } = workload;
  return { id, ...(label ? { label } : {}), ...rest };
}

/** "Random 128 in / 4 out, 50 prompts, unbounded concurrency, seed 42": the presets' style for a changed one. */
function labelOf(w: Workload): string {
  const text = describeWorkload(w);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${w.seed !== undefined ? `, seed ${w.seed}` : ''}`;
}

export interface Assembled {
  definition: StudyDefinitionInput;
  /** The schema-checked definition, when the draft is valid as a whole. */
  parsed: StudyDefinition | null;
  issues: WizardIssue[];
}

/** Builds the definition from the draft and checks it with the shared schema; every issue names its step and field. */
export function assemble(d: WizardDraft, isDemoHost: (hostId: string) => boolean): Assembled {
  const b = new Builder();
  const engines = d.engines.filter((e) => e.enabled);
  const generalisationPresets = WORKLOAD_PRESETS.filter((p) => d.generalisationPresets.includes(p.id));

  const slos = d.slos.map((s, i) => {
    const value = b.num(at('goal', `slos.${i}.value`, t('wizard.field.sloValue', { n: i + 1 })), s.value, true);
    return { metric: s.metric, ...(value !== undefined ? { [s.bound]: value } : {}) };
  });
  const engineChoices = engines.map((e) => {
    const maxModelLen = b.num(at('engines', `engines.${e.engine}.maxModelLen`, t('wizard.field.engineMaxModelLen', { engine: ENGINE_ADAPTERS[e.engine].displayName })), e.maxModelLen, false);
    const settings = b.patch(at('engines', `engines.${e.engine}.settings`, t('wizard.field.engineSettings', { engine: ENGINE_ADAPTERS[e.engine].displayName })), e.settings);
    return { engine: e.engine, version: e.version, mode: e.mode, config: { ...settings, ...(maxModelLen !== undefined ? { maxModelLen } : {}) } };
  });
  const stages = d.stages.map((s, i) => ({
    id: s.id.trim(),
    label: s.label.trim(),
    ...(s.engines ? { engines: s.engines } : {}),
    candidates: s.candidates.map((c, j) => ({
      id: c.id.trim(),
      label: c.label.trim(),
      config: b.patch(at('stages', `stages.${i}.candidates.${j}.config`, t('wizard.field.candidateSettings', { n: i + 1, m: j + 1 })), c.config),
      ...(c.variant ? { variant: c.variant } : {}),
    })),
  }));
  const hasDemo = d.hosts.some((h) => isDemoHost(h.hostId));
  const demoCount = hasDemo ? b.num(at('hardware', 'demoCount', t('wizard.field.demoCount')), d.demoCount, true) : undefined;
  const gpusPerTrial = b.num(at('hardware', 'gpusPerTrial', t('wizard.field.gpusPerTrial')), d.gpusPerTrial, true);
  d.hosts.forEach((h) => {
    if (h.gpus !== null && h.gpus.length === 0) b.add(at('hardware', `hosts.${h.hostId}.gpus`, t('wizard.field.hostGpus', { host: h.hostId })), t('wizard.issue.noGpuTicked'));
  });
  const usable = d.hosts.map((h) => (isDemoHost(h.hostId) ? (h.gpus?.length ?? demoCount ?? 1) : (h.gpus?.length ?? Infinity)));
  if (gpusPerTrial !== undefined && usable.length > 0 && usable.every((n) => n < gpusPerTrial)) {
    b.add(at('hardware', 'gpusPerTrial', t('wizard.field.gpusPerTrial')), t('wizard.issue.moreGpusThanHosts', { n: Math.max(...usable) }));
  }
  if (engines.length > 0 && d.tuned.length === 0 && d.stages.length > 0) {
    // Stages without a tuned engine are still valid; nothing to report.
  }
  const ids = new Map<string, number>();
  [...generalisationPresets.map((p) => p.id), ...d.generalisationCustom.map((w) => w.id.trim())].forEach((id) => ids.set(id, (ids.get(id) ?? 0) + 1));
  d.generalisationCustom.forEach((w, i) => {
    if (w.id.trim() && (ids.get(w.id.trim()) ?? 0) > 1) b.add(at('workloads', `custom.${i}.id`, workloadLabel(t('wizard.field.scenario', { n: i + 1 }), 'id')), t('wizard.issue.usedTwice', { id: w.id.trim() }));
  });

  const definition: StudyDefinitionInput = {
    name: d.name.trim(),
    ...(d.description.trim() ? { description: d.description.trim() } : {}),
    model: {
      id: d.modelId.trim(),
      ...(d.precision ? { precision: d.precision } : {}),
      variants: d.variants.map(variantOf),
    },
    hosts: d.hosts.map((h) => {
      // Without the host's full list (its inventory not read yet) a ticked list stands as a subset.
      const subset = h.gpus !== null && (h.allGpus === null || !(h.gpus.length === h.allGpus.length && h.allGpus.every((g) => h.gpus!.includes(g))));
      return { hostId: h.hostId, ...(subset ? { gpus: [...h.gpus!].sort((x, y) => Number(x) - Number(y)) } : {}) };
    }),
    ...(hasDemo ? { demoLab: { gpu: d.demoGpu, count: demoCount as number } } : {}),
    goal: { kind: d.goal, slos: slos as StudyDefinitionInput['goal']['slos'], marginPct: b.num(at('goal', 'marginPct', t('wizard.field.margin')), d.marginPct, true) as number },
    engines: engineChoices,
    stages,
    workloads: {
      primary: buildWorkload(b, d.primary, workloadAt('primary', t('wizard.field.primary'))),
      generalisation: [
        ...generalisationPresets,
        ...d.generalisationCustom.map((w, i) => buildWorkload(b, w, workloadAt(`custom.${i}`, t('wizard.field.scenario', { n: i + 1 })))),
      ],
    },
    strategy: d.strategy,
    repeats: b.num(at('strategy', 'repeats', t('wizard.field.repeats')), d.repeats, true) as number,
    gpusPerTrial: gpusPerTrial as number,
    ...(d.parallelism.trim() ? { parallelism: b.num(at('strategy', 'parallelism', t('wizard.field.parallelism')), d.parallelism, false) as number } : {}),
    clientVersion: d.clientVersion,
    readinessTimeoutSeconds: b.num(at('strategy', 'readinessTimeout', t('wizard.field.readinessTimeout')), d.readinessTimeout, true) as number,
  };

  const result = StudyDefinitionSchema.safeParse(definition);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const located = locateSchemaPath(issue.path, d, engines, generalisationPresets.length);
      // A field the wizard already reported (an empty number, bad JSON) is not reported twice.
      if (b.issues.some((i) => i.field === located.field)) continue;
      b.add(located, issueMessage(issue));
    }
  }
  return { definition, parsed: result.success && b.issues.length === 0 ? result.data : null, issues: b.issues };
}

function locateWorkload(rest: PropertyKey[], prefix: string, label: string): Located {
  const field = String(rest[0] === 'dataset' ? (rest[1] ?? 'kind') : (rest[0] ?? 'id'));
  return at('workloads', `${prefix}.${field}`, workloadLabel(label, field));
}

/** The step and field a StudyDefinitionSchema issue path belongs to, with the field's name as a problem names it. */
export function locateSchemaPath(path: PropertyKey[], d: WizardDraft, engines: EngineDraft[], presetCount: number): Located {
  const [head, a, b, c, e] = path;
  switch (head) {
    case 'name':
      return at('review', 'name', t('wizard.field.name'));
    case 'description':
      return at('review', 'description', t('wizard.field.description'));
    case 'model':
      if (a === 'variants' && typeof b === 'number') {
        const n = b + 1;
        if (c === 'model') return at('model', `variants.${b}.model`, t('wizard.field.variantModel', { n }));
        if (c === 'label') return at('model', `variants.${b}.label`, t('wizard.field.variantLabel', { n }));
        if (c === 'precision') return at('model', `variants.${b}.precision`, t('wizard.field.variantPrecision', { n }));
        return at('model', `variants.${b}.id`, t('wizard.field.variantId', { n }));
      }
      if (a === 'precision') return at('model', 'precision', t('wizard.field.precision'));
      return at('model', 'modelId', t('wizard.field.model'));
    case 'hosts':
      return typeof a === 'number' && d.hosts[a]
        ? at('hardware', `hosts.${d.hosts[a].hostId}.gpus`, t('wizard.field.hostGpus', { host: d.hosts[a].hostId }))
        : at('hardware', 'hosts', t('wizard.field.hosts'));
    case 'demoLab':
      return a === 'gpu' ? at('hardware', 'demoGpu', t('wizard.field.demoGpu')) : at('hardware', 'demoCount', t('wizard.field.demoCount'));
    case 'gpusPerTrial':
      return at('hardware', 'gpusPerTrial', t('wizard.field.gpusPerTrial'));
    case 'goal':
      if (a === 'slos' && typeof b === 'number') {
        return c === 'metric'
          ? at('goal', `slos.${b}.metric`, t('wizard.field.sloMetric', { n: b + 1 }))
          : at('goal', `slos.${b}.value`, t('wizard.field.sloValue', { n: b + 1 }));
      }
      if (a === 'marginPct') return at('goal', 'marginPct', t('wizard.field.margin'));
      return at('goal', 'goal', t('wizard.field.goal'));
    case 'engines': {
      const engine = typeof a === 'number' ? engines[a] : undefined;
      if (!engine) return at('engines', 'engines', t('wizard.field.engines'));
      const name = ENGINE_ADAPTERS[engine.engine].displayName;
      if (b === 'version') return at('engines', `engines.${engine.engine}.version`, t('wizard.field.engineVersion', { engine: name }));
      if (b === 'config') {
        return c === 'maxModelLen'
          ? at('engines', `engines.${engine.engine}.maxModelLen`, t('wizard.field.engineMaxModelLen', { engine: name }))
          : at('engines', `engines.${engine.engine}.settings`, t('wizard.field.engineSettings', { engine: name }));
      }
      return at('engines', `engines.${engine.engine}.version`, name);
    }
    case 'stages': {
      if (typeof a !== 'number') return at('stages', 'stages', t('wizard.field.stages'));
      const n = a + 1;
      if (b === 'candidates' && typeof c === 'number') {
        const where = `stages.${a}.candidates.${c}`;
        const m = c + 1;
        if (e === 'label') return at('stages', `${where}.label`, t('wizard.field.candidateLabel', { n, m }));
        if (e === 'variant') return at('stages', `${where}.variant`, t('wizard.field.candidateVariant', { n, m }));
        if (e === 'config') return at('stages', `${where}.config`, t('wizard.field.candidateSettings', { n, m }));
        return at('stages', `${where}.id`, t('wizard.field.candidateId', { n, m }));
      }
      if (b === 'candidates') return at('stages', `stages.${a}.candidates`, t('wizard.field.stage', { n }));
      return b === 'label' ? at('stages', `stages.${a}.label`, t('wizard.field.stageLabel', { n })) : at('stages', `stages.${a}.id`, t('wizard.field.stageId', { n }));
    }
    case 'workloads':
      if (a === 'primary') return locateWorkload(path.slice(2), 'primary', t('wizard.field.primary'));
      if (a === 'generalisation' && typeof b === 'number' && b >= presetCount) {
        return locateWorkload(path.slice(3), `custom.${b - presetCount}`, t('wizard.field.scenario', { n: b - presetCount + 1 }));
      }
      return at('workloads', 'generalisation', t('wizard.field.scenarios'));
    case 'strategy':
      return at('strategy', 'strategy', t('wizard.field.strategy'));
    case 'repeats':
      return at('strategy', 'repeats', t('wizard.field.repeats'));
    case 'parallelism':
      return at('strategy', 'parallelism', t('wizard.field.parallelism'));
    case 'clientVersion':
      return at('strategy', 'clientVersion', t('wizard.field.clientVersion'));
    case 'readinessTimeoutSeconds':
      return at('strategy', 'readinessTimeout', t('wizard.field.readinessTimeout'));
    default:
      return at('review', 'definition', t('wizard.field.study'));
  }
}

/** Places an issue path the core reported (`study.model.id`, dotted) on its step and field. */
export function locateCoreIssue(path: string, d: WizardDraft, presetCount: number): Located {
  const parts: PropertyKey[] = path
    .split('.')
    .filter((p) => p !== 'study')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (parts[0] === 'path') return at('review', 'path', t('wizard.field.file'));
  return locateSchemaPath(parts, d, d.engines.filter((e) => e.enabled), presetCount);
}
