import { describe, expect, it } from 'vitest';
import { BASE_RUN_CV_PCT, INTERVAL_LEVEL } from './noise';
import { bestConfigOf, engineBaseConfig, planEngineStage, planStage } from './planner';
import type { PlanContext } from './plan-context';
import { rerunDefinition } from './rerun';
import { compareStudies } from './study-diff';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StudyDefinition } from './study';
import { compareRuns, pooledRunNoise } from './verdict';
import { measuredTrial } from '../../../tests/helpers/measured-trial';

// Marked edge cases, written by hand: what each side of a row can be (measured, failed, rejected, not run, a metric
// missing, other settings) on a one-engine, one-stage study with two repeats. The comparison on whole studies with the
// simulated box's noise is tests/integration/study-rerun.test.ts.

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };

const STUDY = StudyDefinitionSchema.parse({
  name: 'Latency',
  model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
  hosts: [{ hostId: 'lab' }],
  goal: { kind: 'latency', marginPct: 3 },
  repeats: 2,
  engines: [{ engine: 'vllm', version: '0.11.0' }],
  stages: [{ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] }],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }, generalisation: [] },
});

type Outcome = number[] | 'failed' | 'rejected' | 'planned' | { metrics: Record<string, number>[] };

/** The study's engine stage and its one stage (on the engine's defaults, or on `base`), each candidate as given. */
function ran(study: StudyDefinition, outcomes: { engine: Outcome; fp8: Outcome }, base = engineBaseConfig(study, study.engines[0] as StudyDefinition['engines'][number])): ProjectFile {
  const choice = study.engines[0] as StudyDefinition['engines'][number];
  const best = bestConfigOf(choice, base, [], null);
  const trials = [...planEngineStage(study, H100), ...planStage(study, 0, best, H100)].map((t) => {
    const outcome = t.stageId === 'engine' ? outcomes.engine : outcomes.fp8;
    if (outcome === 'planned') return t;
    if (outcome === 'failed') return { ...t, status: 'failed' as const, error: 'the server died' };
    if (outcome === 'rejected') return { ...t, status: 'rejected' as const, rejectReason: 'not at this version' };
    const metrics = Array.isArray(outcome) ? { mean_latency_s: outcome[t.repeat - 1] as number } : (outcome.metrics[t.repeat - 1] as Record<string, number>);
    return measuredTrial(t, metrics);
  });
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'done', trials, decisions: [] } };
}

const original = ran(STUDY, { engine: [2.0, 2.02], fp8: [1.5, 1.51] });
const NEXT = rerunDefinition({ path: '/p/latency.servelab', file: original }, { engineVersions: { vllm: '0.12.0' } }).definition;

