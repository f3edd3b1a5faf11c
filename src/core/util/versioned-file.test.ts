import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { readVersionedFile } from './versioned-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-versioned-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spec = { version: 1, schema: z.object({ schemaVersion: z.literal(1), items: z.array(z.string()) }) };

describe('readVersionedFile', () => {
  it('reads a file within the size cap', async () => {
    const path = join(dir, 'f.json');
    await writeFile(path, JSON.stringify({ schemaVersion: 1, items: ['a'] }));
    expect((await readVersionedFile(path, { ...spec, maxBytes: 1024 }))?.data.items).toEqual(['a']);
    expect(await readVersionedFile(join(dir, 'missing.json'), spec)).toBeNull();
  });

  it('refuses a file over the size cap with its size, leaving it untouched', async () => {
    const path = join(dir, 'f.json');
    const text = JSON.stringify({ schemaVersion: 1, items: Array.from({ length: 200_000 }, () => 'x'.repeat(10)) });
    await writeFile(path, text);
    await expect(readVersionedFile(path, { ...spec, maxBytes: 1024 * 1024 })).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(new RegExp(`^${path} is 2\\.5 MiB, more than the 1 MiB a Servelab file may have; it was left untouched\\.`)),
    });
    expect(await readFile(path, 'utf8')).toBe(text);
  });
});
