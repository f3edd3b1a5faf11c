// When the simulated `vllm bench serve` sends each request: vLLM's get_request and _get_current_request_rate
// (vllm/benchmarks/serve.py, the same at every tag from v0.11.1 to v0.17.1; v0.11.0 lacks the `inf` burstiness
// case), with the simulated box's seeded generator in place of numpy's. The schedule is drawn before the first
// request is sent, as the client does:
//   rate_i = --request-rate, or with a ramp S + (E−S)·p (linear) / S·(E/S)^p (exponential), p = i / max(N−1, 1)
//   gap_i  = Gamma(shape = B, scale = 1/(rate_i·B))   (mean 1/rate_i, CV 1/√B; from v0.11.1 B = inf gives 1/rate_i)
//   delay_i = gap_0 + … + gap_i, rescaled without a ramp so that delay_{N−1} = N / --request-rate.
// v0.11.0 given B = inf draws np.random.gamma(inf, 0.0), which is NaN: every delay is NaN, `delay > 0` is false,
// and every request is sent at once (numpy 2.4 legacy gamma; the client does nothing else with the value).

import { makeRng } from './rng.mjs';
import { versionCompare } from './version.mjs';

/** A Python exception the schedule raises: `where` is the frame, `text` the last traceback line. */
export class ArrivalError extends Error {
  constructor(where, text) {
    super(text);
    this.where = where;
    this.text = text;
  }
}

/** `_get_current_request_rate(ramp_up_strategy, start, end, request_index, total_requests, request_rate)`. */
export function requestRateAt(args, index, total) {
  const { ramp_up_strategy: strategy, ramp_up_start_rps: start, ramp_up_end_rps: end } = args;
  if (strategy && start !== null && start !== undefined && end !== null && end !== undefined) {
    const progress = index / Math.max(total - 1, 1);
    if (strategy === 'linear') return start + (end - start) * progress;
    if (strategy === 'exponential') return start * (end / start) ** progress;
  }
  return args.request_rate;
}

/**
 * The seconds after the start at which each of `total` requests is sent (`delays`) and the rate each was drawn at
 * (`rates`), drawn from the seed as `np.random.seed(args.seed)` seeds the client. Throws ArrivalError where the
 * client raises.
 */
export function arrivalSchedule(args, total, { version, seed }) {
  const rng = makeRng('arrivals', seed);
  const burstiness = args.burstiness;
  if (!(burstiness > 0)) throw new ArrivalError('get_request', `AssertionError: A positive burstiness factor is expected, but given ${pyNumber(burstiness)}.`);
  if (total <= 0) throw new ArrivalError('get_request', 'AssertionError: No requests provided.');
  const infCase = versionCompare(version, '0.11.1') >= 0;
  const rates = [];
  const delays = [];
  for (let i = 0; i < total; i++) {
    const rate = requestRateAt(args, i, total);
    if (infCase && !(rate > 0)) throw new ArrivalError('get_request', `AssertionError: Obtained non-positive request rate ${pyNumber(rate)}.`);
    rates.push(rate);
    if (rate === Infinity) delays.push(0);
    else if (infCase && burstiness === Infinity) delays.push(1 / rate);
    else if (burstiness === Infinity) delays.push(NaN); // v0.11.0: gamma(inf, scale 1/(rate·inf) = 0.0)
    else if (rate === 0) throw new ArrivalError('get_request', 'ZeroDivisionError: float division by zero');
    else delays.push(rng.gamma(burstiness, 1 / (rate * burstiness)));
  }
  for (let i = 1; i < delays.length; i++) delays[i] += delays[i - 1];
  const last = delays[delays.length - 1];
  if (!args.ramp_up_strategy && last !== 0) {
    const factor = total / args.request_rate / last;
    for (let i = 0; i < delays.length; i++) delays[i] *= factor;
  }
  // A NaN delay is never slept (`if delay_ts[i] > 0`): the request goes at once.
  return { delays: delays.map((d) => (d > 0 ? d : 0)), rates };
}

/** main_async's checks of the ramp-up arguments, in order: the ValueError's message, or null. */
export function rampUpArgsError(args) {
  if (args.ramp_up_strategy === null || args.ramp_up_strategy === undefined) return null;
  if (args.request_rate !== Infinity) {
    return 'When using ramp-up, do not specify --request-rate. The request rate will be controlled by ramp-up parameters. Please remove the --request-rate argument.';
  }
  if (args.ramp_up_start_rps === null || args.ramp_up_end_rps === null) return 'When using --ramp-up-strategy, both --ramp-up-start-rps and --ramp-up-end-rps must be specified';
  if (args.ramp_up_start_rps < 0 || args.ramp_up_end_rps < 0) return 'Ramp-up start and end RPS must be non-negative';
  if (args.ramp_up_start_rps > args.ramp_up_end_rps) return 'Ramp-up start RPS must be less than end RPS';
  if (args.ramp_up_strategy === 'exponential' && args.ramp_up_start_rps === 0) return 'For exponential ramp-up, the start RPS cannot be 0.';
  return null;
}

/**
 * benchmark()'s `rps_change_events`: the start rate, then each whole rate the ramp reaches, stamped when the first
 * request at that rate is yielded (`stamp(i)` gives that time as datetime.isoformat()). Empty without a ramp.
 */
export function rpsChangeEvents(args, rates, stamp) {
  if (!args.ramp_up_strategy || args.ramp_up_start_rps === null) return [];
  let last = args.ramp_up_start_rps;
  const events = [{ rps: last, timestamp: stamp(-1) }];
  rates.forEach((rate, i) => {
    const whole = Math.trunc(rate);
    if (whole > last) {
      const timestamp = stamp(i);
      for (let r = last + 1; r <= whole; r++) events.push({ rps: r, timestamp });
      last = whole;
    }
  });
  return events;
}

/** Python's str() of a float or int value in a message. */
function pyNumber(x) {
  if (x === Infinity) return 'inf';
  if (Number.isNaN(x)) return 'nan';
  return Number.isInteger(x) ? `${x}.0` : String(x);
}
