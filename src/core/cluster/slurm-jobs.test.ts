// Reading a job's output file through a box transport needs no Slurm: any file on the login node will do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBoxTransport } from '../box/local-box-transport';
import { readSlurmJobOutput } from './slurm-jobs';

describe('readSlurmJobOutput', () => {
  let dir: string;
  let box: LocalBoxTransport;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-slurm-output-'));
    box = new LocalBoxTransport({ hostId: 'here', home: dir });
  });
  afterAll(async () => {
    box.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads from offsets in small pieces that join back to the file, never cutting a character', async () => {
    const text = 'ölçüm 1 — 🚀 done\n';
    await writeFile(join(dir, 'job.out'), text);
    // 1 byte is read as 4: the rocket takes four.
    for (const maxBytes of [1, 4, 5, 7]) {
      let offset = 0;
      let joined = '';
      for (let reads = 0; reads < 100; reads++) {
        const chunk = await readSlurmJobOutput(box, '~/job.out', offset, { maxBytes });
        expect(chunk.size).toBe(Buffer.byteLength(text));
        joined += chunk.text;
        if (chunk.nextOffset === offset) break;
        offset = chunk.nextOffset;
      }
      expect(joined).toBe(text);
      expect(offset).toBe(Buffer.byteLength(text));
    }
  });

  it('says when the file is not there yet, and keeps the offset', async () => {
    expect(await readSlurmJobOutput(box, join(dir, 'not yet.out'), 12)).toEqual({ text: '', nextOffset: 12, size: null });
  });

  it('keeps a character cut by the read for the next one', async () => {
    await writeFile(join(dir, 'cut.out'), Buffer.from('aé', 'utf8').subarray(0, 2));
    expect(await readSlurmJobOutput(box, join(dir, 'cut.out'), 0)).toEqual({ text: 'a', nextOffset: 1, size: 2 });
  });
});
