import { z } from 'zod';

/**
 * How `vllm bench serve` spaces its requests in time, and what a workload may ask of it. Everything here is read from
 * vllm/benchmarks/serve.py at the tags the vllm-bench flag table covers (v0.11.0 … v0.17.1; `get_request` and
 * `_get_current_request_rate` are the same from v0.11.1 on, v0.11.0 lacks only the `inf` case):
 *
 * - `--request-rate R` (default inf: every request at time 0) with `--burstiness B` (default 1): before sending,
 *   the client draws one gap per request, `np.random.gamma(shape=B, scale=1/(R·B))` — mean 1/R, coefficient of
 *   variation 1/√B; B = 1 is a Poisson process. The gaps are summed (the first request waits its gap too) and,
 *   without a ramp, the sums are rescaled so the last request goes at exactly N/R s ("to close the gap …
 *   for stabilizing the throughput data"). Requests are then sent at those times; `--max-concurrency` only makes
 *   a sent request wait for a slot.
 * - `--burstiness inf` (v0.11.1 on, commit a4398fbb "Support `inf` burstiness"): every gap is exactly 1/R, a truly
 *   constant rate. v0.11.0 parses `inf` but draws `np.random.gamma(inf, 0.0)` = NaN, so every delay is NaN, no
 *   request ever sleeps, and all are sent at once: a constant rate is refused below v0.11.1.
 * - `--ramp-up-strategy linear|exponential --ramp-up-start-rps S --ramp-up-end-rps E` (ints; in every tabled
 *   version, added in v0.9.2): request i of N draws its gap at rate S + (E−S)·p (linear) or S·(E/S)^p
 *   (exponential), p = i / max(N−1, 1), with the same burstiness; ramped gaps are not rescaled. main_async refuses
 *   a ramp together with --request-rate, start > end, a negative rate and exponential from 0; a linear ramp from 0
 *   divides by zero (v0.11.0) or fails `assert current_request_rate > 0.0` (v0.11.1 on), so S ≥ 1 here.
 */

export const RAMP_STRATEGIES = ['linear', 'exponential'] as const;
export type RampStrategy = (typeof RAMP_STRATEGIES)[number];

/** The first `vllm bench serve` whose `--burstiness inf` sends at a constant rate (serve.py@v0.11.1 get_request). */
export const CONSTANT_RATE_SINCE = '0.11.1';

/** `--burstiness`: a Gamma shape, or `inf` for constant gaps. */
export const BurstinessSchema = z.union([z.number().gt(0, 'must be above 0').max(1000, 'must be at most 1000'), z.literal('inf')], {
  error: 'must be a number above 0 or "inf"',
});
export type Burstiness = z.infer<typeof BurstinessSchema>;

const rps = z.number().int('must be a whole number (the client reads it with int())').min(1, 'must be at least 1').max(100_000, 'must be at most 100000');

export const RampUpSchema = z
  .object({
    strategy: z.enum(RAMP_STRATEGIES, { error: `must be one of ${RAMP_STRATEGIES.join(', ')}` }),
    startRps: rps,
    endRps: rps,
  })
  .strict()
  .refine((r) => r.endRps >= r.startRps, { path: ['endRps'], message: 'must be at least the start rate (the client refuses a ramp down)' });
export type RampUp = z.infer<typeof RampUpSchema>;

/** A workload's arrivals as one value: what the wizard edits and the reports say. Stored as the client's own fields. */
export type Arrival =
  | { kind: 'burst' }
  | { kind: 'poisson'; rate: number }
  | { kind: 'gamma'; rate: number; burstiness: number }
  | { kind: 'constant'; rate: number }
  | { kind: 'ramp'; strategy: RampStrategy; startRps: number; endRps: number; burstiness?: Burstiness };
export type ArrivalKind = Arrival['kind'];
export const ARRIVAL_KINDS: readonly ArrivalKind[] = ['burst', 'poisson', 'gamma', 'constant', 'ramp'];

