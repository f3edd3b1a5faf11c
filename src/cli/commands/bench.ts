import { parseArgs } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { UsageError } from '../command-line';
import { BOX_OPTIONS, BOX_OPTIONS_USAGE, openCliBox, type CliBox } from '../box-options';
import { ServelabError } from '../../shared/contract';
import { WORKLOAD_PRESETS, describeWorkload, parseWorkload, workloadPreset, type Workload } from '../../shared/bench/workload';
import type { ResultEntry } from '../../shared/results/result-entry';
import { DatasetStore, SHAREGPT_FILE, SHAREGPT_URL } from '../../core/bench/dataset-store';
import { newRunId } from '../../core/bench/bench-handlers';
import { DEFAULT_CLIENT_VERSION, prepareMeasurement, type ShareGptSource } from '../../core/bench/measure';
import { ResultsLibrary } from '../../core/results/results-library';
import { defaultDataDir } from '../../core/util/paths';

export const BENCH_USAGE = `Usage: servelab bench <run|presets|datasets|fetch-sharegpt> … (--demo | --host [user@]host [options])

  run --server SERVER_ID --workload PRESET|FILE.json [--num-prompts N] [--max-concurrency N]
      [--client-version V] [--sharegpt-url URL [--sha256 HEX] | --sharegpt-file LOCAL] [--json]
                         run \`vllm bench serve\` (from the box's vLLM V install, default ${DEFAULT_CLIENT_VERSION}) against a server
                         started by \`servelab engine launch\`, with progress; the normalized result and its provenance
                         are printed and kept in the results library (the app's Results page)
  presets                the built-in workloads (those of the two example studies)
  datasets               the box's dataset cache (~/.servelab/datasets) with SHA-256s
  fetch-sharegpt [--url URL [--sha256 HEX] | --file LOCAL]
                         put ShareGPT into the box's cache: downloaded on the box (default URL: vLLM's docs'),
                         or uploaded from this machine; with --sha256 a file with another hash is refused (plain
                         http from off the box needs it)

Where:
${BOX_OPTIONS_USAGE}
  --json                 machine-readable output

Exit codes: 0 ok, 1 failure (a benchmark that failed is still recorded), 2 usage.`;

export interface BenchCommandOptions {
  /** Cancels a running benchmark (Ctrl+C); default: SIGINT/SIGTERM of this process. */
  signal?: AbortSignal;
}

