import { parseSinglePositional, UsageError } from '../command-line';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { classifyLog, ENGINE_IDS, isEngineId, LOG_CLASSES, type EngineId, type LogClass, type LogVerdict } from '../../shared/engines';

export const CLASSIFY_LOG_USAGE = `Usage: servelab classify-log <file | -> [--engine vllm|sglang|trtllm] [--json]

Reads a vLLM, SGLang or TensorRT-LLM server log and says whether the server became ready or why it failed: the
root cause (not the last traceback line), the line that shows it, and what to change. ANSI colours and the prefixes
of Ray, docker compose, kubectl, journald, mpirun and the engines' loggers are looked through; a log cut short is fine.
"-" reads the log from standard input.

  --engine ENGINE   the engine that wrote the log: ${ENGINE_IDS.join(', ')} (default: recognised from the log)
  --json            print {"class", "evidence", "hint", "line", "engine"} as JSON
  -h, --help        show this help

Classes: ${LOG_CLASSES.join(', ')}.
Exit codes: 0 a verdict was printed (a failure class too), 1 the log could not be read, 2 usage.`;


/** Bytes the CLI reads from standard input for `-`; tests pass their own. */
export type LogInput = AsyncIterable<Uint8Array | string>;

interface Command {
  source: string;
  engine?: EngineId;
  json: boolean;
}

const CLASS_NAMES: Record<LogClass, string> = {
  oom: 'out of GPU memory',
  'kv-cache-too-small': 'KV cache too small',
  'unsupported-sm-fp8': 'FP8 not supported by this GPU architecture',
  'port-in-use': 'port already in use',
  'gated-model': 'gated or unknown Hugging Face model',
  'unknown-flag': 'flag the engine does not accept',
  'missing-module': 'missing module or library',
  nccl: 'NCCL / shared memory failure',
  ready: 'ready',
  starting: 'still starting (no failure, no ready line yet)',
  unknown: 'not recognised',
};

export async function runClassifyLog(args: string[], io: CliIo, stdin: LogInput = process.stdin): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseCommand(args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab classify-log: ${error.message}\n\n${CLASSIFY_LOG_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${CLASSIFY_LOG_USAGE}\n`);
    return 0;
  }

  let text: string;
  try {
    text = command.source === '-' ? await readAll(stdin) : await readFile(resolve(io.cwd, command.source), 'utf8');
  } catch (error) {
    const what = command.source === '-' ? 'standard input' : command.source;
    io.stderr(`servelab classify-log: cannot read ${what}: ${(error as Error).message}\n`);
    return 1;
  }

  const verdict = classifyLog(text, command.engine ? { engine: command.engine } : {});
  io.stdout(command.json ? `${JSON.stringify(toJson(verdict), null, 2)}\n` : `${formatVerdict(verdict)}\n`);
  return 0;
}

function parseCommand(args: string[]): Command | 'help' {
  const { values, positional, help } = parseSinglePositional(
    args,
    { engine: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    { missing: 'name the log file, or - for standard input.', noun: 'log file' },
  );
  if (help) return 'help';
  const command: Command = { source: positional, json: values.json === true };
  if (values.engine !== undefined) {
    if (!isEngineId(values.engine)) throw new UsageError(`--engine ${values.engine}: must be one of ${ENGINE_IDS.join(', ')}.`);
    command.engine = values.engine;
  }
  return command;
}

async function readAll(input: LogInput): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of input) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function toJson(verdict: LogVerdict): Record<string, unknown> {
  return { class: verdict.class, evidence: verdict.evidence, hint: verdict.hint, line: verdict.line, ...(verdict.engine ? { engine: verdict.engine } : {}) };
}

/** One readable paragraph: the verdict, the line that shows it, what to change. */
export function formatVerdict(verdict: LogVerdict): string {
  const engine = verdict.engine ? ({ vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' } as const)[verdict.engine] : undefined;
  const where = verdict.line !== null ? ` Line ${verdict.line}: ${verdict.evidence}` : '';
  if (verdict.class === 'ready') return `Ready${engine ? ` (${engine})` : ''}: the server started and answers requests.${where}`;
  const head = verdict.class === 'unknown' ? 'Not classified (unknown)' : `Failed: ${CLASS_NAMES[verdict.class]} (${verdict.class})`;
  return `${head}${engine ? ` in this ${engine} log` : ''}.${where}${where && !/[.!?…]$/.test(where) ? '.' : ''} What to change: ${verdict.hint}`;
}
