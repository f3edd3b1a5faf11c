import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { buildBenchServeArgv, type BenchTarget } from '../../shared/bench/bench-serve-argv';
import type { Workload } from '../../shared/bench/workload';
import type { BoxTransport } from '../box/box-transport';
import { boxFacts, inLoginEnv, runChecked, type EngineBox } from '../engines/engine-box';
import { EngineInstaller } from '../engines/engine-installer';
import { shellCommand } from '../../shared/shell-quote';
import { REMOTE_TREE_GUARD } from '../jobs/job-scripts';

/** Benchmark runs' folders on the box (the client's saved JSON), relative to HOME. */
export const BENCH_ROOT = '.servelab/bench';

export type BenchBox = EngineBox & Pick<BoxTransport, 'download'>;

/**
 * The benchmark client's environment, verified (its Python imports vLLM at that version) once per box object: a
 * study holds one box for its whole run and benchmarks on it twice per trial, and each verification starts the
 * environment's Python. A failed verification is not kept, so an install in between is seen.
 */
const clientChecks = new WeakMap<BenchBox, Map<string, Promise<Awaited<ReturnType<EngineInstaller['verified']>>>>>();

function verifiedClient(box: BenchBox, version: string): ReturnType<EngineInstaller['verified']> {
  let checks = clientChecks.get(box);
  if (!checks) clientChecks.set(box, (checks = new Map()));
  let check = checks.get(version);
  if (!check) {
    check = new EngineInstaller(box).verified('vllm', version);
    checks.set(version, check);
    void check.then(
      (env) => env === null && checks.delete(version),
      () => checks.delete(version),
    );
  }
  return check;
}

export interface BenchRunRequest {
  /** Names the run's folders on the box and here, and goes into the result JSON as `servelab_run_id`. */
  runId: string;
  workload: Workload;
  server: { port: number; model: string; servedModelName?: string };
  /** The vLLM install whose `vllm bench serve` is the client (whatever engine is under test). */
  clientVersion: string;
  /** A cached dataset file for ShareGPT workloads that name none. */
  shareGptPath?: string;
  /** The run's local folder: the fetched JSON and the client's log are kept here. */
  localDir: string;
  metadata?: Record<string, string>;
  onLog?: (text: string) => void;
  onProgress?: (progress: BenchProgress) => void;
  signal?: AbortSignal;
}

export interface BenchProgress {
  /** Requests finished out of the total, from the client's progress bar. */
  done: number;
  total: number;
}

export interface BenchRunOutcome {
  runId: string;
  /** The client's exit status; null when the job was lost (killed with the box, or its folder removed). */
  exitCode: number | null;
  /** The client's console output (progress bars, the result block, any traceback). */
  log: string;
  /** The `--save-result` JSON as the client wrote it, fetched from the box; absent when it wrote none. */
  json?: string;
  /** The exact command, for the record and for a person to rerun by hand. */
  command: string;
  startedAt: string;
  finishedAt: string;
  /** Why the run did not finish, in one line, when it did not. */
  failure?: string;
}

const LOG_KEEP_CHARS = 4 * 1024 * 1024;
const RESULT_FILE = 'result.json';

