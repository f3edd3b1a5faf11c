// The "Serving Benchmark Result" block that `vllm bench serve` and `sglang.bench_serving` print (vllm/benchmarks/serve.py,
// python/sglang/bench_serving.py): every label of every version, labels padded with trailing spaces or not, any text around the blocks,
// every line behind the same prefix (`# `, `> `, a logger's) or only the header behind one, a writer's note after a
// value, and a block pasted without its header line.
import { LATENCY_METRICS, perPositionAcceptanceKey, percentileKey, type BenchMetrics, type LatencyMetric } from './bench-result';

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
  // The "Speculative Decoding" section (vLLM's serve.py prints it under these labels, writes these keys).
  'acceptance rate (%)': { kind: 'metric', key: 'spec_decode_acceptance_rate' },
  'acceptance length': { kind: 'metric', key: 'spec_decode_acceptance_length' },
  drafts: { kind: 'metric', key: 'spec_decode_num_drafts' },
  'draft tokens': { kind: 'metric', key: 'spec_decode_draft_tokens' },
  'accepted tokens': { kind: 'metric', key: 'spec_decode_accepted_tokens' },
  // Benchmark runners that print vLLM's layout with a "Latency" section in seconds.
  'mean latency(s)': { kind: 'metric', key: 'mean_latency_s' },
  // Input throughput: SGLang prints it, and so did vLLM's benchmark_serving.py in some versions.
  'input token throughput (tok/s)': { kind: 'extra', key: 'input_throughput' },
  // SGLang only.
  backend: { kind: 'backend' },
  'traffic request rate': { kind: 'metric', key: 'request_rate' },
  'max request concurrency': { kind: 'metric', key: 'max_concurrency' },
  // SGLang's own spelling in some 0.4 releases.
  'max reqeuest concurrency': { kind: 'metric', key: 'max_concurrency' },
  'total input text tokens': { kind: 'extra', key: 'total_input_text_tokens' },
  'total input vision tokens': { kind: 'extra', key: 'total_input_vision_tokens' },
  'total generated tokens (retokenized)': { kind: 'extra', key: 'total_output_tokens_retokenized' },
  // SGLang before its "Total token throughput" label; its JSON says `total_throughput` for the same number.
  'total throughput (tok/s)': { kind: 'metric', key: 'total_token_throughput' },
  concurrency: { kind: 'extra', key: 'concurrency' },
  'accept length': { kind: 'extra', key: 'accept_length' },
};

const SGLANG_ONLY = new Set([
  'backend',
  'traffic request rate',
  'max request concurrency',
  'max reqeuest concurrency',
  'total input text tokens',
  'total input vision tokens',
  'total generated tokens (retokenized)',
  'total throughput (tok/s)',
  'concurrency',
  'accept length',
]);

/** `Mean TTFT (ms)`, `P99.9 ITL (ms)`, SGLang's `Median E2E Latency (ms)` and `Max ITL (ms)`. */
const STAT_LABEL = /^(mean|median|std|max|p(\d+(?:\.\d+)?)) (ttft|tpot|itl|e2el|e2e latency) \(ms\)$/;

/** The header line; group 1 is whatever stands before it on every line of the block (a prefix). */
const HEADER = /^(.*?)={3,}\s*Serving Benchmark Result\s*={3,}\s*$/i;
const CLOSING = /^={20,}$/;
const SECTION = /^-+\s*[A-Za-z].*-+$/;
/** `Label:   value`; a label starts with a letter and ends with a letter, `)` or `%` (so a log time stamp is not one). */
const RESULT_LINE = /^([A-Za-z][A-Za-z0-9 ()/%.,_-]*[A-Za-z)%]):(?:\s+(.*?))?\s*$/;
/** vLLM's per-position acceptance lines, indented under "Per-position acceptance (%):". */
const POSITION_LINE = /^Position (\d+):\s+(.*?)\s*$/i;
/** The first line of a block pasted without its header. */
const HEADERLESS_START = /^Successful requests:\s+\d+\s*$/i;
const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
/** A number with one stray character after it (a Markdown table's `|`, a closing backtick, a footnote star). */
const NUMBER_WITH_STRAY = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\w\s.])$/;
/** A number, a blank, then a writer's note (`0          <<<<<<< New line`): the number is the value. */
const NUMBER_WITH_NOTE = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s+(\S.*)$/;
/** Printed for "no number": Python's `inf`/`nan`, SGLang's `not set`, vLLM's `None`. */
const NO_NUMBER_WORDS = new Set(['inf', '+inf', '-inf', 'infinity', 'nan', 'not set', 'none']);
/** Printed when a value was not measured: the value is unknown, so it is left out (with a warning). */
const UNKNOWN_WORDS = new Set(['n/a']);
/**
 * Labels only vLLM's newer layout prints (after vLLM PR #21095, July 2025, which began printing "Maximum request
 * concurrency" and "Request rate configured" whenever they are set). In an older block their absence says nothing.
 */
const NEW_LAYOUT_LABELS = new Set([
  'failed requests',
  'maximum request concurrency',
  'request rate configured (rps)',
  'peak output token throughput (tok/s)',
  'peak concurrent requests',
]);

/**
 * The "Latency" section (in seconds) of benchmark runners that print vLLM's layout (GPUStack's benchmark-runner over
 * guidellm): their blocks print no rate line whatever the rate was, so an absent one says nothing there either.
 */
const RUNNER_LABELS = new Set(['mean latency(s)', 'median latency(s)', 'p95 latency(s)', 'p99 latency(s)']);

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