/** The stored fields of a workload that say how its requests arrive. */
export interface ArrivalFields {
  requestRate?: number;
  burstiness?: Burstiness;
  rampUp?: RampUp;
}

/** What the client does with these fields (a burstiness without a rate or ramp is ignored by the client: a burst). */
export function arrivalOf(w: ArrivalFields): Arrival {
  if (w.rampUp) return { kind: 'ramp', ...w.rampUp, ...(w.burstiness !== undefined && w.burstiness !== 1 ? { burstiness: w.burstiness } : {}) };
  if (w.requestRate === undefined) return { kind: 'burst' };
  if (w.burstiness === 'inf') return { kind: 'constant', rate: w.requestRate };
  if (w.burstiness === undefined || w.burstiness === 1) return { kind: 'poisson', rate: w.requestRate };
  return { kind: 'gamma', rate: w.requestRate, burstiness: w.burstiness };
}

/** The stored fields for an arrival; every other arrival field is absent. */
export function arrivalFields(a: Arrival): ArrivalFields {
  switch (a.kind) {
    case 'burst':
      return {};
    case 'poisson':
      return { requestRate: a.rate };
    case 'gamma':
      return { requestRate: a.rate, burstiness: a.burstiness };
    case 'constant':
      return { requestRate: a.rate, burstiness: 'inf' };
    case 'ramp':
      return { rampUp: { strategy: a.strategy, startRps: a.startRps, endRps: a.endRps }, ...(a.burstiness !== undefined ? { burstiness: a.burstiness } : {}) };
  }
}

/** The workload with its arrival replaced. */
export function withArrival<W extends ArrivalFields>(w: W, a: Arrival): W {
  const { requestRate: _r, burstiness: _b, rampUp: _u, ...rest } = w;
  return { ...rest, ...arrivalFields(a) } as W;
}

/** Coefficient of variation of the gaps between requests: 1/√B for Gamma(B), 0 for `inf`, 1 for Poisson. */
export function gapCv(burstiness: Burstiness = 1): number {
  return burstiness === 'inf' ? 0 : 1 / Math.sqrt(burstiness);
}

/** The rate request `index` of `total` draws its gap at (serve.py `_get_current_request_rate`). */
export function rampRateAt(ramp: RampUp, index: number, total: number): number {
  const progress = index / Math.max(total - 1, 1);
  return ramp.strategy === 'linear' ? ramp.startRps + (ramp.endRps - ramp.startRps) * progress : ramp.startRps * (ramp.endRps / ramp.startRps) ** progress;
}

/**
 * Expected seconds until the client has sent the last request (0 for a burst): N/R exactly for a steady rate (the
 * client rescales to it), the sum of the mean gaps 1/r_i over a ramp.
 */
export function sendSeconds(w: ArrivalFields & { numPrompts: number }): number {
  if (w.rampUp) {
    let total = 0;
    for (let i = 0; i < w.numPrompts; i++) total += 1 / rampRateAt(w.rampUp, i, w.numPrompts);
    return total;
  }
  return w.requestRate !== undefined ? w.numPrompts / w.requestRate : 0;
}

const trim = (x: number) => String(Math.round(x * 100) / 100);

/** In English, for lists and logs: "constant 8 req/s", "ramp 1→16 req/s linear", "all at once". */
export function describeArrival(a: Arrival): string {
  switch (a.kind) {
    case 'burst':
      return 'all at once';
    case 'poisson':
      return `Poisson ${trim(a.rate)} req/s`;
    case 'gamma':
      return `Gamma ${trim(a.rate)} req/s, burstiness ${trim(a.burstiness)} (gap CV ${gapCv(a.burstiness).toFixed(2)})`;
    case 'constant':
      return `constant ${trim(a.rate)} req/s`;
    case 'ramp': {
      const shape = a.burstiness === undefined ? '' : a.burstiness === 'inf' ? ', constant gaps' : `, burstiness ${trim(a.burstiness)}`;
      return `ramp ${a.startRps}→${a.endRps} req/s ${a.strategy}${shape}`;
    }
  }
}

