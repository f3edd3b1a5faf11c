import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobRegistry, type JobRecord } from './job-registry';
import { ServelabError } from '../../shared/contract';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-registry-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function record(id: string, extra: Partial<JobRecord> = {}): JobRecord {
  const now = new Date().toISOString();
  return { id, hostId: 'box', remoteDir: `/home/u/.servelab/jobs/${id}`, command: 'echo hi', offset: 0, state: 'running', createdAt: now, updatedAt: now, ...extra };
}

describe('JobRegistry', () => {
  it('starts empty without a file and round-trips records through it', async () => {
    const file = join(dir, 'nested', 'jobs.json');
    const registry = await JobRegistry.open(file);
    expect(registry.list()).toEqual([]);
    await registry.put(record('b', { label: 'bench' }));
    await registry.put(record('a', { hostId: 'other' }));
    await registry.update('b', { state: 'exited', exitCode: 3 });
    const reopened = await JobRegistry.open(file);
    expect(reopened.get('b')).toMatchObject({ label: 'bench', state: 'exited', exitCode: 3 });
    expect(reopened.list({ hostId: 'other' }).map((j) => j.id)).toEqual(['a']);
    await reopened.remove('a');
    expect((await JobRegistry.open(file)).list().map((j) => j.id)).toEqual(['b']);
  });

  it('writes offsets lazily, only forward, and at once on flush', async () => {
    const file = join(dir, 'jobs.json');
    const registry = await JobRegistry.open(file, { offsetWriteDelayMs: 60_000 });
    await registry.put(record('a'));
    registry.noteOffset('a', 100);
    registry.noteOffset('a', 50);
    expect(registry.get('a')?.offset).toBe(100);
    expect((await JobRegistry.open(file)).get('a')?.offset).toBe(0);
    await registry.flush();
    expect((await JobRegistry.open(file)).get('a')?.offset).toBe(100);
  });

  it('names a corrupt registry file instead of silently forgetting its jobs', async () => {
    const file = join(dir, 'jobs.json');
    await writeFile(file, '{"version":1,"jobs":[{"id":1}]}');
    const error = await JobRegistry.open(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).message).toContain(file);
    expect(await readFile(file, 'utf8')).toContain('"id":1');
  });

  it('refuses to update a job it does not know', async () => {
    const registry = await JobRegistry.open(join(dir, 'jobs.json'));
    await expect(registry.update('nope', { state: 'lost' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