/** The last `done/total` of a tqdm bar in the text (`45%|████▌     | 45/100 [00:10<00:12, 4.41it/s]`). */
export function lastBenchProgress(text: string): BenchProgress | null {
  let found: BenchProgress | null = null;
  for (const m of text.matchAll(/\|\s*(\d+)\/(\d+)\s*\[/g)) found = { done: Number(m[1]), total: Number(m[2]) };
  return found;
}

/** Why the client failed, from its log: the traceback's last line or a known client error. */
export function benchFailureLine(log: string): string | undefined {
  const lines = log.split(/\r?\n|\r/).map((l) => l.trim()).filter(Boolean);
  const known = lines.find((l) => /Initial test run failed|All requests failed|Never received a valid chunk/.test(l));
  if (known) return known;
  const error = [...lines].reverse().find((l) => /^[A-Za-z_.]+(Error|Exception)\b.*:/.test(l) || /^[A-Za-z_.]*Error$/.test(l));
  return error ?? lines.filter((l) => !/^\s*\d+%\|/.test(l)).at(-1);
}

/**
 * Runs `vllm bench serve` for one workload against a running server, as a detached job on the box, streaming its
 * output and progress; then fetches its `--save-result` JSON over the box's file transfer. A client that ends
 * without a result (killed, crashed, misconfigured) gives an outcome with `failure` and its log, never a throw: a
 * failed run is a result too.
 */
export async function runBenchmark(box: BenchBox, request: BenchRunRequest): Promise<BenchRunOutcome> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(request.runId)) throw new ServelabError('BAD_INPUT', `"${request.runId}" is not a run id.`);
  const client = await verifiedClient(box, request.clientVersion);
  if (!client) {
    throw new ServelabError('NOT_FOUND', `The benchmark client needs vLLM ${request.clientVersion} installed on this box (its \`vllm bench serve\`); install it first.`, {
      details: { engine: 'vllm', version: request.clientVersion },
    });
  }
  const facts = await boxFacts(box);
  const runDir = `${facts.home.replace(/\/+$/, '')}/${BENCH_ROOT}/${request.runId}`;
  const target: BenchTarget = {
    model: request.server.model,
    ...(request.server.servedModelName !== undefined ? { servedModelName: request.server.servedModelName } : {}),
    port: request.server.port,
    ...(request.shareGptPath !== undefined ? { defaultShareGptPath: request.shareGptPath } : {}),
    resultDir: runDir,
    resultFilename: RESULT_FILE,
    metadata: { servelab_run_id: request.runId, servelab_workload: request.workload.id, ...request.metadata },
  };
  let argv: string[];
  try {
    argv = buildBenchServeArgv(request.workload, target, request.clientVersion);
  } catch (error) {
    if (error instanceof ServelabError) throw error;
    throw new ServelabError('BAD_INPUT', (error as Error).message, { issues: [{ path: 'workload.dataset.path', message: 'is required' }] });
  }
  const [, ...args] = argv;
  const command = [`${client.dir}/bin/vllm`, ...args];
  await runChecked(box, `create ${runDir}`, `${REMOTE_TREE_GUARD}mkdir -p -m 700 ${shellCommand([runDir])}\n`);
  await mkdir(request.localDir, { recursive: true });

  const startedAt = new Date().toISOString();
  const handle = await box.jobs().start({ command: inLoginEnv(facts, command), cwd: runDir, label: `benchmark ${request.runId}` });
  let log = '';
  let lastProgress = '';
  let exitCode: number | null = null;
  let failure: string | undefined;
  try {
    exitCode = await handle.stream(
      (text) => {
        log = (log + text).slice(-LOG_KEEP_CHARS);
        request.onLog?.(text);
        const progress = lastBenchProgress(text);
        if (progress && `${progress.done}/${progress.total}` !== lastProgress) {
          lastProgress = `${progress.done}/${progress.total}`;
          request.onProgress?.(progress);
        }
      },
      request.signal ? { signal: request.signal } : {},
    );
  } catch (error) {
    if (request.signal?.aborted) {
      // Cancelled here: stop the client on the box too, so it does not keep loading the server.
      await handle.cancel({ graceSeconds: 5 }).catch(() => {});
      failure = 'cancelled';
    } else if (error instanceof ServelabError && error.code === 'NOT_FOUND') {
      failure = `the benchmark client was lost: ${error.message}`;
    } else {
      throw error;
    }
  }

  let json: string | undefined;
  if (exitCode === 0) {
    const local = join(request.localDir, RESULT_FILE);
    try {
      await box.download(`${runDir}/${RESULT_FILE}`, local);
      json = await readFile(local, 'utf8');
    } catch {
      // No JSON (an older client, or the write failed): the printed block is parsed instead.
    }
  } else if (failure === undefined) {
    failure = `the benchmark client exited with status ${exitCode ?? 'unknown'}: ${benchFailureLine(log) ?? 'no output'}`;
  }
  return {
    runId: request.runId,
    exitCode,
    log,
    ...(json !== undefined ? { json } : {}),
    command: shellCommand(command),
    startedAt,
    finishedAt: new Date().toISOString(),
    ...(failure !== undefined ? { failure } : {}),
  };
}
