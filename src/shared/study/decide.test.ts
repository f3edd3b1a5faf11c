import { describe, expect, it } from 'vitest';
import { parseServerConfig, type ServerConfigInput } from '../engines/server-config';
import { decideEngineStage, decideGrid, decideStage, meetsSlos, objectiveValue, recommendationOf } from './decide';
import { bestConfigOf, planEngineStage, planGrid, planStage, type BestConfig } from './planner';
import type { PlanContext } from './plan-context';
import { StudyDefinitionSchema, type StageDecision, type StudyDefinition, type StudyDefinitionInput, type Trial } from './study';
import { decisionWords } from './report/decision-words';
import { gainPct } from './report/model';
import { reportText, type ReportLang } from './report/text';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };

function study(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'Qwen3-8B latency',
    model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency', marginPct: 1 },
    engines: [
      { engine: 'vllm', version: '0.11.0' },
      { engine: 'sglang', version: '0.5.3.post3' },
      { engine: 'trtllm', version: '1.2.0rc1' },
    ],
    stages: [
      { id: 'cuda-graph', label: 'CUDA graphs', engines: ['sglang'], candidates: [{ id: 'bs8', label: '--cuda-graph-max-bs 8', config: { cudaGraphMaxBatchSize: 8 } }] },
      { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', variant: 'fp8' }] },
      {
        id: 'attention-backend',
        label: 'Attention backend',
        engines: ['sglang'],
        candidates: [
          { id: 'triton', label: '--attention-backend triton', config: { attentionBackend: 'triton' } },
          { id: 'flashinfer', label: '--attention-backend flashinfer', config: { attentionBackend: 'flashinfer' } },
        ],
      },
      {
        id: 'speculative',
        label: 'EAGLE3',
        engines: ['sglang'],
        candidates: [
          { id: 's4-k4-t16', label: 'EAGLE3 4/4/16', config: { speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 } } },
        ],
      },
    ],
    workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }, generalisation: [] },
    ...overrides,
  });
}

let clock = 0;
/** The trial as the scheduler leaves it: done with metrics, or failed with an error. */
function measured(trial: Trial, metrics: Record<string, number>): Trial {
  clock++;
  return {
    ...trial,
    status: 'done',
    finishedAt: `2025-11-01T10:00:${String(clock % 60).padStart(2, '0')}.000Z`,
    result: {
      id: 'res-abc-0123abcd',
      kind: 'measured',
      status: 'ok',
      addedAt: '2025-11-01T10:00:00.000Z',
      title: trial.label,
      result: { schemaVersion: 1, metrics, extra: {} },
    },
  };
}
const failed = (trial: Trial, error: string): Trial => ({ ...trial, status: 'failed', error });
const latency = (s: number, extra: Record<string, number> = {}) => ({ mean_latency_s: s, p99_ttft_ms: 100, ...extra });

/** Measures each trial of a candidate with the given values (one per repeat), by candidate id. */
function measure(trials: Trial[], values: Record<string, (number | Record<string, number>)[] | string>): Trial[] {
  return trials.map((t) => {
    const v = values[t.candidateId];
    if (v === undefined) return t;
    if (typeof v === 'string') return failed(t, v);
    const m = v[t.repeat - 1] as number | Record<string, number>;
    return measured(t, typeof m === 'number' ? latency(m) : m);
  });
}

const sglangBest = (objective: number | null, config: ServerConfigInput = { model: 'Qwen/Qwen3-8B' }): BestConfig =>
  bestConfigOf({ engine: 'sglang', version: '0.5.3.post3', mode: 'env' }, parseServerConfig(config), ['sglang-0.5.3.post3'], objective);

