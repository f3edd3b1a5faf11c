import { describe, expect, it } from 'vitest';
import type { ReferenceTrial } from '../study';
import { publishedFor, publishedSourceText, unplacedReferences } from './published';

// Hand-made edge case: two references, one placed on a trial's candidate and workload, one on a stage never run.
const ref = (line: number, stageId: string, candidateId: string, workloadId: string): ReferenceTrial => ({
  id: `published-l${line}`,
  kind: 'published',
  source: { file: 'guide.txt', title: 'A guide', line },
  stageId,
  candidateId,
  workloadId,
  label: candidateId,
  status: 'ok',
});

describe('published references beside trials', () => {
  const refs = [ref(114, 'engine', 'vllm-0.11.0', 'sharegpt-100-c4'), ref(445, 'attention-backend', 'flashinfer', 'sharegpt-100-c4')];
  const trial = { stageId: 'engine', candidateId: 'vllm-0.11.0', workloadId: 'sharegpt-100-c4' };

  it('matches on stage, candidate and workload only', () => {
    expect(publishedFor(trial, refs).map((r) => r.id)).toEqual(['published-l114']);
    expect(publishedFor({ ...trial, workloadId: 'sharegpt-100-c1' }, refs)).toEqual([]);
    expect(publishedFor(trial, undefined)).toEqual([]);
  });

  it('lists the ones no trial stands beside, and names their source by file and line', () => {
    expect(unplacedReferences([trial], refs).map((r) => r.id)).toEqual(['published-l445']);
    expect(publishedSourceText(refs[1]!)).toBe('guide.txt:445');
  });
});
