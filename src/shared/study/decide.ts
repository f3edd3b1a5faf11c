import { getAdapter } from '../engines/adapters';
import { displayCommand } from './command-display';
import {
  ENGINE_STAGE_ID,
  GENERALISATION_STAGE_ID,
  GRID_STAGE_ID,
  bestConfigOf,
  engineBaseConfig,
  engineCandidateId,
  engineLabel,
  gridCombinations,
  type BestConfig,
} from './planner';
import { metricOf } from '../results/metrics';
import { INTERVAL_LEVEL, priorRunCvPct } from './noise';
import { overBudget, studyObjective, trialObjective, trialReplicas } from './objective';
import { objectiveOf, trialGpuCount, type DecisionBasis, type Recommendation, type StageDecision, type StudyDefinition, type Trial, type UnmeasuredCandidate } from './study';
import { compareRuns, formatChange, gainOf, pooledRunNoise, stageOutcome, type Change } from './verdict';

/**
 * Decisions from measured trials: which engine, which candidate of a stage, which grid point, on trials that met every
 * SLO. Under the interval rule (the default) a candidate replaces the best so far only when the interval of its gain
 * clears the study's margin; while the interval straddles the margin, both get another run (`repeat`), up to the
 * study's repeat budget. The single-run rule — one run each, the point change against the margin — is kept to measure
 * what the interval rule buys.
 */

export type DecisionRule = 'interval' | 'single-run';

export interface DecideOptions {
  rule?: DecisionRule;
}

/** A configuration that needs another measured run before its stage can be decided. */
export interface RepeatRequest {
  serverKey: string;
  /** A trial of that configuration on the primary workload, to copy. */
  like: Trial;
  /** Whether it is the best so far of an earlier stage rather than one of this stage's candidates. */
  reference: boolean;
}

export function meetsSlos(study: StudyDefinition, trial: Trial): { ok: boolean; violations: string[] } {
  if (!trial.result || trial.result.status === 'failed') return { ok: false, violations: ['no measured result'] };
  const violations: string[] = [];
  for (const slo of study.goal.slos) {
    const value = metricOf(trial, slo.metric, study.gpusPerTrial);
    if (value === null) {
      violations.push(`${slo.metric} was not measured`);
      continue;
    }
    if (slo.max !== undefined && value > slo.max) violations.push(`${slo.metric} ${formatNumber(value)} > ${formatNumber(slo.max)}`);
    if (slo.min !== undefined && value < slo.min) violations.push(`${slo.metric} ${formatNumber(value)} < ${formatNumber(slo.min)}`);
  }
  return { ok: violations.length === 0, violations };
}

/**
 * The objective's values of the done, SLO-meeting primary-workload trials of one server config, on the goal's basis
 * (`objective.ts`: per server, per GPU, or times its replicas on the GPU budget; none for a config over the budget).
 */
export function objectiveSamples(study: StudyDefinition, trials: readonly Trial[], serverKey: string): number[] {
  const samples: number[] = [];
  for (const trial of trials) {
    if (trial.serverKey !== serverKey || trial.workloadId !== study.workloads.primary.id || trial.status !== 'done') continue;
    if (!meetsSlos(study, trial).ok) continue;
    const value = trialObjective(study, trial);
    if (value !== null) samples.push(value);
  }
  return samples;
}

/** Objective value of a set of trials (mean over repeats of the primary-workload trials of one serverKey that are
 *  done and meet every SLO); null when none. */
export function objectiveValue(study: StudyDefinition, trials: Trial[], serverKey: string): number | null {
  const samples = objectiveSamples(study, trials, serverKey);
  return samples.length === 0 ? null : samples.reduce((a, b) => a + b, 0) / samples.length;
}

// ---------------------------------------------------------------------------------------------------------------
// Wording

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return value.toFixed(digits);
}

function formatObjective(study: StudyDefinition, value: number): string {
  return study.goal.kind === 'latency' ? value.toFixed(2) : value.toFixed(0);
}

/** Signed change of the metric itself, with a real minus sign: "−22.0%", "+25.8%". */
function signedPct(before: number, after: number): string {
  const pct = ((after - before) / before) * 100;
  const text = Math.abs(pct).toFixed(1);
  return `${pct < 0 ? '−' : '+'}${text}%`;
}