describe('meetsSlos', () => {
  const s = study({ goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 200 }, { metric: 'request_throughput', min: 1 }] } });
  const [trial] = planEngineStage(s, H100);
  const base = trial as Trial;

  it('passes a result within every SLO', () => {
    expect(meetsSlos(s, measured(base, latency(1.6, { p99_ttft_ms: 150, request_throughput: 2 })))).toEqual({ ok: true, violations: [] });
  });
  it('names each violated SLO, and a metric that was not measured', () => {
    expect(meetsSlos(s, measured(base, latency(1.6, { p99_ttft_ms: 5700, request_throughput: 0.5 })))).toEqual({
      ok: false,
      violations: ['p99_ttft_ms 5700 > 200', 'request_throughput 0.50 < 1.00'],
    });
    expect(meetsSlos(s, measured(base, { mean_latency_s: 1.6, p99_ttft_ms: 10 })).violations).toEqual(['request_throughput was not measured']);
  });
  it('fails a trial without a result', () => {
    expect(meetsSlos(s, base).ok).toBe(false);
  });
});

describe('objectiveValue', () => {
  it('is the mean over repeats of the done, SLO-meeting primary trials of one server', () => {
    const s = study({ repeats: 3, goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 200 }] } });
    const trials = measure(planEngineStage(s, H100), {
      'vllm-0.11.0': [1.6, 1.8, { mean_latency_s: 0.1, p99_ttft_ms: 900 }],
      'sglang-0.5.3.post3': 'engine crashed',
    });
    const vllmKey = trials[0]?.serverKey as string;
    expect(objectiveValue(s, trials, vllmKey)).toBeCloseTo(1.7, 10);
    expect(objectiveValue(s, trials, trials[3]?.serverKey as string)).toBeNull();
    // Only the primary workload counts.
    const elsewhere = trials.map((t) => ({ ...t, workloadId: 'sharegpt-c1' }));
    expect(objectiveValue(s, elsewhere, vllmKey)).toBeNull();
  });
});

describe('decideEngineStage', () => {
  it("picks the best engine by the objective; the first engine's defaults are the baseline", () => {
    const s = study();
    const trials = measure(planEngineStage(s, H100), { 'vllm-0.11.0': [1.68], 'sglang-0.5.3.post3': [1.61], 'trtllm-1.2.0rc1': [1.74] });
    const { decision, best, baseline } = decideEngineStage(s, trials);
    expect(best).toMatchObject({ engine: 'sglang', version: '0.5.3.post3', path: ['sglang-0.5.3.post3'], objective: 1.61, serverKey: trials[1]?.serverKey });
    expect(baseline).toMatchObject({ engine: 'vllm', path: ['vllm-0.11.0'], objective: 1.68, serverKey: trials[0]?.serverKey });
    expect(decision).toMatchObject({ stageId: 'engine', winner: 'sglang-0.5.3.post3', before: 1.68, after: 1.61 });
    expect(decision.reason).toBe(
      'SGLang 0.5.3.post3 is best: 1.61 s/request mean latency (vLLM 0.11.0 1.68, TensorRT-LLM 1.2.0rc1 1.74); −4.2% mean latency vs the baseline vLLM 0.11.0; −4.2% [−6.5, −1.7] mean latency vs vLLM 0.11.0 (1 run each), better',
    );
    expect(decision).toMatchObject({ compared: 'sglang-0.5.3.post3', verdict: 'kept', runs: { candidate: 1, reference: 1 } });
    expect(decideEngineStage(s, trials, { rule: 'single-run' }).decision.reason).toBe(
      'SGLang 0.5.3.post3 is best: 1.61 s/request mean latency (vLLM 0.11.0 1.68, TensorRT-LLM 1.2.0rc1 1.74); −4.2% mean latency vs the baseline vLLM 0.11.0',
    );
  });

  it('runs the best and the runner-up again while the runner-up could be better by more than the margin', () => {
    const s = study();
    const close = measure(planEngineStage(s, H100), { 'vllm-0.11.0': [1.62], 'sglang-0.5.3.post3': [1.61], 'trtllm-1.2.0rc1': [1.74] });
    const first = decideEngineStage(s, close);
    expect(first.repeat.map((r) => r.like.candidateId)).toEqual(['sglang-0.5.3.post3', 'vllm-0.11.0']);
    expect(first.decision.verdict).toBe('inconclusive');
    expect(decideEngineStage(s, close, { rule: 'single-run' }).repeat).toEqual([]);
  });

  it('leaves out an engine that violates an SLO and says why', () => {
    const s = study({ goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 200 }] } });
    const trials = measure(planEngineStage(s, H100), {
      'vllm-0.11.0': [1.68],
      'sglang-0.5.3.post3': [{ mean_latency_s: 1.61, p99_ttft_ms: 5700 }],
      'trtllm-1.2.0rc1': 'RuntimeError: boom\nmore',
    });
    const { decision, best } = decideEngineStage(s, trials);
    expect(best.engine).toBe('vllm');
    expect(decision.winner).toBe('vllm-0.11.0');
    expect(decision.reason).toContain('SGLang 0.5.3.post3 missed the SLOs (p99_ttft_ms 5700 > 200)');
    expect(decision.reason).toContain('TensorRT-LLM 1.2.0rc1 failed: RuntimeError: boom');
  });
});

