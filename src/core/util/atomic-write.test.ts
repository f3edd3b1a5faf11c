import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAbandonedTemps, writeFileAtomic } from './atomic-write';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file and leaves nothing else', async () => {
    await writeFile(join(dir, 'a.json'), 'old');
    await writeFileAtomic(join(dir, 'a.json'), 'new');
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('removes its temp file when the write fails, and keeps the old content', async () => {
    await writeFile(join(dir, 'a.json'), 'old');
    // Data the write refuses: the failure comes after the temp file was created.
    await expect(writeFileAtomic(join(dir, 'a.json'), 42 as unknown as string)).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['a.json']);
    expect(await readFile(join(dir, 'a.json'), 'utf8')).toBe('old');
  });

  it('removes its temp file when the rename fails', async () => {
    await mkdir(join(dir, 'taken', 'child'), { recursive: true });
    await expect(writeFileAtomic(join(dir, 'taken'), 'x')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['taken']);
  });

  it('removes the temp files a killed writer left, and nothing else', async () => {
    await writeFile(join(dir, 'a.json'), 'x');
    await writeFile(join(dir, '.a.json.0123456789ab.tmp'), 'half');
    await writeFile(join(dir, '.b.json.0123456789ab.tmp'), 'other file');
    await writeFile(join(dir, '.a.json.notours.tmp'), 'not ours');
    await removeAbandonedTemps(join(dir, 'a.json'));
    expect((await readdir(dir)).sort()).toEqual(['.a.json.notours.tmp', '.b.json.0123456789ab.tmp', 'a.json']);
  });
});
