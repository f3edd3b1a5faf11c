import { keptCandidateLabels, stageDecisionText } from '../../../../shared/study/report/model';
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

/** The study's name, description and labels in the app's language (its translations), as the report shows them. */
export function studyTextOf(project: ProjectFile): LocalizedStudyText {
  return localizedStudyText(project.study, uiText().lang);
}