describe('compareStudies', () => {
  it('matches the engine across its version and states the change with compareRuns over both studies’ repeats', () => {
    const diff = compareStudies(original, ran(NEXT, { engine: [2.2, 2.21], fp8: [1.5, 1.49] }));
    expect(diff.rows.map((r) => r.key)).toEqual(['engine/vllm-0.12.0/sharegpt-c4', 'quantization/fp8/sharegpt-c4']);
    const [engine, fp8] = diff.rows;
    const latency = engine?.metrics.find((m) => m.metric === 'mean_latency_s');
    expect(latency?.original).toBeCloseTo(Math.sqrt(2.0 * 2.02), 12);
    expect(latency?.rerun).toBeCloseTo(Math.sqrt(2.2 * 2.21), 12);
    expect(latency?.change.pct).toBeCloseTo((Math.sqrt(2.2 * 2.21) / Math.sqrt(2.0 * 2.02) - 1) * 100, 9);
    const noise = pooledRunNoise([
      [2.0, 2.02],
      [1.5, 1.51],
      [2.2, 2.21],
      [1.5, 1.49],
    ]);
    expect(latency?.change).toEqual(compareRuns([2.2, 2.21], [2.0, 2.02], { priorCvPct: BASE_RUN_CV_PCT, noise, level: INTERVAL_LEVEL }));
    expect(latency).toMatchObject({ verdict: 'worse', runs: { original: 2, rerun: 2 } });
    expect(fp8?.metrics.find((m) => m.metric === 'mean_latency_s')?.verdict).toBe('no-difference');
    expect(diff.regressions).toEqual([{ kind: 'worse', key: 'engine/vllm-0.12.0/sharegpt-c4', stageId: 'engine', workloadId: 'sharegpt-c4', label: 'vLLM 0.12.0', metric: 'mean_latency_s', change: latency?.change }]);
    expect(diff.onlyOriginal).toEqual([]);
    expect(diff.onlyRerun).toEqual([]);
  });

  it('counts a configuration the original measured and the re-run failed or refused as a regression', () => {
    for (const outcome of ['failed', 'rejected'] as const) {
      const diff = compareStudies(original, ran(NEXT, { engine: [2.0, 2.01], fp8: outcome }));
      const fp8 = diff.rows.find((r) => r.stageId === 'quantization');
      expect(fp8?.original).toMatchObject({ outcome: 'measured', runs: 2 });
      expect(fp8?.rerun).toMatchObject({ outcome, runs: 0 });
      expect(fp8?.metrics).toEqual([]);
      expect(diff.regressions).toEqual([{ kind: 'lost', outcome, key: 'quantization/fp8/sharegpt-c4', stageId: 'quantization', workloadId: 'sharegpt-c4', label: 'FP8 checkpoint' }]);
    }
  });

  it('flags nothing the re-run has not measured yet', () => {
    const planned = compareStudies(original, ran(NEXT, { engine: [2.0, 2.01], fp8: 'planned' }));
    expect(planned.rows.find((r) => r.stageId === 'quantization')?.rerun.outcome).toBe('not-run');
    expect(planned.regressions).toEqual([]);

    const draft = compareStudies(original, { schemaVersion: PROJECT_SCHEMA_VERSION, study: NEXT, state: { status: 'draft', trials: [], decisions: [] } });
    expect(draft.rows).toEqual([]);
    expect(draft.regressions).toEqual([]);
    expect(draft.onlyOriginal.map((s) => `${s.key} ${s.outcome} ${s.runs}`)).toEqual(['engine/vllm-0.11.0/sharegpt-c4 measured 2', 'quantization/fp8/sharegpt-c4 measured 2']);
  });

  it('compares a metric only where both sides measured it', () => {
    const withTtft = (latency: number, ttft: number) => ({ mean_latency_s: latency, mean_ttft_ms: ttft });
    const before = ran(STUDY, { engine: { metrics: [withTtft(2.0, 50), withTtft(2.02, 51)] }, fp8: [1.5, 1.51] });
    const diff = compareStudies(before, ran(NEXT, { engine: [2.0, 2.01], fp8: [1.5, 1.5] }));
    const engine = diff.rows.find((r) => r.stageId === 'engine');
    expect(engine?.metrics.map((m) => m.metric)).toEqual(['mean_latency_s']);
    expect(diff.regressions).toEqual([]);
  });

  it('shows a row whose sides launched other settings without calling it a regression', () => {
    // The re-run's stage built on the FP8 checkpoint (another winner upstream), the original's on the defaults.
    const onFp8 = { ...engineBaseConfig(NEXT, NEXT.engines[0] as StudyDefinition['engines'][number]), model: 'Qwen/Qwen3-8B-FP8', quantization: 'fp8' as const };
    const diff = compareStudies(original, ran(NEXT, { engine: [2.0, 2.01], fp8: [1.8, 1.81] }, onFp8));
    const fp8 = diff.rows.find((r) => r.stageId === 'quantization');
    expect(fp8?.sameConfig).toBe(false);
    expect(fp8?.metrics.find((m) => m.metric === 'mean_latency_s')?.verdict).toBe('worse');
    expect(diff.regressions).toEqual([]);
  });
});
