import { ServelabError } from '../contract/errors';
import { flagTableAt } from '../engines/flag-tables';
import { flagSpecOf } from '../engines/flag-syntax';
import { assertArrivalSupported } from './arrival-support';
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

/**
 * `vllm bench serve …` for a workload against a server, every flag looked up in the client version's flag table
 * (resources/engine-flags/vllm-bench.json). Arrivals the client cannot produce at that version are BAD_INPUT naming
 * the version (`arrivalRefusal`); so is a flag the table lacks.
 */
export function buildBenchServeArgv(workload: Workload, target: BenchTarget, clientVersion: string): string[] {
  assertArrivalSupported(workload, clientVersion);
  const table = flagTableAt('vllm-bench', clientVersion);
  const flag = (name: string): string => {
    if (flagSpecOf(table, name) === undefined) throw new ServelabError('BAD_INPUT', `vllm bench serve ${clientVersion} has no ${name}.`);
    return name;
  };
  const argv = ['vllm', 'bench', 'serve'];
  argv.push(flag('--backend'), workload.backend, flag('--endpoint'), BACKEND_ENDPOINT[workload.backend]);
  argv.push(flag('--host'), target.host ?? '127.0.0.1', flag('--port'), String(target.port));
  argv.push(flag('--model'), target.model);
  if (target.servedModelName !== undefined && target.servedModelName !== target.model) argv.push(flag('--served-model-name'), target.servedModelName);

  const dataset = workload.dataset;
  switch (dataset.kind) {
    case 'sharegpt': {
      const path = dataset.path ?? target.defaultShareGptPath;
      if (path === undefined) throw new Error('A ShareGPT workload needs a dataset path on the box.');
      argv.push(flag('--dataset-name'), 'sharegpt', flag('--dataset-path'), path);
      if (dataset.outputLen !== undefined) argv.push(flag('--sharegpt-output-len'), String(dataset.outputLen));
      break;
    }
    case 'random':
      argv.push(flag('--dataset-name'), 'random', flag('--random-input-len'), String(dataset.inputLen), flag('--random-output-len'), String(dataset.outputLen));
      if (dataset.rangeRatio !== undefined) argv.push(flag('--random-range-ratio'), String(dataset.rangeRatio));
      if (dataset.prefixLen !== undefined) argv.push(flag('--random-prefix-len'), String(dataset.prefixLen));
      break;
    case 'custom':
      argv.push(flag('--dataset-name'), 'custom', flag('--dataset-path'), dataset.path);
      if (dataset.outputLen !== undefined) argv.push(flag('--custom-output-len'), String(dataset.outputLen));
      break;
  }

  argv.push(flag('--num-prompts'), String(workload.numPrompts));
  if (workload.maxConcurrency !== undefined) argv.push(flag('--max-concurrency'), String(workload.maxConcurrency));
  if (workload.requestRate !== undefined) argv.push(flag('--request-rate'), String(workload.requestRate));
  if (workload.burstiness !== undefined) argv.push(flag('--burstiness'), String(workload.burstiness));
  if (workload.rampUp) {
    const { strategy, startRps, endRps } = workload.rampUp;
    argv.push(flag('--ramp-up-strategy'), strategy, flag('--ramp-up-start-rps'), String(startRps), flag('--ramp-up-end-rps'), String(endRps));
  }
  if (workload.seed !== undefined) argv.push(flag('--seed'), String(workload.seed));
  if (workload.ignoreEos === true) argv.push(flag('--ignore-eos'));

  argv.push(flag('--percentile-metrics'), PERCENTILE_METRICS, flag('--metric-percentiles'), METRIC_PERCENTILES);
  // --save-detailed (0.11.0 and later: resources/engine-flags/vllm-bench.json) keeps the per-request arrays in the
  // result JSON, from which each metric gets its interval within the run (request-intervals.ts).
  argv.push(flag('--save-result'), flag('--save-detailed'), flag('--result-dir'), target.resultDir, flag('--result-filename'), target.resultFilename);
  const metadata = Object.entries(target.metadata ?? {});
  if (metadata.length > 0) argv.push(flag('--metadata'), ...metadata.map(([k, v]) => `${k}=${v}`));
  return argv;
}
