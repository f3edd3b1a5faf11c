import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { EngineId, LogClass } from '../../src/shared/engines';

/** What a corpus log must be classified as (the JSON beside it). */
export interface LogCorpusExpectation {
  /** Passed to the classifier as the engine hint; absent, the classifier must recognise the engine itself. */
  engine?: EngineId;
  class: LogClass;
  line: number | null;
  /** Must be part of the verdict's evidence. */
  evidence: string;
  /** Each must be part of the verdict's hint. */
  hint: string[];
  /** The engine the classifier must report when no hint was given. */
  detectedEngine?: EngineId;
}

export interface LogCorpusCase {
  name: string;
  path: string;
  text: string;
  expect: LogCorpusExpectation;
}

export const LOG_CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/engine-logs');

/** The realistic engine logs in tests/fixtures/engine-logs/, each with its expected verdict. */
export function loadLogCorpus(dir = LOG_CORPUS_DIR): LogCorpusCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((file) => {
      const name = file.replace(/\.log$/, '');
      const path = join(dir, file);
      const expect = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as LogCorpusExpectation;
      return { name, path, text: readFileSync(path, 'utf8'), expect };
    });
}

// ---------------------------------------------------------------------------------------------------------------
// The real corpus: server logs users pasted in public threads (tests/fixtures/engine-log-corpus/README.md).

/** One real log's label, as its two labellers agreed on it. */
export interface RealLogLabel {
  id: string;
  /** The public thread the log was pasted in. */
  source: string;
  engine: EngineId;
  version: string | null;
  class: LogClass;
  /** The line of the log that decides the class. */
  decisive: string;
  confidence: 'high' | 'medium' | 'low';
  split: 'dev' | 'held-out';
  /** Set when the text is not a server log after all (kept for the record, never scored). */
  exclude?: string;
}

export interface RealLogCase {
  label: RealLogLabel;
  text: string;
}

export const REAL_CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/engine-log-corpus');

/** The scored logs of one part of the real corpus (the development part, or the held-out part no rule is tuned on). */
export function loadRealCorpus(part: 'dev' | 'held-out', dir = REAL_CORPUS_DIR): RealLogCase[] {
  const folder = join(dir, part);
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const label = JSON.parse(readFileSync(join(folder, file), 'utf8')) as RealLogLabel;
      return { label, text: readFileSync(join(folder, file.replace(/\.json$/, '.log')), 'utf8') };
    })
    .filter((c) => !c.label.exclude);
}

export interface CorpusScore {
  total: number;
  right: number;
  /** A failure or a log still starting, called ready. */
  falseReady: string[];
  /** A ready log called a failure. */
  falseFailure: string[];
  /** expected class → predicted class → count */
  confusion: Map<LogClass, Map<LogClass, number>>;
  misses: { id: string; expected: LogClass; got: LogClass; evidence: string }[];
}

const NOT_FAILED: readonly LogClass[] = ['ready', 'starting'];

export function scoreCorpus(cases: readonly RealLogCase[], classify: (c: RealLogCase) => LogClass | { class: LogClass; evidence: string }): CorpusScore {
  const score: CorpusScore = { total: 0, right: 0, falseReady: [], falseFailure: [], confusion: new Map(), misses: [] };
  for (const c of cases) {
    const out = classify(c);
    const got = typeof out === 'string' ? out : out.class;
    const expected = c.label.class;
    score.total++;
    const row = score.confusion.get(expected) ?? new Map<LogClass, number>();
    row.set(got, (row.get(got) ?? 0) + 1);
    score.confusion.set(expected, row);
    if (got === expected) {
      score.right++;
      continue;
    }
    score.misses.push({ id: c.label.id, expected, got, evidence: typeof out === 'string' ? '' : out.evidence });
    if (got === 'ready') score.falseReady.push(c.label.id);
    if (expected === 'ready' && !NOT_FAILED.includes(got)) score.falseFailure.push(c.label.id);
  }
  return score;
}

/** The per-class table CI prints: logs, right, recall, and what the misses were called. */
export function formatScore(title: string, score: CorpusScore): string {
  const pct = (a: number, b: number) => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`);
  const lines = [`${title}: ${score.right}/${score.total} right (${pct(score.right, score.total)}); false ready: ${score.falseReady.length}; ready called a failure: ${score.falseFailure.length}`];
  lines.push(`  ${'class'.padEnd(20)}${'logs'.padStart(6)}${'right'.padStart(7)}${'recall'.padStart(8)}  misses called`);
  for (const [expected, row] of [...score.confusion.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const total = [...row.values()].reduce((a, b) => a + b, 0);
    const right = row.get(expected) ?? 0;
    const wrong = [...row.entries()].filter(([k]) => k !== expected).map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`  ${expected.padEnd(20)}${String(total).padStart(6)}${String(right).padStart(7)}${pct(right, total).padStart(8)}  ${wrong}`);
  }
  return lines.join('\n');
}
