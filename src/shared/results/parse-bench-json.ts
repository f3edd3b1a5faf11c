// vLLM's `--save-result` JSON (one object; JSON Lines with `--append-result`; `vllm bench sweep`'s summary.json, an
// array of them) and SGLang's `bench_serving` JSONL (python/sglang/bench_serving.py). Python's json writes inf and nan as the
// bare tokens Infinity and NaN: accepted here.
import { SPEC_DECODE_PER_POSITION_KEY, isBenchMetricKey, perPositionAcceptanceKey, type BenchMetrics, type ResultProvenance } from './bench-result';
import type { BenchClient } from './parse-bench-text';

export interface JsonProblem {
  line: number;
  message: string;
}

export interface JsonObjectAt {
  /** 1-based line where the object starts. */
  line: number;
  value: Record<string, unknown>;
}

export interface JsonParse {
  /** One object for a whole-file JSON document, one per element of an array, else one per JSON Lines line. */
  objects: JsonObjectAt[];
  lines: boolean;
  errors: JsonProblem[];
}

export interface JsonRun {
  client: BenchClient;
  metrics: BenchMetrics;
  extra: Record<string, number | null>;
  provenance: ResultProvenance;
  numPrompts?: number;
}

/** JSON with Python's bare `Infinity`, `-Infinity` and `NaN` outside strings (as `1e999`, `-1e999` and null). */
export function parseLenientJson(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (text.startsWith('Infinity', i)) {
      out += '1e999';
      i += 'Infinity'.length - 1;
    } else if (text.startsWith('NaN', i)) {
      out += 'null';
      i += 'NaN'.length - 1;
    } else out += c;
  }
  return JSON.parse(out);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The line of a JSON.parse failure, from the "position N" it names, counted from `firstLine`. */
function failureLine(text: string, error: unknown, firstLine: number): { line: number; reason: string } {
  const reason = error instanceof Error ? error.message : String(error);
  const at = /position (\d+)/.exec(reason);
  const offset = at ? Number(at[1]) : 0;
  return { line: firstLine + (text.slice(0, offset).match(/\n/g)?.length ?? 0), reason };
}

/** The 1-based line of each object that starts directly inside the document's top-level array. */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (c === '{' && depth === 1) lines.push(line);
      depth++;
    } else if (c === ']' || c === '}') depth--;
  }
  return lines;
}

export function parseBenchJsonText(text: string): JsonParse {
  try {
    const whole = parseLenientJson(text);
    if (isObject(whole)) return { objects: [{ line: 1 + (/^\s*/.exec(text)?.[0].match(/\n/g)?.length ?? 0), value: whole }], lines: false, errors: [] };
    if (Array.isArray(whole) && whole.length > 0 && whole.every(isObject)) {
      const lines = elementLines(text);
      return { objects: whole.map((value, i) => ({ line: lines[i] ?? 1, value })), lines: false, errors: [] };
    }
    return { objects: [], lines: false, errors: [{ line: 1, message: 'this JSON is not an object or an array of objects; a benchmark result is one object per run' }] };
  } catch {
    // Not one document: JSON Lines, one run per line.
  }
  const out: JsonParse = { objects: [], lines: true, errors: [] };
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const value = parseLenientJson(raw);
      if (isObject(value)) out.objects.push({ line: i + 1, value });
      else out.errors.push({ line: i + 1, message: 'this JSON line is not an object; a benchmark result is one object per run' });
    } catch (error) {
      out.errors.push({ line: i + 1, message: `not valid JSON (${failureLine(raw, error, i + 1).reason})` });
    }
  });
  return out;
}