describe('decideStage', () => {
  const s = study();

  it('keeps a candidate that beats the best by more than the margin', () => {
    const trials = measure(planStage(s, 1, sglangBest(1.61), H100), { fp8: [1.25] });
    const { decision, best } = decideStage(s, 1, trials, sglangBest(1.61));
    expect(decision).toMatchObject({ stageId: 'quantization', winner: 'fp8', before: 1.61, after: 1.25 });
    expect(decision.reason).toBe('FP8 checkpoint: −22.4% [−24.3, −20.4] mean latency (1.61 → 1.25 s/request; 1 run each), kept');
    expect(decision).toMatchObject({ verdict: 'kept', compared: 'fp8', runs: { candidate: 1, reference: 1 } });
    expect(decision.change?.pct).toBeCloseTo(-22.36, 1);
    expect(best).toMatchObject({ engine: 'sglang', path: ['sglang-0.5.3.post3', 'fp8'], objective: 1.25, serverKey: trials[0]?.serverKey });
    expect(best.config.model).toBe('Qwen/Qwen3-8B-FP8');
  });

  it('asks for another run when the interval straddles the margin', () => {
    const trials = measure(planStage(s, 0, sglangBest(1.61), H100), { bs8: [1.6] });
    const { decision, best, repeat } = decideStage(s, 0, trials, sglangBest(1.61));
    expect(decision.reason).toBe('--cuda-graph-max-bs 8: −0.6% [−3.1, +1.9] mean latency (1.61 → 1.60 s/request; 1 run each), undecided: another run of both');
    expect(decision.winner).toBeNull();
    expect(best).toEqual(sglangBest(1.61));
    // The best so far has no trial here to copy: only the candidate runs again.
    expect(repeat.map((r) => [r.like.candidateId, r.reference])).toEqual([['bs8', false]]);
  });

  it('under the single-run rule, keeps the best when no candidate beats it by more than the margin', () => {
    const trials = measure(planStage(s, 0, sglangBest(1.61), H100), { bs8: [1.6] });
    const { decision, best } = decideStage(s, 0, trials, sglangBest(1.61), { rule: 'single-run' });
    expect(decision).toMatchObject({ winner: null, before: 1.61, after: 1.61 });
    expect(decision.reason).toBe('no candidate beat the best so far (SGLang 0.5.3.post3) by more than 1%: best was --cuda-graph-max-bs 8 (−0.6% mean latency)');
    expect(best).toEqual(sglangBest(1.61));
    // With no margin the same result is kept.
    const eager = study({ goal: { kind: 'latency', marginPct: 0 } });
    expect(decideStage(eager, 0, trials, sglangBest(1.61), { rule: 'single-run' }).decision.winner).toBe('bs8');
  });

  it('ignores a faster candidate that violates an SLO, and reports failed ones', () => {
    const slo = study({ goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 200 }] } });
    const trials = measure(planStage(slo, 2, sglangBest(1.25), H100), {
      triton: [1.2],
      flashinfer: [{ mean_latency_s: 1.0, p99_ttft_ms: 5700 }],
    });
    const { decision } = decideStage(slo, 2, trials, sglangBest(1.25), { rule: 'single-run' });
    expect(decision.winner).toBe('triton');
    expect(decision.reason).toBe(
      '--attention-backend triton: −4.0% mean latency (1.25 → 1.20 s/request), kept; --attention-backend flashinfer missed the SLOs (p99_ttft_ms 5700 > 200)',
    );
    const broken = measure(planStage(slo, 2, sglangBest(1.25), H100), { triton: 'CUDA error: out of memory', flashinfer: [1.3] });
    expect(decideStage(slo, 2, broken, sglangBest(1.25), { rule: 'single-run' }).decision.reason).toBe(
      'no candidate beat the best so far (SGLang 0.5.3.post3) by more than 2%: best was --attention-backend flashinfer (+4.0% mean latency); --attention-backend triton failed: CUDA error: out of memory',
    );
  });

  it('judges throughput upwards and mentions rejected candidates', () => {
    const tp = study({ goal: { kind: 'throughput', marginPct: 1 } });
    const best = sglangBest(1398);
    const planned = planStage(tp, 1, best, H100).map((t) => ({ ...t, status: 'rejected' as const, rejectReason: 'no room' }));
    const { decision } = decideStage(tp, 1, planned, best);
    expect(decision.winner).toBeNull();
    expect(decision.reason).toBe('no candidate produced a result that meets the SLOs; the best so far (SGLang 0.5.3.post3) stays; FP8 checkpoint rejected: no room');
    const faster = measure(planStage(tp, 1, best, H100), { fp8: [{ total_token_throughput: 1759 }] });
    expect(decideStage(tp, 1, faster, best).decision.reason).toBe('FP8 checkpoint: +25.8% [+22.7, +29.0] total token throughput (1398 → 1759 tok/s; 1 run each), kept');
  });

  it('chains greedily: each stage plans on the best the previous one kept', () => {
    let best = sglangBest(1.61);
    const quant = measure(planStage(s, 1, best, H100), { fp8: [1.25] });
    best = decideStage(s, 1, quant, best).best;
    const spec = planStage(s, 3, best, H100);
    expect(spec[0]?.command).toBe(
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
    best = decideStage(s, 3, measure(spec, { 's4-k4-t16': [0.75] }), best).best;
    expect(best.path).toEqual(['sglang-0.5.3.post3', 'fp8', 's4-k4-t16']);
    expect(best.serverKey).toBe(spec[0]?.serverKey);
    expect(recommendationOf(best).command).toBe(spec[0]?.command);
  });

  it("skips a stage for another engine and says so", () => {
    const vllm = bestConfigOf({ engine: 'vllm', version: '0.11.0', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), ['vllm-0.11.0'], 1.68);
    const { decision, best } = decideStage(s, 0, [], vllm);
    expect(decision.reason).toBe("skipped: this stage's settings are for SGLang, and the best so far runs vLLM");
    expect(best).toBe(vllm);
  });
});

