import type { ReportLang } from './report/text';
import type { StudyDefinition } from './study';

/**
 * The study's own words (name, description, labels) in a report language: its `translations` for that language,
 * else what the user wrote. The one place the report and the app look them up.
 */
export interface LocalizedStudyText {
  name: string;
  description: string | undefined;
  stage(stageId: string): string | undefined;
  candidate(stageId: string, candidateId: string): string | undefined;
  workload(workloadId: string): string | undefined;
  variant(variantId: string): string | undefined;
  /**
   * A label built from candidate labels ("SGLang 0.5.3.post3 + FP8 checkpoint (…)", a trial's or an unmeasured
   * candidate's): each " + "-separated part that is a candidate's written label, translated; `stageId` first when given.
   */
  composite(label: string, stageId?: string): string;
}

export function localizedStudyText(study: StudyDefinition, lang: ReportLang): LocalizedStudyText {
  const text = study.translations?.[lang];
  const stages = study.stages;
  const candidate = (stageId: string, candidateId: string): string | undefined => {
    const written = stages.find((s) => s.id === stageId)?.candidates.find((c) => c.id === candidateId)?.label;
    return written === undefined ? undefined : (text?.candidates?.[`${stageId}/${candidateId}`] ?? written);
  };
  const byWritten = (part: string, stageId: string | undefined): string => {
    const ordered = [...stages].sort((a, b) => Number(b.id === stageId) - Number(a.id === stageId));
    for (const s of ordered) {
      const c = s.candidates.find((x) => x.label === part);
      if (c) return candidate(s.id, c.id) ?? part;
    }
    return part;
  };
  const workloads = [study.workloads.primary, ...study.workloads.generalisation];
  return {
    name: text?.name ?? study.name,
    description: text?.description ?? study.description,
    stage: (stageId) => {
      const written = stages.find((s) => s.id === stageId)?.label;
      return written === undefined ? undefined : (text?.stages?.[stageId] ?? written);
    },
    candidate,
    workload: (workloadId) => {
      const written = workloads.find((w) => w.id === workloadId)?.label;
      return written === undefined ? undefined : (text?.workloads?.[workloadId] ?? written);
    },
    variant: (variantId) => {
      const v = study.model.variants.find((x) => x.id === variantId);
      return v?.label === undefined ? undefined : (text?.variants?.[variantId] ?? v.label);
    },
    composite: (label, stageId) => {
      if (!text?.candidates) return label;
      const whole = byWritten(label, stageId);
      return whole !== label ? whole : label.split(' + ').map((part) => byWritten(part, stageId)).join(' + ');
    },
  };
}

/** The study's name in each language it is translated into (for lists that name it without reading the file). */
export function translatedNames(study: Pick<StudyDefinition, 'translations'>): Partial<Record<ReportLang, string>> | undefined {
  const names = Object.entries(study.translations ?? {}).flatMap(([lang, text]) => (text?.name ? [[lang, text.name] as const] : []));
  return names.length > 0 ? Object.fromEntries(names) : undefined;
}

/** The written text a study's translations are of: what `translationsStillTrue` compares. */
interface WrittenText {
  name: string;
  description?: string | undefined;
  model: { variants?: readonly { id: string; label?: string | undefined }[] | undefined };
  stages?: readonly { id: string; label: string; candidates: readonly { id: string; label: string }[] }[] | undefined;
  workloads: { primary: { id: string; label?: string | undefined }; generalisation?: readonly { id: string; label?: string | undefined }[] | undefined };
}

function writtenTexts(study: WrittenText) {
  const stages = study.stages ?? [];
  return {
    stages: new Map<string, string | undefined>(stages.map((s) => [s.id, s.label])),
    candidates: new Map<string, string | undefined>(stages.flatMap((s) => s.candidates.map((c) => [`${s.id}/${c.id}`, c.label] as const))),
    workloads: new Map<string, string | undefined>([study.workloads.primary, ...(study.workloads.generalisation ?? [])].map((w) => [w.id, w.label])),
    variants: new Map<string, string | undefined>((study.model.variants ?? []).map((v) => [v.id, v.label])),
  };
}

/**
 * The translations of `translated` that still translate `edited`: each kept only where `edited` has the same written
 * text as `translated` had (an edited label, a removed stage or a renamed name drops its translation, since it would
 * say something else). For a study edited in a form that shows only the written text.
 */
export function translationsStillTrue(translated: WrittenText & { translations?: StudyDefinition['translations'] }, edited: WrittenText): StudyDefinition['translations'] {
  const before = writtenTexts(translated);
  const after = writtenTexts(edited);
  const out: NonNullable<StudyDefinition['translations']> = {};
  for (const [lang, text] of Object.entries(translated.translations ?? {}) as [ReportLang, NonNullable<StudyDefinition['translations']>[ReportLang]][]) {
    if (!text) continue;
    const kept: typeof text = {};
    if (text.name !== undefined && translated.name === edited.name) kept.name = text.name;
    if (text.description !== undefined && translated.description === edited.description) kept.description = text.description;
    for (const kind of ['stages', 'candidates', 'workloads', 'variants'] as const) {
      const entries = Object.entries(text[kind] ?? {}).filter(([key]) => before[kind].get(key) !== undefined && before[kind].get(key) === after[kind].get(key));
      if (entries.length > 0) kept[kind] = Object.fromEntries(entries);
    }
    if (Object.keys(kept).length > 0) out[lang] = kept;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
