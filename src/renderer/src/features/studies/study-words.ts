import type { Workload } from '../../../../shared/bench/workload';
import { describeWorkload, keptCandidateLabels, stageDecisionText, trialLabeller } from '../../../../shared/study/report/model';
import { recommendationBasisText } from '../../../../shared/study/report/basis-words';
import { refusalWords, trialProblemWords } from '../../../../shared/study/report/problem-words';
import { reportLangOf, reportText, type ReportLang, type ReportText } from '../../../../shared/study/report/text';
import type { ProjectFile, StageDecision, Trial } from '../../../../shared/study/study';
import type { Refusal } from '../../../../shared/study/trial-problem';
import { localizedStudyText, type LocalizedStudyText } from '../../../../shared/study/study-text';
import { getLocale } from '../../i18n';

/**
 * A study's decisions, refusals and failures in the app's language, worded from the facts the project stores, by the
 * report's own wording (report/decision-words.ts, report/problem-words.ts) and catalogue: the app and the report say
 * the same thing in the same words. A language the report has no words for reads them in English.
 */

const texts = new Map<ReportLang, ReportText>();
function uiText(): ReportText {
  const lang = reportLangOf(getLocale());
  let text = texts.get(lang);
  if (!text) {
    text = reportText(lang);
    texts.set(lang, text);
  }
  return text;
}

/** Why a trial was refused or failed; null when there is nothing to say. */
export function trialProblemText(trial: Trial): string | null {
  return trialProblemWords(trial, uiText());
}

/** A pre-flight refusal outside a trial (a re-run's lost candidates). */
export function refusalText(refusal: Refusal): string {
  return refusalWords(refusal, uiText());
}

/** A stage's decision, and its verdict with the change's interval when it has one. */
export function decisionText(project: ProjectFile, decision: StageDecision): { words: string; verdict: string | null } {
  return stageDecisionText(project, decision, uiText().lang);
}

/** What the recommendation was compared on (per GPU, its replicas on the GPU budget, per GPU beside per server), each a sentence. */
export function recommendationBasis(project: ProjectFile): string[] {
  return recommendationBasisText(project, uiText().lang);
}

/** The recommendation's kept candidates, stage by stage, by the study's labels (as the report lists them), each with its id. */
export function keptCandidates(project: ProjectFile): { id: string; label: string }[] {
  const labels = keptCandidateLabels(project, studyTextOf(project));
  return (project.state.recommendation?.path ?? []).map((id, i) => ({ id, label: labels[i] ?? id }));
}

/** An example study's name and description in the app's language: its translation, else as written. */
export function exampleText(example: { name: string; description: string; translations?: Partial<Record<ReportLang, { name?: string; description?: string }>> }): { name: string; description: string } {
  const text = example.translations?.[uiText().lang];
  return { name: text?.name ?? example.name, description: text?.description ?? example.description };
}

/** The study's name, description and labels in the app's language (its translations), as the report shows them. */
export function studyTextOf(project: ProjectFile): LocalizedStudyText {
  return localizedStudyText(project.study, uiText().lang);
}

/** Names the project's trials in the app's language ("Önerilen: …" for "Recommended: …"), as the report does. */
export function trialLabelsOf(project: ProjectFile): (trial: Pick<Trial, 'stageId' | 'candidateId' | 'label'>) => string {
  return trialLabeller(project, uiText().lang);
}

/** A workload described in the app's language, as the report words one: "ShareGPT, 100 prompts, concurrency 4". */
export function workloadDescription(w: Workload): string {
  const text = uiText();
  const words = describeWorkload(w, text);
  return words.charAt(0).toLocaleUpperCase(text.lang) + words.slice(1);
}

/** A preset workload by name: its own label, written in English, in English; described in the app's language otherwise. */
export function presetName(w: Workload): string {
  return uiText().lang === 'en' && w.label !== undefined ? w.label : workloadDescription(w);
}
