import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeHolder, processStartOf, tryLock, withLock, type LockHolder } from './lock-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function bootId(): Promise<string | null> {
  return readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((t) => t.trim(), () => null);
}

async function plant(path: string, holder: Partial<LockHolder>): Promise<void> {
  const full: LockHolder = {
    pid: process.pid,
    program: 'servelab run',
    hostname: hostname(),
    bootId: await bootId(),
    processStart: processStartOf(process.pid),
    since: '2026-01-01T00:00:00.000Z',
    token: 'planted',
    ...holder,
  };
  await writeFile(path, JSON.stringify(full));
}

describe('lock files', () => {
  it('refuses a second holder and names the first; released, it can be taken again', async () => {
    const path = join(dir, 'nested', 'run.lock');
    const first = await tryLock(path, { program: 'servelab run' });
    expect(first.ok).toBe(true);
    const second = await tryLock(path, { program: 'the Servelab desktop app' });
    expect(second.ok).toBe(false);
    if (second.ok || !second.holder) throw new Error('expected a holder');
    expect(describeHolder(second.holder)).toMatch(new RegExp(`^servelab run \\(pid ${process.pid}, since \\d{4}-`));
    if (first.ok) await first.lock.release();
    expect(existsSync(path)).toBe(false);
    const third = await tryLock(path);
    expect(third.ok).toBe(true);
    if (third.ok) await third.lock.release();
  });

  it('takes over a lock whose process is gone, whose pid was reused, or that is from an earlier boot', async () => {
    const path = join(dir, 'run.lock');
    const cases: Partial<LockHolder>[] = [{ pid: deadPid() }, { processStart: '1' }];
    if (await bootId()) cases.push({ bootId: '00000000-0000-0000-0000-000000000000' });
    for (const stale of cases) {
      await plant(path, stale);
      const taken = await tryLock(path, { program: 'servelab run' });
      expect(taken.ok, JSON.stringify(stale)).toBe(true);
      if (taken.ok) {
        expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: process.pid, token: taken.lock.holder.token });
        await taken.lock.release();
      }
    }
  });

  it('takes over a stale lock even when a process died leaving the takeover guard empty', async () => {
    const path = join(dir, 'run.lock');
    await plant(path, { pid: deadPid() });
    // A process killed between creating the guard and writing it; long enough ago not to be writing it now.
    await writeFile(`${path}.takeover`, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${path}.takeover`, old, old);
    const first = await tryLock(path);
    const taken = first.ok ? first : await tryLock(path);
    expect(taken.ok).toBe(true);
    if (taken.ok) await taken.lock.release();
  });

  it('never takes over a live holder or one on another host, and release leaves a lock that is not its own', async () => {
    const path = join(dir, 'run.lock');
    await plant(path, {});
    expect((await tryLock(path)).ok).toBe(false);
    await plant(path, { hostname: 'other-host.example', pid: deadPid() });
    const refused = await tryLock(path);
    expect(refused.ok).toBe(false);
    if (!refused.ok && refused.holder) expect(describeHolder(refused.holder)).toContain('on other-host.example');

    await rm(path);
    const mine = await tryLock(path);
    if (!mine.ok) throw new Error('expected the lock');
    await plant(path, { token: 'someone-else' });
    await mine.lock.release();
    expect(JSON.parse(await readFile(path, 'utf8')).token).toBe('someone-else');
  });

  it('serialises read-modify-write sections so no update is lost', async () => {
    const counter = join(dir, 'counter');
    await writeFile(counter, '0');
    await Promise.all(
      Array.from({ length: 20 }, () =>
        withLock(join(dir, 'counter.lock'), async () => {
          const n = Number(await readFile(counter, 'utf8'));
          await new Promise((r) => setTimeout(r, 1));
          await writeFile(counter, String(n + 1));
        }),
      ),
    );
    expect(await readFile(counter, 'utf8')).toBe('20');
  });

  it('names the holder when a wait runs out', async () => {
    const path = join(dir, 'jobs.json.lock');
    await plant(path, { program: 'servelab serve' });
    await expect(withLock(path, async () => undefined, { timeoutMs: 100 })).rejects.toThrow(/held by servelab serve \(pid \d+, since/);
  });
});
