import type { TextBlock } from '../../results/parse-bench-text';

/**
 * Checks a guide's summary numbers (its before/after table, "A (1.61 s) < B (1.68 s)" lines, the option → gain
 * table) against its own result blocks, rounded as the summary rounds them:
 *  - a plain number must be a value some block prints (ms also read as s), or a block's mean latency per request.
 *    The blocks do not print that; it follows from them as mean TTFT + mean TPOT × (output tokens per request − 1),
 *    since a request's end-to-end latency is its first token plus one TPOT per further token (to within the spread
 *    of output lengths: 1% is allowed);
 *  - a percentage or "N x" on a line with two plain numbers must be their ratio (a before/after row);
 *  - a percentage on a line of its own (an option → gain row) must be the gain of the stage the row names: the best
 *    block of that stage against the best block of an earlier stage, on the study's objective (mean latency per
 *    request, or total token throughput), from exact or two-decimal values (guides compute from rounded figures).
 * Anything else is reported with its line and, for a gain, what the stage's blocks do show.
 */

export interface SummaryNumber {
  line: number;
  /** As printed, e.g. "+66.2%", "1.61 s", "2.7x". */
  text: string;
  value: number;
  decimals: number;
  unit: 'percent' | 'times' | 'plain';
}

/** Numbers worth checking in a prose line: those with decimals, a percent sign or an "x". Integers are labels. */
export function summaryNumbers(text: string, line: number): SummaryNumber[] {
  const out: SummaryNumber[] = [];
  for (const m of text.matchAll(/([-+]?)(\d+(?:\.(\d+))?)\s*(%|x\b|×)?/g)) {
    const [whole, sign = '', digits = '', decimals = '', suffix] = m;
    const unit = suffix === '%' ? 'percent' : suffix ? 'times' : 'plain';
    if (unit === 'plain' && decimals === '') continue;
    // "%1'den az": a percent sign written before the number (Turkish) is prose, not a summary figure.
    if (m.index !== undefined && m.index > 0 && text[m.index - 1] === '%') continue;
    out.push({ line, text: whole.trim(), value: Number(`${sign}${digits}`), decimals: decimals.length, unit });
  }
  return out;
}

const round = (value: number, decimals: number): number => Math.round(value * 10 ** decimals) / 10 ** decimals;
const same = (value: number, n: SummaryNumber): boolean => Math.abs(round(value, n.decimals) - Math.abs(n.value)) <= 1e-9;

/** Mean TTFT + mean TPOT × (output tokens per request − 1), in seconds; undefined when the block lacks one of them. */
export function meanLatencyEstimate(block: TextBlock): number | undefined {
  const m = block.metrics;
  if (typeof m.mean_ttft_ms !== 'number' || typeof m.mean_tpot_ms !== 'number' || typeof m.total_output_tokens !== 'number' || typeof m.completed !== 'number' || m.completed === 0) {
    return undefined;
  }
  return (m.mean_ttft_ms + m.mean_tpot_ms * (m.total_output_tokens / m.completed - 1)) / 1000;
}

function plainShown(n: SummaryNumber, blocks: readonly TextBlock[]): boolean {
  for (const b of blocks) {
    for (const v of Object.values({ ...b.metrics, ...b.extra })) if (typeof v === 'number' && (same(v, n) || same(v / 1000, n))) return true;
    const latency = meanLatencyEstimate(b);
    if (latency !== undefined && Math.abs(latency - n.value) <= Math.max(10 ** -n.decimals / 2, 0.01 * latency)) return true;
  }
  return false;
}

export interface SummaryStage {
  title: string;
  blocks: readonly TextBlock[];
}

export interface SummaryFinding {
  line: number;
  text: string;
  /** What the stage's blocks show instead, for a gain ("+46.5%"). */
  shown?: string;
  stage?: string;
}

const wordsOf = (text: string): Set<string> => new Set(text.toLocaleLowerCase('tr').split(/[^\p{L}\p{N}.]+/u).filter((w) => w.length > 2 && !/^[\d.]+$/.test(w)));