export async function runBench(args: string[], io: CliIo, opts: BenchCommandOptions = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        ...BOX_OPTIONS,
        server: { type: 'string' },
        workload: { type: 'string' },
        'num-prompts': { type: 'string' },
        'max-concurrency': { type: 'string' },
        'client-version': { type: 'string' },
        'sharegpt-url': { type: 'string' },
        'sharegpt-file': { type: 'string' },
        url: { type: 'string' },
        sha256: { type: 'string' },
        file: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr(`servelab bench: ${(error as Error).message}\n\n${BENCH_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [action, ...rest] = positionals;
  if (values.help || action === undefined) {
    io.stdout(`${BENCH_USAGE}\n`);
    return values.help ? 0 : 2;
  }
  let box: CliBox | undefined;
  try {
    if (rest.length > 0) throw new UsageError(`${action} takes no positional arguments.`);
    if (action === 'presets') {
      if (values.json) io.stdout(`${JSON.stringify(WORKLOAD_PRESETS, null, 2)}\n`);
      else for (const w of WORKLOAD_PRESETS) io.stdout(`${w.id.padEnd(26)}${describeWorkload(w)}\n`);
      return 0;
    }
    if (action !== 'run' && action !== 'datasets' && action !== 'fetch-sharegpt') throw new UsageError(`unknown action "${action}".`);
    const workload = action === 'run' ? await workloadOf(values, io) : undefined;
    if (action === 'run' && values.server === undefined) throw new UsageError('run needs --server SERVER_ID (printed by `servelab engine launch`).');
    if (values['sharegpt-url'] !== undefined && values['sharegpt-file'] !== undefined) throw new UsageError('give --sharegpt-url or --sharegpt-file, not both.');
    if (values.url !== undefined && values.file !== undefined) throw new UsageError('give --url or --file, not both.');
    box = await openCliBox(values, io);

    if (action === 'datasets') {
      const records = await new DatasetStore(box).list();
      if (values.json) io.stdout(`${JSON.stringify(records, null, 2)}\n`);
      else if (records.length === 0) io.stdout('No dataset in the box\'s cache.\n');
      else for (const r of records) io.stdout(`${r.file}\t${r.bytes} bytes\tsha256 ${r.sha256}\t${r.source}: ${r.origin}\n`);
      return 0;
    }
    if (action === 'fetch-sharegpt') {
      const store = new DatasetStore(box);
      const progress = (bytes: number, total: number) => {
        if (!values.json) io.stderr(`servelab: ${bytes}${total > 0 ? ` of ${total}` : ''} bytes\n`);
      };
      const record = values.demo
        ? await store.synthesizeShareGpt(SHAREGPT_FILE)
        : typeof values.file === 'string'
          ? await store.upload(resolve(io.cwd, values.file), SHAREGPT_FILE, progress)
          : await store.fetch(SHAREGPT_FILE, typeof values.url === 'string' ? values.url : SHAREGPT_URL, {
              ...(typeof values.sha256 === 'string' ? { sha256: values.sha256 } : {}),
              onProgress: (p) => progress(p.bytes, p.total),
            });
      io.stdout(values.json ? `${JSON.stringify(record, null, 2)}\n` : `${record.path}\tsha256 ${record.sha256}\t${record.bytes} bytes\n`);
      return 0;
    }
    return await run(box, workload as Workload, values, io, opts);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab bench: ${error.message}\n\n${BENCH_USAGE}\n`);
      return 2;
    }
    io.stderr(`servelab bench: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof ServelabError && error.issues) for (const issue of error.issues) io.stderr(`  ${issue.path}: ${issue.message}\n`);
    return 1;
  } finally {
    box?.release();
  }
}

type Values = Record<string, string | boolean | undefined>;

async function workloadOf(values: Values, io: CliIo): Promise<Workload> {
  const name = values.workload;
  if (typeof name !== 'string') throw new UsageError(`run needs --workload: a preset (${WORKLOAD_PRESETS.map((w) => w.id).join(', ')}) or a JSON file.`);
  let base: unknown = workloadPreset(name);
  if (base === undefined) {
    if (!name.endsWith('.json')) throw new UsageError(`"${name}" is not a preset (${WORKLOAD_PRESETS.map((w) => w.id).join(', ')}) nor a .json file.`);
    const path = resolve(io.cwd, name);
    const text = await readFile(path, 'utf8').catch((error: Error) => {
      throw new ServelabError('NOT_FOUND', `Cannot read ${path}: ${error.message}`);
    });
    try {
      base = JSON.parse(text);
    } catch (error) {
      throw new ServelabError('BAD_INPUT', `${path} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const override = (option: string) => {
    const text = values[option];
    if (typeof text !== 'string') return undefined;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${option} ${text}: must be a whole number of at least 1.`);
    return n;
  };
  const numPrompts = override('num-prompts');
  const maxConcurrency = override('max-concurrency');
  return parseWorkload({
    ...(base as object),
    ...(numPrompts !== undefined ? { numPrompts } : {}),
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
  });
}

async function run(box: CliBox, workload: Workload, values: Values, io: CliIo, opts: BenchCommandOptions): Promise<number> {
  const dataDir = defaultDataDir(io.env);
  const library = await ResultsLibrary.open(join(dataDir, 'results', 'library.json'));
  if (library.problem) throw new ServelabError('BAD_INPUT', library.problem);
  const shareGptSource: ShareGptSource | undefined = values.demo
    ? { kind: 'synthetic' }
    : typeof values['sharegpt-file'] === 'string'
      ? { kind: 'upload', localPath: resolve(io.cwd, values['sharegpt-file']) }
      : typeof values['sharegpt-url'] === 'string'
        ? { kind: 'url', url: values['sharegpt-url'], ...(typeof values.sha256 === 'string' ? { sha256: values.sha256 } : {}) }
        : undefined;
  const controller = new AbortController();
  const onSignal = () => controller.abort(new ServelabError('CANCELLED', 'Benchmark cancelled.'));
  if (opts.signal) opts.signal.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    let shown = '';
    const prepared = await prepareMeasurement(box, {
      runId: newRunId(),
      serverId: values.server as string,
      workload,
      clientVersion: typeof values['client-version'] === 'string' ? values['client-version'] : DEFAULT_CLIENT_VERSION,
      hostLabel: values.demo ? 'Demo lab (simulated H100 box)' : box.hostId,
      ...(shareGptSource ? { shareGptSource } : {}),
      refreshShareGpt: values['sharegpt-file'] !== undefined || values['sharegpt-url'] !== undefined,
      runsDir: join(dataDir, 'runs'),
      signal: controller.signal,
      onProgress: (p) => {
        const line = `${p.done}/${p.total}`;
        if (!values.json && line !== shown) io.stderr(`servelab: ${line} requests\n`);
        shown = line;
      },
    });
    if (!values.json) io.stderr(`servelab: ${describeWorkload(workload)} against ${prepared.context.server.engine} ${prepared.context.server.version} (${prepared.context.server.model})\n`);
    const [entry] = await library.add([await prepared.run()]);
    io.stdout(values.json ? `${JSON.stringify(entry, null, 2)}\n` : summary(entry!));
    return entry!.status === 'ok' ? 0 : 1;
  } finally {
    opts.signal?.removeEventListener('abort', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function summary(entry: ResultEntry): string {
  if (entry.status !== 'ok') return `Failed: ${entry.error ?? 'no result'}\n${entry.logTail ? `\n${entry.logTail.split('\n').slice(-20).join('\n')}\n` : ''}`;
  const m = entry.result.metrics;
  const p = entry.result.provenance;
  const num = (v: number | null | undefined, digits = 2) => (typeof v === 'number' ? v.toFixed(digits) : '—');
  return [
    `${entry.title}${p?.simulated ? '  [simulated box]' : ''}`,
    `  completed ${m.completed ?? '—'}, failed ${m.failed ?? '—'}, duration ${num(m.duration)} s`,
    `  output ${num(m.output_throughput)} tok/s, total ${num(m.total_token_throughput)} tok/s, ${num(m.request_throughput)} req/s`,
    `  TTFT mean ${num(m.mean_ttft_ms)} / p99 ${num(m.p99_ttft_ms)} ms · TPOT mean ${num(m.mean_tpot_ms)} ms · ITL mean ${num(m.mean_itl_ms)} ms`,
    `  E2EL mean ${num(m.mean_e2el_ms)} ms (mean latency ${num(m.mean_latency_s, 3)} s/request)`,
    `  result ${entry.id} kept in the results library`,
    '',
  ].join('\n');
}
