// `vllm bench serve`'s metrics and its printed block, reproduced from vllm/benchmarks/serve.py (v0.11.0):
// calculate_metrics(), the 40/10-column result block and the --save-result JSON fields (vllm/benchmarks/serve.py at v0.11.0).

import { center, fixed, ljust, pyFloat } from './pyfmt.mjs';

/** numpy.percentile with linear interpolation. */
export function percentile(values, p) {
  return sortedPercentile(Float64Array.from(values).sort(), p);
}

/** percentile() of values already sorted ascending (one sort for all of a metric's statistics). */
function sortedPercentile(s, p) {
  if (s.length === 0) return 0;
  const idx = ((s.length - 1) * p) / 100;
  const lo = Math.floor(idx);
  const hi = Math.ceil(idx);
  return s[lo] + (s[hi] - s[lo]) * (idx - lo);
}
const mean = (v) => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);
const std = (v) => {
  if (v.length === 0) return 0;
  const m = mean(v);
  return Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / v.length);
};

/**
 * @param {{success: boolean, promptLen: number, outputTokens: number|null, ttft: number, itl: number[], latency: number, startTime: number, generatedText?: string}[]} outputs
 * @param {number} durationS
 * @param {{selectedPercentiles: number[], goodput?: Record<string, number>|null}} opts
 */
export function calculateMetrics(outputs, durationS, opts) {
  const actualOutputLens = [];
  let totalInput = 0;
  let completed = 0;
  let good = 0;
  const itls = [];
  const tpots = [];
  const allTpots = [];
  const ttfts = [];
  const e2els = [];
  for (const o of outputs) {
    if (!o.success) {
      actualOutputLens.push(0);
      continue;
    }
    const outputLen = o.outputTokens ?? o.retokenizedLen ?? 0;
    actualOutputLens.push(outputLen);
    totalInput += o.promptLen;
    let tpot = 0;
    if (outputLen > 1) {
      tpot = (o.latency - o.ttft) / (outputLen - 1);
      tpots.push(tpot);
    }
    allTpots.push(tpot);
    itls.push(...o.itl);
    ttfts.push(o.ttft);
    e2els.push(o.latency);
    completed++;
  }
  if (opts.goodput) {
    const slo = opts.goodput;
    for (let i = 0; i < ttfts.length; i++) {
      const ok =
        (slo.ttft === undefined || ttfts[i] * 1000 <= slo.ttft) &&
        (slo.tpot === undefined || allTpots[i] * 1000 <= slo.tpot) &&
        (slo.e2el === undefined || e2els[i] * 1000 <= slo.e2el);
      if (ok) good++;
    }
  }

  // Peak output tok/s and peak concurrent requests: one-second buckets of chunk arrival times (each chunk counts once).
  let maxOutputTokensPerS = 0;
  let maxConcurrentRequests = 0;
  const ok = outputs.filter((o) => o.success);
  if (ok.length > 0) {
    const minStart = Math.min(...ok.map((o) => o.startTime));
    const maxEnd = Math.max(...ok.map((o) => o.startTime + o.latency));
    const n = Math.ceil(maxEnd - minStart) + 1;
    const tokens = new Array(n).fill(0);
    const conc = new Array(n).fill(0);
    for (const o of ok) {
      let t = o.startTime + o.ttft;
      const times = [t];
      for (const d of o.itl) {
        t += d;
        times.push(t);
      }
      for (const tt of times) {
        const b = Math.floor(tt - minStart);
        if (b >= 0 && b < n) tokens[b]++;
      }
      const s0 = Math.floor(o.startTime - minStart);
      const s1 = Math.floor(o.startTime + o.latency - minStart);
      for (let s = s0; s <= s1 && s < n; s++) conc[s]++;
    }
    maxOutputTokensPerS = Math.max(...tokens);
    maxConcurrentRequests = Math.max(...conc);
  }

  const totalOutput = actualOutputLens.reduce((a, b) => a + b, 0);
  const stats = (values) => {
    const sorted = Float64Array.from(values).sort();
    return {
      mean: mean(values) * 1000,
      median: sortedPercentile(sorted, 50) * 1000,
      std: std(values) * 1000,
      percentiles: opts.selectedPercentiles.map((p) => [p, sortedPercentile(sorted, p) * 1000]),
    };
  };
  return {
    completed,
    totalInput,
    totalOutput,
    requestThroughput: completed / durationS,
    requestGoodput: good / durationS,
    outputThroughput: totalOutput / durationS,
    totalTokenThroughput: (totalInput + totalOutput) / durationS,
    maxOutputTokensPerS,
    maxConcurrentRequests,
    actualOutputLens,
    ttft: stats(ttfts),
    tpot: stats(tpots),
    itl: stats(itls),
    e2el: stats(e2els),
  };
}