/** How much better `after` is than `before`, in percent (positive = better), in the objective's direction. */
function improvementPct(study: StudyDefinition, before: number, after: number): number {
  const pct = ((after - before) / before) * 100;
  return objectiveOf(study.goal.kind).better === 'lower' ? -pct : pct;
}

/** True when `a` is strictly better than `b`. */
function better(study: StudyDefinition, a: number, b: number): boolean {
  return objectiveOf(study.goal.kind).better === 'lower' ? a < b : a > b;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  const trimmed = line.trim();
  return trimmed.length > 200 ? `${trimmed.slice(0, 199)}…` : trimmed;
}

/** When the decision was made: when its last trial finished, so the same trials give the same decision. */
function decidedAt(trials: readonly Trial[]): string {
  const times = trials.map((t) => t.finishedAt).filter((t): t is string => typeof t === 'string').sort();
  return times.at(-1) ?? new Date().toISOString();
}

interface Outcome {
  candidateId: string;
  label: string;
  serverKey: string;
  trials: Trial[];
  objective: number | null;
  /** GPUs its server holds (null before it was planned). */
  gpus: number | null;
}

/** An outcome as the reason names it: on a GPU budget, with its replicas ("2 × TP4"). */
function shown(study: StudyDefinition, o: Outcome): string {
  const replicas = o.trials[0] ? trialReplicas(study, o.trials[0]) : null;
  return replicas !== null && replicas > 0 ? `${replicas} × ${o.label}` : o.label;
}

/** Why an outcome has no objective: rejected, failed, missed its SLOs or not run; null when it has one. */
function unmeasuredOf(study: StudyDefinition, outcome: Outcome): UnmeasuredCandidate | null {
  if (outcome.objective !== null) return null;
  const label = outcome.label;
  const budget = study.goal.gpuBudget;
  if (outcome.gpus !== null && budget !== undefined && overBudget(study, outcome.gpus)) return { label, why: 'over-budget', gpus: outcome.gpus, budget };
  const primary = outcome.trials.filter((t) => t.workloadId === study.workloads.primary.id);
  const rejected = primary.find((t) => t.status === 'rejected');
  if (rejected) return { label, why: 'rejected', ...(rejected.rejectReason !== undefined ? { detail: rejected.rejectReason } : {}), ...(rejected.refusal ? { refusal: rejected.refusal } : {}) };
  const failed = primary.find((t) => t.status === 'failed');
  const error = failed ? (failed.error ?? failed.result?.error) : undefined;
  if (failed) return { label, why: 'failed', ...(error !== undefined ? { detail: firstLine(error) } : {}), ...(failed.failure ? { failure: failed.failure } : {}) };
  const missed = primary.find((t) => t.status === 'done' && !meetsSlos(study, t).ok);
  if (missed) return { label, why: 'missed-slos', detail: meetsSlos(study, missed).violations.join(', ') };
  return { label, why: 'no-result' };
}

/** Why a candidate has no objective, in English (a decision's reason, a failed study's message). */
export function whyNoObjective(u: UnmeasuredCandidate): string {
  switch (u.why) {
    case 'rejected':
      return `${u.label} rejected: ${u.detail ?? 'by the pre-flight check'}`;
    case 'failed':
      return `${u.label} failed: ${u.detail ?? 'no reason recorded'}`;
    case 'missed-slos':
      return `${u.label} missed the SLOs (${u.detail ?? ''})`;
    case 'no-result':
      return `${u.label} has no result`;
    case 'over-budget':
      return `${u.label} needs ${u.gpus ?? '?'} GPUs, more than the budget of ${u.budget ?? '?'}`;
  }
}

function groupOutcomes(study: StudyDefinition, trials: readonly Trial[], order: readonly { candidateId: string; label: string; serverKey?: string }[]): Outcome[] {
  return order.map((entry) => {
    const own = trials.filter((t) => t.candidateId === entry.candidateId);
    const serverKey = entry.serverKey ?? own[0]?.serverKey ?? '';
    const gpus = own[0] ? trialGpuCount(study, own[0]) : null;
    return { candidateId: entry.candidateId, label: own[0]?.label ?? entry.label, serverKey, trials: own, objective: objectiveValue(study, own, serverKey), gpus };
  });
}

function bestOutcome(study: StudyDefinition, outcomes: readonly Outcome[]): Outcome | undefined {
  let best: Outcome | undefined;
  for (const o of outcomes) {
    if (o.objective === null) continue;
    if (!best || better(study, o.objective, best.objective as number)) best = o;
  }
  return best;
}

