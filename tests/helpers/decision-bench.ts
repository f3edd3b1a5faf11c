// How often a study's recommendation is right under the simulated box's noise, and what its GPU time is, per decision
// rule: many seeded virtual runs of a study against the truth of the noise-free model (`npm run bench` prints it).
import type { DecisionRule } from '../../src/shared/study/decide';
import { objectiveOf, ProjectFileSchema, type Recommendation, type StudyDefinition } from '../../src/shared/study/study';
import { runVirtualStudy, trueObjective } from './virtual-study';

export interface RuleAccuracy {
  rule: DecisionRule;
  runs: number;
  /** Recommendations whose noise-free objective is the true best's or within the study's margin of it. */
  right: number;
  /** Recommendations equal to the noise-free study's own. */
  same: number;
  /** Mean GPU seconds up to the recommendation (runs, warm-ups and launches). */
  meanGpuSeconds: number;
  /** What the wrong ones recommended, with their shortfall against the true best. */
  wrong: string[];
}

export interface DecisionAccuracy {
  /** The noise-free study's recommendation and its objective. */
  truth: { command: string; objective: number };
  marginPct: number;
  rules: RuleAccuracy[];
}

/** How far `value` falls short of `best` in percent of it, in the objective's direction (≤ 0: as good or better). */
function shortfallPct(study: StudyDefinition, best: number, value: number): number {
  const pct = ((value - best) / best) * 100;
  return objectiveOf(study.goal.kind).better === 'lower' ? pct : -pct;
}

/** `runs` seeded runs (seeds 1…runs) of the study under each rule, against the noise-free truth. */
export function decisionAccuracy(study: StudyDefinition, opts: { runs: number; rules: readonly DecisionRule[] }): DecisionAccuracy {
  const truthRun = runVirtualStudy(study, { noise: false, untilRecommendation: true });
  const truthRec = truthRun.state.recommendation;
  if (!truthRec) throw new Error(`the noise-free study made no recommendation: ${truthRun.state.message ?? ''}`);
  const known = new Map<string, number | null>();
  const objectiveOfRec = (rec: Recommendation): number | null => {
    const key = rec.serverKey ?? rec.command;
    if (!known.has(key)) known.set(key, trueObjective(study, rec));
    return known.get(key) ?? null;
  };
  const best = objectiveOfRec(truthRec);
  if (best === null) throw new Error('the noise-free recommendation has no objective');
  const margin = study.goal.marginPct;
  const rules = opts.rules.map((rule): RuleAccuracy => {
    let right = 0;
    let same = 0;
    let gpu = 0;
    const wrong: string[] = [];
    for (let seed = 1; seed <= opts.runs; seed++) {
      const run = runVirtualStudy(study, { rule, seed, untilRecommendation: true });
      gpu += run.gpuSeconds;
      const rec = run.state.recommendation;
      const value = rec ? objectiveOfRec(rec) : null;
      const short = value === null ? Infinity : shortfallPct(study, best, value);
      if (rec?.command === truthRec.command) same++;
      if (short <= margin) right++;
      else wrong.push(`seed ${seed}: ${rec?.path.join(' + ') ?? run.state.message ?? 'no recommendation'} (${Number.isFinite(short) ? `${short.toFixed(1)}% short` : 'no valid result'})`);
    }
    return { rule, runs: opts.runs, right, same, meanGpuSeconds: gpu / opts.runs, wrong };
  });
  return { truth: { command: truthRec.command, objective: best }, marginPct: margin, rules };
}

/** A project file's study with the schema's defaults (the bench reads the examples with it). */
export function studyOfProject(json: unknown): StudyDefinition {
  return ProjectFileSchema.parse(json).study;
}
