// Checks the corpus's `.expected.json` files against the raw text, not against the importer: an expectation written
// by following the importer's own rules cannot catch the importer's errors. This reader is deliberately naive and
// separate from src/shared/results: it keeps its own label table, copied from the print statements of vLLM's
// vllm/benchmarks/serve.py and SGLang's python/sglang/bench_serving.py (the one place this table is repeated, on
// purpose: an oracle that imported the parser's table would share its mistakes). For each text record it reads every
// `Label: value` line from the record's line to the block's end, by plain substring search, and requires each printed
// number under its vLLM key in the expected file, and each expected value printed in the block.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';

const CORPUS = join(repoRoot, 'tests', 'fixtures', 'bench-import-corpus');

/** Printed label (lower case, without its colon) → vLLM's `--save-result` key. */
const LABEL_KEYS: Record<string, string> = {
  'successful requests': 'completed',
  'failed requests': 'failed',
  'maximum request concurrency': 'max_concurrency',
  'request rate configured (rps)': 'request_rate',
  'benchmark duration (s)': 'duration',
  'total input tokens': 'total_input_tokens',
  'total generated tokens': 'total_output_tokens',
  'request throughput (req/s)': 'request_throughput',
  'request goodput (req/s)': 'request_goodput',
  'output token throughput (tok/s)': 'output_throughput',
  'peak output token throughput (tok/s)': 'max_output_tokens_per_s',
  'peak concurrent requests': 'max_concurrent_requests',
  'total token throughput (tok/s)': 'total_token_throughput',
  'acceptance rate (%)': 'spec_decode_acceptance_rate',
  'acceptance length': 'spec_decode_acceptance_length',
  drafts: 'spec_decode_num_drafts',
  'draft tokens': 'spec_decode_draft_tokens',
  'accepted tokens': 'spec_decode_accepted_tokens',
  // SGLang's bench_serving.
  'traffic request rate': 'request_rate',
  'max request concurrency': 'max_concurrency',
  'max reqeuest concurrency': 'max_concurrency',
  'total throughput (tok/s)': 'total_token_throughput',
  // GPUStack's benchmark runner, in seconds.
  'mean latency(s)': 'mean_latency_s',
};
/** Printed, but not under a metric key: read so a longer label is not mistaken for a shorter one, then skipped. */
const OTHER_LABELS = ['input token throughput (tok/s)', 'total generated tokens (retokenized)', 'total input text tokens', 'total input vision tokens'];
const STAT = /((?:mean|median|std|p\d+(?:\.\d+)?) (?:ttft|tpot|itl|e2el|e2e latency) \(ms\)):(.*)$/;
const POSITION = /Position (\d+):\s+(\S+)/;
const LABELS_LONGEST_FIRST = [...Object.keys(LABEL_KEYS), ...OTHER_LABELS].sort((a, b) => b.length - a.length);

interface ExpectedRecord {
  line: number;
  format: string;
  metrics: Record<string, number | null>;
  extra?: Record<string, number>;
}

function statKey(label: string): string {
  const [stat = '', name = ''] = label.replace(' (ms)', '').replace('e2e latency', 'e2el').split(' ');
  return `${stat}_${name}_ms`;
}

/** A printed value: a number, null for `inf`/`not set`, 'n/a' when not measured, undefined for anything else. */
function printedValue(text: string): number | null | 'n/a' | undefined {
  const word = text.trim().replace(/[`*|]+$/, '').trim().toLowerCase();
  if (['inf', 'not set', 'none', 'nan'].includes(word)) return null;
  if (word === 'n/a') return word;
  const number = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(word);
  return number ? Number(number[0]) : undefined;
}

/** Key → [value, line] of every labelled line of the block that starts at `start` (1-based). */
function readBlock(lines: string[], start: number): Map<string, [number | null | 'n/a' | undefined, number]> {
  const out = new Map<string, [number | null | 'n/a' | undefined, number]>();
  for (let i = start - 1; i < Math.min(lines.length, start + 120); i++) {
    const raw = lines[i]!.split('\r').filter((part) => part.trim() !== '').pop() ?? '';
    if (i > start - 1 && raw.includes('Serving Benchmark Result')) break;
    if (/={20,}\s*$/.test(raw) && !raw.includes('Serving Benchmark Result')) break;
    const position = POSITION.exec(raw);
    if (position) {
      const value = printedValue(position[2]!);
      out.set(`spec_decode_per_position_acceptance_rates.${position[1]}`, [typeof value === 'number' ? Number((value / 100).toPrecision(12)) : value, i + 1]);
      continue;
    }
    const low = raw.toLowerCase();
    let key: string | undefined;
    let rest: string;
    const label = LABELS_LONGEST_FIRST.find((l) => {
      const at = low.indexOf(`${l}:`);
      return at >= 0 && (at === 0 || !/[a-z]/.test(low[at - 1]!));
    });
    if (label) {
      key = LABEL_KEYS[label];
      rest = raw.slice(low.indexOf(`${label}:`) + label.length + 1);
      if (!key) continue;
    } else {
      const stat = STAT.exec(low);
      if (!stat) continue;
      key = statKey(stat[1]!);
      rest = raw.slice(low.length - stat[2]!.length);
    }
    // A label seen twice: the next block began without a header line this reader knows.
    if (out.has(key)) break;
    out.set(key, [printedValue(rest), i + 1]);
  }
  return out;
}

const cases = ['dev', 'held-out'].flatMap((split) =>
  readdirSync(join(CORPUS, split))
    .filter((name) => name.endsWith('.expected.json'))
    .map((name) => [split, name] as const),
);

describe('corpus transcriptions, read again from the raw text', () => {
  it.each(cases)('%s/%s: every printed number is in the expected file, and every expected value is printed', (split, name) => {
    const expected = JSON.parse(readFileSync(join(CORPUS, split, name), 'utf8')) as { file: string; records: ExpectedRecord[] };
    const raw = readFileSync(join(CORPUS, split, expected.file), 'utf8');
    // JSON files are checked by their own keys in the corpus test; this reads printed blocks.
    if (/^\s*[[{]/.test(raw)) return;
    const lines = raw.split(/\r?\n/);
    const disagreements: string[] = [];
    for (const record of expected.records) {
      const want: Record<string, number | null> = { ...record.metrics, ...record.extra };
      const printed = readBlock(lines, record.line);
      for (const [key, [value, line]] of printed) {
        if (value === 'n/a') {
          if (key in want) disagreements.push(`${line}: ${key} says N/A, expected ${want[key]}`);
        } else if (value === undefined) disagreements.push(`${line}: ${key} prints no number`);
        else if (want[key] !== value) disagreements.push(`${line}: ${key} prints ${value}, expected ${want[key]}`);
      }
      for (const key of Object.keys(want)) {
        // vLLM's newer layout leaves out an unset rate or concurrency: those nulls are not printed (README).
        const unsetAndUnprinted = (key === 'request_rate' || key === 'max_concurrency') && want[key] === null;
        if (!printed.has(key) && !unsetAndUnprinted) disagreements.push(`${record.line}: ${key} expected ${want[key]}, not printed`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
