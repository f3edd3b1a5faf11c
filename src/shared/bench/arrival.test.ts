import { describe, expect, it } from 'vitest';
import { arrivalFields, arrivalOf, gapCv, rampRateAt, sendSeconds, withArrival, type Arrival } from './arrival';
import { arrivalRefusal } from './arrival-support';

describe('arrivals', () => {
  it('reads each kind from the stored client fields and writes it back the same', () => {
    const cases: [object, Arrival][] = [
      [{}, { kind: 'burst' }],
      [{ requestRate: 4 }, { kind: 'poisson', rate: 4 }],
      [{ requestRate: 4, burstiness: 0.5 }, { kind: 'gamma', rate: 4, burstiness: 0.5 }],
      [{ requestRate: 8, burstiness: 'inf' }, { kind: 'constant', rate: 8 }],
      [{ rampUp: { strategy: 'exponential', startRps: 1, endRps: 16 } }, { kind: 'ramp', strategy: 'exponential', startRps: 1, endRps: 16 }],
      [{ rampUp: { strategy: 'linear', startRps: 2, endRps: 6 }, burstiness: 'inf' }, { kind: 'ramp', strategy: 'linear', startRps: 2, endRps: 6, burstiness: 'inf' }],
    ];
    for (const [fields, arrival] of cases) {
      expect(arrivalOf(fields)).toEqual(arrival);
      expect(arrivalFields(arrival)).toEqual(fields);
    }
    // Burstiness 1 is the client's default Poisson; a burstiness without a rate is ignored by the client.
    expect(arrivalOf({ requestRate: 4, burstiness: 1 })).toEqual({ kind: 'poisson', rate: 4 });
    expect(arrivalOf({ burstiness: 3 })).toEqual({ kind: 'burst' });
    expect(withArrival({ id: 'w', requestRate: 4, burstiness: 2 }, { kind: 'ramp', strategy: 'linear', startRps: 1, endRps: 4 })).toEqual({
      id: 'w',
      rampUp: { strategy: 'linear', startRps: 1, endRps: 4 },
    });
  });

  it('gives Gamma(B) gaps a CV of 1/√B: a high burstiness is near, never at, a constant rate', () => {
    expect(gapCv(1)).toBe(1);
    expect(gapCv(4)).toBe(0.5);
    expect(gapCv(100)).toBeCloseTo(0.1, 12);
    expect(gapCv(1000)).toBeCloseTo(0.0316, 4);
    expect(gapCv('inf')).toBe(0);
  });

  it('ramps as _get_current_request_rate does: start at the first request, end at the last', () => {
    const linear = { strategy: 'linear', startRps: 1, endRps: 16 } as const;
    const exponential = { strategy: 'exponential', startRps: 1, endRps: 16 } as const;
    expect([0, 50, 100].map((i) => rampRateAt(linear, i, 101))).toEqual([1, 8.5, 16]);
    expect([0, 50, 100].map((i) => rampRateAt(exponential, i, 101))).toEqual([1, 4, 16]);
    expect(rampRateAt(linear, 0, 1)).toBe(1);
  });

  it('expects a paced run to send for N/R seconds and a ramp for the sum of its mean gaps', () => {
    expect(sendSeconds({ numPrompts: 200, requestRate: 8 })).toBe(25);
    expect(sendSeconds({ numPrompts: 200, requestRate: 8, burstiness: 'inf' })).toBe(25);
    expect(sendSeconds({ numPrompts: 200 })).toBe(0);
    // A flat ramp at 4 req/s is 200 gaps of 0.25 s.
    expect(sendSeconds({ numPrompts: 200, rampUp: { strategy: 'linear', startRps: 4, endRps: 4 } })).toBeCloseTo(50, 9);
    // Linear 1 → 16 over N requests: ≈ N/15 · ln 16 s, far less than N at 1 req/s.
    expect(sendSeconds({ numPrompts: 1000, rampUp: { strategy: 'linear', startRps: 1, endRps: 16 } })).toBeCloseTo((1000 / 15) * Math.log(16), -1);
  });

  it('refuses only what the client version cannot do', () => {
    expect(arrivalRefusal({ requestRate: 8, burstiness: 'inf' }, '0.11.1')).toBeUndefined();
    expect(arrivalRefusal({ requestRate: 8, burstiness: 'inf' }, '0.11.0')).toMatch(/0\.11\.0 sends every request at once/);
    expect(arrivalRefusal({ rampUp: { strategy: 'linear', startRps: 1, endRps: 4 }, burstiness: 'inf' }, '0.11.0')).toMatch(/constant rate/);
    expect(arrivalRefusal({ rampUp: { strategy: 'linear', startRps: 1, endRps: 4 } }, '0.11.0')).toBeUndefined();
    expect(arrivalRefusal({ rampUp: { strategy: 'linear', startRps: 1, endRps: 4 } }, '0.10.2')).toMatch(/needs benchmark client 0\.11\.0 or later/);
    expect(arrivalRefusal({ requestRate: 8, burstiness: 100 }, '0.11.0')).toBeUndefined();
  });
});
