import { objectiveValue } from './decide';
import { objectiveOf, type StudyDefinition, type Trial } from './study';

/** One measured server configuration of a study, with the trial that stands for it on the primary workload. */
export interface RankedConfig {
  serverKey: string;
  label: string;
  /** The study's objective: mean over repeats of the done, SLO-meeting primary-workload trials. */
  objective: number;
  /** The first such trial, for views that compare trials. */
  trialId: string;
}

const GENERALISATION_STAGE = 'generalisation';

/**
 * The study's server configurations ranked best first by its objective (lower latency or higher throughput), as the
 * decisions judge them: the generalisation pass only re-measures the baseline and the recommendation, so it is left
 * out; configurations with no valid result are not ranked.
 */
export function rankConfigs(study: StudyDefinition, trials: readonly Trial[]): RankedConfig[] {
  const measured = trials.filter((t) => t.stageId !== GENERALISATION_STAGE);
  const seen = new Set<string>();
  const ranked: RankedConfig[] = [];
  for (const trial of measured) {
    if (seen.has(trial.serverKey)) continue;
    seen.add(trial.serverKey);
    const objective = objectiveValue(study, measured, trial.serverKey);
    if (objective === null) continue;
    const representative = measured.find((t) => t.serverKey === trial.serverKey && t.workloadId === study.workloads.primary.id && t.status === 'done' && t.result);
    if (!representative) continue;
    ranked.push({ serverKey: trial.serverKey, label: representative.label, objective, trialId: representative.id });
  }
  const sign = objectiveOf(study.goal.kind).better === 'lower' ? 1 : -1;
  return ranked.sort((a, b) => sign * (a.objective - b.objective));
}

/**
 * The two configurations a reader compares first: the recommended one (when it has a valid result) against the best
 * other, else the two best by the objective. A candidate within the study's margin can edge past the recommendation
 * without being kept; the recommendation still leads, since it is what the study decided.
 */
export function topTwoConfigs(study: StudyDefinition, trials: readonly Trial[], recommendedServerKey: string | undefined): RankedConfig[] {
  const ranked = rankConfigs(study, trials);
  const recommended = ranked.find((r) => r.serverKey === recommendedServerKey);
  if (!recommended) return ranked.slice(0, 2);
  const other = ranked.find((r) => r !== recommended);
  return other ? [recommended, other] : [recommended];
}
