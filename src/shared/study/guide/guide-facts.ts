import { ENGINE_IDS, type EngineId } from '../../engines/types';
import { getAdapter } from '../../engines/adapters';
import type { GoalKind } from '../study';
import type { GuideSection } from './guide-structure';
import { countWords, foldWords, wordsOf } from './guide-words';

/**
 * The facts of a guide's setup sections: its goal, its GPUs, its engine versions and the random datasets its prose
 * describes. Each reader takes the section's prose lines and answers with the fact and the line it came from, or
 * nothing (the caller reports what is missing).
 */

export interface Sourced<T> {
  value: T;
  line: number;
}

function proseOf(section: GuideSection | undefined): { text: string; line: number }[] {
  return (section?.items ?? []).filter((i): i is Extract<typeof i, { kind: 'prose' }> => i.kind === 'prose').map((i) => ({ text: i.text, line: i.line }));
}

function hasWord(text: string, words: readonly string[]): boolean {
  const folded = foldWords(text);
  return words.some((w) => new RegExp(`(^|[^\\p{L}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u').test(folded));
}

/** latency or throughput, from the goal section's words (or the page title when it has none). */
export function goalOf(goal: GuideSection | undefined, title: string): Sourced<GoalKind> | undefined {
  const lines = [...proseOf(goal), ...(goal ? [] : [{ text: title, line: 1 }])];
  for (const l of lines) {
    const latency = hasWord(l.text, wordsOf('latency'));
    const throughput = hasWord(l.text, wordsOf('throughput'));
    if (latency !== throughput) return { value: latency ? 'latency' : 'throughput', line: l.line };
  }
  return undefined;
}

/** The GPU models the demo lab can stand in for, as a guide names them. */
const GPU_MODELS: readonly { re: RegExp; id: 'h100' | 'a100' | 'h200' }[] = [
  { re: /\bH100\b/i, id: 'h100' },
  { re: /\bH200\b/i, id: 'h200' },
  { re: /\bA100\b/i, id: 'a100' },
];
/** Any other NVIDIA data-centre or workstation GPU name, to say which one the demo lab cannot be. */
const OTHER_GPU = /\b(B200|B100|GB200|L40S?|L4|A10G?|A30|A40|H20|H800|A800|RTX\s?\d{4}\w*|V100|T4)\b/i;

export interface Hardware {
  gpu?: 'h100' | 'a100' | 'h200';
  /** The GPU as the guide names it, when the demo lab has no such GPU. */
  otherGpu?: string;
  count: number;
  text: string;
  line: number;
}

export function hardwareOf(section: GuideSection | undefined): Hardware | undefined {
  for (const l of proseOf(section)) {
    const model = GPU_MODELS.find((g) => g.re.test(l.text));
    const other = OTHER_GPU.exec(l.text)?.[1];
    if (!model && !other) continue;
    const folded = foldWords(l.text);
    let count = 1;
    const digits = /(?:^|\s)(\d{1,2})\s*(?:[x×]\s*)?(?:nvidia\s+)?(?:[a-z]\d{2,4}\b|gpus?\b)/i.exec(l.text) ?? /(?:^|\s)(\d{1,2})\s*[x×]/.exec(l.text);
    if (digits) count = Number(digits[1]);
    else {
      const word = Object.entries(countWords()).find(([w]) => new RegExp(`(^|\\s)${w}(\\s|$)`, 'u').test(folded));
      if (word) count = word[1];
    }
    return { ...(model ? { gpu: model.id } : { otherGpu: other }), count, text: l.text, line: l.line };
  }
  return undefined;
}

function engineOfName(name: string): EngineId | undefined {
  const key = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return ENGINE_IDS.find((id) => {
    const display = getAdapter(id).displayName.toLowerCase().replace(/[^a-z0-9]/g, '');
    return key === id || key === display || (id === 'trtllm' && key === 'trtllm');
  });
}

/** `vLLM: v0.11.0` lines → each engine's version, with the line. */
export function engineVersionsOf(section: GuideSection | undefined): Map<EngineId, Sourced<string>> {
  const out = new Map<EngineId, Sourced<string>>();
  for (const l of proseOf(section)) {
    const m = /^[•*\-\s]*([A-Za-z][A-Za-z0-9 ._-]*?)\s*[:：]?\s+v?(\d+\.\d+[0-9A-Za-z.+_-]*)\s*$/.exec(l.text);
    const engine = m ? engineOfName(m[1] ?? '') : undefined;
    if (engine && m && !out.has(engine)) out.set(engine, { value: (m[2] ?? '').replace(/[.]$/, ''), line: l.line });
  }
  return out;
}

/** "32000 input tokens, 100 output tokens" (in any table's words) → a random dataset's lengths. */
export function randomLengthsOf(section: GuideSection | undefined): Sourced<{ inputLen: number; outputLen: number }>[] {
  const out: Sourced<{ inputLen: number; outputLen: number }>[] = [];
  const input = wordsOf('inputTokens');
  const output = wordsOf('outputTokens');
  for (const l of proseOf(section)) {
    const numbers = [...foldWords(l.text).matchAll(/(\d[\d,]*)\s+(\p{L}+)/gu)];
    const inputLen = numbers.find((n) => input.includes(n[2] ?? ''));
    const outputLen = numbers.find((n) => output.includes(n[2] ?? ''));
    if (inputLen && outputLen) {
      out.push({ value: { inputLen: Number((inputLen[1] ?? '').replace(/,/g, '')), outputLen: Number((outputLen[1] ?? '').replace(/,/g, '')) }, line: l.line });
    }
  }
  return out;
}

/** The model a setup section names, as written (`Qwen/Qwen3-8B` or just `Qwen3-32B`). */
export function modelNamedIn(section: GuideSection | undefined): Sourced<string> | undefined {
  const l = proseOf(section).find((p) => /^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(p.text.trim()));
  return l ? { value: l.text.trim(), line: l.line } : undefined;
}

/** Is `candidate` the labels of the baseline or the optimised side of a comparison? */
export function sideOf(text: string): 'baseline' | 'recommended' | undefined {
  if (hasWord(text, wordsOf('optimised'))) return 'recommended';
  if (hasWord(text, wordsOf('baseline'))) return 'baseline';
  return undefined;
}
