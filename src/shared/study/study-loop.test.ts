import { describe, expect, it } from 'vitest';
import { applyStep, nextStudyStep, REFERENCE_CANDIDATE_ID, type StudyStep } from './study-loop';
import type { PlanContext } from './plan-context';
import { StudyDefinitionSchema, type StudyDefinition, type StudyDefinitionInput, type StudyState, type Trial } from './study';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };

function study(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'loop',
    model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency', marginPct: 1 },
    engines: [{ engine: 'sglang', version: '0.5.3.post3' }],
    stages: [
      { id: 'cuda-graph', label: 'CUDA graphs', candidates: [{ id: 'bs8', label: '--cuda-graph-max-bs 8', config: { cudaGraphMaxBatchSize: 8 } }] },
      { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] },
    ],
    workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }, generalisation: [] },
    ...overrides,
  });
}

type Runs = (trial: Trial, nth: number) => number;

/**
 * Drives the loop to its end, measuring each run with `runs` (the nth run of its configuration): a stand-in for
 * the simulated box, so that each decision's inputs are known exactly. Returns the final state and every step.
 */
function drive(s: StudyDefinition, runs: Runs, opts = {}): { state: StudyState; steps: StudyStep[] } {
  let state: StudyState = { status: 'running', trials: [], decisions: [] };
  const steps: StudyStep[] = [];
  const count = new Map<string, number>();
  for (let i = 0; i < 200; i++) {
    const step = nextStudyStep(s, state, H100, opts);
    steps.push(step);
    if (step.kind === 'done' || step.kind === 'fail') return { state, steps };
    if (step.kind !== 'run') {
      state = applyStep(state, step);
      continue;
    }
    const measured = new Map<string, Trial>();
    for (const t of step.trials) {
      const nth = (count.get(t.serverKey) ?? 0) + 1;
      count.set(t.serverKey, nth);
      measured.set(t.id, {
        ...t,
        status: 'done',
        finishedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        result: { id: 'res-x-0123abcd', kind: 'measured', status: 'ok', addedAt: '2026-01-01T00:00:00.000Z', title: t.label, result: { schemaVersion: 1, metrics: { mean_latency_s: runs(t, nth) }, extra: {} } },
      });
    }
    state = { ...state, trials: state.trials.map((t) => measured.get(t.id) ?? t) };
  }
  throw new Error('the loop did not end');
}

/** Objective by the configuration's last kept candidate, with a run-to-run wobble that alternates sign. */
const byCandidate =
  (base: Record<string, number>, wobblePct: number): Runs =>
  (trial, nth) => {
    const key = trial.config.model.endsWith('FP8') ? 'fp8' : trial.config.cudaGraphMaxBatchSize ? 'bs8' : 'base';
    return (base[key] as number) * (1 + ((nth % 2 === 0 ? -1 : 1) * wobblePct) / 100);
  };

describe('nextStudyStep', () => {
  it('keeps a real gain at once, with its interval, and calls an effect inside the margin "no difference" after repeats', () => {
    const s = study({ goal: { kind: 'latency', marginPct: 2 } });
    const { state, steps } = drive(s, byCandidate({ base: 1.61, bs8: 1.606, fp8: 1.25 }, 0.6));
    const cuda = state.decisions.find((d) => d.stageId === 'cuda-graph');
    expect(cuda).toMatchObject({ winner: null, verdict: 'no-difference', compared: 'bs8' });
    expect(cuda?.runs?.candidate).toBeGreaterThan(1);
    expect(Math.abs(cuda?.change?.pct ?? 9)).toBeLessThan(1);
    const quant = state.decisions.find((d) => d.stageId === 'quantization');
    expect(quant).toMatchObject({ winner: 'fp8', verdict: 'kept', runs: { candidate: 1 } });
    expect(quant?.reason).toMatch(/^FP8 checkpoint: −2\d\.\d% \[−\d+\.\d, −\d+\.\d\] mean latency/);
    expect(state.recommendation?.path).toEqual(['sglang-0.5.3.post3', 'fp8']);
    // The best so far ran again inside the stage that compared it, as that stage's reference.
    const reference = state.trials.filter((t) => t.stageId === 'cuda-graph' && t.candidateId === REFERENCE_CANDIDATE_ID);
    expect(reference.map((t) => t.id)).toEqual(reference.map((_, i) => `cuda-graph/${REFERENCE_CANDIDATE_ID}/sharegpt-c4/r${i + 1}`));
    expect(reference.length).toBeGreaterThan(0);
    expect(steps.at(-1)).toEqual({ kind: 'done' });
  });

  it('stops at the repeat budget and keeps the simpler configuration when still undecided', () => {
    const s = study({ goal: { kind: 'latency', marginPct: 1, repeatBudget: 3 } });
    // A 1.5% gain under a 4% wobble: never clear of the 1% margin in three runs.
    const { state } = drive(s, byCandidate({ base: 1.61, bs8: 1.61 * 0.985, fp8: 1.25 }, 4));
    const cuda = state.decisions.find((d) => d.stageId === 'cuda-graph');
    expect(cuda).toMatchObject({ winner: null, verdict: 'inconclusive', runs: { candidate: 3, reference: 3 } });
    expect(cuda?.reason).toContain('inconclusive after 3 repeats');
    const bs8Runs = state.trials.filter((t) => t.config.cudaGraphMaxBatchSize === 8 && t.stageId !== 'generalisation');
    expect(bs8Runs).toHaveLength(3);
  });

  it('warms up the first trial of each workload on each launch, and the single-run rule neither warms up nor repeats', () => {
    const s = study();
    const runs = byCandidate({ base: 1.61, bs8: 1.606, fp8: 1.25 }, 0.6);
    const interval = drive(s, runs).steps.filter((x) => x.kind === 'run');
    for (const step of interval) {
      const firsts = new Map<string, string>();
      for (const t of step.trials) if (!firsts.has(`${t.serverKey}/${t.workloadId}`)) firsts.set(`${t.serverKey}/${t.workloadId}`, t.id);
      expect(step.warmups).toEqual([...firsts.values()]);
    }
    const single = drive(s, runs, { rule: 'single-run' });
    expect(single.steps.filter((x) => x.kind === 'run').every((x) => x.kind === 'run' && x.warmups.length === 0)).toBe(true);
    expect(single.state.trials.filter((t) => t.repeat > 1)).toEqual([]);
    expect(single.state.recommendation?.path).toEqual(['sglang-0.5.3.post3', 'fp8']);
  });

  it('fails when no engine measured the primary workload', () => {
    const s = study();
    let state: StudyState = { status: 'running', trials: [], decisions: [] };
    state = applyStep(state, nextStudyStep(s, state, H100));
    state = { ...state, trials: state.trials.map((t) => ({ ...t, status: 'failed' as const, error: 'CUDA error: out of memory' })) };
    state = applyStep(state, nextStudyStep(s, state, H100));
    expect(nextStudyStep(s, state, H100)).toEqual({ kind: 'fail', message: 'No engine completed the primary workload: CUDA error: out of memory' });
  });
});
