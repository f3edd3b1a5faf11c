import { CONFIG_FILE_FIELDS, type ConfigFile, type ConfigFileField, type FileRef } from '../../../shared/engines/config-files';
import type { EngineId } from '../../../shared/engines/types';
import type { CandidateDraft, EngineDraft, WizardDraft } from './draft';

/**
 * The files a draft's engines and candidates name (chat template, options file): the draft keeps each file once, by
 * name, and each engine or candidate the name it uses per field. Attaching a file of a name already taken by other
 * text renames the new one when the old text is still used elsewhere (so no reference silently changes), else
 * replaces it; a file nothing names is left out of the definition (`usedFiles`).
 */

/** The file each field names, by the file's name. */
export type FileRefs = Partial<Record<ConfigFileField, string>>;

/** What a file is attached to: an engine's base settings, or a candidate (by the rows' keys, stable while editing). */
export type FileTarget = { kind: 'engine'; engine: EngineId } | { kind: 'candidate'; stageKey: string; candidateKey: string };

export function refsOf(d: WizardDraft, target: FileTarget): FileRefs {
  if (target.kind === 'engine') return d.engines.find((e) => e.engine === target.engine)?.files ?? {};
  return d.stages.find((s) => s.key === target.stageKey)?.candidates.find((c) => c.key === target.candidateKey)?.files ?? {};
}

function withRefs(d: WizardDraft, target: FileTarget, refs: FileRefs): WizardDraft {
  const files = Object.keys(refs).length > 0 ? refs : undefined;
  const set = <T extends EngineDraft | CandidateDraft>(row: T): T => {
    const { files: _old, ...rest } = row;
    return (files ? { ...rest, files } : rest) as T;
  };
  if (target.kind === 'engine') return { ...d, engines: d.engines.map((e) => (e.engine === target.engine ? set(e) : e)) };
  return {
    ...d,
    stages: d.stages.map((s) => (s.key === target.stageKey ? { ...s, candidates: s.candidates.map((c) => (c.key === target.candidateKey ? set(c) : c)) } : s)),
  };
}

/** Every name the draft's engines and candidates use, except the one at (target, field). */
function namesUsed(d: WizardDraft, except?: { target: FileTarget; field: ConfigFileField }): Set<string> {
  const names = new Set<string>();
  const add = (refs: FileRefs | undefined, isExcept: boolean) => {
    for (const field of CONFIG_FILE_FIELDS) if (refs?.[field] && !(isExcept && except?.field === field)) names.add(refs[field]);
  };
  for (const e of d.engines) add(e.files, except?.target.kind === 'engine' && except.target.engine === e.engine);
  for (const s of d.stages) {
    for (const c of s.candidates) add(c.files, except?.target.kind === 'candidate' && except.target.stageKey === s.key && except.target.candidateKey === c.key);
  }
  return names;
}

/** `name-2.ext`, `name-3.ext`, …: the first name no file of the draft has. */
function freeName(d: WizardDraft, name: string): string {
  for (let n = 2; ; n++) {
    const candidate = name.replace(/(\.[^.]*)?$/, (ext) => `-${n}${ext}`);
    if (!d.files.some((f) => f.name === candidate)) return candidate;
  }
}

export function attachFile(d: WizardDraft, target: FileTarget, field: ConfigFileField, file: ConfigFile): WizardDraft {
  let files = d.files;
  let name = file.name;
  const same = files.find((f) => f.name === name);
  if (!same) files = [...files, file];
  else if (same.sha256 !== file.sha256) {
    if (namesUsed(d, { target, field }).has(name)) {
      name = freeName(d, name);
      files = [...files, { ...file, name }];
    } else files = files.map((f) => (f.name === name ? file : f));
  }
  return withRefs({ ...d, files }, target, { ...refsOf(d, target), [field]: name });
}

export function detachFile(d: WizardDraft, target: FileTarget, field: ConfigFileField): WizardDraft {
  const { [field]: _gone, ...rest } = refsOf(d, target);
  return withRefs(d, target, rest);
}

/** The references a row's names make in its config patch. */
export function fileRefsConfig(refs: FileRefs | undefined): Partial<Record<ConfigFileField, FileRef>> {
  const out: Partial<Record<ConfigFileField, FileRef>> = {};
  for (const field of CONFIG_FILE_FIELDS) if (refs?.[field]) out[field] = { file: refs[field] };
  return out;
}

/** A config patch's references as a row's names, and the patch without them (the rest stays the row's JSON settings). */
export function splitFileRefs<P extends Partial<Record<ConfigFileField, FileRef>>>(patch: P): { refs: FileRefs | undefined; rest: Omit<P, ConfigFileField> } {
  const { chatTemplate, optionsFile, ...rest } = patch;
  const refs: FileRefs = {};
  if (chatTemplate) refs.chatTemplate = chatTemplate.file;
  if (optionsFile) refs.optionsFile = optionsFile.file;
  return { refs: Object.keys(refs).length > 0 ? refs : undefined, rest };
}

/** The draft's files that some config names (also by its JSON settings), in the draft's order. */
export function usedFiles(files: readonly ConfigFile[], configs: readonly Partial<Record<ConfigFileField, FileRef>>[]): ConfigFile[] {
  const names = new Set(configs.flatMap((c) => CONFIG_FILE_FIELDS.flatMap((field) => (c[field] ? [c[field].file] : []))));
  return files.filter((f) => names.has(f.name));
}
