import { getAdapter } from '../../engines/adapters';
import { splitArgs } from '../../engines/argv-text';
import type { EngineId } from '../../engines/types';
import type { Workload } from '../../bench/workload';
import { BENCH_RESULT_SCHEMA_VERSION, orderMetrics, type BenchResult } from '../../results/bench-result';
import type { TextBlock } from '../../results/parse-bench-text';
import {
  StudyDefinitionSchema,
  type GuideProblem,
  type Candidate,
  type ConfigPatch,
  type EngineChoice,
  type ModelVariant,
  type ReferenceTrial,
  type Stage,
  type StudyDefinition,
} from '../study';
import { readBenchCommand } from './bench-command';
import { engineVersionsOf, goalOf, hardwareOf, modelNamedIn, randomLengthsOf, type Hardware } from './guide-facts';
import { runsOfSection, sameValue, settingsOf, type GuideRun } from './guide-stages';
import { readGuideStructure, type GuideItem, type GuideSection } from './guide-structure';
import { guideFormatOf, guideLines, type GuideFormat } from './guide-text';
import { blockMatches, matchWorkload, withIdentity, workloadFromBlock, type WorkloadShape } from './guide-workloads';
import { unshownSummaryNumbers } from './summary-check';
import type { ServeRead } from './serve-command';

/**
 * A tuning guide → a study definition and the guide's published results as reference trials. The guide's own
 * structure decides: its goal, box and engine versions from the setup sections, its workloads from its
 * `vllm bench serve` commands (and the result blocks' own numbers), a stage per numbered section with a candidate per
 * configuration it ran (a config patch on what the earlier stages kept), the first section that compares engines as
 * the engine selection, the "other scenarios" section as the baseline-vs-recommended generalisation. Every result
 * block becomes a reference trial; what cannot be mapped and what the guide gets wrong become problems, with lines.
 */


export interface StudyFromGuide {
  study: StudyDefinition;
  references: ReferenceTrial[];
  problems: GuideProblem[];
  title: string;
}

export interface GuideOptions {
  /** The file's name (not its path), kept as the published results' source. */
  fileName: string;
  format?: GuideFormat;
  /** The host the study runs on; the demo lab by default. */
  hostId?: string;
}

const DEFAULT_CLIENT_VERSION = '0.11.0';
/** Where an earlier stage's kept checkpoint is remembered among the settings it kept. */
const VARIANT_KEY = '\u0000variant';

const PRECISIONS: Readonly<Record<string, ModelVariant['precision']>> = { fp8: 'fp8', awq: 'awq', int4: 'int4', 'gptq-int4': 'int4', int8: 'int8', 'gptq-int8': 'int8', fp4: 'fp4', nvfp4: 'fp4' };

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'x';
const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const baseName = (model: string): string => model.replace(/\/+$/, '').split('/').pop() ?? model;

function uniqueId(wanted: string, taken: Set<string>): string {
  let id = wanted;
  for (let n = 2; taken.has(id); n++) id = `${wanted.slice(0, 60)}-${n}`;
  taken.add(id);
  return id;
}

/** A command's options, each flag with the words after it up to the next flag (program and model left out). */
function optionUnits(command: string): string[] {
  const units: string[] = [];
  for (const word of splitArgs(command).words) {
    if (word.startsWith('-')) units.push(word);
    else if (units.length > 0) units[units.length - 1] += ` ${word}`;
  }
  return units.filter((u) => !/^--model(-path)?\b/.test(u));
}

/** The options of `command` that neither its engine's base command nor an earlier stage's commands have. */
function changedOptions(command: string, earlier: readonly string[]): string {
  const seen = new Set(earlier.flatMap(optionUnits));
  return optionUnits(command)
    .filter((u) => !seen.has(u))
    .join(' ');
}

/** Unquoted JSON on a command line: the shell splits it at spaces and eats its double quotes. */
function unquotedJson(command: string): string | undefined {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '{') {
      const end = command.indexOf('}', i);
      const json = command.slice(i, end < 0 ? undefined : end + 1);
      if (/[\s"]/.test(json)) return json;
    }
  }
  return undefined;
}

