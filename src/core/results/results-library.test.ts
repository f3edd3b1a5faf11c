import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultsLibrary } from './results-library';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-results-'));
  path = join(dir, 'results', 'library.json');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const entry = (title: string) => ({
  kind: 'imported' as const,
  status: 'ok' as const,
  title,
  result: { schemaVersion: 1 as const, metrics: { completed: 100, mean_ttft_ms: 21.5 }, extra: {} },
});

describe('ResultsLibrary', () => {
  it('adds, lists, reopens and removes entries', async () => {
    const library = await ResultsLibrary.open(path);
    expect(library.list()).toEqual([]);
    const [a, b] = await library.add([entry('a'), entry('b')]);
    expect(a!.id).toMatch(/^res-/);
    expect(a!.id).not.toBe(b!.id);
    const reopened = await ResultsLibrary.open(path);
    expect(reopened.list().map((e) => e.title)).toEqual(['a', 'b']);
    expect(reopened.get(b!.id).result.metrics.mean_ttft_ms).toBe(21.5);
    expect(await reopened.remove([a!.id, 'res-x-00000000'])).toBe(1);
    expect((await ResultsLibrary.open(path)).list().map((e) => e.title)).toEqual(['b']);
  });

  it('leaves a damaged file untouched, names the field, and refuses changes', async () => {
    const library = await ResultsLibrary.open(path);
    await library.add([entry('a')]);
    const text = (await readFile(path, 'utf8')).replace('"completed": 100', '"completed": "many"');
    await writeFile(path, text);
    const damaged = await ResultsLibrary.open(path);
    expect(damaged.problem).toMatch(/is damaged: entries\.0\.result\.metrics\.completed/);
    await expect(damaged.add([entry('b')])).rejects.toThrow(/cannot be changed/);
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('refuses a file from a newer version', async () => {
    const newer = join(dir, 'newer.json');
    await writeFile(newer, JSON.stringify({ schemaVersion: 9, entries: [] }));
    const library = await ResultsLibrary.open(newer);
    expect(library.problem).toMatch(/newer Servelab \(schemaVersion 9\)/);
  });
});
