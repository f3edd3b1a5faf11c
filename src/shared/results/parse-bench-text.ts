// The "Serving Benchmark Result" block that `vllm bench serve` and `sglang.bench_serving` print (engines.md §1.1,
// §2.3, §7): every label of every version, labels padded with trailing spaces or not, any text around the blocks.
import { LATENCY_METRICS, percentileKey, type BenchMetrics, type LatencyMetric } from './bench-result';

export type BenchClient = 'vllm' | 'sglang';

export interface TextProblem {
  /** 1-based line number in the text. */
  line: number;
  message: string;
}

export interface TextBlock {
  /** Line of the `===== Serving Benchmark Result =====` header. */
  line: number;
  client: BenchClient;
  metrics: BenchMetrics;
  extra: Record<string, number | null>;
  /** SGLang's `Backend:` line. */
  backend?: string;
  /** SGLang's `Traffic request rate:` as printed when not a number (`inf`, `trace`). */
  requestRateWord?: 'inf' | 'trace';
}

export interface TextParse {
  blocks: TextBlock[];
  errors: TextProblem[];
  warnings: TextProblem[];
}

type Target = { kind: 'metric'; key: keyof BenchMetrics & string } | { kind: 'extra'; key: string } | { kind: 'backend' };

/** Labels, case-folded with single spaces, and where their value goes. SGLang's extras keep its JSON key names. */
const LABELS: Record<string, Target> = {
  'successful requests': { kind: 'metric', key: 'completed' },
  'failed requests': { kind: 'metric', key: 'failed' },
  'maximum request concurrency': { kind: 'metric', key: 'max_concurrency' },
  'request rate configured (rps)': { kind: 'metric', key: 'request_rate' },
  'benchmark duration (s)': { kind: 'metric', key: 'duration' },
  'total input tokens': { kind: 'metric', key: 'total_input_tokens' },
  'total generated tokens': { kind: 'metric', key: 'total_output_tokens' },
  'request throughput (req/s)': { kind: 'metric', key: 'request_throughput' },
  'request goodput (req/s)': { kind: 'metric', key: 'request_goodput' },
  'output token throughput (tok/s)': { kind: 'metric', key: 'output_throughput' },
  'peak output token throughput (tok/s)': { kind: 'metric', key: 'max_output_tokens_per_s' },
  'peak concurrent requests': { kind: 'metric', key: 'max_concurrent_requests' },
  'total token throughput (tok/s)': { kind: 'metric', key: 'total_token_throughput' },
  'rtfx (inverse real-time factor)': { kind: 'extra', key: 'rtfx' },
  // SGLang only.
  backend: { kind: 'backend' },
  'traffic request rate': { kind: 'metric', key: 'request_rate' },
  'max request concurrency': { kind: 'metric', key: 'max_concurrency' },
  'total input text tokens': { kind: 'extra', key: 'total_input_text_tokens' },
  'total input vision tokens': { kind: 'extra', key: 'total_input_vision_tokens' },
  'total generated tokens (retokenized)': { kind: 'extra', key: 'total_output_tokens_retokenized' },
  'input token throughput (tok/s)': { kind: 'extra', key: 'input_throughput' },
  concurrency: { kind: 'extra', key: 'concurrency' },
  'accept length': { kind: 'extra', key: 'accept_length' },
};

const SGLANG_ONLY = new Set([
  'backend',
  'traffic request rate',
  'max request concurrency',
  'total input text tokens',
  'total input vision tokens',
  'total generated tokens (retokenized)',
  'input token throughput (tok/s)',
  'concurrency',
  'accept length',
]);

/** `Mean TTFT (ms)`, `P99.9 ITL (ms)`, SGLang's `Median E2E Latency (ms)` and `Max ITL (ms)`. */
const STAT_LABEL = /^(mean|median|std|max|p(\d+(?:\.\d+)?)) (ttft|tpot|itl|e2el|e2e latency) \(ms\)$/;

const HEADER = /^\s*={3,}\s*Serving Benchmark Result\s*={3,}\s*$/i;
const CLOSING = /^={20,}$/;
const SECTION = /^-+\s*[A-Za-z].*-+$/;
/** `Label:   value`; a label starts with a letter and ends with a letter, `)` or `%` (so a log time stamp is not one). */
const RESULT_LINE = /^([A-Za-z][A-Za-z0-9 ()/%.,_-]*[A-Za-z)%]):(?:\s+(.*?))?\s*$/;
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
/** Printed for "no number": Python's `inf`/`nan`, SGLang's `not set`, vLLM's `None`. */
const NO_NUMBER_WORDS = new Set(['inf', '+inf', '-inf', 'infinity', 'nan', 'not set', 'none']);

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