describe('decideGrid', () => {
  it('picks the single best configuration; the baseline is the first engine with nothing changed', () => {
    const s = study({ engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'sglang', version: '0.5.3.post3' }], stages: study().stages.slice(0, 2) });
    const trials = planGrid(s, H100);
    const values: Record<string, number[]> = {};
    trials.forEach((t, i) => (values[t.candidateId] = [2 - i * 0.1]));
    values['sglang-0.5.3.post3~cuda-graph=bs8~quantization=fp8'] = [1.1];
    values['sglang-0.5.3.post3~quantization=fp8'] = [1.0];
    const { decision, best, baseline } = decideGrid(s, measure(trials, values));
    expect(best).toMatchObject({ engine: 'sglang', path: ['sglang-0.5.3.post3', 'fp8'], objective: 1.0 });
    expect(best.config.model).toBe('Qwen/Qwen3-8B-FP8');
    expect(baseline).toMatchObject({ engine: 'vllm', path: ['vllm-0.11.0'], objective: 2 });
    expect(decision).toMatchObject({ stageId: 'grid', winner: 'sglang-0.5.3.post3~quantization=fp8', before: 2, after: 1 });
    expect(decision.reason).toBe('best of 6 measured configurations (of 6): SGLang 0.5.3.post3 + FP8 checkpoint, 1.00 s/request mean latency; −50.0% mean latency vs the baseline vLLM 0.11.0 at its defaults');
  });
});