/**
 * A prefix as a pattern: digits may change from line to line (a logger's time stamp), the rest is literal; trailing
 * blanks are optional, since editors trim them from an otherwise empty prefixed line.
 */
function prefixPattern(prefix: string): RegExp {
  const literal = prefix
    .replace(/\s+$/, '')
    .split(/\d+/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\d+');
  return new RegExp(`^${literal}\\s*`);
}

/** What a terminal shows of a line: a bare carriage return (a progress bar redrawing itself) starts it over. */
function shownLine(raw: string): string {
  if (!raw.includes('\r')) return raw;
  const parts = raw.split('\r');
  for (let i = parts.length - 1; i >= 0; i--) if (parts[i]!.trim() !== '') return parts[i]!;
  return '';
}

interface OpenBlock {
  block: TextBlock;
  lastLine: number;
  values: number;
  failed: boolean;
  sawDuration: boolean;
  newLayout: boolean;
  runner: boolean;
  /** Stripped from every line of the block; null when the block has none. */
  prefix: RegExp | null;
  /** Whether a line after the header has carried the prefix: until one has, the prefix may be the header's alone. */
  prefixSeen: boolean;
  /** Started at a "Successful requests:" line with no header above it. */
  headerless: boolean;
}

export function parseBenchText(text: string): TextParse {
  // Line breaks are \n and \r\n only: tqdm's bare \r redraws a line, it does not add one.
  const lines = text.split(/\r?\n/).map(shownLine);
  const out: TextParse = { blocks: [], errors: [], warnings: [] };
  let open: OpenBlock | null = null;

  const finish = (closed: boolean): void => {
    if (!open) return;
    const o = open;
    open = null;
    if (o.headerless) {
      // Clearly a result block: a duration and a few more numbers under vLLM's labels.
      if (o.failed || !o.sawDuration || o.values < 4) {
        out.warnings.push({ line: o.block.line, message: 'this looks like the start of a result block without its "Serving Benchmark Result" header line, but it has too few values to be one; not imported' });
        return;
      }
      out.warnings.push({ line: o.block.line, message: 'this result block has no "Serving Benchmark Result" header line; imported from its values' });
    } else if (!closed) {
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
    // vLLM's newer layout prints these two only when set, before the duration line: there absent means unset. An
    // older block never prints them, so there they stay unknown.
    if (o.block.client === 'vllm' && o.sawDuration && o.newLayout && !o.runner) {
      if (o.block.metrics.request_rate === undefined) o.block.metrics.request_rate = null;
      if (o.block.metrics.max_concurrency === undefined) o.block.metrics.max_concurrency = null;
    }
    out.blocks.push(o.block);
  };

  const openBlock = (lineNo: number, prefix: string, headerless: boolean): OpenBlock => ({
    block: { line: lineNo, client: 'vllm', metrics: {}, extra: {} },
    lastLine: lineNo,
    values: 0,
    failed: false,
    sawDuration: false,
    newLayout: false,
    runner: false,
    prefix: prefix.trim() === '' ? null : prefixPattern(prefix),
    prefixSeen: false,
    headerless,
  });

  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    const header = HEADER.exec(raw);
    if (header) {
      finish(false);
      open = openBlock(lineNo, header[1] ?? '', false);
      return;
    }
    if (!open) {
      if (!HEADERLESS_START.test(raw.trim())) return;
      open = openBlock(lineNo, '', true);
    }
    const o: OpenBlock = open;
    let body = raw;
    if (o.prefix) {
      const prefix = o.prefix.exec(raw);
      if (!prefix && raw.trim() === '') return;
      if (prefix) {
        o.prefixSeen = true;
        body = raw.slice(prefix[0].length);
      } else if (o.prefixSeen) {
        finish(false);
        return;
      } else {
        // Only the header had it (a quote marker on the first pasted line): the block's lines have none.
        o.prefix = null;
      }
    }
    const line = body.trim();
    // Blank lines inside a block (a blog's spacing between sections) do not end it; the next text line decides.
    if (line === '') return;
    if (CLOSING.test(line)) {
      finish(true);
      return;
    }
    if (SECTION.test(line)) {
      o.lastLine = lineNo;
      return;
    }
    const position = POSITION_LINE.exec(line);
    if (position) {
      o.lastLine = lineNo;
      const n = parsePrintedNumber(position[2] ?? '');
      // Printed in percent; vLLM's JSON keeps the fraction.
      if (typeof n === 'number') o.block.extra[perPositionAcceptanceKey(Number(position[1]))] = Number((n / 100).toPrecision(12));
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
    let value = (m[2] ?? '').trim();
    const target = targetOf(label);
    if (SGLANG_ONLY.has(label) || label.includes('e2e latency')) o.block.client = 'sglang';
    if (NEW_LAYOUT_LABELS.has(label)) o.newLayout = true;
    if (RUNNER_LABELS.has(label)) o.runner = true;
    if (UNKNOWN_WORDS.has(value.toLowerCase())) {
      out.warnings.push({ line: lineNo, message: `"${rawLabel.trim()}:" says "${value}"; imported the block without this value` });
      return;
    }
    const stray = NUMBER_WITH_STRAY.exec(value);
    if (stray) {
      out.warnings.push({ line: lineNo, message: `"${rawLabel.trim()}:" has "${stray[2]}" after its number; read ${stray[1]}` });
      value = stray[1] ?? value;
    }
    const note = NUMBER_WITH_NOTE.exec(value);
    if (note) {
      out.warnings.push({ line: lineNo, message: `"${rawLabel.trim()}:" has "${note[2]}" after its number; read ${note[1]}` });
      value = note[1] ?? value;
    }
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
