import { describe, expect, it } from 'vitest';
import { latencyValues, readRequestSamples } from './request-samples';

/** vLLM's detailed arrays for three requests, the second one failed (its output_lens entry 0, its ttft the default 0.0). */
const DETAILED = {
  completed: 2,
  input_lens: [100, 120, 80],
  output_lens: [4, 0, 1],
  ttfts: [0.05, 0.0, 0.07],
  itls: [[0.01, 0.02, 0.03], [], []],
  generated_texts: ['abcd', '', 'e'],
  errors: ['', 'Bad Request', ''],
};

describe('readRequestSamples', () => {
  it('keeps the successful requests, in order', () => {
    expect(readRequestSamples(DETAILED)).toEqual({ inputLens: [100, 80], outputLens: [4, 1], ttfts: [0.05, 0.07], itls: [[0.01, 0.02, 0.03], []] });
  });

  it('gives null without --save-detailed arrays, with arrays of other lengths or kinds, or when they disagree with completed', () => {
    const { ttfts: _, ...noTtfts } = DETAILED;
    expect(readRequestSamples(noTtfts)).toBeNull();
    expect(readRequestSamples({ ...DETAILED, itls: [[0.01]] })).toBeNull();
    expect(readRequestSamples({ ...DETAILED, ttfts: [0.05, 0.0, 'x'] })).toBeNull();
    expect(readRequestSamples({ ...DETAILED, itls: [[0.01, null], [], []] })).toBeNull();
    expect(readRequestSamples({ ...DETAILED, completed: 3 })).toBeNull();
  });
});

describe('latencyValues', () => {
  const samples = readRequestSamples(DETAILED)!;

  it('E2EL is TTFT plus the ITLs; TPOT is (E2EL − TTFT)/(output_len − 1) and absent for one token', () => {
    const [e2el0, e2el1] = latencyValues(samples, 'e2el');
    expect(e2el0![0]).toBeCloseTo(0.05 + 0.06, 12);
    expect(e2el1).toEqual([0.07]);
    const tpot = latencyValues(samples, 'tpot');
    expect(tpot[0]![0]).toBeCloseTo(0.06 / 3, 12);
    expect(tpot[1]).toEqual([]);
  });

  it('TTFT is one value per request and ITL every interval', () => {
    expect(latencyValues(samples, 'ttft')).toEqual([[0.05], [0.07]]);
    expect(latencyValues(samples, 'itl')).toEqual([[0.01, 0.02, 0.03], []]);
  });
});