describe('recommendationOf', () => {
  it("is the adapter's command for the best config, quoted for a shell", () => {
    const eagle = sglangBest(0.77, { model: 'Qwen/Qwen3-8B-FP8', speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 } });
    expect(recommendationOf({ ...eagle, path: ['sglang-0.5.3.post3', 'fp8', 's4-k4-t16'] })).toEqual({
      engine: 'sglang',
      version: '0.5.3.post3',
      mode: 'env',
      config: eagle.config,
      command:
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
      path: ['sglang-0.5.3.post3', 'fp8', 's4-k4-t16'],
    });
    const trt = bestConfigOf({ engine: 'trtllm', version: '1.2.0rc1', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-32B', maxModelLen: 40960, chunkedPrefill: true, port: 8000 }), ['trtllm-1.2.0rc1'], 2054);
    expect(recommendationOf(trt).command).toBe('trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill');
    const vllm = bestConfigOf(
      { engine: 'vllm', version: '0.11.0', mode: 'env' },
      parseServerConfig({ model: 'Qwen/Qwen3-8B', attentionBackend: 'FLASHINFER', speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4 } }),
      ['vllm-0.11.0'],
      1,
    );
    expect(recommendationOf(vllm).command).toBe(
      `VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve Qwen/Qwen3-8B --speculative-config '{"method":"eagle3","model":"Tengyunw/qwen3_8b_eagle3","num_speculative_tokens":4}'`,
    );
  });
});

/** A decision as the report words it from its facts, in `lang`; labels from the stage's trials. */
function worded(d: StageDecision, trials: readonly Trial[], lang: ReportLang = 'en', goal: 'latency' | 'throughput' = 'latency'): string {
  const tx = reportText(lang);
  const labelOf = (id: string) => trials.find((t) => t.candidateId === id)?.label ?? id;
  const objective = goal === 'latency' ? { label: tx.t('objective.mean_latency_s'), unit: tx.t('unit.secondsPerRequest') } : { label: tx.t('objective.total_token_throughput'), unit: 'tok/s' };
  return decisionWords(d, {
    tx,
    objective,
    winnerLabel: d.winner !== null ? labelOf(d.winner) : null,
    gainPct: d.winner !== null ? gainPct(d.before, d.after, goal === 'latency' ? 'lower' : 'higher') : null,
    labelOf,
    redact: (text) => text,
  });
}

