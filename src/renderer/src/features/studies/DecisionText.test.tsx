import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StageDecision } from '../../../../shared/study/study';
import { setLocale } from '../../i18n';
import { makeTrial } from '../../testing/fixtures';
import { DecisionText } from './RecommendationCard';

afterEach(() => {
  cleanup();
  setLocale('en');
});

const STUDY = StudyDefinitionSchema.parse({
  name: 'KV cache',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  goal: { kind: 'latency' },
  engines: [{ engine: 'vllm', version: '0.11.0' }],
  stages: [{ id: 'kv', label: 'KV cache dtype', candidates: [{ id: 'fp8', label: 'FP8 KV cache' }] }],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
});

const PROJECT: ProjectFile = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: STUDY,
  state: { status: 'done', trials: [makeTrial({ id: 'kv/fp8/sharegpt-c4/r1', stageId: 'kv', candidateId: 'fp8', label: 'FP8 KV cache', status: 'done' })], decisions: [] },
};

const decision = (over: Partial<StageDecision> = {}): StageDecision => ({
  stageId: 'kv',
  winner: 'fp8',
  reason: 'FP8 KV cache: −21.2% mean latency, kept',
  before: 1.2,
  after: 0.95,
  decidedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

const KEPT = decision({
  verdict: 'kept',
  compared: 'fp8',
  change: { pct: -21.2, low: -23, high: -19.5, level: 0.95 },
  runs: { candidate: 3, reference: 3 },
  basis: { kind: 'compared', incumbent: 'vLLM 0.11.0', marginPct: 1, value: 0.95 },
});

describe('DecisionText', () => {
  it('states the verdict with the change’s interval, then the decision worded from its facts', () => {
    const { container } = render(<DecisionText project={PROJECT} decision={KEPT} />);
    expect(container.querySelector('strong')?.textContent).toBe('−21.2% [−23.0, −19.5], kept');
    expect(container.textContent).toBe(
      '−21.2% [−23.0, −19.5], kept — Kept FP8 KV cache (+26.3%). FP8 KV cache: −21.2% [−23.0, −19.5] mean latency (1.20 → 0.95 s/request; 3 runs each). Kept.',
    );
  });

  it('speaks the app’s language: the same decision in Turkish, with none of the stored English reason', () => {
    setLocale('tr');
    const { container } = render(<DecisionText project={PROJECT} decision={KEPT} />);
    expect(container.querySelector('strong')?.textContent).toBe('−%21,2 [−23,0; −19,5], korundu');
    expect(container.textContent).toContain('Korunan: FP8 KV cache (+%26,3).');
    expect(container.textContent).not.toContain(KEPT.reason);
    expect(container.textContent).not.toMatch(/\bkept\b|mean latency/);
  });

  it('says how many repeats left a stage inconclusive', () => {
    const { container } = render(<DecisionText project={PROJECT} decision={decision({ winner: null, verdict: 'inconclusive', change: { pct: -0.8, low: -2.1, high: 0.5, level: 0.95 }, runs: { candidate: 4, reference: 2 } })} />);
    expect(container.querySelector('strong')?.textContent).toBe('inconclusive after 4 repeats (−0.8% [−2.1, +0.5])');
  });

  it('quotes the stored reason of a decision recorded before decisions kept their facts, and says so in Turkish', () => {
    const { container } = render(<DecisionText project={PROJECT} decision={decision()} />);
    expect(container.querySelector('strong')).toBeNull();
    expect(container.textContent).toBe('Kept FP8 KV cache (+26.3%). FP8 KV cache: −21.2% mean latency, kept.');
    cleanup();
    setLocale('tr');
    const turkish = render(<DecisionText project={PROJECT} decision={decision()} />);
    expect(turkish.container.textContent).toContain('Kayıtlı gerekçe (eski bir sürüm tarafından yazıldı; o sürüm gerekçeyi yalnızca İngilizce saklıyordu): FP8 KV cache: −21.2% mean latency, kept.');
  });
});
