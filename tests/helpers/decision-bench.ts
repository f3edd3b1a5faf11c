// How often a study's recommendation is right under the simulated box's noise, and what its GPU time is, per decision
// rule: many seeded virtual runs of a study against the truth of the noise-free model (`npm run bench` prints it).
import type { DecisionRule } from '../../src/shared/study/decide';
import { objectiveOf, PROJECT_SCHEMA_VERSION, ProjectFileSchema, type Recommendation, type StudyDefinition } from '../../src/shared/study/study';
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

// vLLM needs num_speculative_tokens for an EAGLE3 head (the adapter refuses engine defaults), so each sets the steps.
const spec = (draftModel: string, numSteps: number) => ({ speculative: { algorithm: 'eagle3', draftModel, numSteps } });

/**
 * The bench's own stress case, not a reference study: vLLM 0.11.0 on the demo lab's H100 with Qwen3-8B at
 * concurrency 2, where the box's speculative-acceptance drift gives vLLM its published run-to-run CV of 19.65%
 * (https://github.com/vllm-project/vllm/issues/53436), and stages whose candidates differ from the baseline or from
 * each other by only a few percent in truth: a wrong pick from one run is likely there, which the examples never show.
 */
export const STRESS_STUDY_JSON = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: {
    name: 'Stress case: Qwen3-8B on vLLM at concurrency 2',
    model: { id: 'Qwen/Qwen3-8B', precision: 'bf16' },
    hosts: [{ hostId: 'demo-lab' }],
    demoLab: { gpu: 'h100', count: 1 },
    goal: { kind: 'latency', slos: [] },
    engines: [{ engine: 'vllm', version: '0.11.0', mode: 'env', config: {} }],
    stages: [
      {
        id: 'speculative',
        label: 'Speculative decoding (EAGLE3)',
        candidates: [
          // Noise-free mean latency against 3 steps (the best): 2 steps about 3.6% worse, AngelSlim's head about 5% worse.
          { id: 'tengyunw-s2', label: 'EAGLE3 with Tengyunw/qwen3_8b_eagle3, 2 draft steps', config: spec('Tengyunw/qwen3_8b_eagle3', 2) },
          { id: 'tengyunw-s3', label: 'EAGLE3 with Tengyunw/qwen3_8b_eagle3, 3 draft steps', config: spec('Tengyunw/qwen3_8b_eagle3', 3) },
          { id: 'angelslim-s3', label: 'EAGLE3 with AngelSlim/Qwen3-8B_eagle3, 3 draft steps', config: spec('AngelSlim/Qwen3-8B_eagle3', 3) },
        ],
      },
      {
        id: 'max-num-seqs',
        label: 'Max running requests',
        candidates: [
          // Above the concurrency: no true effect, so keeping it is a choice made on noise alone.
          { id: 'seqs8', label: '--max-num-seqs 8', config: { maxRunningRequests: 8 } },
        ],
      },
    ],
    workloads: {
      primary: { id: 'sharegpt-c2', label: 'ShareGPT, 100 prompts, concurrency 2', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 2, backend: 'openai-chat' },
      generalisation: [],
    },
    strategy: 'greedy',
    repeats: 1,
    gpusPerTrial: 1,
    clientVersion: '0.11.0',
  },
  state: { status: 'draft', trials: [], decisions: [] },
};