/** The stage a gain row names: the one whose title shares the most words with the row (a word may be inflected). */
function stageOfRow(text: string, stages: readonly SummaryStage[]): number {
  const row = wordsOf(text);
  let best = -1;
  let bestScore = 0;
  stages.forEach((s, i) => {
    const title = wordsOf(s.title);
    let score = 0;
    for (const w of row) if ([...title].some((t) => t === w || (Math.min(t.length, w.length) >= 5 && (t.startsWith(w.slice(0, 5)) || w.startsWith(t.slice(0, 5)))))) score++;
    if (score > bestScore) [best, bestScore] = [i, score];
  });
  return best;
}

function gainCheck(n: SummaryNumber, stageIndex: number, stages: readonly SummaryStage[], goal: 'latency' | 'throughput'): { ok: boolean; shown?: number } {
  const objective = (b: TextBlock): number | undefined => (goal === 'latency' ? meanLatencyEstimate(b) : typeof b.metrics.total_token_throughput === 'number' ? b.metrics.total_token_throughput : undefined);
  const better = (a: number, b: number) => (goal === 'latency' ? a < b : a > b);
  const bestOf = (blocks: readonly TextBlock[]): number | undefined =>
    blocks.map(objective).reduce<number | undefined>((best, v) => (v === undefined ? best : best === undefined || better(v, best) ? v : best), undefined);
  const gain = (after: number, before: number) => (goal === 'latency' ? before / after - 1 : after / before - 1) * 100;
  const stage = stages[stageIndex];
  const after = stage ? bestOf(stage.blocks) : undefined;
  if (!stage || after === undefined) return { ok: false };
  // The engine stage compares its own engines; a later stage, its best with the best of each earlier stage.
  const befores = stageIndex === 0 ? stage.blocks.map(objective).filter((v): v is number => v !== undefined && v !== after) : stages.slice(0, stageIndex).map((s) => bestOf(s.blocks)).filter((v): v is number => v !== undefined);
  const ok = befores.some((before) => [[after, before], [round(after, 2), round(before, 2)]].some(([a, b]) => same(Math.abs(gain(a as number, b as number)), n)));
  const bestBefore = stageIndex === 0 ? befores.reduce<number | undefined>((w, v) => (w === undefined || better(w, v) ? v : w), undefined) : bestOf(stages.slice(0, stageIndex).flatMap((s) => s.blocks));
  return { ok, ...(bestBefore !== undefined ? { shown: gain(after, bestBefore) } : {}) };
}

/** The summary numbers none of the page's blocks shows. `stages`: the engine stage first, then the others in order. */
export function unshownSummaryNumbers(
  lines: readonly { text: string; line: number }[],
  blocks: readonly TextBlock[],
  stages: readonly SummaryStage[],
  goal: 'latency' | 'throughput',
): SummaryFinding[] {
  const out: SummaryFinding[] = [];
  for (const l of lines) {
    const numbers = summaryNumbers(l.text, l.line);
    const plain = numbers.filter((n) => n.unit === 'plain');
    for (const n of numbers) {
      if (n.unit === 'plain') {
        if (!plainShown(n, blocks)) out.push({ line: n.line, text: n.text });
        continue;
      }
      if (plain.length >= 2) {
        const ratioShown = plain.some((a) => plain.some((b) => a !== b && a.value > 0 && b.value > 0 && (n.unit === 'percent' ? same(Math.abs(a.value / b.value - 1) * 100, n) : same(a.value / b.value, n))));
        if (!ratioShown) out.push({ line: n.line, text: n.text });
        continue;
      }
      const stageIndex = stageOfRow(l.text, stages);
      const check = gainCheck(n, stageIndex, stages, goal);
      if (!check.ok) {
        const stage = stages[stageIndex];
        out.push({ line: n.line, text: n.text, ...(stage ? { stage: stage.title } : {}), ...(check.shown !== undefined ? { shown: `${check.shown >= 0 ? '+' : ''}${check.shown.toFixed(1)}%` } : {}) });
      }
    }
  }
  return out;
}
