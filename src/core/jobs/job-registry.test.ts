import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobRegistry, type JobRecord } from './job-registry';

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

  it('moves a damaged registry file aside, reports it, and keeps working', async () => {
    const file = join(dir, 'jobs.json');
    await writeFile(file, '{"version":1,"jobs":[{"id":1}]}');
    const registry = await JobRegistry.open(file);
    expect(registry.problem).toMatch(new RegExp(`^The job registry ${file} was damaged \\(jobs\\.0\\.id: .*\\); it was kept as ${file}\\.damaged-\\S+ and a new one was started`));
    const aside = (await readdir(dir)).filter((f) => f.startsWith('jobs.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir, aside[0]!), 'utf8')).toContain('"id":1');
    await registry.put(record('a'));
    expect((await JobRegistry.open(file)).list().map((j) => j.id)).toEqual(['a']);
  });

  it('keeps the records of two registries writing one file (two processes)', async () => {
    const file = join(dir, 'jobs.json');
    const app = await JobRegistry.open(file);
    const cli = await JobRegistry.open(file);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => app.put(record(`app-${i}`))),
      ...Array.from({ length: 10 }, (_, i) => cli.put(record(`cli-${i}`))),
    ]);
    await app.update('app-3', { state: 'exited', exitCode: 0 });
    await cli.remove('cli-0');
    app.noteOffset('app-1', 42);
    await app.flush();
    const onDisk = await JobRegistry.open(file);
    expect(onDisk.list().map((j) => j.id).sort()).toEqual([...Array.from({ length: 10 }, (_, i) => `app-${i}`), ...Array.from({ length: 9 }, (_, i) => `cli-${i + 1}`)].sort());
    expect(onDisk.get('app-3')).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(onDisk.get('app-1')?.offset).toBe(42);
    // Each sees the other's records after its own next write.
    expect(app.get('cli-5')).toBeDefined();
  });

  it('prunes finished records by age and count, never live ones', async () => {
    const file = join(dir, 'jobs.json');
    const now = Date.parse('2026-06-01T00:00:00Z');
    const registry = await JobRegistry.open(file, { now: () => now, keepFinishedMs: 24 * 3600_000, keepFinishedCount: 2 });
    const at = (h: number) => new Date(now - h * 3600_000).toISOString();
    await registry.put(record('old-running', { state: 'running', updatedAt: at(100) }));
    await registry.put(record('old-exited', { state: 'exited', updatedAt: at(30) }));
    await registry.put(record('lost-1h', { state: 'lost', updatedAt: at(1) }));
    await registry.put(record('exited-2h', { state: 'exited', updatedAt: at(2) }));
    await registry.put(record('exited-3h', { state: 'exited', updatedAt: at(3) }));
    expect((await JobRegistry.open(file)).list().map((j) => j.id).sort()).toEqual(['exited-2h', 'lost-1h', 'old-running']);
  });

  it('refuses to update a job it does not know', async () => {
    const registry = await JobRegistry.open(join(dir, 'jobs.json'));
    await expect(registry.update('nope', { state: 'lost' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