const SECTIONS = [
  ['ttft', 'Time to First Token', 'TTFT'],
  ['tpot', 'Time per Output Token (excl. 1st token)', 'TPOT'],
  ['itl', 'Inter-token Latency', 'ITL'],
  ['e2el', 'End-to-end Latency', 'E2EL'],
];

export const pWord = (p) => (Number.isInteger(p) ? String(p) : String(p));

/**
 * The printed block and the result dict, as benchmark() builds them.
 * @param {{version: string, maxConcurrency: number|null, requestRate: number, durationS: number, selectedMetrics: string[], goodput: boolean,
 *   rpsChangeEvents?: {rps: number, timestamp: string}[]}} run
 */
export function renderResult(metrics, outputs, run) {
  const lines = [];
  const int = (label, v) => lines.push(`${ljust(label, 40)} ${ljust(String(v), 10)}`);
  const flt = (label, v) => lines.push(`${ljust(label, 40)} ${ljust(fixed(v), 10)}`);
  lines.push(center(' Serving Benchmark Result ', 50, '='));
  int('Successful requests:', metrics.completed);
  if (run.failedLine) int('Failed requests:', outputs.length - metrics.completed);
  if (run.maxConcurrency !== null && run.maxConcurrency !== undefined) int('Maximum request concurrency:', run.maxConcurrency);
  if (run.requestRate !== Infinity) flt('Request rate configured (RPS):', run.requestRate);
  flt('Benchmark duration (s):', run.durationS);
  int('Total input tokens:', metrics.totalInput);
  int('Total generated tokens:', metrics.totalOutput);
  flt('Request throughput (req/s):', metrics.requestThroughput);
  if (run.goodput) flt('Request goodput (req/s):', metrics.requestGoodput);
  flt('Output token throughput (tok/s):', metrics.outputThroughput);
  flt('Peak output token throughput (tok/s):', metrics.maxOutputTokensPerS);
  flt('Peak concurrent requests:', metrics.maxConcurrentRequests);
  flt(run.lowercaseTotal ? 'Total token throughput (tok/s):' : 'Total Token throughput (tok/s):', metrics.totalTokenThroughput);

  const result = {
    duration: pyFloat(run.durationS),
    completed: metrics.completed,
    ...(run.failedLine ? { failed: outputs.length - metrics.completed } : {}),
    total_input_tokens: metrics.totalInput,
    total_output_tokens: metrics.totalOutput,
    request_throughput: pyFloat(metrics.requestThroughput),
    request_goodput: run.goodput ? pyFloat(metrics.requestGoodput) : null,
    output_throughput: pyFloat(metrics.outputThroughput),
    total_token_throughput: pyFloat(metrics.totalTokenThroughput),
    input_lens: outputs.map((o) => o.promptLen),
    output_lens: metrics.actualOutputLens,
    ttfts: outputs.map((o) => pyFloat(o.ttft)),
    itls: outputs.map((o) => o.itl.map(pyFloat)),
    generated_texts: outputs.map((o) => o.generatedText ?? ''),
    errors: outputs.map((o) => o.error ?? ''),
    max_output_tokens_per_s: pyFloat(metrics.maxOutputTokensPerS),
    max_concurrent_requests: metrics.maxConcurrentRequests,
  };
  // A ramped run's whole-rate steps (vllm/benchmarks/serve.py@v0.11.0:747-748), before the percentile keys.
  if (run.rpsChangeEvents?.length > 0) result.rps_change_events = run.rpsChangeEvents;

  for (const [key, header, name] of SECTIONS) {
    if (!run.selectedMetrics.includes(key)) continue;
    const s = metrics[key];
    lines.push(center(header, 50, '-'));
    flt(`Mean ${name} (ms):`, s.mean);
    flt(`Median ${name} (ms):`, s.median);
    result[`mean_${key}_ms`] = pyFloat(s.mean);
    result[`median_${key}_ms`] = pyFloat(s.median);
    result[`std_${key}_ms`] = pyFloat(s.std);
    for (const [p, v] of s.percentiles) {
      flt(`P${pWord(p)} ${name} (ms):`, v);
      result[`p${pWord(p)}_${key}_ms`] = pyFloat(v);
    }
  }
  lines.push('='.repeat(50));
  return { text: `${lines.join('\n')}\n`, result };
}
