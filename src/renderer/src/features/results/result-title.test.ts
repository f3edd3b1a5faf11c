import { afterEach, describe, expect, it } from 'vitest';
import { parseWorkload } from '../../../../shared/bench/workload';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { measuredTitle } from '../../../../shared/results/measured-title';
import { setLocale } from '../../i18n';
import { resultTitle } from './result-title';

afterEach(() => setLocale('en'));

const workload = parseWorkload({ id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 });

/** A measured run as the library stores it: the title made in English, the facts in its provenance. */
function measured(title = measuredTitle({ workload, engine: 'sglang', version: '0.5.3.post3', model: 'Qwen/Qwen3-8B', host: 'Demo lab' })): ResultEntry {
  return {
    id: 'res-m-00000000',
    kind: 'measured',
    status: 'ok',
    addedAt: '2026-01-01T00:00:00.000Z',
    title,
    result: {
      schemaVersion: 1,
      metrics: { mean_ttft_ms: 80 },
      extra: {},
      provenance: {
        engine: 'sglang',
        engineVersion: '0.5.3.post3',
        model: 'Qwen/Qwen3-8B',
        host: 'Demo lab',
        dataset: { name: 'sharegpt' },
        workload: { numPrompts: 100, requestRate: 'inf', maxConcurrency: 4, sharegptOutputLen: null },
      },
    },
  };
}

describe('resultTitle', () => {
  it('words a measured run’s title from its facts in the app’s language', () => {
    expect(resultTitle(measured())).toBe('ShareGPT, 100 prompts, concurrency 4 · SGLang 0.5.3.post3 · Qwen/Qwen3-8B on Demo lab');
    setLocale('tr');
    expect(resultTitle(measured())).toBe('ShareGPT, 100 prompt, eşzamanlılık 4 · SGLang 0.5.3.post3 · Qwen/Qwen3-8B, Demo lab üzerinde');
  });

  it('leaves a title that is not the one made from the facts as it is (written by hand, or an import’s)', () => {
    setLocale('tr');
    expect(resultTitle(measured('Baseline before the driver update'))).toBe('Baseline before the driver update');
    const imported: ResultEntry = { ...measured('run1.json#1 · Qwen/Qwen3-8B'), kind: 'imported' };
    expect(resultTitle(imported)).toBe('run1.json#1 · Qwen/Qwen3-8B');
  });
});
