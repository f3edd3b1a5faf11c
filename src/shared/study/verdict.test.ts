import { describe, expect, it } from 'vitest';
import { compareRuns, formatChange, gainOf, pooledRunNoise, scenarioVerdict, stageOutcome, type Change } from './verdict';
import { BASE_RUN_CV_PCT, defaultMarginPct, priorRunCvPct } from './noise';

const noRepeats = { ss: 0, df: 0 };
const opts = (noise = noRepeats, priorCvPct = BASE_RUN_CV_PCT) => ({ priorCvPct, noise, level: 0.95 });
const change = (pct: number, low: number, high: number): Change => ({ pct, low, high, level: 0.95 });

describe('compareRuns', () => {
  it('states the change as a ratio of the runs, with an interval around it', () => {
    const c = compareRuns([1.25], [1.6], opts()) as Change;
    expect(c.pct).toBeCloseTo(-21.875, 6);
    expect(c.low).toBeLessThan(c.pct);
    expect(c.high).toBeGreaterThan(c.pct);
  });

  it('narrows with more runs and widens with more measured noise', () => {
    const one = compareRuns([1.25], [1.6], opts()) as Change;
    const four = compareRuns([1.25, 1.25, 1.25, 1.25], [1.6, 1.6, 1.6, 1.6], opts()) as Change;
    expect(four.high - four.low).toBeLessThan((one.high - one.low) * 0.6);
    const noisy = pooledRunNoise([[1, 1.1, 0.9], [2, 2.2, 1.8]]);
    expect(noisy.df).toBe(4);
    const wide = compareRuns([1.25], [1.6], opts(noisy)) as Change;
    expect(wide.high - wide.low).toBeGreaterThan(one.high - one.low);
  });

  it('has no answer without a positive run on either side', () => {
    expect(compareRuns([], [1], opts())).toBeNull();
    expect(compareRuns([1], [0], opts())).toBeNull();
  });
});

describe('verdicts', () => {
  it('turns a latency change into a gain in the objective direction', () => {
    expect(gainOf(change(-20, -22, -18), 'lower')).toEqual(change(20, 18, 22));
    expect(gainOf(change(5, 4, 6), 'higher')).toEqual(change(5, 4, 6));
  });

  it('keeps only what clears the margin and asks for runs while it could', () => {
    expect(stageOutcome(change(21, 19.5, 23), 3, true)).toBe('kept');
    expect(stageOutcome(change(0.3, -1.1, 1.6), 3, true)).toBe('no-difference');
    expect(stageOutcome(change(-8, -10, -6), 3, true)).toBe('worse');
    expect(stageOutcome(change(-2, -5, 2), 3, true)).toBe('no-gain');
    expect(stageOutcome(change(4, 1, 7), 3, true)).toBe('undecided');
    expect(stageOutcome(change(4, 1, 7), 3, false)).toBe('inconclusive');
  });

  it('names a scenario worse, possibly worse or no different', () => {
    expect(scenarioVerdict(change(-13.8, -15, -12.5), 1)).toBe('worse');
    expect(scenarioVerdict(change(-1.5, -3, 0.2), 1)).toBe('possibly-worse');
    expect(scenarioVerdict(change(0.2, -0.5, 0.8), 1)).toBe('no-difference');
    expect(scenarioVerdict(change(30, 28, 32), 1)).toBe('better');
  });

  it('writes a change the way the report does', () => {
    expect(formatChange(change(-21.2, -23.04, -19.5))).toBe('−21.2% [−23.0, −19.5]');
    expect(formatChange(change(0.3, -1.1, 1.6))).toBe('+0.3% [−1.1, +1.6]');
  });
});

describe('noise defaults', () => {
  it('assumes vLLM speculative decoding at low concurrency is far noisier than the floor', () => {
    const spec = { engine: 'vllm' as const, config: { model: 'm', speculative: { method: 'eagle3' } } } as never;
    expect(priorRunCvPct(spec, 2)).toBe(19.65);
    expect(priorRunCvPct(spec, 16)).toBe(BASE_RUN_CV_PCT);
    expect(priorRunCvPct({ engine: 'sglang', config: { model: 'm' } } as never, 2)).toBe(BASE_RUN_CV_PCT);
  });

  it('derives the default margin from the noise one run each can resolve', () => {
    expect(defaultMarginPct(0.64)).toBe(2);
    expect(defaultMarginPct(0.2)).toBe(1);
    expect(defaultMarginPct(2)).toBe(6);
  });
});
