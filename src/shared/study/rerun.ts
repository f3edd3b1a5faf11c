import { ServelabError, type FieldIssue } from '../contract/errors';
import { getAdapter } from '../engines/adapters';
import { ENGINE_IDS, type EngineId } from '../engines/types';
import { applyPatch, candidateModel, engineBaseConfig, engineCandidateId, engineLabel } from './planner';
import { preflightRefusal } from './preflight';
import { refusalRecord } from './report/problem-words';
import { StudyDefinitionSchema, type EngineChoice, type LostCandidate, type ProjectFile, type RerunOf, type StudyDefinition, type UntabledVersion } from './study';

export type { LostCandidate, UntabledVersion };

/**
 * "Re-run with…": a finished study's definition taken to newer engine versions (or another host) as a new study, with
 * the same stages, candidates and workloads, so the two can be compared trial by trial (`study-diff.ts`). Nothing is
 * dropped: a candidate the new version cannot launch stays in the study (the planner rejects it there, with its
 * reason) and is listed here, so the user sees it before running.
 */

export interface RerunOptions {
  /** The version each named engine moves to; every engine choice of that engine takes it. */
  engineVersions: Partial<Record<EngineId, string>>;
  /** Run on this host instead of the original's hosts. */
  hostId?: string;
  /** The new study's name (default: the original's with "(re-run)"). */
  name?: string;
}


export interface RerunDefinition {
  definition: StudyDefinition;
  lost: LostCandidate[];
  untabled: UntabledVersion[];
}

const MAX_NAME = 200;

function rerunName(original: string): string {
  const suffix = ' (re-run)';
  return `${original.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** The engines the options name that the study does not use, and versions that are empty. */
function optionIssues(study: StudyDefinition, options: RerunOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const used = new Set(study.engines.map((e) => e.engine));
  for (const [engine, version] of Object.entries(options.engineVersions)) {
    if (!(ENGINE_IDS as readonly string[]).includes(engine)) issues.push({ path: `engineVersions.${engine}`, message: `is not an engine (${ENGINE_IDS.join(', ')})` });
    else if (!used.has(engine as EngineId)) issues.push({ path: `engineVersions.${engine}`, message: `names an engine the study does not use (${[...used].join(', ')})` });
    else if (!version) issues.push({ path: `engineVersions.${engine}`, message: 'is required' });
  }
  return issues;
}

/** The study's configurations of one engine choice that the planner would try: its defaults, then each applicable candidate on them. */
function configsOf(study: StudyDefinition, choice: EngineChoice) {
  const base = engineBaseConfig(study, choice);
  const out = [{ stageId: 'engine', candidateId: engineCandidateId(study, choice), label: engineLabel(choice), config: base }];
  for (const stage of study.stages) {
    if (stage.engines && !stage.engines.includes(choice.engine)) continue;
    for (const candidate of stage.candidates) {
      out.push({ stageId: stage.id, candidateId: candidate.id, label: candidate.label, config: applyPatch(base, candidate.config ?? {}, candidateModel(study, candidate, base.model)) });
    }
  }
  return out;
}

/**
 * Candidates that passed the pre-flight check at the original version and fail it at the new one. Each is checked on
 * the engine's defaults (a greedy stage applies it on top of the best so far, which only the run knows), without
 * GPU facts, so what is listed is what the new version's flag tables and validation refuse.
 */
function lostCandidates(original: StudyDefinition, next: StudyDefinition): LostCandidate[] {
  const lost: LostCandidate[] = [];
  next.engines.forEach((choice, i) => {
    const before = original.engines[i];
    if (!before || before.version === choice.version) return;
    const workloadId = next.workloads.primary.id;
    // Same stages and candidates on the same engine: the two lists match entry by entry.
    const earlier = configsOf(original, before);
    configsOf(next, choice).forEach((c, j) => {
      const refusal = preflightRefusal(next, { engine: choice.engine, version: choice.version, config: c.config, workloadId }, { gpus: [] });
      if (refusal === null) return;
      const old = earlier[j];
      if (old && preflightRefusal(original, { engine: before.engine, version: before.version, config: old.config, workloadId }, { gpus: [] }) !== null) return;
      const { rejectReason: reason } = refusalRecord(refusal);
      lost.push({ engine: choice.engine, version: choice.version, stageId: c.stageId, candidateId: c.candidateId, label: c.label, reason, refusal });
    });
  });
  return lost;
}

/** The provenance a re-run keeps of its original. */
export function rerunProvenance(path: string, original: ProjectFile): RerunOf {
  const { study, state } = original;
  return {
    path,
    name: study.name,
    engines: study.engines.map((e) => ({ engine: e.engine, version: e.version, mode: e.mode })),
    hostIds: study.hosts.map((h) => h.hostId),
    ...(state.finishedAt !== undefined ? { finishedAt: state.finishedAt } : {}),
  };
}

/**
 * The definition of a re-run of the project at `path`: the same stages, candidates and workloads with the engines at
 * `engineVersions` (and on `hostId`), pointing back at the original. Throws BAD_INPUT naming the option at fault: an
 * engine the study does not use, or a version that makes two engine choices the same.
 */
export function rerunDefinition(original: { path: string; file: ProjectFile }, options: RerunOptions): RerunDefinition {
  const study = original.file.study;
  const issues = optionIssues(study, options);
  if (issues.length > 0) throw new ServelabError('BAD_INPUT', `Cannot re-run: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}`, { issues });
  const engines = study.engines.map((choice) => {
    const version = options.engineVersions[choice.engine];
    return version === undefined ? choice : { ...choice, version };
  });
  const hosts = options.hostId === undefined ? study.hosts : [study.hosts.find((h) => h.hostId === options.hostId) ?? { hostId: options.hostId }];
  // The re-run has a name of its own: a translation of the original's name would name the original.
  const translations = study.translations && Object.fromEntries(Object.entries(study.translations).map(([lang, text]) => [lang, { ...text, name: undefined }]));
  const candidate = { ...study, name: options.name ?? rerunName(study.name), engines, hosts, rerunOf: rerunProvenance(original.path, original.file), translations };
  const parsed = StudyDefinitionSchema.safeParse(candidate);
  if (!parsed.success) {
    const found = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    // Two engine choices made the same by the new version are the only way a valid study becomes invalid here.
    throw new ServelabError('BAD_INPUT', `Cannot re-run: ${found.map((i) => `${i.path} ${i.message}`).join('; ')}`, { issues: found });
  }
  const definition = parsed.data;
  const untabled: UntabledVersion[] = [];
  const seen = new Set<string>();
  for (const choice of definition.engines) {
    const adapter = getAdapter(choice.engine);
    const key = `${choice.engine}@${choice.version}`;
    if (seen.has(key) || adapter.knownVersions.includes(choice.version)) continue;
    seen.add(key);
    untabled.push({ engine: choice.engine, version: choice.version, checkedAgainst: adapter.flagTable(choice.version).version });
  }
  return { definition, lost: lostCandidates(study, definition), untabled };
}