function unmeasured(study: StudyDefinition, outcomes: readonly Outcome[]): UnmeasuredCandidate[] {
  return outcomes.map((o) => unmeasuredOf(study, o)).filter((u): u is UnmeasuredCandidate => u !== null);
}

function notes(study: StudyDefinition, outcomes: readonly Outcome[]): string {
  const list = unmeasured(study, outcomes).map(whyNoObjective);
  return list.length > 0 ? `; ${list.join('; ')}` : '';
}

function describeBest(best: BestConfig): string {
  const kept = best.path.slice(1);
  return `${engineLabel(best)}${kept.length > 0 ? ` + ${kept.join(' + ')}` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Comparisons between configurations

/** Trials that measure configurations for a decision: every stage but the generalisation pass. */
function tuningTrials(trials: readonly Trial[]): Trial[] {
  return trials.filter((t) => t.stageId !== GENERALISATION_STAGE_ID);
}

/** Runs of a configuration on the primary workload that were tried (measured, failed or still to run). */
function attemptsOf(study: StudyDefinition, trials: readonly Trial[], serverKey: string): number {
  return tuningTrials(trials).filter((t) => t.serverKey === serverKey && t.workloadId === study.workloads.primary.id && t.status !== 'rejected' && t.status !== 'cancelled').length;
}

/** A trial of the configuration on the primary workload, to copy for another run of it. */
function trialOf(study: StudyDefinition, trials: readonly Trial[], serverKey: string): Trial | undefined {
  return tuningTrials(trials).find((t) => t.serverKey === serverKey && t.workloadId === study.workloads.primary.id && t.status === 'done');
}

interface Comparison {
  change: Change;
  /** The change in the objective's direction (positive = better). */
  gain: Change;
  runs: { candidate: number; reference: number };
}

/**
 * The candidate's objective against the reference's, from all their measured runs; the run-to-run spread is pooled
 * over every configuration of the study measured more than once. `fallback` stands for the reference's one run when
 * its trials are not among `trials`.
 */
function compareConfigs(
  study: StudyDefinition,
  trials: readonly Trial[],
  candidate: { serverKey: string; like: Pick<Trial, 'engine' | 'config'> },
  reference: { serverKey: string; like: Pick<Trial, 'engine' | 'config'>; fallback: number | null },
): Comparison | null {
  const tuning = tuningTrials(trials);
  const a = objectiveSamples(study, tuning, candidate.serverKey);
  let b = objectiveSamples(study, tuning, reference.serverKey);
  if (b.length === 0 && reference.fallback !== null) b = [reference.fallback];
  const keys = new Set(tuning.filter((t) => t.workloadId === study.workloads.primary.id).map((t) => t.serverKey));
  const noise = pooledRunNoise([...keys].map((key) => objectiveSamples(study, tuning, key)));
  const concurrency = study.workloads.primary.maxConcurrency;
  const priorCvPct = Math.max(priorRunCvPct(candidate.like, concurrency), priorRunCvPct(reference.like, concurrency));
  const change = compareRuns(a, b, { priorCvPct, noise, level: INTERVAL_LEVEL });
  if (!change) return null;
  return { change, gain: gainOf(change, objectiveOf(study.goal.kind).better), runs: { candidate: a.length, reference: b.length } };
}

function runsText(runs: Comparison['runs']): string {
  if (runs.candidate === runs.reference) return `${runs.candidate} run${runs.candidate === 1 ? '' : 's'} each`;
  return `${runs.candidate} and ${runs.reference} runs`;
}

/** Another run of each configuration still within the budget (a reference without a trial to copy gets none). */
function repeatsOf(study: StudyDefinition, trials: readonly Trial[], wanted: readonly { serverKey: string; reference: boolean }[]): RepeatRequest[] {
  const budget = Math.max(study.goal.repeatBudget, study.repeats);
  const out: RepeatRequest[] = [];
  for (const w of wanted) {
    const like = trialOf(study, trials, w.serverKey);
    if (like && attemptsOf(study, trials, w.serverKey) < budget) out.push({ serverKey: w.serverKey, like, reference: w.reference });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Decisions

/**
 * Engine stage: best engine by objective; the first engine's default config is the baseline. Under the interval rule
 * the best and the runner-up get more runs while the runner-up could still be better by more than the margin.
 */
export function decideEngineStage(study: StudyDefinition, trials: Trial[], opts: DecideOptions = {}): { decision: StageDecision; best: BestConfig; baseline: BestConfig; repeat: RepeatRequest[] } {
  const stageTrials = trials.filter((t) => t.stageId === ENGINE_STAGE_ID);
  const entries = study.engines.map((choice) => {
    const config = engineBaseConfig(study, choice);
    const candidateId = engineCandidateId(study, choice);
    return { choice, config, candidateId, label: engineLabel(choice), serverKey: bestConfigOf(choice, config, [], null).serverKey };
  });
  const outcomes = groupOutcomes(study, stageTrials, entries);
  const toBest = (i: number): BestConfig => {
    const e = entries[i] as (typeof entries)[number];
    return bestConfigOf(e.choice, e.config, [e.candidateId], (outcomes[i] as Outcome).objective);
  };
  const baseline = toBest(0);
  const winner = bestOutcome(study, outcomes);
  const winnerIndex = winner ? outcomes.indexOf(winner) : 0;
  const best = toBest(winnerIndex);
  const { label: metricLabel, unit } = studyObjective(study.goal);

  let reason: string;
  let basis: DecisionBasis;
  if (!winner) {
    reason = `no engine produced a result that meets the SLOs; ${engineLabel(best)} stays as the starting point`;
    basis = { kind: 'no-valid-result', incumbent: engineLabel(best) };
  } else {
    basis = {
      kind: 'engine',
      baseline: outcomes[0]?.label ?? engineLabel(baseline),
      others: outcomes.filter((o) => o !== winner && o.objective !== null).map((o) => ({ label: o.label, value: o.objective as number })),
    };
    const others = outcomes
      .filter((o) => o !== winner && o.objective !== null)
      .map((o) => `${shown(study, o)} ${formatObjective(study, o.objective as number)}`);
    reason = `${shown(study, winner)} is best: ${formatObjective(study, winner.objective as number)} ${unit} ${metricLabel}`;
    if (others.length > 0) reason += ` (${others.join(', ')})`;
    if (winnerIndex !== 0 && baseline.objective !== null) {
      reason += `; ${signedPct(baseline.objective, winner.objective as number)} ${metricLabel} vs the baseline ${outcomes[0] ? shown(study, outcomes[0]) : ''}`;
    } else if (winnerIndex === 0) {
      reason += '; it is also the baseline';
    }
  }
  const decision: StageDecision = {
    stageId: ENGINE_STAGE_ID,
    winner: winner?.candidateId ?? null,
    reason,
    before: baseline.objective,
    after: best.objective,
    decidedAt: decidedAt(stageTrials),
    basis,
    unmeasured: unmeasured(study, outcomes),
  };
  let repeat: RepeatRequest[] = [];
  const runnerUp = winner ? bestOutcome(study, outcomes.filter((o) => o !== winner)) : undefined;
  if ((opts.rule ?? 'interval') === 'interval' && winner && runnerUp) {
    const winnerEntry = entries[winnerIndex] as (typeof entries)[number];
    const runnerEntry = entries[outcomes.indexOf(runnerUp)] as (typeof entries)[number];
    const cmp = compareConfigs(study, trials, { serverKey: winner.serverKey, like: { engine: winnerEntry.choice.engine, config: winnerEntry.config } }, { serverKey: runnerUp.serverKey, like: { engine: runnerEntry.choice.engine, config: runnerEntry.config }, fallback: null });
    if (cmp) {
      const margin = study.goal.marginPct;
      // Settled once the runner-up cannot be better than the winner by more than the margin.
      const settled = cmp.gain.low >= -margin;
      if (!settled) repeat = repeatsOf(study, trials, [{ serverKey: winner.serverKey, reference: false }, { serverKey: runnerUp.serverKey, reference: false }]);
      const verdict = !settled ? 'inconclusive' : cmp.gain.high <= margin ? 'no-difference' : 'kept';
      const words = verdict === 'inconclusive' ? `inconclusive after ${Math.max(cmp.runs.candidate, cmp.runs.reference)} repeats, the faster on average is taken` : verdict === 'no-difference' ? 'no difference beyond the margin' : 'better';
      decision.reason += `; ${formatChange(cmp.change)} ${metricLabel} vs ${shown(study, runnerUp)} (${runsText(cmp.runs)}), ${words}`;
      Object.assign(decision, { compared: winner.candidateId, verdict, change: cmp.change, runs: cmp.runs });
      if (basis.kind === 'engine') basis.reference = runnerUp.label;
    }
  }
  decision.reason += notes(study, outcomes);
  return { decision, best, baseline, repeat };
}

/**
 * A stage: its best candidate replaces `best` only if it beats it by more than goal.marginPct — under the interval
 * rule, only if the whole interval of its gain does; while that is open, `repeat` names the runs to measure next.
 * `trials` may be the whole study's: the best so far's runs from earlier stages count as its runs.
 */
export function decideStage(
  study: StudyDefinition,
  stageIndex: number,
  trials: Trial[],
  best: BestConfig,
  opts: DecideOptions = {},
): { decision: StageDecision; best: BestConfig; repeat: RepeatRequest[] } {
  const stage = study.stages[stageIndex];
  if (!stage) throw new RangeError(`the study has no stage ${stageIndex}`);
  const stageTrials = trials.filter((t) => t.stageId === stage.id);
  const keep = (reason: string, extra: Partial<StageDecision> & { basis: DecisionBasis }, repeat: RepeatRequest[] = []) => ({
    decision: { stageId: stage.id, winner: null, reason, before: best.objective, after: best.objective, decidedAt: decidedAt(stageTrials), ...extra },
    best,
    repeat,
  });
  if (stage.engines && !stage.engines.includes(best.engine)) {
    const names = stage.engines.map((e) => getAdapter(e).displayName).join(', ');
    return keep(`skipped: this stage's settings are for ${names}, and the best so far runs ${getAdapter(best.engine).displayName}`, {
      basis: { kind: 'skipped', stageEngines: [...stage.engines], bestEngine: best.engine },
    });
  }

  const outcomes = groupOutcomes(study, stageTrials, stage.candidates.map((c) => ({ candidateId: c.id, label: c.label })));
  const top = bestOutcome(study, outcomes);
  const { label: metricLabel, unit } = studyObjective(study.goal);
  const margin = study.goal.marginPct;
  const incumbent = describeBest(best);
  const bestName = `the best so far (${incumbent})`;
  const missing = { unmeasured: unmeasured(study, outcomes) };

  if (!top) return keep(`no candidate produced a result that meets the SLOs; ${bestName} stays${notes(study, outcomes)}`, { basis: { kind: 'no-valid-result', incumbent }, ...missing });

  const topValue = top.objective as number;
  const topTrial = top.trials.find((t) => t.status === 'done') ?? (top.trials[0] as Trial);
  const replaced = (reason: string, extra: Partial<StageDecision> & { basis: DecisionBasis }) => {
    const next = bestConfigOf(best, topTrial.config, [...best.path, top.candidateId], topValue);
    return {
      decision: { stageId: stage.id, winner: top.candidateId, reason, before: best.objective, after: topValue, decidedAt: decidedAt(stageTrials), ...missing, ...extra },
      best: next,
      repeat: [],
    };
  };
  if (best.objective === null) {
    return replaced(`${shown(study, top)}: ${formatObjective(study, topValue)} ${unit} where the best so far had no valid result, kept${notes(study, outcomes)}`, {
      compared: top.candidateId,
      basis: { kind: 'first-valid' },
    });
  }
  const values = `${formatObjective(study, best.objective)} → ${formatObjective(study, topValue)} ${unit}`;

  if ((opts.rule ?? 'interval') === 'single-run') {
    const gain = improvementPct(study, best.objective, topValue);
    const change = `${signedPct(best.objective, topValue)} ${metricLabel}`;
    const singleRun = { compared: top.candidateId, basis: { kind: 'single-run' as const, incumbent, marginPct: margin, changePct: ((topValue - best.objective) / best.objective) * 100, value: topValue } };
    if (gain > margin) return replaced(`${shown(study, top)}: ${change} (${values}), kept${notes(study, outcomes)}`, singleRun);
    return keep(`no candidate beat ${bestName} by more than ${margin}%: best was ${shown(study, top)} (${change})${notes(study, outcomes)}`, { ...singleRun, ...missing });
  }

  const cmp = compareConfigs(study, trials, { serverKey: top.serverKey, like: topTrial }, { serverKey: best.serverKey, like: best, fallback: best.objective }) as Comparison;
  const wanted = [
    { serverKey: top.serverKey, reference: false },
    { serverKey: best.serverKey, reference: true },
  ];
  const repeat = repeatsOf(study, trials, wanted);
  const outcome = stageOutcome(cmp.gain, margin, repeat.length > 0);
  const stated = `${shown(study, top)}: ${formatChange(cmp.change)} ${metricLabel} (${values}; ${runsText(cmp.runs)})`;
  const facts = { compared: top.candidateId, change: cmp.change, runs: cmp.runs, basis: { kind: 'compared' as const, incumbent, marginPct: margin, value: topValue }, ...missing };
  switch (outcome) {
    case 'kept':
      return replaced(`${stated}, kept${notes(study, outcomes)}`, { ...facts, verdict: 'kept' });
    case 'undecided':
      return keep(`${stated}, undecided: another run of both`, facts, repeat);
    case 'no-difference':
      return keep(`${stated}, no difference within ±${margin}%; ${bestName} stays${notes(study, outcomes)}`, { ...facts, verdict: 'no-difference' });
    case 'worse':
      return keep(`${stated}, worse; ${bestName} stays${notes(study, outcomes)}`, { ...facts, verdict: 'worse' });
    case 'no-gain':
      return keep(`${stated}, cannot beat ${bestName} by more than ${margin}%; it stays${notes(study, outcomes)}`, { ...facts, verdict: 'no-gain' });
    case 'inconclusive':
      return keep(
        `${stated}, inconclusive after ${Math.max(cmp.runs.candidate, cmp.runs.reference)} repeats; ${bestName}, the simpler configuration, stays${notes(study, outcomes)}`,
        { ...facts, verdict: 'inconclusive' },
      );
  }
}

