import { act, cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StageDecision } from '../../../../shared/study/study';
import { renderWithStore } from '../../testing/render';
import { makeTrial } from '../../testing/fixtures';
import { DecisionText } from './RecommendationCard';

afterEach(cleanup);

const PROJECT: ProjectFile = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: StudyDefinitionSchema.parse({
    name: 'KV cache',
    model: { id: 'Qwen/Qwen3-8B', precision: 'bf16' },
    hosts: [{ hostId: 'demo-lab' }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'sglang', version: '0.5.3.post3' }],
    stages: [{ id: 'kv', label: 'KV cache', candidates: [{ id: 'fp8', label: 'FP8 KV cache' }] }],
    workloads: { primary: { id: 'sharegpt-c4', label: 'ShareGPT c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
  }),
  state: { status: 'running', trials: [makeTrial({ id: 'kv/fp8', stageId: 'kv', candidateId: 'fp8', label: 'FP8 KV cache', status: 'done' })], decisions: [] },
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

// The facts a kept comparison stores (an edge case written out: the study loop's own are covered in decide.test.ts).
const kept = decision({
  verdict: 'kept',
  compared: 'fp8',
  change: { pct: -21.2, low: -23, high: -19.5, level: 0.95 },
  runs: { candidate: 3, reference: 3 },
  basis: { kind: 'compared', incumbent: 'SGLang 0.5.3.post3', marginPct: 3, value: 0.95 },
});

describe('DecisionText', () => {
  it('states the verdict with the change’s interval, then the decision worded from its facts, in the UI’s language', () => {
    const { container, store } = renderWithStore(<DecisionText decision={kept} project={PROJECT} />);
    expect(container.querySelector('strong')?.textContent).toBe('−21.2% [−23.0, −19.5], kept');
    expect(container.textContent).toBe(
      '−21.2% [−23.0, −19.5], kept — Kept FP8 KV cache (gain +26.3%). FP8 KV cache: −21.2% [−23.0, −19.5] mean latency (1.20 → 0.95 s/request; 3 runs each). Kept.',
    );
    act(() => store.getState().setLocale('tr'));
    expect(container.querySelector('strong')?.textContent).toBe('−\u2060%21,2 [−23,0; −19,5], korundu');
    expect(container.textContent).toContain('Korunan: FP8 KV cache (kazanç: +\u2060%26,3). FP8 KV cache: ortalama gecikme değişimi −\u2060%21,2');
    expect(container.textContent).not.toContain('kept');
  });

  it('says how many runs left a stage inconclusive', () => {
    const { container } = renderWithStore(
      <DecisionText decision={decision({ winner: null, verdict: 'inconclusive', change: { pct: -0.8, low: -2.1, high: 0.5, level: 0.95 }, runs: { candidate: 4, reference: 2 } })} project={PROJECT} />,
    );
    expect(container.querySelector('strong')?.textContent).toBe('inconclusive after 4 runs (−0.8% [−2.1, +0.5])');
  });

  it('shows the recorded reason for a decision stored without its facts', () => {
    const { container } = renderWithStore(<DecisionText decision={decision()} project={PROJECT} />);
    expect(container.querySelector('strong')).toBeNull();
    expect(container.textContent).toBe('Kept FP8 KV cache (gain +26.3%). FP8 KV cache: −21.2% mean latency, kept.');
  });

  it('names the candidate by the study’s own translation in the UI’s language, and as written in English', () => {
    const translated: ProjectFile = { ...PROJECT, study: { ...PROJECT.study, translations: { tr: { candidates: { 'kv/fp8': 'FP8 KV önbelleği' } } } } };
    const { container, store } = renderWithStore(<DecisionText decision={kept} project={translated} />);
    expect(container.textContent).toContain('Kept FP8 KV cache (gain +26.3%).');
    act(() => store.getState().setLocale('tr'));
    expect(container.textContent).toContain('Korunan: FP8 KV önbelleği (kazanç: +\u2060%26,3). FP8 KV önbelleği: ortalama gecikme değişimi');
    expect(container.textContent).not.toContain('FP8 KV cache');
  });
});
