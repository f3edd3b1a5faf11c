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
