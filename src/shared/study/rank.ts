import { objectiveValue } from './decide';
import { objectiveOf, type StudyDefinition, type StudyState, type Trial } from './study';

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
  // Each configuration's trials gathered in one pass (in order of first appearance), not a scan of every trial per
  // configuration: a study of thousands of trials ranks in linear time.
  const byConfig = new Map<string, Trial[]>();
  for (const trial of trials) {
    if (trial.stageId === GENERALISATION_STAGE) continue;
    const own = byConfig.get(trial.serverKey);
    if (own) own.push(trial);
    else byConfig.set(trial.serverKey, [trial]);
  }
  const ranked: RankedConfig[] = [];
  for (const [serverKey, own] of byConfig) {
    const objective = objectiveValue(study, own, serverKey);
    if (objective === null) continue;
    const representative = own.find((t) => t.workloadId === study.workloads.primary.id && t.status === 'done' && t.result);
    if (!representative) continue;
    ranked.push({ serverKey, label: representative.label, objective, trialId: representative.id });
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

/** The recommendation against the study's baseline (the first engine at its defaults), as the report's before/after. */
export function recommendationAndBaseline(study: StudyDefinition, trials: readonly Trial[], recommendedServerKey: string | undefined, baselineServerKey: string | undefined): RankedConfig[] {
  if (recommendedServerKey === undefined || baselineServerKey === undefined || recommendedServerKey === baselineServerKey) return [];
  const ranked = rankConfigs(study, trials);
  const recommended = ranked.find((r) => r.serverKey === recommendedServerKey);
  const baseline = ranked.find((r) => r.serverKey === baselineServerKey);
  return recommended && baseline ? [recommended, baseline] : [];
}

/** The study's baseline configuration: as the run recorded it, else the first engine's defaults in the engine stage. */
export function baselineServerKeyOf(study: StudyDefinition, state: Pick<StudyState, 'baselineTrialServerKey' | 'trials'>): string | undefined {
  const first = study.engines[0];
  return state.baselineTrialServerKey ?? state.trials.find((t) => t.stageId === 'engine' && t.engine === first?.engine && t.version === first?.version)?.serverKey;
}

export type PresetComparison = 'topTwo' | 'baseline';

/** The trials a preset comparison shows, in column order; the last is the baseline the changes are measured against. */
export function presetComparison(kind: PresetComparison, study: StudyDefinition, state: StudyState): RankedConfig[] {
  const recommended = state.recommendation?.serverKey;
  return kind === 'topTwo' ? topTwoConfigs(study, state.trials, recommended) : recommendationAndBaseline(study, state.trials, recommended, baselineServerKeyOf(study, state));
}