describe('the facts a decision keeps, worded by the report', () => {
  const s = study();

  it('words a kept candidate, an undecided one and the single-run rule from the facts, in English and Turkish', () => {
    const kept = measure(planStage(s, 1, sglangBest(1.61), H100), { fp8: [1.25] });
    const keptDecision = decideStage(s, 1, kept, sglangBest(1.61)).decision;
    expect(keptDecision.basis).toEqual({ kind: 'compared', incumbent: 'SGLang 0.5.3.post3', marginPct: 1, value: 1.25 });
    expect(worded(keptDecision, kept)).toBe('Kept FP8 checkpoint (+28.8%). FP8 checkpoint: −22.4% [−24.3, −20.4] mean latency (1.61 → 1.25 s/request; 1 run each). Kept.');
    expect(worded(keptDecision, kept, 'tr')).toBe(
      'Korunan: FP8 checkpoint (+%28,8). FP8 checkpoint: ortalama gecikme değişimi −%22,4 [−24,3; −20,4] (1,61 → 1,25 sn/istek; her biri 1 çalıştırma). Korundu.',
    );
    const close = measure(planStage(s, 0, sglangBest(1.61), H100), { bs8: [1.6] });
    expect(worded(decideStage(s, 0, close, sglangBest(1.61)).decision, close)).toBe(
      'Nothing kept. --cuda-graph-max-bs 8: −0.6% [−3.1, +1.9] mean latency (1.61 → 1.60 s/request; 1 run each). Undecided: another run of both.',
    );
    expect(worded(decideStage(s, 0, close, sglangBest(1.61), { rule: 'single-run' }).decision, close)).toBe(
      'Nothing kept. No candidate beat the best so far (SGLang 0.5.3.post3) by more than 1%: the best was --cuda-graph-max-bs 8 (−0.6% mean latency).',
    );
  });

  it('names each candidate without a result and why: missed SLOs, failed, refused', () => {
    const slo = study({ goal: { kind: 'latency', slos: [{ metric: 'p99_ttft_ms', max: 200 }] } });
    const broken = measure(planStage(slo, 2, sglangBest(1.25), H100), { triton: 'CUDA error: out of memory\nmore', flashinfer: [{ mean_latency_s: 1.0, p99_ttft_ms: 5700 }] });
    const decision = decideStage(slo, 2, broken, sglangBest(1.25)).decision;
    expect(decision.unmeasured).toEqual([
      { label: '--attention-backend triton', why: 'failed', detail: 'CUDA error: out of memory' },
      { label: '--attention-backend flashinfer', why: 'missed-slos', detail: 'p99_ttft_ms 5700 > 200' },
    ]);
    expect(worded(decision, broken, 'tr')).toBe(
      'Hiçbir şey korunmadı. Hiçbir aday SLO’ları karşılayan bir sonuç vermedi; o ana kadarki en iyi (SGLang 0.5.3.post3) kalıyor. --attention-backend triton başarısız oldu: CUDA error: out of memory. --attention-backend flashinfer SLO’ları karşılamadı (p99_ttft_ms 5700 > 200).',
    );
    const tp = study({ goal: { kind: 'throughput', marginPct: 1 } });
    const refused = planStage(tp, 1, sglangBest(1398), H100).map((t) => ({ ...t, status: 'rejected' as const, rejectReason: 'no room' }));
    expect(worded(decideStage(tp, 1, refused, sglangBest(1398)).decision, refused, 'en', 'throughput')).toBe(
      'Nothing kept. No candidate produced a result that meets the SLOs; the best so far (SGLang 0.5.3.post3) stays. FP8 checkpoint was refused before launch: no room.',
    );
  });

  it('words a skipped stage, the engine stage and the grid', () => {
    const vllm = bestConfigOf({ engine: 'vllm', version: '0.11.0', mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), ['vllm-0.11.0'], 1.68);
    expect(worded(decideStage(s, 0, [], vllm).decision, [], 'tr')).toBe(
      'Hiçbir şey korunmadı. Atlandı: bu aşamanın ayarları şu motorlar için: SGLang; o ana kadarki en iyi yapılandırmanın motoru ise vLLM.',
    );
    const engines = measure(planEngineStage(s, H100), { 'vllm-0.11.0': [1.68], 'sglang-0.5.3.post3': [1.61], 'trtllm-1.2.0rc1': 'RuntimeError: boom' });
    const engine = decideEngineStage(s, engines).decision;
    expect(worded(engine, engines)).toBe(
      'Kept SGLang 0.5.3.post3 (+4.3%). SGLang 0.5.3.post3 is best: 1.61 s/request mean latency. The others: vLLM 0.11.0 1.68. −4.2% mean latency against the baseline vLLM 0.11.0. ' +
        `Against vLLM 0.11.0: ${engine.change ? reportText().change(engine.change) : ''} mean latency (1 run each), better. TensorRT-LLM 1.2.0rc1 failed: RuntimeError: boom.`,
    );
    const g = study({ engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'sglang', version: '0.5.3.post3' }], stages: study().stages.slice(0, 2) });
    const grid = planGrid(g, H100);
    const values: Record<string, number[]> = {};
    grid.forEach((t, i) => (values[t.candidateId] = [2 - i * 0.1]));
    values['sglang-0.5.3.post3~quantization=fp8'] = [1.0];
    const gridTrials = measure(grid, values);
    expect(worded(decideGrid(g, gridTrials).decision, gridTrials)).toBe(
      'Kept SGLang 0.5.3.post3 + FP8 checkpoint (+100.0%). Best of 6 measured configurations (of 6): SGLang 0.5.3.post3 + FP8 checkpoint, 1.00 s/request mean latency. −50.0% mean latency against the baseline vLLM 0.11.0 at its defaults.',
    );
  });
});