function targetOf(label: string): Target | undefined {
  const fixed = LABELS[label];
  if (fixed) return fixed;
  const stat = STAT_LABEL.exec(label);
  if (!stat) return undefined;
  const [, kind = '', percentile, name = ''] = stat;
  const metric = (name === 'e2e latency' ? 'e2el' : name) as LatencyMetric;
  if (!LATENCY_METRICS.includes(metric)) return undefined;
  if (kind === 'max') return { kind: 'extra', key: `max_${metric}_ms` };
  if (percentile !== undefined) return { kind: 'metric', key: percentileKey(percentile, metric) as keyof BenchMetrics & string };
  return { kind: 'metric', key: `${kind}_${metric}_ms` as keyof BenchMetrics & string };
}

/** A printed number; null for a printed "no number" word; undefined when it is not a number at all. */
export function parsePrintedNumber(value: string): number | null | undefined {
  if (NUMBER.test(value)) return Number(value);
  if (NO_NUMBER_WORDS.has(value.toLowerCase())) return null;
  return undefined;
}

interface OpenBlock {
  block: TextBlock;
  lastLine: number;
  values: number;
  failed: boolean;
  sawDuration: boolean;
}

export function parseBenchText(text: string): TextParse {
  const lines = text.split(/\r?\n|\r/);
  const out: TextParse = { blocks: [], errors: [], warnings: [] };
  let open: OpenBlock | null = null;

  const finish = (closed: boolean): void => {
    if (!open) return;
    const o = open;
    open = null;
    if (!closed) {
      out.warnings.push({
        line: o.lastLine,
        message: `the result block that starts on line ${o.block.line} is cut short after this line (no closing "=====" line); imported the values it has`,
      });
    }
    if (o.failed) return;
    if (o.values === 0) {
      out.errors.push({ line: o.block.line, message: 'the result block has no values' });
      return;
    }
    // vLLM prints these two only when set, before the duration line: once that line is there, absent means unset.
    if (o.block.client === 'vllm' && o.sawDuration) {
      if (o.block.metrics.request_rate === undefined) o.block.metrics.request_rate = null;
      if (o.block.metrics.max_concurrency === undefined) o.block.metrics.max_concurrency = null;
    }
    out.blocks.push(o.block);
  };

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    if (HEADER.test(raw)) {
      finish(false);
      open = { block: { line: lineNo, client: 'vllm', metrics: {}, extra: {} }, lastLine: lineNo, values: 0, failed: false, sawDuration: false };
      return;
    }
    if (!open) return;
    const o: OpenBlock = open;
    const line = raw.trim();
    if (CLOSING.test(line)) {
      finish(true);
      return;
    }
    if (SECTION.test(line)) {
      o.lastLine = lineNo;
      return;
    }
    const m = RESULT_LINE.exec(line);
    if (!m) {
      finish(false);
      return;
    }
    o.lastLine = lineNo;
    const rawLabel = m[1] ?? '';
    const label = normalizeLabel(rawLabel);
    const value = (m[2] ?? '').trim();
    const target = targetOf(label);
    if (SGLANG_ONLY.has(label) || label.includes('e2e latency')) o.block.client = 'sglang';
    if (!target) {
      // A label of another version: keep its number under the label as printed.
      const n = parsePrintedNumber(value);
      if (n !== undefined && value !== '') {
        o.block.extra[rawLabel.trim()] = n;
        o.values++;
      }
      return;
    }
    if (target.kind === 'backend') {
      if (value) o.block.backend = value;
      return;
    }
    let n = parsePrintedNumber(value);
    if (n === undefined && target.kind === 'metric' && target.key === 'request_rate' && value.toLowerCase() === 'trace') n = null;
    if (n === undefined) {
      out.errors.push({ line: lineNo, message: `"${rawLabel.trim()}:" has no number${value ? ` (it says "${value}")` : ''}` });
      o.failed = true;
      return;
    }
    if (label === 'traffic request rate' && n === null) {
      const word = value.toLowerCase();
      o.block.requestRateWord = word === 'trace' ? 'trace' : 'inf';
    }
    if (target.kind === 'metric') {
      o.block.metrics[target.key] = n;
      if (target.key === 'duration') o.sawDuration = true;
    } else o.block.extra[target.key] = n;
    o.values++;
  });
  finish(false);
  return out;
}
