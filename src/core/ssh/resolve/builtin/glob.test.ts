import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glob } from './glob';

// glob(3) as glibc does it for ssh's Include: sorted, classes, hidden files only matched literally.
describe('Include glob', () => {
  let dir: string;
  const ctx = () => ({ tildeHome: dir, userHome: () => null });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-glob-'));
    await mkdir(join(dir, 'd'));
    for (const name of ['b.conf', 'a.conf', 'B.conf', '.hidden.conf', 'c1', 'c2', 'cx']) await writeFile(join(dir, 'd', name), '');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sorts in byte order and skips hidden files', () => {
    expect(glob(join(dir, 'd', '*.conf'), ctx())).toEqual(['B.conf', 'a.conf', 'b.conf'].map((n) => join(dir, 'd', n)));
    expect(glob(join(dir, 'd', '.*.conf'), ctx())).toEqual([join(dir, 'd', '.hidden.conf')]);
  });

  it('matches bracket classes and negated classes', () => {
    expect(glob(join(dir, 'd', 'c[0-9]'), ctx())).toEqual([join(dir, 'd', 'c1'), join(dir, 'd', 'c2')]);
    expect(glob(join(dir, 'd', 'c[!0-9]'), ctx())).toEqual([join(dir, 'd', 'cx')]);
  });

  it('expands ~ and returns nothing for no match or a missing literal path', () => {
    expect(glob('~/d/a.conf', ctx())).toEqual([join(dir, 'd', 'a.conf')]);
    expect(glob(join(dir, 'd', 'zz*'), ctx())).toEqual([]);
    expect(glob(join(dir, 'd', 'missing'), ctx())).toEqual([]);
  });
});
