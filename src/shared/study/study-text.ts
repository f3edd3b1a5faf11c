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
