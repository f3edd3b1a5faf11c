import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { StageDecision } from '../../../../shared/study/study';
import { DecisionText } from './RecommendationCard';

afterEach(cleanup);

const decision = (over: Partial<StageDecision> = {}): StageDecision => ({
  stageId: 'kv',
  winner: 'fp8',
  reason: 'FP8 KV cache: −21.2% mean latency, kept',
  before: 1.2,
  after: 0.95,
  decidedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('DecisionText', () => {
  it('states the verdict in words with the change’s interval before the reason', () => {
    const { container } = render(<DecisionText decision={decision({ verdict: 'kept', compared: 'fp8', change: { pct: -21.2, low: -23, high: -19.5, level: 0.95 }, runs: { candidate: 3, reference: 3 } })} />);
    expect(container.querySelector('strong')?.textContent).toBe('−21.2% [−23.0, −19.5], kept');
    expect(container.textContent).toBe('−21.2% [−23.0, −19.5], kept — FP8 KV cache: −21.2% mean latency, kept');
  });

  it('says how many repeats left a stage inconclusive', () => {
    const { container } = render(<DecisionText decision={decision({ winner: null, verdict: 'inconclusive', change: { pct: -0.8, low: -2.1, high: 0.5, level: 0.95 }, runs: { candidate: 4, reference: 2 } })} />);
    expect(container.querySelector('strong')?.textContent).toBe('inconclusive after 4 repeats (−0.8% [−2.1, +0.5])');
  });

  it('shows the reason alone for a decision recorded without a verdict', () => {
    const { container } = render(<DecisionText decision={decision()} />);
    expect(container.querySelector('strong')).toBeNull();
    expect(container.textContent).toBe('FP8 KV cache: −21.2% mean latency, kept');
  });
});