class GuideReader {
  readonly problems: GuideProblem[] = [];
  readonly references: ReferenceTrial[] = [];
  private readonly referenced = new Set<number>();
  readonly workloads: Workload[] = [];
  private randomDrafts: { shape: WorkloadShape; line: number }[] = [];
  readonly variants: ModelVariant[] = [];

  constructor(
    private readonly fileName: string,
    readonly title: string,
    readonly model: string,
    readonly hardware: Hardware | undefined,
    readonly versions: Map<EngineId, { value: string; line: number }>,
  ) {}

  problem(line: number, kind: GuideProblem['kind'], message: string): void {
    if (this.problems.some((p) => p.line === line && p.message === message)) return;
    this.problems.push({ line, kind, message });
  }

  versionOf(engine: EngineId): string {
    return this.versions.get(engine)?.value ?? getAdapter(engine).defaultVersion;
  }

  // -- workloads ---------------------------------------------------------------------------------------------

  declareWorkload(shape: WorkloadShape): Workload {
    const existing = this.workloads.find((w) => sameValue({ ...w, id: 0, label: 0 }, { ...withIdentity(shape), id: 0, label: 0 }));
    if (existing) return existing;
    const w = withIdentity(shape);
    this.workloads.push(w);
    return w;
  }

  addRandomDraft(shape: WorkloadShape, line: number): void {
    const duplicate = this.workloads.some((w) => w.dataset.kind === 'random' && shape.dataset.kind === 'random' && w.dataset.inputLen === shape.dataset.inputLen && w.dataset.outputLen === shape.dataset.outputLen);
    if (!duplicate) this.randomDrafts.push({ shape, line });
  }

  /** The workload a block measured: a declared one, a described random dataset, or one made from its own numbers. */
  workloadOf(block: TextBlock): Workload | undefined {
    // Random datasets first (declared, then described): a ShareGPT workload of the same size must not take their blocks.
    const random = matchWorkload(block, this.workloads.filter((w) => w.dataset.kind === 'random'));
    if (random) return random;
    const draft = this.randomDrafts.find((d) => blockMatches(block, d.shape, true));
    if (draft) return this.declareWorkload({ ...draft.shape, numPrompts: (block.metrics.completed ?? 0) + (block.metrics.failed ?? 0) });
    const known = matchWorkload(block, this.workloads);
    if (known) return known;
    const shape = workloadFromBlock(block, this.workloads);
    if (!shape) {
      this.problem(block.line, 'unmapped', 'this result block does not say how many requests it ran; no workload could be matched to it');
      return undefined;
    }
    return this.declareWorkload(shape);
  }

  /** Described datasets no block ran: the study cannot know their prompt count. */
  reportUnusedDrafts(): void {
    for (const d of this.randomDrafts) {
      if (d.shape.dataset.kind !== 'random') continue;
      const { inputLen, outputLen } = d.shape.dataset;
      if (this.workloads.some((w) => w.dataset.kind === 'random' && w.dataset.inputLen === inputLen && w.dataset.outputLen === outputLen)) continue;
      this.problem(d.line, 'unmapped', `the random dataset ${inputLen} in / ${outputLen} out has no result on the page to take its prompt count from; the study does not run it`);
    }
  }

  // -- models ------------------------------------------------------------------------------------------------

  /** The study's model, a variant of it (its id), or a model of another page (reported). */
  modelOf(model: string, line: number): { variant?: string } | null {
    if (model === this.model) return {};
    const base = baseName(this.model);
    const name = baseName(model);
    const sameOrg = !model.includes('/') || !this.model.includes('/') || model.split('/')[0] === this.model.split('/')[0];
    if (sameOrg && name.toLowerCase().startsWith(`${base.toLowerCase()}-`)) {
      const suffix = name.slice(base.length + 1);
      const id = slug(suffix);
      if (!this.variants.some((v) => v.id === id)) {
        const precision = PRECISIONS[suffix.toLowerCase()];
        this.variants.push({ id, model, label: `${suffix} checkpoint (${model})`, ...(precision ? { precision } : {}) });
      }
      return { variant: id };
    }
    this.problem(line, 'wrong', `this command serves ${model}, not the page's model ${this.model}; the study takes its settings on ${this.model}`);
    return null;
  }

  // -- checks on every command -------------------------------------------------------------------------------

