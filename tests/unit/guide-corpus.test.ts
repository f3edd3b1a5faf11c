// The guide reader on published guides other than the two it was built on: the GPUStack performance-lab studies
// (English Markdown, one study each, URLs in tests/fixtures/bench-import-corpus/dev/*.expected.json). Only the
// corpus's dev part is read here; its held-out part stays for the importer's score.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importResults } from '../../src/shared/results';
import { studyFromGuide } from '../../src/shared/study/guide/study-from-guide';
import { StudyDefinitionSchema } from '../../src/shared/study/study';
import { repoRoot } from '../helpers/repo';

const DEV = join(repoRoot, 'tests', 'fixtures', 'bench-import-corpus', 'dev');
const GUIDES = readdirSync(DEV).filter((f) => /^gpustack-.*\.md$/.test(f));

describe('published guides of the same family open as studies', () => {
  it('reads at least ten of them', () => {
    expect(GUIDES.length).toBeGreaterThanOrEqual(10);
  });

  for (const file of GUIDES) {
    it(`${file}: every result block the importer finds is a published reference, and the study is valid`, () => {
      const text = readFileSync(join(DEV, file), 'utf8');
      const out = studyFromGuide(text, { fileName: file });
      expect(StudyDefinitionSchema.safeParse(out.study).success).toBe(true);
      const blocks = importResults(text, file).records.length;
      expect(blocks).toBeGreaterThan(0);
      expect(out.references.filter((r) => r.result).length).toBe(blocks);
      expect(out.references.every((r) => r.kind === 'published' && r.source.file === file)).toBe(true);
      // What the study could not take is said, never dropped: a guide without stages says why.
      if (out.study.stages.length === 0) expect(out.problems.length).toBeGreaterThan(0);
    });
  }

  it('finds stages in most of them', () => {
    const staged = GUIDES.filter((file) => studyFromGuide(readFileSync(join(DEV, file), 'utf8'), { fileName: file }).study.stages.length > 0);
    console.log(`guide corpus: ${staged.length}/${GUIDES.length} published guides open with stages`);
    expect(staged.length / GUIDES.length).toBeGreaterThanOrEqual(0.6);
  });
});
