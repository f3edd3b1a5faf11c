import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io';
import { UsageError } from '../command-line';
import { importResultFiles, MAX_RESULT_FILE_BYTES } from '../../core/results/import-files';
import { formatProblem, type BenchResult } from '../../shared/results';

export const IMPORT_USAGE = `Usage: servelab import <file | folder>... [--json | --jsonl]

Imports benchmark results: the text \`vllm bench serve\` prints (any number of "Serving Benchmark Result" blocks,
with any text around them, from any vLLM version; blocks quoted or logged with the same prefix on every line; a
block pasted without its header line), its --save-result JSON, --append-result JSON Lines or \`vllm bench sweep\`'s
summary.json, and the text and JSON Lines of SGLang's bench_serving. The format is recognised from the content, not
the file name. A folder imports every file below it, in order. Files larger than ${MAX_RESULT_FILE_BYTES / (1024 * 1024)} MiB are refused.

Each result becomes one record: {"schemaVersion", "source": {"file", "format", "index", "line"}, "metrics",
"extra", "provenance"}, with metrics under vLLM's JSON key names (completed, duration, output_throughput,
mean_ttft_ms, p99_itl_ms, spec_decode_acceptance_rate, …; null where the client printed inf or "not set"; absent
where the block does not say, or says N/A).

  --json        print the records as one JSON array
  --jsonl       print one record per line (JSON Lines)
  -h, --help    show this help

Without --json: one table row per record. Problems go to standard error as file:line: message.
Exit codes: 0 every file imported, 1 a file (or a block in it) could not be imported, 2 usage.`;

type Output = 'table' | 'json' | 'jsonl';

export async function runImport(args: string[], io: CliIo): Promise<number> {
  let command: { paths: string[]; output: Output } | 'help';
  try {
    command = parseCommand(args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab import: ${error.message}\n\n${IMPORT_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${IMPORT_USAGE}\n`);
    return 0;
  }

  const result = await importResultFiles(command.paths, io.cwd);
  for (const warning of result.warnings) io.stderr(`servelab import: warning: ${formatProblem(warning)}\n`);
  for (const error of result.errors) io.stderr(`servelab import: ${formatProblem(error)}\n`);
  if (command.output === 'json') io.stdout(`${JSON.stringify(result.records, null, 2)}\n`);
  else if (command.output === 'jsonl') io.stdout(result.records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  else if (result.records.length > 0) io.stdout(`${formatTable(result.records)}\n`);
  return result.failedFiles.length > 0 ? 1 : 0;
}

function parseCommand(args: string[]): { paths: string[]; output: Output } | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, jsonl: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) return 'help';
  if (parsed.positionals.length === 0) throw new UsageError('name at least one result file or folder.');
  const output: Output = parsed.values.jsonl ? 'jsonl' : parsed.values.json ? 'json' : 'table';
  return { paths: parsed.positionals, output };
}

const COLUMNS: { title: string; cell: (r: BenchResult) => string }[] = [
  { title: 'result', cell: (r) => (r.source ? `${r.source.file}#${r.source.index}` : '') },
  { title: 'format', cell: (r) => r.source?.format ?? '' },
  { title: 'completed', cell: (r) => number(r.metrics.completed, 0) },
  { title: 'duration s', cell: (r) => number(r.metrics.duration) },
  { title: 'output tok/s', cell: (r) => number(r.metrics.output_throughput) },
  { title: 'total tok/s', cell: (r) => number(r.metrics.total_token_throughput) },
  { title: 'mean TTFT ms', cell: (r) => number(r.metrics.mean_ttft_ms) },
  { title: 'mean TPOT ms', cell: (r) => number(r.metrics.mean_tpot_ms) },
  { title: 'mean E2EL ms', cell: (r) => number(r.metrics.mean_e2el_ms) },
];

/** "-" when the result does not have the metric, "n/a" when the client printed no number for it. */
function number(value: number | null | undefined, digits = 2): string {
  if (value === undefined) return '-';
  if (value === null) return 'n/a';
  return value.toFixed(digits);
}

/** Left-aligned names, right-aligned numbers, two spaces between columns. */
export function formatTable(records: BenchResult[]): string {
  const rows = [COLUMNS.map((c) => c.title), ...records.map((r) => COLUMNS.map((c) => c.cell(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows
    .map((row) => row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd())
    .join('\n');
}
