import { splitArgs } from '../../engines/argv-text';
import { flagTableAt } from '../../engines/flag-tables';
import type { FlagSpec } from '../../engines/types';
import { BENCH_BACKENDS, WorkloadSchema, type BenchBackend, type Workload } from '../../bench/workload';

/**
 * `vllm bench serve …` as a guide prints it → the workload it measures. Flags are read with the client's own table
 * (resources/engine-flags/vllm-bench.json at the study's client version), so a flag's values are taken as its parser
 * takes them; flags that only say where the server is or where results go are dropped, any other flag the workload
 * has no field for is reported, not ignored.
 */

export interface BenchCommandRead {
  workload?: Omit<Workload, 'id' | 'label'>;
  /** The `--model` the client was pointed at (the study's model, as the guide spells it). */
  model?: string;
  problems: string[];
}

/** Flags that say where the server is, how to print or where to save: no part of what is measured. */
const PLACE_FLAGS = new Set([
  '--host', '--port', '--base-url', '--endpoint', '--save-result', '--save-detailed', '--result-dir', '--result-filename', '--metadata',
  '--percentile-metrics', '--metric-percentiles', '--disable-tqdm', '--label', '--served-model-name', '--tokenizer', '--trust-remote-code',
]);

function specOf(flags: readonly FlagSpec[], name: string): FlagSpec | undefined {
  return flags.find((f) => f.names.includes(name));
}

export function readBenchCommand(text: string, clientVersion: string): BenchCommandRead {
  const problems: string[] = [];
  const split = splitArgs(text);
  if (split.unterminated) problems.push(`a ${split.unterminated} quote is left open`);
  const words = split.words;
  const start = words.findIndex((w, i) => w === 'serve' && words[i - 1] === 'bench');
  const flags = flagTableAt('vllm-bench', clientVersion).flags;
  const values = new Map<string, string | true>();
  for (let i = start + 1; i < words.length; i++) {
    const word = words[i] as string;
    if (!word.startsWith('--')) {
      problems.push(`"${word}" is not a flag of vllm bench serve`);
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : word;
    const spec = specOf(flags, name);
    if (!spec) {
      problems.push(`${name} is not a flag of vllm bench serve ${clientVersion}`);
      continue;
    }
    const canonical = spec.names[spec.names.length - 1] ?? name;
    if (spec.arity === 'none' || spec.arity === 'negatable') {
      values.set(canonical, true);
    } else if (eq > 0) {
      values.set(canonical, word.slice(eq + 1));
    } else if (i + 1 < words.length) {
      values.set(canonical, words[++i] as string);
    } else {
      problems.push(`${name} has no value`);
    }
  }

  const str = (name: string): string | undefined => {
    const v = values.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const num = (name: string): number | undefined => {
    const v = str(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) {
      problems.push(`${name} ${v} is not a number`);
      return undefined;
    }
    return n;
  };

  // Python's float() reads inf, +inf, infinity in any case: the client's `inf` rate and constant-gap burstiness.
  const isInf = (v: string | undefined) => v !== undefined && /^\+?inf(inity)?$/i.test(v.trim());

  const known = new Set([
    '--model', '--backend', '--dataset-name', '--dataset-path', '--num-prompts', '--max-concurrency', '--request-rate', '--burstiness', '--seed',
    '--ramp-up-strategy', '--ramp-up-start-rps', '--ramp-up-end-rps',
    '--ignore-eos', '--random-input-len', '--random-output-len', '--random-range-ratio', '--random-prefix-len', '--sharegpt-output-len', '--custom-output-len',
  ]);
  for (const name of values.keys()) {
    if (!known.has(name) && !PLACE_FLAGS.has(name)) problems.push(`${name} has no place in a Servelab workload; the study measures without it`);
  }

  const datasetName = str('--dataset-name') ?? 'random';
  let dataset: Workload['dataset'] | undefined;
  if (datasetName === 'sharegpt') {
    const outputLen = num('--sharegpt-output-len');
    dataset = { kind: 'sharegpt', ...(outputLen !== undefined ? { outputLen } : {}) };
  } else if (datasetName === 'random') {
    const inputLen = num('--random-input-len') ?? 1024;
    const outputLen = num('--random-output-len') ?? 128;
    const rangeRatio = num('--random-range-ratio');
    const prefixLen = num('--random-prefix-len');
    dataset = { kind: 'random', inputLen, outputLen, ...(rangeRatio !== undefined ? { rangeRatio } : {}), ...(prefixLen !== undefined ? { prefixLen } : {}) };
  } else if (datasetName === 'custom' && str('--dataset-path')) {
    const outputLen = num('--custom-output-len');
    dataset = { kind: 'custom', path: str('--dataset-path') as string, ...(outputLen !== undefined ? { outputLen } : {}) };
  } else {
    problems.push(`the ${datasetName} dataset has no Servelab workload yet`);
  }

  const backend = str('--backend') ?? 'openai';
  if (!(BENCH_BACKENDS as readonly string[]).includes(backend)) problems.push(`--backend ${backend} is not one Servelab measures with (${BENCH_BACKENDS.join(', ')})`);
  const maxConcurrency = num('--max-concurrency');
  const requestRate = isInf(str('--request-rate')) ? undefined : num('--request-rate');
  const burstiness = isInf(str('--burstiness')) ? ('inf' as const) : num('--burstiness');
  const rampStrategy = str('--ramp-up-strategy');
  const rampUp = rampStrategy !== undefined ? { strategy: rampStrategy, startRps: num('--ramp-up-start-rps'), endRps: num('--ramp-up-end-rps') } : undefined;
  const seed = num('--seed');
  const model = str('--model');
  if (!dataset) return { ...(model ? { model } : {}), problems };
  const workload = {
    dataset,
    numPrompts: num('--num-prompts') ?? 1000,
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...(requestRate !== undefined ? { requestRate } : {}),
    ...(burstiness !== undefined ? { burstiness } : {}),
    ...(rampUp !== undefined ? { rampUp } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.get('--ignore-eos') === true ? { ignoreEos: true } : {}),
    backend: ((BENCH_BACKENDS as readonly string[]).includes(backend) ? backend : 'openai-chat') as BenchBackend,
  };
  const checked = WorkloadSchema.safeParse({ id: 'check', ...workload });
  if (!checked.success) {
    problems.push(...checked.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`));
    return { ...(model ? { model } : {}), problems };
  }
  const { id: _id, ...read } = checked.data;
  return { workload: read, ...(model ? { model } : {}), problems };
}
