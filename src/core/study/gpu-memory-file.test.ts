import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GpuMemoryFile, readGpuMemorySamples } from './gpu-memory-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-gpu-memory-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sample = (i: number, used: number) => ({ hostId: 'demo-lab', at: new Date(Date.UTC(2026, 0, 1, 0, 0, i * 2)).toISOString(), gpus: [{ index: 0, usedMiB: used, totalMiB: 81559 }] });

describe('GpuMemoryFile', () => {
  it('appends one JSON line per sample, creating the data folder, and reads them back in order', async () => {
    const path = join(dir, 'study.servelab-data', 'gpu-memory.jsonl');
    const file = new GpuMemoryFile(path);
    for (let i = 0; i < 5; i++) file.append(sample(i, i * 1000));
    await file.flush();
    expect((await readFile(path, 'utf8')).trim().split('\n')).toHaveLength(5);
    expect(await readGpuMemorySamples(path)).toEqual([0, 1, 2, 3, 4].map((i) => sample(i, i * 1000)));
  });

  it('skips a torn or foreign line, and reads a missing file as no samples', async () => {
    const path = join(dir, 'gpu-memory.jsonl');
    await appendFile(path, `${JSON.stringify(sample(0, 1))}\n{"hostId":"demo-lab","at":\n${JSON.stringify({ hostId: 'x' })}\n${JSON.stringify(sample(1, 2))}\n{"host`);
    expect(await readGpuMemorySamples(path)).toEqual([sample(0, 1), sample(1, 2)]);
    expect(await readGpuMemorySamples(join(dir, 'none.jsonl'))).toEqual([]);
  });

  it('thins a long series to the limit', async () => {
    const path = join(dir, 'gpu-memory.jsonl');
    const file = new GpuMemoryFile(path);
    for (let i = 0; i < 300; i++) file.append(sample(i, i));
    await file.flush();
    const read = await readGpuMemorySamples(path, 100);
    expect(read).toHaveLength(100);
    expect(read.at(-1)!.gpus[0]!.usedMiB).toBe(299);
  });
});