/** SGLang's names for the end-to-end latency statistics. */
const SGLANG_E2E = /^(mean|median|std|p\d+(?:\.\d+)?)_e2e_latency_ms$/;
/** Keys only SGLang writes: they decide the client. */
const SGLANG_KEYS = ['total_output_tokens_retokenized', 'mean_e2e_latency_ms', 'total_input_text_tokens', 'dataset_name', 'server_info'];
/** Other clients' and versions' names for vLLM's keys: SGLang's `total_throughput`, vLLM 0.8–0.9's `request_goodput:`. */
const KEY_ALIASES: Record<string, string> = { total_throughput: 'total_token_throughput', 'request_goodput:': 'request_goodput' };
/** Per-request detail (`--save-detailed`, `--output-details`) and other lists: not run metrics (request-samples.ts reads vLLM's). */
const DETAIL_KEYS = new Set(['input_lens', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors', 'start_times', 'rps_change_events', 'server_info', 'latencies', 'queue_times']);

/** Which client wrote this object. */
export function jsonClient(value: Record<string, unknown>): BenchClient {
  if ('model_id' in value || 'endpoint_type' in value) return 'vllm';
  return SGLANG_KEYS.some((k) => k in value) ? 'sglang' : 'vllm';
}

function asNumber(value: unknown): number | null | undefined {
  if (value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^[-+]?(inf|infinity|nan)$/i.test(value.trim())) return null;
  return undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);
const finite = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** The metrics, extras and provenance of one result object; a message when a metric is not a number. */
export function runFromJson(value: Record<string, unknown>): JsonRun | { error: string } {
  const client = jsonClient(value);
  if (!('completed' in value)) {
    return { error: 'this JSON object has no "completed" count, so it is not a vllm bench serve or sglang.bench_serving result' };
  }
  const metrics: Record<string, number | null> = {};
  const extra: Record<string, number | null> = {};
  const metadata: Record<string, string> = {};
  const p: ResultProvenance = { client: { name: client === 'vllm' ? 'vllm bench serve' : 'sglang.bench_serving' } };
  const workload: NonNullable<ResultProvenance['workload']> = {};
  const clientInfo = p.client!;

  for (const [rawKey, v] of Object.entries(value)) {
    const key = KEY_ALIASES[rawKey] ?? rawKey;
    // Another name for a key the object also has under vLLM's own name: that one wins.
    if (key !== rawKey && key in value) continue;
    const e2e = SGLANG_E2E.exec(key);
    const metricKey = e2e ? `${e2e[1]}_e2el_ms` : isBenchMetricKey(key) ? key : undefined;
    if (metricKey) {
      const n = key === 'request_rate' && v === 'trace' ? null : asNumber(v);
      if (n === undefined) return { error: `"${key}" is not a number (${JSON.stringify(v)})` };
      metrics[metricKey] = n;
    }
    switch (key) {
      case 'date':
        if (text(v)) p.timestamps = { clientDate: text(v) };
        break;
      case 'backend':
      case 'endpoint_type':
        if (text(v) && !clientInfo.backend) clientInfo.backend = text(v);
        break;
      case 'label':
      case 'tag':
        if (text(v)) clientInfo.label = text(v);
        break;
      case 'model_id':
        if (text(v)) p.model = text(v);
        break;
      case 'tokenizer_id':
        if (text(v)) p.tokenizer = text(v);
        break;
      case 'num_prompts':
        if (count(v) !== undefined) workload.numPrompts = count(v);
        break;
      case 'request_rate':
        if (v === 'inf' || v === Infinity) workload.requestRate = 'inf';
        else if (v === 'trace') workload.requestRate = 'trace';
        else if (finite(v) !== undefined) workload.requestRate = finite(v);
        break;
      case 'burstiness':
        // Python's json.dump writes --burstiness inf as a bare Infinity.
        if (v === Infinity || v === 'inf') workload.burstiness = 'inf';
        else if (finite(v) !== undefined) workload.burstiness = finite(v);
        break;
      case 'max_concurrency':
        workload.maxConcurrency = count(v) || null;
        break;
      case 'ramp_up_strategy':
        if (text(v)) workload.rampUp = { strategy: text(v)!, startRps: finite(value.ramp_up_start_rps) ?? null, endRps: finite(value.ramp_up_end_rps) ?? null };
        break;
      case 'dataset_name':
        if (text(v)) p.dataset = { name: text(v) };
        break;
      case 'random_input_len':
        if (count(v) !== undefined) workload.randomInputLen = count(v);
        break;
      case 'random_output_len':
        if (count(v) !== undefined) workload.randomOutputLen = count(v);
        break;
      case 'random_range_ratio':
        if (finite(v) !== undefined) workload.randomRangeRatio = finite(v);
        break;
      case 'sharegpt_output_len':
        workload.sharegptOutputLen = count(v) ?? null;
        break;
      case 'ramp_up_start_rps':
      case 'ramp_up_end_rps':
        break;
      case SPEC_DECODE_PER_POSITION_KEY:
        if (Array.isArray(v)) v.forEach((rate, i) => { if (typeof rate === 'number') extra[perPositionAcceptanceKey(i)] = asNumber(rate) ?? null; });
        break;
      default:
        if (metricKey || DETAIL_KEYS.has(key)) break;
        // Keys of other versions or clients: numbers kept as extras, text (`--metadata KEY=VALUE`) as metadata.
        if (typeof v === 'number' || v === null) extra[key] = asNumber(v) ?? null;
        else if (typeof v === 'string') metadata[key] = v;
    }
  }
  if (Object.keys(workload).length > 0) p.workload = workload;
  if (Object.keys(metadata).length > 0) p.metadata = metadata;
  return { client, metrics: metrics as BenchMetrics, extra, provenance: p, ...(workload.numPrompts !== undefined ? { numPrompts: workload.numPrompts } : {}) };
}
