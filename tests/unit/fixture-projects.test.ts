// The finished project the end-to-end specs open (Playwright cannot load the shared code that builds it) is the one
// tests/helpers/study-projects.ts builds: written by `SERVELAB_WRITE_FIXTURES=1 npx vitest run tests/unit/fixture-projects.test.ts`.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectFileSchema } from '../../src/shared/study/study';
import { repoRoot } from '../helpers/repo';
import { studyAProject } from '../helpers/study-projects';

const FILE = join(repoRoot, 'tests/fixtures/projects/latency-study-done.servelab');

describe('tests/fixtures/projects', () => {
  it('latency-study-done.servelab is the latency study of tests/helpers/study-projects.ts, and a valid project', async () => {
    const built = `${JSON.stringify(studyAProject(), null, 2)}\n`;
    if (process.env.SERVELAB_WRITE_FIXTURES === '1') await writeFile(FILE, built);
    const stored = await readFile(FILE, 'utf8');
    expect(stored).toBe(built);
    expect(ProjectFileSchema.safeParse(JSON.parse(stored)).success).toBe(true);
  });
});