/** Grid: the single best serverKey overall. */
export function decideGrid(study: StudyDefinition, trials: Trial[]): { decision: StageDecision; best: BestConfig; baseline: BestConfig } {
  const gridTrials = trials.filter((t) => t.stageId === GRID_STAGE_ID);
  const combos = gridCombinations(study);
  const outcomes = groupOutcomes(
    study,
    gridTrials,
    combos.map((c) => ({ candidateId: c.candidatePath, label: c.label, serverKey: bestConfigOf(c.choice, c.config, [], null).serverKey })),
  );
  const toBest = (i: number): BestConfig => {
    const c = combos[i] as (typeof combos)[number];
    return bestConfigOf(c.choice, c.config, c.path, (outcomes[i] as Outcome).objective);
  };
  // The first combination is the first engine with every stage unchanged: the baseline.
  const baseline = toBest(0);
  const top = bestOutcome(study, outcomes);
  const best = top ? toBest(outcomes.indexOf(top)) : baseline;
  const { label: metricLabel, unit } = studyObjective(study.goal);
  const measured = outcomes.filter((o) => o.objective !== null).length;

  let reason: string;
  const basis: DecisionBasis = { kind: 'grid', measured, total: combos.length, baseline: outcomes[0]?.label ?? '' };
  if (!top) {
    reason = `none of the ${combos.length} configurations produced a result that meets the SLOs`;
  } else {
    reason = `best of ${measured} measured configurations (of ${combos.length}): ${shown(study, top)}, ${formatObjective(study, top.objective as number)} ${unit} ${metricLabel}`;
    if (baseline.objective !== null && top !== outcomes[0]) {
      reason += `; ${signedPct(baseline.objective, top.objective as number)} ${metricLabel} vs the baseline ${outcomes[0]?.label}`;
    }
    const failed = outcomes.length - measured;
    if (failed > 0) reason += `; ${failed} without a valid result (rejected, failed, missed the SLOs or not run)`;
  }
  return {
    decision: { stageId: GRID_STAGE_ID, winner: top?.candidateId ?? null, reason, before: baseline.objective, after: best.objective, decidedAt: decidedAt(gridTrials), basis },
    best,
    baseline,
  };
}

/** The recommended launch: the adapter's command for the best config (no host or port), quoted for a POSIX shell. */
export function recommendationOf(best: BestConfig): Recommendation {
  const { host: _host, port: _port, ...config } = best.config;
  const built = getAdapter(best.engine).buildArgv(config, best.version);
  return { engine: best.engine, version: best.version, mode: best.mode, config, command: displayCommand(built.argv, built.env), path: [...best.path] };
}