  checkCommand(run: GuideRun): void {
    const json = unquotedJson(run.printed);
    if (json) this.problem(run.line, 'wrong', `the JSON ${json} is not quoted: a shell splits it at its spaces and drops its double quotes; write it in single quotes`);
    if ('error' in run.read) {
      this.problem(run.line, 'unmapped', `this command could not be read (${run.read.error})`);
      return;
    }
    for (const p of run.read.problems) this.problem(run.line, 'unmapped', p);
    const tp = run.read.config.tensorParallelSize ?? 1;
    if (this.hardware && tp > this.hardware.count) {
      this.problem(run.line, 'wrong', `this command spreads the model over ${tp} GPUs, but the page's box has ${this.hardware.count} ("${this.hardware.text}", line ${this.hardware.line})`);
    }
  }

  // -- references --------------------------------------------------------------------------------------------

  addReference(ref: Omit<ReferenceTrial, 'id' | 'kind' | 'source'>, line: number, block?: TextBlock): void {
    if (block) this.referenced.add(block.line);
    const result: BenchResult | undefined = block
      ? {
          schemaVersion: BENCH_RESULT_SCHEMA_VERSION,
          source: { file: this.fileName, format: block.client === 'sglang' ? 'sglang-text' : 'vllm-text', index: this.references.length, line: block.line },
          metrics: orderMetrics(block.metrics),
          extra: block.extra,
          provenance: {
            ...(ref.engine ? { engine: ref.engine } : {}),
            ...(ref.version ? { engineVersion: ref.version } : {}),
            model: this.model,
            ...(this.hardware ? { gpu: { model: this.hardware.gpu?.toUpperCase() ?? this.hardware.otherGpu, count: this.hardware.count } } : {}),
          },
        }
      : undefined;
    this.references.push({ id: `published-l${line}`, kind: 'published', source: { file: this.fileName, title: this.title, line }, ...ref, ...(result ? { result } : {}) });
  }

