import { BACKEND_ENDPOINT, type Workload } from './workload';

/** Where and how one benchmark run talks to its server and keeps its result. */
export interface BenchTarget {
  /** What the client loads its tokenizer from (the server's model reference). */
  model: string;
  /** The name the server answers to, when it differs from `model`. */
  servedModelName?: string;
  host?: string;
  port: number;
  /** The ShareGPT file on the box, for sharegpt workloads that name none. */
  defaultShareGptPath?: string;
  resultDir: string;
  resultFilename: string;
  /** Written into the result JSON as top-level keys (`--metadata KEY=VALUE`), e.g. the trial id. */
  metadata?: Record<string, string>;
}

/**
 * Latency percentiles every run asks for: E2EL gives mean latency per request, which the client prints only when
 * asked (the reference studies), and P50/P90/P99 are what reports compare.
 */
export const PERCENTILE_METRICS = 'ttft,tpot,itl,e2el';
export const METRIC_PERCENTILES = '50,90,99';

/** `vllm bench serve …` for a workload against a server (vLLM 0.11 flags, engines.md §1.3). */
export function buildBenchServeArgv(workload: Workload, target: BenchTarget): string[] {
  const argv = ['vllm', 'bench', 'serve'];
  argv.push('--backend', workload.backend, '--endpoint', BACKEND_ENDPOINT[workload.backend]);
  argv.push('--host', target.host ?? '127.0.0.1', '--port', String(target.port));
  argv.push('--model', target.model);
  if (target.servedModelName !== undefined && target.servedModelName !== target.model) argv.push('--served-model-name', target.servedModelName);

  const dataset = workload.dataset;
  switch (dataset.kind) {
    case 'sharegpt': {
      const path = dataset.path ?? target.defaultShareGptPath;
      if (path === undefined) throw new Error('A ShareGPT workload needs a dataset path on the box.');
      argv.push('--dataset-name', 'sharegpt', '--dataset-path', path);
      if (dataset.outputLen !== undefined) argv.push('--sharegpt-output-len', String(dataset.outputLen));
      break;
    }
    case 'random':
      argv.push('--dataset-name', 'random', '--random-input-len', String(dataset.inputLen), '--random-output-len', String(dataset.outputLen));
      if (dataset.rangeRatio !== undefined) argv.push('--random-range-ratio', String(dataset.rangeRatio));
      if (dataset.prefixLen !== undefined) argv.push('--random-prefix-len', String(dataset.prefixLen));
      break;
    case 'custom':
      argv.push('--dataset-name', 'custom', '--dataset-path', dataset.path);
      if (dataset.outputLen !== undefined) argv.push('--custom-output-len', String(dataset.outputLen));
      break;
  }

  argv.push('--num-prompts', String(workload.numPrompts));
  if (workload.maxConcurrency !== undefined) argv.push('--max-concurrency', String(workload.maxConcurrency));
  if (workload.requestRate !== undefined) argv.push('--request-rate', String(workload.requestRate));
  if (workload.burstiness !== undefined) argv.push('--burstiness', String(workload.burstiness));
  if (workload.seed !== undefined) argv.push('--seed', String(workload.seed));
  if (workload.ignoreEos === true) argv.push('--ignore-eos');

  argv.push('--percentile-metrics', PERCENTILE_METRICS, '--metric-percentiles', METRIC_PERCENTILES);
  // --save-detailed (0.11.0 and later: resources/engine-flags/vllm-bench.json) keeps the per-request arrays in the
  // result JSON, from which each metric gets its interval within the run (request-intervals.ts).
  argv.push('--save-result', '--save-detailed', '--result-dir', target.resultDir, '--result-filename', target.resultFilename);
  const metadata = Object.entries(target.metadata ?? {});
  if (metadata.length > 0) argv.push('--metadata', ...metadata.map(([k, v]) => `${k}=${v}`));
  return argv;
}
