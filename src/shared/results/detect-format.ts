// Which kind of result a file holds, from its content (never its name): a JSON document or JSON Lines of
// result objects, else console text with result blocks.
import type { ResultFormat } from './bench-result';
import type { BenchClient } from './parse-bench-text';

export type ContentKind = 'json' | 'text';

/** An object, or an array of objects; not a log line such as `[2025-10-01 12:00:00] …`. */
export function detectContentKind(text: string): ContentKind {
  return /^\uFEFF?\s*(\{|\[\s*[{\]])/.test(text) ? 'json' : 'text';
}

export function resultFormat(client: BenchClient, kind: ContentKind, jsonLines: boolean): ResultFormat {
  if (kind === 'text') return client === 'sglang' ? 'sglang-text' : 'vllm-text';
  // SGLang always appends JSON Lines, even for one run.
  if (client === 'sglang') return 'sglang-jsonl';
  return jsonLines ? 'vllm-jsonl' : 'vllm-json';
}
