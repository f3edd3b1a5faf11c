// What ships (the app's text, reports, examples, docs, tests and scripts) speaks of the product and of public sources
// only: it never names a document outside this repository, which a reader could not open. The repository's own docs
// (docs/ARCHITECTURE.md, docs/STYLE.md, the READMEs) are fine to name. The names are assembled here so that this file
// does not name them itself.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/repo';

const OUTSIDE_DOCUMENTS = [
  ...['METHOD', 'PRODUCT', 'engines', 'tool-anchors', 'PREAMBLE'].map((name) => `${name}.md`),
  ...['security', 'aesthetics'].map((name) => `${name}-review`),
  ['', 'work', 'shared', ''].join('/'),
  ['shared', 'spec', ''].join('/'),
  ['shared', 'reference', ''].join('/'),
];
// A review's finding ids (a letter for the severity and a number, in brackets or before a colon) name that review too.
const FINDING_ID = String.raw`\([HML][1-9][):]|(?:\/\/|\*) [HML][1-9]: `;
const PATTERN = new RegExp([...OUTSIDE_DOCUMENTS.map((name) => name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')), FINDING_ID].join('|'), 'i');
const SHIPPED = ['src', 'resources', 'examples', 'tests', 'docs', 'scripts', 'README.md', 'package.json', '.ci'];

/** Tracked and new (not ignored) files under the shipped folders: what a clone or the next commit holds. */
function shippedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', ...SHIPPED], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...new Set(out.split('\0').filter(Boolean))];
}

describe('names of documents outside the repository', () => {
  it('the scan sees the shipped text (this file among it)', () => {
    const files = shippedFiles();
    expect(files).toContain('tests/unit/internal-documents.test.ts');
    expect(files).toContain('README.md');
    expect(files.some((f) => f.startsWith('examples/'))).toBe(true);
    expect(PATTERN.test(`see ${OUTSIDE_DOCUMENTS[0]}`)).toBe(true);
    expect(PATTERN.test(`refused (${'M'}2)`)).toBe(true);
    expect(PATTERN.test('an NVIDIA L4 (sm 8.9), an H100')).toBe(false);
  });

  it('are found in no shipped file', () => {
    const found: string[] = [];
    for (const file of shippedFiles()) {
      let text: string;
      try {
        text = readFileSync(join(repoRoot, file), 'utf8');
      } catch {
        continue; // Listed but gone from the work tree (deleted, not yet committed).
      }
      if (text.includes('\0')) continue; // Binary.
      text.split('\n').forEach((line, i) => {
        const match = PATTERN.exec(line);
        if (match) found.push(`${file}:${i + 1}: ${match[0]}`);
      });
    }
    expect(found).toEqual([]);
  });
});
