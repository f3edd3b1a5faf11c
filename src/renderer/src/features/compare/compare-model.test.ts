import { describe, expect, it } from 'vitest';
import type { Trial } from '../../../../shared/study/study';
import {
  COMPARE_METRICS,
  compareTrials,
  concurrencyCurves,
  configDiff,
  configPoints,
  entryColumn,
  groupTrialsByStage,
  metricInfo,
  paretoFront,
  percentileSpread,
  trialColumn,
  verdictOf,
  withPublished,
  type CompareColumn,
} from './compare-model';
import { makeTrial } from '../../testing/fixtures';

const column = (id: string, metrics: CompareColumn['metrics'], config?: CompareColumn['config']): CompareColumn => ({ id, label: id.toUpperCase(), metrics, ...(config ? { config } : {}) });

const trial = (over: Partial<Trial> & Pick<Trial, 'id'>): Trial => makeTrial({ candidateId: 'c', ...over });

function withMetrics(metrics: Record<string, number>) {
  return {
    id: 'res-a-00000000',
    kind: 'measured' as const,
    status: 'ok' as const,
    addedAt: '2026-01-01T00:00:00.000Z',
    title: 't',
    result: { schemaVersion: 1 as const, metrics, extra: {} },
  };
}

describe('metric catalogue', () => {
  it('says latencies are better lower and throughputs better higher, with units', () => {
    expect(metricInfo('mean_ttft_ms')).toEqual({ key: 'mean_ttft_ms', title: 'Mean TTFT', unit: 'ms', better: 'lower' });
    expect(metricInfo('p99_e2el_ms')?.better).toBe('lower');
    expect(metricInfo('total_token_throughput')).toMatchObject({ unit: 'tok/s', better: 'higher' });
    expect(metricInfo('request_throughput')).toMatchObject({ unit: 'req/s', better: 'higher' });
    expect(metricInfo('mean_latency_s')).toMatchObject({ unit: 's', better: 'lower' });
    expect(metricInfo('p99.9_itl_ms')).toEqual({ key: 'p99.9_itl_ms', title: 'P99.9 ITL', unit: 'ms', better: 'lower' });
    expect(metricInfo('completed')).toBeUndefined();
    for (const key of ['mean', 'median', 'p50', 'p90', 'p99'].flatMap((s) => ['ttft', 'tpot', 'itl', 'e2el'].map((m) => `${s}_${m}_ms`))) {
      expect(COMPARE_METRICS.some((m) => m.key === key), key).toBe(true);
    }
  });
});

