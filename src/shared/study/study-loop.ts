import { decideEngineStage, decideGrid, decideStage, recommendationOf, whyNoObjective, type DecisionRule, type RepeatRequest } from './decide';
import { ENGINE_STAGE_ID, GENERALISATION_STAGE_ID, GRID_STAGE_ID, planEngineStage, planGeneralisation, planGrid, planStage, type BestConfig } from './planner';
import type { PlanContext } from './plan-context';
import type { StageDecision, StudyDefinition, StudyState, Trial } from './study';

/**
 * What a study does next, from what it has done: the one loop behind the runner (real servers) and the virtual lab
 * (the simulated box's model in virtual time). It is recomputed from the state after every step, so a resumed run
 * continues where the state says, and the same trials always lead to the same next step.
 */

export type StudyStep =
  /** Append these trials to the state (a stage's plan, or another run of configurations still undecided). */
  | { kind: 'plan'; stageId: string; trials: Trial[] }
  /**
   * Measure these planned trials: trials sharing a serverKey share one launch, measured in this order; the trials
   * in `warmups` are each preceded by a warm-up run on their workload (`warmupWorkload`).
   */
  | { kind: 'run'; stageId: string; phase: string; trials: Trial[]; warmups: string[] }
  | { kind: 'decide'; decision: StageDecision }
  | { kind: 'recommend'; baseline: BestConfig; best: BestConfig }
  | { kind: 'fail'; message: string }
  | { kind: 'done' };

export interface StudyLoopOptions {
  /** `single-run`: one run per configuration and no warm-up, decided on the point change (to measure the default). */
  rule?: DecisionRule;
}

type LoopState = Pick<StudyState, 'trials' | 'decisions' | 'recommendation' | 'baselineTrialServerKey'>;

export function nextStudyStep(study: StudyDefinition, state: LoopState, ctx: PlanContext, opts: StudyLoopOptions = {}): StudyStep {
  const rule = opts.rule ?? 'interval';
  const trials = state.trials;
  const of = (stageId: string) => trials.filter((t) => t.stageId === stageId);
  const recorded = (stageId: string) => state.decisions.some((d) => d.stageId === stageId);
  const run = (stageId: string, phase: string, stageTrials: Trial[]): StudyStep | null => {
    const planned = stageTrials.filter((t) => t.status === 'planned');
    return planned.length === 0 ? null : { kind: 'run', stageId, phase, trials: planned, warmups: rule === 'single-run' ? [] : warmupsOf(planned) };
  };

  let baseline: BestConfig;
  let best: BestConfig;
  if (study.strategy === 'grid') {
    const gridTrials = trials.filter((t) => t.stageId !== GENERALISATION_STAGE_ID);
    if (gridTrials.length === 0) return { kind: 'plan', stageId: GRID_STAGE_ID, trials: planGrid(study, ctx) };
    const pending = run(GRID_STAGE_ID, `Grid: ${gridTrials.length} trials`, gridTrials);
    if (pending) return pending;
    const decided = decideGrid(study, gridTrials);
    if (!recorded(GRID_STAGE_ID)) return { kind: 'decide', decision: decided.decision };
    if (decided.best.objective === null) return { kind: 'fail', message: `No configuration completed the primary workload: ${failuresOf(gridTrials, decided.decision)}` };
    baseline = decided.baseline;
    best = decided.best;
  } else {
    const engineTrials = of(ENGINE_STAGE_ID);
    if (engineTrials.length === 0) return { kind: 'plan', stageId: ENGINE_STAGE_ID, trials: planEngineStage(study, ctx) };
    const pending = run(ENGINE_STAGE_ID, 'Stage: engine selection', engineTrials);
    if (pending) return pending;
    const engine = decideEngineStage(study, trials, { rule });
    if (!recorded(ENGINE_STAGE_ID)) {
      if (engine.repeat.length > 0) return { kind: 'plan', stageId: ENGINE_STAGE_ID, trials: repeatTrials(trials, ENGINE_STAGE_ID, engine.repeat, engine.best) };
      return { kind: 'decide', decision: engine.decision };
    }
    if (engine.best.objective === null) return { kind: 'fail', message: `No engine completed the primary workload: ${failuresOf(engineTrials, engine.decision)}` };
    baseline = engine.baseline;
    best = engine.best;

    for (let i = 0; i < study.stages.length; i++) {
      const stage = study.stages[i]!;
      const stageTrials = of(stage.id);
      if (stageTrials.length === 0) {
        const planned = planStage(study, i, best, ctx);
        if (planned.length > 0) return { kind: 'plan', stageId: stage.id, trials: planned };
        if (!recorded(stage.id)) {
          return {
            kind: 'decide',
            decision: { stageId: stage.id, winner: null, reason: `skipped: it applies to ${stage.engines?.join(', ') ?? 'other engines'}, not ${best.engine}`, before: best.objective, after: best.objective, decidedAt: lastFinished(trials) },
          };
        }
        continue;
      }
      const stagePending = run(stage.id, `Stage: ${stage.label}`, stageTrials);
      if (stagePending) return stagePending;
      const decided = decideStage(study, i, trials, best, { rule });
      if (!recorded(stage.id)) {
        if (decided.repeat.length > 0) return { kind: 'plan', stageId: stage.id, trials: repeatTrials(trials, stage.id, decided.repeat, best) };
        return { kind: 'decide', decision: decided.decision };
      }
      best = decided.best;
    }
  }

  if (!state.recommendation) return { kind: 'recommend', baseline, best };
  const generalisation = of(GENERALISATION_STAGE_ID);
  if (generalisation.length === 0) return { kind: 'plan', stageId: GENERALISATION_STAGE_ID, trials: planGeneralisation(study, baseline, best, ctx) };
  return run(GENERALISATION_STAGE_ID, 'Generalisation: baseline and recommendation on every scenario', generalisation) ?? { kind: 'done' };
}

