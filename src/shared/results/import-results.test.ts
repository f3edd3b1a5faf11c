import { describe, expect, it } from 'vitest';
import { importResults } from './import-results';

/** A --save-detailed run of three requests (the client's statistics left out: only what the intervals need). */
const run = (ttfts: number[], extra: Record<string, unknown> = {}) => ({
  model_id: 'm',
  completed: ttfts.length,
  duration: 1,
  mean_ttft_ms: (ttfts.reduce((a, b) => a + b, 0) / ttfts.length) * 1000,
  input_lens: ttfts.map(() => 10),
  output_lens: ttfts.map(() => 2),
  ttfts,
  itls: ttfts.map(() => [0.01]),
  generated_texts: ttfts.map(() => 'ab'),
  errors: ttfts.map(() => ''),
  ...extra,
});

describe('importResults with per-request arrays', () => {
  it('gives each run of a JSON Lines file its own intervals and keeps no arrays', () => {
    const text = [run([0.1, 0.2, 0.3]), run([0.5, 0.9, 0.7, 0.6])].map((r) => JSON.stringify(r)).join('\n');
    const { records, errors } = importResults(text, 'runs.jsonl');
    expect(errors).toEqual([]);
    expect(records.map((r) => r.intervals?.requests)).toEqual([3, 4]);
    const [a, b] = records.map((r) => r.intervals!.values.mean_ttft_ms!);
    expect(a!.high).toBeLessThan(b!.low);
    expect(JSON.stringify(records)).not.toContain('"itls"');
  });

  it('gives none when the arrays do not match the run’s completed count', () => {
    const { records } = importResults(JSON.stringify(run([0.1, 0.2], { completed: 5 })), 'r.json');
    expect(records[0]!.intervals).toBeUndefined();
  });
});