describe('compareTrials', () => {
  const a = column('a', { mean_ttft_ms: 100, total_token_throughput: 1000 });
  const b = column('b', { mean_ttft_ms: 80, total_token_throughput: 900 });
  const c = column('c', { mean_ttft_ms: 100.4, total_token_throughput: 1010 });

  it('gives each column its delta and delta % against the baseline and judges it by the metric direction', () => {
    const rows = compareTrials([a, b, c], 'a');
    expect(rows.map((r) => r.metric.key)).toEqual(['total_token_throughput', 'mean_ttft_ms']);
    const ttft = rows.find((r) => r.metric.key === 'mean_ttft_ms')!;
    expect(ttft.baseline).toBe(100);
    expect(ttft.cells[0]).toEqual({ columnId: 'a', value: 100, delta: 0, deltaPct: 0, verdict: null });
    expect(ttft.cells[1]).toMatchObject({ columnId: 'b', value: 80, delta: -20, verdict: 'better' });
    expect(ttft.cells[1]!.deltaPct).toBeCloseTo(-20);
    // 0.4 % slower: within the threshold
    expect(ttft.cells[2]!.verdict).toBe('same');

    const throughput = rows.find((r) => r.metric.key === 'total_token_throughput')!;
    // less throughput is worse, more is better (1 % above the threshold)
    expect(throughput.cells[1]).toMatchObject({ delta: -100, verdict: 'worse' });
    expect(throughput.cells[1]!.deltaPct).toBeCloseTo(-10);
    expect(throughput.cells[2]).toMatchObject({ delta: 10, verdict: 'better' });
  });

  it('measures against another baseline when asked, and falls back to the first column for an unknown id', () => {
    const ttft = compareTrials([a, b], 'b').find((r) => r.metric.key === 'mean_ttft_ms')!;
    expect(ttft.cells[0]).toMatchObject({ delta: 20, verdict: 'worse' });
    expect(ttft.cells[0]!.deltaPct).toBeCloseTo(25);
    expect(ttft.cells[1]!.verdict).toBeNull();
    expect(compareTrials([a, b], 'nope')[0]!.baseline).toBe(1000);
  });

  it('treats exactly 0.5 % as the same and just above it as a change', () => {
    expect(verdictOf(0.5, 0.5, 'lower')).toBe('same');
    expect(verdictOf(-0.5, -0.5, 'higher')).toBe('same');
    expect(verdictOf(0.51, 0.51, 'lower')).toBe('worse');
    expect(verdictOf(0.51, 0.51, 'higher')).toBe('better');
    const rows = compareTrials([column('x', { mean_tpot_ms: 10 }), column('y', { mean_tpot_ms: 10.05 })], 'x');
    expect(rows[0]!.cells[1]!.verdict).toBe('same');
  });

  it('leaves missing numbers without a delta and a zero baseline without a percentage', () => {
    const rows = compareTrials([column('x', { mean_tpot_ms: 0, mean_itl_ms: null }), column('y', { mean_tpot_ms: 2 }), column('z', {})], 'x');
    const tpot = rows.find((r) => r.metric.key === 'mean_tpot_ms')!;
    expect(tpot.cells[1]).toMatchObject({ delta: 2, deltaPct: null, verdict: 'worse' });
    expect(tpot.cells[2]).toMatchObject({ value: null, delta: null, verdict: null });
    expect(rows.some((r) => r.metric.key === 'mean_itl_ms')).toBe(false);
  });

  it('adds uncatalogued percentiles the columns carry', () => {
    const rows = compareTrials([column('x', { 'p99.9_itl_ms': 50 }), column('y', { 'p99.9_itl_ms': 40 })], 'x');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ metric: { title: 'P99.9 ITL' }, cells: [{ verdict: null }, { delta: -10, verdict: 'better' }] });
  });

  it('compares speculative acceptance when the columns carry it (better higher), but not draft counts or the peak throughput', () => {
    // Edge case, hand-written numbers: only the direction of the comparison is under test.
    const rows = compareTrials(
      [column('x', { spec_decode_acceptance_length: 2.86, spec_decode_num_drafts: 4316, max_output_tokens_per_s: 540 }), column('y', { spec_decode_acceptance_length: 3.1, spec_decode_num_drafts: 4000, max_output_tokens_per_s: 572 })],
      'x',
    );
    expect(rows.map((r) => r.metric.key)).toEqual(['spec_decode_acceptance_length']);
    expect(rows[0]?.cells[1]).toMatchObject({ verdict: 'better' });
  });
});