  /** Blocks no section placed: still published results, kept without a stage. */
  referenceTheRest(sections: readonly GuideSection[]): void {
    for (const section of sections) {
      for (const item of section.items) {
        if (item.kind !== 'block' || this.referenced.has(item.block.line)) continue;
        const workload = this.workloadOf(item.block);
        this.problem(item.block.line, 'unmapped', `this result block is under "${section.title || 'the page top'}", where no server command says what ran; it is kept as a published result without a stage`);
        this.addReference({ label: item.label ?? section.title, status: 'ok', ...(workload ? { workloadId: workload.id } : {}) }, item.block.line, item.block);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------

export function studyFromGuide(text: string, options: GuideOptions): StudyFromGuide {
  const format = options.format ?? guideFormatOf(options.fileName, text);
  const structure = readGuideStructure(guideLines(text, format));
  const sections = structure.sections;
  const first = (kind: GuideSection['kind']) => sections.find((s) => s.kind === kind);
  const title = structure.title || options.fileName;
  const versions = engineVersionsOf(first('engineVersions'));
  const clientVersion = versions.get('vllm')?.value ?? DEFAULT_CLIENT_VERSION;
  const early: GuideProblem[] = structure.blockErrors.map((e) => ({ line: e.line, kind: 'unmapped', message: `a result block could not be read: ${e.message}` }));

  // Benchmark commands: the workloads, and the model they point the client at.
  const benchItems = sections.flatMap((s) => s.items.filter((i): i is Extract<GuideItem, { kind: 'command' }> => i.kind === 'command' && i.program === 'bench'));
  const benches = benchItems.map((item) => ({ item, read: readBenchCommand(item.text, clientVersion) }));
  const serverRuns = sections.filter((s) => s.kind === 'stage' || s.kind === 'generalisation' || s.kind === 'recommendation').map((s) => ({ section: s, runs: runsOfSection(s, Object.fromEntries([...versions].map(([e, v]) => [e, v.value]))) }));
  const model = pickModel(benches.map((b) => b.read.model), modelNamedIn(first('model')), serverRuns.flatMap((r) => r.runs.runs), early);
  const reader = new GuideReader(options.fileName, title, model, hardwareOf(first('hardware')), versions);
  reader.problems.push(...early);

  for (const b of benches) {
    for (const p of b.read.problems) reader.problem(b.item.line, 'unmapped', p);
    if (b.read.model && b.read.model !== model) reader.problem(b.item.line, 'wrong', `this benchmark points the client at ${b.read.model}, not the page's model ${model}`);
    if (b.read.workload) reader.declareWorkload(b.read.workload);
  }
  const primary = reader.workloads[0];
  const randomBench = reader.workloads.find((w) => w.dataset.kind === 'random');
  for (const r of randomLengthsOf(first('dataset'))) {
    reader.addRandomDraft(
      {
        dataset: { kind: 'random', ...r.value },
        numPrompts: randomBench?.numPrompts ?? 1,
        ...(randomBench?.seed !== undefined ? { seed: randomBench.seed } : {}),
        backend: (randomBench ?? primary)?.backend ?? 'openai-chat',
      },
      r.line,
    );
  }

  const goal = goalOf(first('goal'), title);
  if (!goal) reader.problem(first('goal')?.line ?? 1, 'unmapped', 'the guide does not say whether it tunes for latency or throughput; the study takes latency');
  if (!reader.hardware) reader.problem(first('hardware')?.line ?? 1, 'unmapped', 'the guide names no GPU the demo lab can stand in for; the study is set for one H100');
  else if (!reader.hardware.gpu) reader.problem(reader.hardware.line, 'unmapped', `the demo lab has no ${reader.hardware.otherGpu}; the study is set for an H100 there`);

  // Every server command is checked where it stands, the recommendation's too.
  for (const { runs } of serverRuns) {
    const seen = new Set<number>();
    for (const run of runs.runs) {
      if (seen.has(run.line)) continue;
      seen.add(run.line);
      reader.checkCommand(run);
    }
  }

  const stageRuns = serverRuns.filter((r) => r.section.kind === 'stage');
  const engineStage = stageRuns.find((r) => new Set(okRuns(r.runs.runs).map((run) => run.read.engine)).size >= 2) ?? stageRuns[0];
  const engines = engineChoices(reader, engineStage?.runs.runs ?? []);
  const engineCommand = new Map<EngineId, string>();
  for (const run of okRuns(engineStage?.runs.runs ?? [])) if (!engineCommand.has(run.read.engine)) engineCommand.set(run.read.engine, run.command);

  // The engine stage's results.
  for (const run of engineStage?.runs.runs ?? []) {
    const engine = 'error' in run.read ? undefined : run.read.engine;
    // Named as the engine selection's trials are: the engine and its version.
    const label = engine ? `${getAdapter(engine).displayName} ${reader.versionOf(engine)}` : (run.label ?? engineStage?.section.title ?? '');
    placeRun(reader, run, 'engine', engine ? `${engine}-${reader.versionOf(engine)}` : undefined, label);
  }

  // The tuning stages.
  const stages: Stage[] = [];
  const inherited: Record<string, unknown>[] = [];
  const earlierCommands: string[] = [];
  const stageIds = new Set<string>(['engine', 'generalisation']);
  for (const sr of stageRuns) {
    if (sr === engineStage) continue;
    const stage = stageOf(reader, sr.section, sr.runs.runs, engines, engineCommand, inherited, earlierCommands, stageIds);
    if (stage) stages.push(stage);
  }

  // The generalisation: the section's first command is the baseline, the next one the recommendation.
  const general = serverRuns.find((r) => r.section.kind === 'generalisation');
  const sides = new Map<string, 'baseline' | 'recommended'>();
  for (const run of general?.runs.runs ?? []) {
    if (!sides.has(run.printed)) sides.set(run.printed, sides.size === 0 ? 'baseline' : 'recommended');
    placeRun(reader, run, 'generalisation', sides.get(run.printed), `${sides.get(run.printed) === 'baseline' ? 'baseline' : 'recommended'}${run.workloadLabel ? `, ${run.workloadLabel}` : ''}`);
  }

  reader.referenceTheRest(sections);
  reader.reportUnusedDrafts();

  const recommendation = serverRuns.find((r) => r.section.kind === 'recommendation')?.runs.runs[0];
  const allBlocks = sections.flatMap((s) => s.items.flatMap((i) => (i.kind === 'block' ? [i.block] : [])));
  const summaryLines = sections
    .filter((s) => ['recommendation', 'summary', 'stage', 'generalisation'].includes(s.kind))
    .flatMap((s) => s.items.flatMap((i) => (i.kind === 'prose' ? [{ text: i.text, line: i.line }] : [])));
  const summaryStages = [engineStage, ...stageRuns.filter((r) => r !== engineStage)]
    .filter((r): r is NonNullable<typeof r> => r !== undefined)
    .map((r) => ({ title: r.section.title, blocks: r.runs.runs.flatMap((run) => (run.block ? [run.block] : [])) }));
  for (const f of unshownSummaryNumbers(summaryLines, allBlocks, summaryStages, goal?.value ?? 'latency')) {
    reader.problem(
      f.line,
      'wrong',
      f.stage !== undefined
        ? `the page states ${f.text} for "${f.stage}", but that stage's result blocks show ${f.shown ?? 'no such gain'} against the best before it`
        : `the page states ${f.text}, but none of its result blocks shows that number`,
    );
  }

  const study = assemble(reader, { title, fileName: options.fileName, hostId: options.hostId ?? 'demo-lab', goal: goal?.value ?? 'latency', engines, stages, recommendation });
  reader.problems.sort((a, b) => a.line - b.line);
  return { study, references: reader.references, problems: reader.problems, title };
}

type OkRun = GuideRun & { read: ServeRead };
function okRuns(runs: readonly GuideRun[]): OkRun[] {
  return runs.filter((r): r is OkRun => !('error' in r.read));
}

/** The bench command's model, else the setup's (resolved against the commands when it lacks its organisation). */
function pickModel(benchModels: (string | undefined)[], named: { value: string; line: number } | undefined, runs: readonly GuideRun[], problems: GuideProblem[]): string {
  const commandModels = okRuns(runs).map((r) => r.read.config.model);
  const fromBench = benchModels.find((m) => m !== undefined);
  if (named && fromBench && baseName(fromBench) !== baseName(named.value)) {
    problems.push({ line: named.line, kind: 'wrong', message: `the setup names the model ${named.value}, but the benchmark runs ${fromBench}; the study follows the benchmark` });
  }
  if (fromBench) return fromBench;
  if (named) return named.value.includes('/') ? named.value : (commandModels.find((m) => baseName(m) === named.value) ?? named.value);
  const counts = new Map<string, number>();
  for (const m of commandModels) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'unknown/model';
}

function engineChoices(reader: GuideReader, runs: readonly GuideRun[]): EngineChoice[] {
  const out: EngineChoice[] = [];
  for (const run of okRuns(runs)) {
    if (out.some((c) => c.engine === run.read.engine)) continue;
    const { model, ...settings } = settingsOf(run.read.config);
    reader.modelOf(model as string, run.line);
    if (!reader.versions.has(run.read.engine)) {
      reader.problem(run.line, 'unmapped', `the guide names no ${getAdapter(run.read.engine).displayName} version; the study uses ${getAdapter(run.read.engine).defaultVersion}`);
    }
    out.push({ engine: run.read.engine, version: reader.versionOf(run.read.engine), mode: 'env', config: settings as ConfigPatch });
  }
  return out;
}

function placeRun(reader: GuideReader, run: GuideRun, stageId: string, candidateId: string | undefined, label: string): void {
  const engine = 'error' in run.read ? undefined : run.read.engine;
  const common = {
    stageId,
    ...(candidateId !== undefined ? { candidateId } : {}),
    label,
    ...(engine ? { engine, version: reader.versionOf(engine) } : {}),
    command: run.command,
  };
  if (run.failure) {
    // A launch that failed measured nothing; it stands for the stage's workload, the study's primary one.
    const primary = reader.workloads[0];
    reader.addReference({ ...common, status: 'failed', error: run.failure.error, ...(primary ? { workloadId: primary.id } : {}) }, run.failure.line);
  } else if (run.block) {
    const workload = reader.workloadOf(run.block);
    reader.addReference({ ...common, status: 'ok', ...(workload ? { workloadId: workload.id } : {}) }, run.block.line, run.block);
  }
}

/** What a candidate changes: its settings that differ from its engine's base and that no earlier stage kept. */
function patchOf(reader: GuideReader, run: OkRun, engines: readonly EngineChoice[], inherited: readonly Record<string, unknown>[]): { patch: ConfigPatch; variant?: string } | null {
  const choice = engines.find((e) => e.engine === run.read.engine);
  const base: Record<string, unknown> = { model: reader.model, ...(choice?.config ?? {}) };
  const full = settingsOf(run.read.config);
  const patch: Record<string, unknown> = {};
  let variant: string | undefined;
  for (const key of new Set([...Object.keys(full), ...Object.keys(base)])) {
    if (sameValue(full[key], base[key])) continue;
    if (key === 'model') {
      const m = reader.modelOf(full.model as string, run.line);
      if (m?.variant) variant = m.variant;
      continue;
    }
    if (full[key] === undefined) {
      reader.problem(run.line, 'unmapped', `this command leaves out ${key} ${JSON.stringify(base[key])}, which the guide's engine selection sets for ${getAdapter(run.read.engine).displayName}; the study keeps it (a stage only adds settings)`);
      continue;
    }
    if (inherited.some((p) => sameValue(p[key], full[key]))) continue;
    patch[key] = full[key];
  }
  // A checkpoint an earlier stage kept is where this stage starts, not what it tries.
  if (variant !== undefined && inherited.some((p) => p[VARIANT_KEY] === variant)) variant = undefined;
  return { patch: patch as ConfigPatch, ...(variant ? { variant } : {}) };
}

function stageIdOf(candidates: readonly { patch: ConfigPatch; variant?: string }[], taken: Set<string>): string {
  const keys: string[] = [];
  for (const c of candidates) {
    if (c.variant && !keys.includes('quantization')) keys.push('quantization');
    for (const k of Object.keys(c.patch)) if (!keys.includes(kebab(k))) keys.push(kebab(k));
  }
  return uniqueId(keys.slice(0, 2).join('-') || 'stage', taken);
}

function candidateIdOf(patch: ConfigPatch, variant: string | undefined, taken: Set<string>): string {
  const parts: string[] = variant ? [variant] : [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'speculative' && value && typeof value === 'object') {
      const s = value as Record<string, unknown>;
      parts.push([s.draftModel ? String(s.draftModel).split('/')[0] : s.algorithm, s.numSteps !== undefined ? `s${s.numSteps}` : '', s.eagleTopK !== undefined ? `k${s.eagleTopK}` : '', s.numDraftTokens !== undefined ? `t${s.numDraftTokens}` : ''].filter(Boolean).join('-'));
      if (s.numSteps === undefined && s.eagleTopK === undefined && s.numDraftTokens === undefined) parts.push('defaults');
    } else if (typeof value === 'boolean') parts.push(value ? kebab(key) : `no-${kebab(key)}`);
    else if (Array.isArray(value)) parts.push(value.join('-'));
    else parts.push(`${kebab(key)}-${String(value)}`);
  }
  return uniqueId(slug(parts.join('-')) || 'candidate', taken);
}

function stageOf(
  reader: GuideReader,
  section: GuideSection,
  runs: readonly GuideRun[],
  engines: readonly EngineChoice[],
  engineCommand: ReadonlyMap<EngineId, string>,
  inherited: Record<string, unknown>[],
  earlierCommands: string[],
  stageIds: Set<string>,
): Stage | undefined {
  const drafts: { key: string; patch: ConfigPatch; variant?: string; label: string; engines: Set<EngineId>; runs: GuideRun[] }[] = [];
  const unread: GuideRun[] = [];
  for (const run of runs) {
    if ('error' in run.read) {
      unread.push(run);
      continue;
    }
    const okRun = run as OkRun;
    if (!engines.some((e) => e.engine === okRun.read.engine)) {
      reader.problem(run.line, 'unmapped', `${getAdapter(okRun.read.engine).displayName} is not among the engines the guide selects from; this command has no stage`);
    }
    const p = patchOf(reader, okRun, engines, inherited);
    if (!p) continue;
    const key = JSON.stringify([p.patch, p.variant ?? null]);
    let draft = drafts.find((d) => d.key === key);
    if (!draft) {
      const variantLabel = p.variant ? reader.variants.find((v) => v.id === p.variant)?.label : undefined;
      const options = changedOptions(run.command, [engineCommand.get(okRun.read.engine) ?? '', ...earlierCommands]);
      const label = run.label?.startsWith('--') ? run.label : [variantLabel, options].filter(Boolean).join(', ') || section.title;
      draft = { key, ...p, label, engines: new Set(), runs: [] };
      drafts.push(draft);
    }
    draft.engines.add(okRun.read.engine);
    draft.runs.push(run);
  }
  const real = drafts.filter((d) => Object.keys(d.patch).length > 0 || d.variant);
  for (const d of drafts.filter((x) => !real.includes(x))) {
    reader.problem(d.runs[0]?.line ?? section.line, 'unmapped', `this command changes nothing on top of what the earlier stages kept; "${section.title}" has no candidate for it`);
  }
  const stageId = stageIdOf(real, stageIds);
  const candidateIds = new Set<string>();
  const candidates: Candidate[] = real.map((d) => {
    const id = candidateIdOf(d.patch, d.variant, candidateIds);
    for (const run of d.runs) placeRun(reader, run, stageId, id, d.label);
    return { id, label: d.label.slice(0, 200), config: d.patch, ...(d.variant ? { variant: d.variant } : {}) };
  });
  for (const d of drafts.filter((x) => !real.includes(x))) for (const run of d.runs) placeRun(reader, run, stageId, undefined, d.label);
  // A command that could not be read keeps its results in the stage, with no candidate to stand beside.
  for (const run of unread) placeRun(reader, run, stageId, undefined, run.label ?? section.title);
  inherited.push(...real.map((d) => ({ ...(d.patch as Record<string, unknown>), ...(d.variant ? { [VARIANT_KEY]: d.variant } : {}) })));
  earlierCommands.push(...runs.map((r) => r.command));
  if (candidates.length === 0) {
    stageIds.delete(stageId);
    return undefined;
  }
  const variantOnly = real.every((d) => Object.keys(d.patch).length === 0);
  const stageEngines = [...new Set(real.flatMap((d) => [...d.engines]))];
  return { id: stageId, label: section.title.slice(0, 200), ...(variantOnly ? {} : { engines: stageEngines }), candidates };
}

function assemble(
  reader: GuideReader,
  parts: { title: string; fileName: string; hostId: string; goal: 'latency' | 'throughput'; engines: EngineChoice[]; stages: Stage[]; recommendation: GuideRun | undefined },
): StudyDefinition {
  const [primary, ...generalisation] = reader.workloads;
  const hw = reader.hardware;
  const recommended = parts.recommendation ? ` The guide recommends: ${parts.recommendation.printed}` : '';
  const input = {
    name: parts.title.slice(0, 200),
    description: `Opened from the guide ${parts.fileName} ("${parts.title}"): its stages and candidates as the guide ran them, its published results kept beside this study's own as reference trials.${recommended}`.slice(0, 4000),
    model: { id: reader.model, variants: reader.variants },
    hosts: [{ hostId: parts.hostId }],
    demoLab: { gpu: hw?.gpu ?? 'h100', count: Math.min(8, Math.max(1, hw?.count ?? 1)) },
    goal: { kind: parts.goal },
    engines: parts.engines.length > 0 ? parts.engines : [{ engine: 'vllm' as const, version: reader.versionOf('vllm'), mode: 'env' as const, config: {} }],
    stages: parts.stages,
    workloads: { primary: primary ?? withIdentity({ dataset: { kind: 'sharegpt' }, numPrompts: 100, backend: 'openai-chat' }), generalisation },
    strategy: 'greedy' as const,
    ...(reader.versions.get('vllm') ? { clientVersion: reader.versionOf('vllm') } : {}),
  };
  if (!primary) reader.problem(1, 'unmapped', 'the guide shows no vllm bench serve command; the study measures ShareGPT, 100 prompts');
  const parsed = StudyDefinitionSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) reader.problem(1, 'unmapped', `${issue.path.join('.')}: ${issue.message}`);
  // What the schema refuses is dropped from the stages, so the rest still opens.
  return StudyDefinitionSchema.parse({ ...input, stages: [] });
}