/** The state after a step that only records (plan, decide, recommend); a run step changes trials as they run. */
export function applyStep<S extends LoopState>(state: S, step: StudyStep): S {
  switch (step.kind) {
    case 'plan':
      return { ...state, trials: [...state.trials, ...step.trials] };
    case 'decide':
      return { ...state, decisions: [...state.decisions, step.decision] };
    case 'recommend':
      return { ...state, baselineTrialServerKey: step.baseline.serverKey, recommendation: { ...recommendationOf(step.best), serverKey: step.best.serverKey } };
    default:
      return state;
  }
}

/** The first trial of each workload on each launch gets the warm-up: a fresh server's first requests are slower. */
function warmupsOf(planned: readonly Trial[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of planned) {
    const key = `${t.serverKey}\n${t.workloadId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(t.id);
  }
  return out;
}

/** The best so far's candidate id within a later stage's trials (a form no candidate id can take). */
export const REFERENCE_CANDIDATE_ID = '~best';

/**
 * One more run of each requested configuration, in the stage being decided: `<stage>/<candidate>/<workload>/r<n>`;
 * the best so far of an earlier stage runs as the stage's reference.
 */
function repeatTrials(trials: readonly Trial[], stageId: string, requests: readonly RepeatRequest[], best: BestConfig): Trial[] {
  return requests.map((r) => {
    const candidateId = r.reference && stageId !== ENGINE_STAGE_ID ? REFERENCE_CANDIDATE_ID : r.like.candidateId;
    const runs = trials.filter((t) => t.stageId === stageId && t.candidateId === candidateId && t.workloadId === r.like.workloadId);
    const repeat = Math.max(0, ...runs.map((t) => t.repeat)) + 1;
    const label = candidateId === REFERENCE_CANDIDATE_ID ? `Best so far: ${describePath(best)}` : r.like.label;
    const { id: _id, status: _status, result: _result, error: _error, hostId: _host, gpus: _gpus, serverId: _server, startedAt: _start, finishedAt: _finish, warmup: _warmup, rejectReason: _reject, ...same } = r.like;
    return { ...same, id: `${stageId}/${candidateId}/${r.like.workloadId}/r${repeat}`, stageId, candidateId, label, repeat, status: 'planned' as const };
  });
}

function describePath(best: BestConfig): string {
  return best.path.length > 1 ? `${best.path[0]} + ${best.path.slice(1).join(' + ')}` : (best.path[0] ?? best.engine);
}

function failuresOf(trials: readonly Trial[], decision: StageDecision): string {
  // A configuration with no place in the goal's GPU budget is said once, as the decision says it (the pre-flight's
  // refusal of it says the same).
  const overBudget = (decision.unmeasured ?? []).filter((u) => u.why === 'over-budget').map(whyNoObjective);
  const own = trials.filter((t) => t.refusal?.code !== 'over-gpu-budget').map((t) => t.error ?? t.rejectReason);
  const reasons = new Set([...own.filter((r): r is string => r !== undefined), ...overBudget]);
  return [...reasons].slice(0, 3).join('; ') || 'no trial ran';
}

function lastFinished(trials: readonly Trial[]): string {
  return trials.map((t) => t.finishedAt).filter((t): t is string => typeof t === 'string').sort().at(-1) ?? new Date(0).toISOString();
}
