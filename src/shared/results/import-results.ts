// Text in, normalized records out: every result block or object of one file, each checked against the schema,
// with errors and warnings by line so a person can find them.
import {
  BENCH_RESULT_SCHEMA_VERSION,
  BenchResultSchema,
  orderMetrics,
  withDerivedMetrics,
  type BenchMetrics,
  type BenchResult,
  type ResultFormat,
  type ResultProvenance,
} from './bench-result';
import { detectContentKind, resultFormat } from './detect-format';
import { parseBenchJsonText, runFromJson } from './parse-bench-json';
import { parseBenchText, type TextBlock } from './parse-bench-text';
import { requestIntervals } from './request-intervals';
import { readRequestSamples, type RequestSamples } from './request-samples';

export interface ImportProblem {
  file: string;
  /** 1-based; null when the problem is the whole file. */
  line: number | null;
  message: string;
}

export interface ImportOutcome {
  records: BenchResult[];
  errors: ImportProblem[];
  warnings: ImportProblem[];
}

export const NO_RESULT_MESSAGE =
  'no benchmark result found (expected the "Serving Benchmark Result" block of vllm bench serve or sglang.bench_serving, or their JSON / JSON Lines result files)';

/** `results.txt:14: message`, or `results.txt: message` for the whole file. */
export function formatProblem(problem: ImportProblem): string {
  return `${problem.file}${problem.line !== null ? `:${problem.line}` : ''}: ${problem.message}`;
}

interface Run {
  line: number;
  format: ResultFormat;
  metrics: BenchMetrics;
  extra: Record<string, number | null>;
  provenance: ResultProvenance;
  numPrompts?: number;
  /** The per-request arrays of a `--save-detailed` JSON result; they give intervals and are not kept. */
  samples?: RequestSamples;
}

export function importResults(text: string, file: string): ImportOutcome {
  const outcome: ImportOutcome = { records: [], errors: [], warnings: [] };
  const at = (line: number | null, message: string): ImportProblem => ({ file, line, message });
  const runs: Run[] = [];
  const body = text.replace(/^\uFEFF/, '');

  const json = detectContentKind(body) === 'json' ? parseBenchJsonText(body) : undefined;
  // A log that merely starts like JSON (a line `{"event": …}`) is text when it has result blocks and no result object.
  const jsonHasResult = json?.objects.some((o) => 'completed' in o.value) ?? false;
  if (json && (jsonHasResult || parseBenchText(body).blocks.length === 0)) {
    const parsed = json;
    for (const e of parsed.errors) outcome.errors.push(at(e.line, e.message));
    for (const object of parsed.objects) {
      const run = runFromJson(object.value);
      if ('error' in run) {
        outcome.errors.push(at(object.line, run.error));
        continue;
      }
      const samples = readRequestSamples(object.value);
      runs.push({ line: object.line, format: resultFormat(run.client, 'json', parsed.lines), ...run, ...(samples ? { samples } : {}) });
    }
  } else {
    const parsed = parseBenchText(body);
    for (const e of parsed.errors) outcome.errors.push(at(e.line, e.message));
    for (const w of parsed.warnings) outcome.warnings.push(at(w.line, w.message));
    for (const block of parsed.blocks) runs.push({ line: block.line, format: resultFormat(block.client, 'text', false), ...textRun(block) });
  }

  for (const run of runs) {
    const metrics = orderMetrics(withDerivedMetrics(run.metrics, run.numPrompts));
    const intervals = run.samples ? requestIntervals(run.samples, metrics) : null;
    const candidate = {
      schemaVersion: BENCH_RESULT_SCHEMA_VERSION,
      source: { file, format: run.format, index: outcome.records.length, line: run.line },
      metrics,
      extra: run.extra,
      provenance: run.provenance,
      ...(intervals ? { intervals } : {}),
    };
    const checked = BenchResultSchema.safeParse(candidate);
    // The schema puts catch-all keys (percentiles) last; keep them beside their metric.
    if (checked.success) outcome.records.push({ ...checked.data, metrics: orderMetrics(checked.data.metrics) });
    else {
      const issue = checked.error.issues[0];
      const where = issue?.path.filter((p) => p !== 'metrics' && p !== 'extra').join('.') ?? '';
      outcome.errors.push(at(run.line, `${where ? `"${where}": ` : ''}${issue?.message ?? 'not a valid result'}`));
    }
  }
  if (runs.length === 0 && outcome.errors.length === 0) outcome.errors.push(at(null, NO_RESULT_MESSAGE));
  // In file order, as a person reads them.
  const byLine = (a: ImportProblem, b: ImportProblem) => (a.line ?? 0) - (b.line ?? 0);
  outcome.errors.sort(byLine);
  outcome.warnings.sort(byLine);
  return outcome;
}

function textRun(block: TextBlock): Omit<Run, 'line' | 'format'> {
  const client: NonNullable<ResultProvenance['client']> = { name: block.client === 'sglang' ? 'sglang.bench_serving' : 'vllm bench serve' };
  if (block.backend) client.backend = block.backend;
  const provenance: ResultProvenance = { client };
  const rate = block.requestRateWord ?? block.metrics.request_rate;
  const concurrency = block.metrics.max_concurrency;
  if (rate !== undefined || concurrency !== undefined) {
    provenance.workload = {};
    if (rate !== undefined) provenance.workload.requestRate = rate === null ? 'inf' : rate;
    if (concurrency !== undefined) provenance.workload.maxConcurrency = concurrency;
  }
  return { metrics: block.metrics, extra: block.extra, provenance };
}