describe('configDiff', () => {
  it('lists only the settings that differ, flattened to dotted keys', () => {
    const rows = configDiff([
      column('a', {}, { model: 'm', kvCacheDtype: 'fp8', speculative: { algorithm: 'eagle3', numSteps: 3 }, extraArgs: [], env: {}, port: 8000 }),
      column('b', {}, { model: 'm', kvCacheDtype: 'fp8', speculative: { algorithm: 'eagle3', numSteps: 5 }, extraArgs: ['--enable-x', '1'], env: {}, port: 8001 }),
      column('c', {}, { model: 'm', kvCacheDtype: 'auto', extraArgs: [], env: {} }),
    ]);
    expect(rows).toEqual([
      { key: 'extraArgs', values: [null, '--enable-x 1', null] },
      { key: 'kvCacheDtype', values: ['fp8', 'fp8', 'auto'] },
      { key: 'speculative.algorithm', values: ['eagle3', 'eagle3', null] },
      { key: 'speculative.numSteps', values: ['3', '5', null] },
    ]);
  });

  it('shows environment variables by name only, never their values', () => {
    const rows = configDiff([
      column('a', {}, { env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER', HF_TOKEN: { secretRef: 'hf' }, SAME: '1' } }),
      column('b', {}, { env: { VLLM_ATTENTION_BACKEND: 'XFORMERS', SAME: '1' } }),
    ]);
    expect(rows).toEqual([
      { key: 'env.HF_TOKEN', values: ['set', null] },
      { key: 'env.VLLM_ATTENTION_BACKEND', values: ['set (value 1)', 'set (value 2)'] },
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/FLASHINFER|XFORMERS|secretRef|"hf"/);
  });

  it('is empty when the configs agree or there are none', () => {
    expect(configDiff([column('a', {}, { model: 'm' }), column('b', {}, { model: 'm' })])).toEqual([]);
    expect(configDiff([column('a', {}), column('b', {})])).toEqual([]);
  });
});

describe('paretoFront', () => {
  it('keeps the points nothing beats on both throughput and latency, by rising throughput', () => {
    const points = [
      { id: 'slow-low', x: 100, y: 10 },
      { id: 'dominated', x: 150, y: 30 },
      { id: 'mid', x: 200, y: 20 },
      { id: 'fast', x: 400, y: 50 },
      { id: 'same-x-worse', x: 400, y: 60 },
      { id: 'same-y-less-x', x: 90, y: 10 },
    ];
    expect(paretoFront(points).map((p) => p.id)).toEqual(['slow-low', 'mid', 'fast']);
  });

  it('keeps identical points together and handles the trivial cases', () => {
    expect(paretoFront([{ id: 'a', x: 1, y: 1 }, { id: 'b', x: 1, y: 1 }]).map((p) => p.id).sort()).toEqual(['a', 'b']);
    expect(paretoFront([])).toEqual([]);
    expect(paretoFront([{ id: 'nan', x: Number.NaN, y: 1 }])).toEqual([]);
  });
});

describe('groupTrialsByStage', () => {
  it('orders stages as the study does: engine, the defined stages, leftovers, then generalisation', () => {
    const trials = [
      trial({ id: 'g1', stageId: 'generalisation' }),
      trial({ id: 'k1', stageId: 'kv-cache' }),
      trial({ id: 'e1', stageId: 'engine' }),
      trial({ id: 'old', stageId: 'removed-stage' }),
      trial({ id: 'q1', stageId: 'quant' }),
      trial({ id: 'e2', stageId: 'engine' }),
    ];
    const groups = groupTrialsByStage(trials, [
      { id: 'quant', label: 'Quantization' },
      { id: 'kv-cache', label: 'KV cache' },
      { id: 'unused', label: 'No trials' },
    ]);
    expect(groups.map((g) => [g.stageId, g.label, g.trials.map((t) => t.id)])).toEqual([
      ['engine', 'engine', ['e1', 'e2']],
      ['quant', 'Quantization', ['q1']],
      ['kv-cache', 'KV cache', ['k1']],
      ['removed-stage', 'removed-stage', ['old']],
      ['generalisation', 'generalisation', ['g1']],
    ]);
  });
});

describe('columns, curves and spreads', () => {
  it('turns trials and library entries into columns', () => {
    const t = trial({ id: 'quant/fp8/sharegpt-c4/r2', label: 'FP8', repeat: 2, result: withMetrics({ mean_ttft_ms: 5 }) });
    expect(trialColumn(t)).toMatchObject({ id: t.id, label: 'FP8 · sharegpt-c4 · r2', metrics: { mean_ttft_ms: 5 }, config: { engine: 'vllm', model: 'Qwen/Qwen3-8B' } });
    const entry = { ...withMetrics({ mean_ttft_ms: 7 }), result: { ...withMetrics({ mean_ttft_ms: 7 }).result, provenance: { engine: 'sglang' as const, serverEnvNames: ['HF_TOKEN'] } } };
    const col = entryColumn(entry);
    expect(col).toMatchObject({ id: entry.id, label: 't', metrics: { mean_ttft_ms: 7 }, config: { engine: 'sglang', env: { HF_TOKEN: '' } } });
  });

  it('draws a latency–throughput curve per configuration across the generalisation concurrencies, repeats averaged', () => {
    const g = (id: string, serverKey: string, workloadId: string, tput: number, ttft: number, status: Trial['status'] = 'done') =>
      trial({ id, serverKey, label: serverKey, stageId: 'generalisation', workloadId, status, result: withMetrics({ total_token_throughput: tput, mean_ttft_ms: ttft }) });
    const trials = [
      g('b4a', 'base', 'sharegpt-c4', 300, 30),
      g('b1', 'base', 'sharegpt-c1', 100, 10),
      g('b4b', 'base', 'sharegpt-c4', 340, 34),
      g('bu', 'base', 'sharegpt-1000-unbounded', 900, 90),
      g('r1', 'rec', 'sharegpt-c1', 120, 8),
      g('r2', 'rec', 'sharegpt-c2', 0, 0, 'failed'),
      trial({ id: 'eng', serverKey: 'base', workloadId: 'sharegpt-c2', result: withMetrics({ total_token_throughput: 1, mean_ttft_ms: 1 }) }),
    ];
    const curves = concurrencyCurves(trials, [{ id: 'sharegpt-1000-unbounded' }], 'mean_ttft_ms');
    // `rec` has one concurrency only: no curve; c4's two repeats give the t interval of their mean (32 ± 12.71 × 2)
    expect(curves).toEqual([
      {
        serverKey: 'base',
        label: 'base',
        points: [
          { workloadId: 'sharegpt-c1', concurrency: 1, throughput: 100, latency: 10, runs: 1 },
          { workloadId: 'sharegpt-c4', concurrency: 4, throughput: 320, latency: 32, latencyLow: expect.closeTo(6.588, 3), latencyHigh: expect.closeTo(57.412, 3), runs: 2 },
        ],
      },
    ]);
  });

  it('gives one point per configuration on a workload, and P50 falls back to the median', () => {
    const trials = [
      trial({ id: 'a1', serverKey: 'a', result: withMetrics({ total_token_throughput: 100, mean_tpot_ms: 4 }) }),
      trial({ id: 'a2', serverKey: 'a', repeat: 2, result: withMetrics({ total_token_throughput: 200, mean_tpot_ms: 6 }) }),
      trial({ id: 'b1', serverKey: 'b', workloadId: 'other', result: withMetrics({ total_token_throughput: 1, mean_tpot_ms: 1 }) }),
    ];
    // two repeats: the latency's interval between them (5 ± 12.71 × 1)
    expect(configPoints(trials, 'sharegpt-c4', 'mean_tpot_ms')).toEqual([{ id: 'a', label: 'a1', x: 150, y: 5, latencyLow: expect.closeTo(-7.706, 3), latencyHigh: expect.closeTo(17.706, 3), runs: 2 }]);
    const spread = percentileSpread([column('x', { median_ttft_ms: 5, p90_ttft_ms: 8, p99_ttft_ms: 9 }), column('y', { p50_ttft_ms: 4, median_ttft_ms: 5 })], 'ttft');
    expect(spread).toEqual([
      { columnId: 'x', label: 'X', p50: 5, p90: 8, p99: 9 },
      { columnId: 'y', label: 'Y', p50: 4, p90: null, p99: null },
    ]);
  });
});

describe('published results beside trials', () => {
  // Hand-made edge case: two trials, a reference for the first one's candidate and workload, one for another workload.
  const reference = (id: string, workloadId: string) => ({
    id,
    kind: 'published' as const,
    source: { file: 'guide.txt', title: 'A guide', line: 114 },
    stageId: 'engine',
    candidateId: 'c',
    workloadId,
    label: 'vLLM',
    status: 'ok' as const,
    result: { schemaVersion: 1 as const, metrics: { total_token_throughput: 1020.76 }, extra: {} },
  });

  it('puts each trial’s published result right after it, once, labelled with its source', () => {
    const a = trial({ id: 'a', stageId: 'engine', workloadId: 'w1' });
    const b = trial({ id: 'b', stageId: 'engine', workloadId: 'w2' });
    const columns = withPublished([trialColumn(a), trialColumn(b)], [a, b], [reference('p1', 'w1'), reference('p2', 'w3')]);
    expect(columns.map((c) => [c.id, c.published?.line ?? null])).toEqual([
      ['a', null],
      ['p1', 114],
      ['b', null],
    ]);
    expect(columns[1]?.metrics.total_token_throughput).toBe(1020.76);
  });

  it('never measures against a published column, even when it comes first', () => {
    const rows = compareTrials([{ ...column('p', { total_token_throughput: 1000 }), published: { file: 'g', title: 't', line: 1 } }, column('m', { total_token_throughput: 900 })], 'p');
    expect(rows[0]?.baseline).toBe(900);
    expect(rows[0]?.cells.map((c) => c.verdict)).toEqual(['better', null]);
  });
});
