import { arrivalOf, type Arrival } from '../../bench/arrival';
import { describeWorkload, type Workload } from '../../bench/workload';
import type { TextBlock } from '../../results/parse-bench-text';

/**
 * Which workload a printed result block measured, from what the block itself prints: how many requests finished
 * (plus failed), the concurrency cap (vLLM prints "Maximum request concurrency" only when one was set) and, for a
 * random dataset, the input tokens per request. A guide's label above a block ("BS=1", "random 32K input") is prose;
 * the block's own numbers decide.
 */

export type WorkloadShape = Omit<Workload, 'id' | 'label'>;

export function workloadIdOf(w: WorkloadShape): string {
  const d = w.dataset;
  const data = d.kind === 'random' ? `random-${d.inputLen}-${d.outputLen}` : d.kind === 'sharegpt' ? 'sharegpt' : 'custom';
  const load = w.maxConcurrency !== undefined ? `c${w.maxConcurrency}` : 'unbounded';
  return `${data}-${w.numPrompts}-${load}${arrivalIdPart(arrivalOf(w))}`;
}

/** How a rate sweep's workloads differ in their ids: `-r8` (Poisson), `-r8-b0.5`, `-r8-const`, `-ramp1-16-linear`. */
function arrivalIdPart(a: Arrival): string {
  switch (a.kind) {
    case 'burst':
      return '';
    case 'poisson':
      return `-r${a.rate}`;
    case 'gamma':
      return `-r${a.rate}-b${a.burstiness}`;
    case 'constant':
      return `-r${a.rate}-const`;
    case 'ramp':
      return `-ramp${a.startRps}-${a.endRps}-${a.strategy}`;
  }
}

export function withIdentity(w: WorkloadShape): Workload {
  const seed = w.seed !== undefined ? `, seed ${w.seed}` : '';
  return { id: workloadIdOf(w), label: `${describeWorkload({ ...w, id: 'x' })}${seed}`, ...w };
}

interface BlockFacts {
  requests: number | undefined;
  maxConcurrency: number | undefined;
  inputPerRequest: number | undefined;
  /** "Request rate configured (RPS)", printed (two decimals) whenever the rate was not inf; undefined when not printed. */
  requestRate: number | undefined;
}

export function blockFacts(block: TextBlock): BlockFacts {
  const m = block.metrics;
  const completed = typeof m.completed === 'number' ? m.completed : undefined;
  const failed = typeof m.failed === 'number' ? m.failed : 0;
  return {
    requests: completed !== undefined ? completed + failed : undefined,
    maxConcurrency: typeof m.max_concurrency === 'number' ? m.max_concurrency : undefined,
    inputPerRequest: completed && typeof m.total_input_tokens === 'number' ? m.total_input_tokens / completed : undefined,
    requestRate: typeof m.request_rate === 'number' ? m.request_rate : undefined,
  };
}

/** Random prompts are cut to the asked length up to tokenizer round trips: within 2% (or the range ratio). */
function inputMatches(w: WorkloadShape, facts: BlockFacts): boolean {
  if (w.dataset.kind !== 'random') return true;
  if (facts.inputPerRequest === undefined) return false;
  const slack = Math.max(0.02, w.dataset.rangeRatio ?? 0) * w.dataset.inputLen + 1;
  return Math.abs(facts.inputPerRequest - w.dataset.inputLen) <= slack;
}

/** Does the block show a run of this workload? `anyPrompts`: the workload's prompt count is not known yet. */
export function blockMatches(block: TextBlock, w: WorkloadShape, anyPrompts = false): boolean {
  const facts = blockFacts(block);
  if (!anyPrompts && facts.requests !== w.numPrompts) return false;
  if (facts.maxConcurrency !== w.maxConcurrency) return false;
  // A block that prints its configured rate ran at that rate (a ramp prints none: its --request-rate stays inf).
  if (facts.requestRate !== undefined && (w.requestRate === undefined || Math.abs(facts.requestRate - w.requestRate) > 0.005)) return false;
  return inputMatches(w, facts);
}

/** The workloads to try a block against: random ones first, so a ShareGPT workload never takes a random block. */
export function matchWorkload(block: TextBlock, workloads: readonly Workload[]): Workload | undefined {
  const ordered = [...workloads.filter((w) => w.dataset.kind === 'random'), ...workloads.filter((w) => w.dataset.kind !== 'random')];
  return ordered.find((w) => blockMatches(block, w));
}

/**
 * A workload for a block no declared workload matches: the closest declared one (same dataset kind, and a random
 * one only when the input lengths agree) with the block's own prompt count and concurrency.
 */
export function workloadFromBlock(block: TextBlock, declared: readonly Workload[]): WorkloadShape | undefined {
  const facts = blockFacts(block);
  if (facts.requests === undefined) return undefined;
  const template = declared.find((w) => w.dataset.kind === 'random' && inputMatches(w, facts)) ?? declared.find((w) => w.dataset.kind !== 'random');
  if (!template) return undefined;
  const { id: _id, label: _label, maxConcurrency: _c, ...rest } = template;
  return { ...rest, numPrompts: facts.requests, ...(facts.maxConcurrency !== undefined ? { maxConcurrency: facts.maxConcurrency } : {}) };
}
