// The per-request arrays `vllm bench serve --save-detailed` writes into its `--save-result` JSON, and each request's
// latencies computed from them as the client computes its run's statistics. Key names and formulas as in vLLM's
// vllm/benchmarks/serve.py (benchmark() builds the result dict, calculate_metrics() the statistics; read at commit
// def9ce85ba1079af970a58ed3d42dd861ae35d58, the same keys and formulas the simulated client reproduces from v0.11.0):
//   "input_lens": [output.prompt_len …], "output_lens": actual_output_lens (0 for a failed request),
//   "ttfts": [output.ttft …], "itls": [output.itl …] (a list per request), "errors": [output.error …];
//   main_async() deletes these (and "generated_texts") unless --save-detailed. Times are in seconds.
import type { LatencyMetric } from './bench-result';

/** The successful requests of one run, in the client's order. */
export interface RequestSamples {
  inputLens: number[];
  outputLens: number[];
  /** Seconds. */
  ttfts: number[];
  /** Seconds between successive chunks of each request. */
  itls: number[][];
}

const DETAIL_ARRAYS = ['input_lens', 'output_lens', 'ttfts', 'itls', 'errors'] as const;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/**
 * The successful requests of a result object with `--save-detailed` arrays; null when it has none, when they are
 * not what vLLM writes, or when they disagree with the run's own `completed` count (then any interval read from
 * them would describe other requests than the run's numbers). A request failed when its error is not empty, as
 * vLLM's request functions set `error` on every failure path.
 */
export function readRequestSamples(value: Readonly<Record<string, unknown>>): RequestSamples | null {
  const arrays = DETAIL_ARRAYS.map((key) => value[key]);
  if (!arrays.every(Array.isArray)) return null;
  const [inputLens, outputLens, ttfts, itls, errors] = arrays as unknown[][] as [unknown[], unknown[], unknown[], unknown[], unknown[]];
  const n = errors.length;
  if (![inputLens, outputLens, ttfts, itls].every((a) => a.length === n)) return null;
  const out: RequestSamples = { inputLens: [], outputLens: [], ttfts: [], itls: [] };
  for (let i = 0; i < n; i++) {
    const error = errors[i];
    if (typeof error !== 'string' && error !== null) return null;
    if (error) continue;
    const itl = itls[i];
    if (!isCount(inputLens[i]) || !isCount(outputLens[i]) || !isTime(ttfts[i]) || !Array.isArray(itl) || !itl.every(isTime)) return null;
    out.inputLens.push(inputLens[i] as number);
    out.outputLens.push(outputLens[i] as number);
    out.ttfts.push(ttfts[i] as number);
    out.itls.push(itl as number[]);
  }
  if (value.completed !== out.ttfts.length) return null;
  return out;
}

/**
 * Each request's values of a latency metric, in seconds: one TTFT, one TPOT (none when it produced one token or
 * fewer, as vLLM leaves those out), one E2EL, and every ITL (vLLM's ITL statistics pool all of them).
 *   - E2EL = TTFT + ΣITL: vLLM's `latency` is the last chunk's time minus the send time, and `ttft`/`itl` split the
 *     same chunk times (vllm/benchmarks/lib/endpoint_request_func.py at 02cfb534df5674737558730b10f23d1b7aef9b7c:
 *     `latency = most_recent_timestamp - st`); the JSON keeps no latency of its own.
 *   - TPOT = (latency − ttft) / (output_len − 1) when output_len > 1 (calculate_metrics()).
 */
export function latencyValues(samples: RequestSamples, metric: LatencyMetric): number[][] {
  const { ttfts, itls, outputLens } = samples;
  const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
  switch (metric) {
    case 'ttft':
      return ttfts.map((t) => [t]);
    case 'itl':
      return itls;
    case 'e2el':
      return ttfts.map((t, i) => [t + sum(itls[i]!)]);
    case 'tpot':
      return ttfts.map((ttft, i) => {
        const len = outputLens[i]!;
        const e2el = ttft + sum(itls[i]!);
        return len > 1 ? [(e2el - ttft) / (len - 1)] : [];
      });
  }
}
