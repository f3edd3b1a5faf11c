import { describe, expect, it } from 'vitest';
import { parseWorkload } from '../../bench/workload';
import { describeWorkload } from './model';
import { reportText } from './text';

describe('a workload described in the report', () => {
  const base = { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 200 };
  const say = (w: object, lang: 'en' | 'tr' = 'en') => describeWorkload(parseWorkload({ ...base, ...w }), reportText(lang));

  it('says how the requests arrived, in English', () => {
    expect(say({})).toBe('ShareGPT, 200 prompts, unbounded concurrency');
    expect(say({ requestRate: 8, burstiness: 'inf' })).toBe('ShareGPT, 200 prompts, unbounded concurrency, constant 8 req/s');
    expect(say({ requestRate: 4 })).toBe('ShareGPT, 200 prompts, unbounded concurrency, Poisson arrivals at 4 req/s');
    expect(say({ requestRate: 4, burstiness: 100 })).toBe('ShareGPT, 200 prompts, unbounded concurrency, Gamma arrivals at 4 req/s, burstiness 100 (gaps vary with a CV of 0.10)');
    expect(say({ rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } })).toBe('ShareGPT, 200 prompts, unbounded concurrency, rate ramped linearly from 1 to 16 req/s');
    expect(say({ rampUp: { strategy: 'exponential', startRps: 2, endRps: 32 }, burstiness: 'inf' })).toBe(
      'ShareGPT, 200 prompts, unbounded concurrency, rate ramped exponentially from 2 to 32 req/s, constant gaps',
    );
  });

  it('and in Turkish', () => {
    expect(say({ requestRate: 8, burstiness: 'inf' }, 'tr')).toBe('ShareGPT, 200 prompt, sınırsız eşzamanlılık, sabit hızda saniyede 8 istek');
    expect(say({ rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } }, 'tr')).toBe('ShareGPT, 200 prompt, sınırsız eşzamanlılık, hız saniyede 1 istekten 16 isteğe doğrusal olarak artırıldı');
    expect(say({ requestRate: 4, burstiness: 100 }, 'tr')).toBe(
      'ShareGPT, 200 prompt, sınırsız eşzamanlılık, Gamma gelişli, saniyede 4 istek, ani yoğunluk 100 (aralıkların değişim katsayısı 0,10)',
    );
  });
});
