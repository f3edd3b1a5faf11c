import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { readFileSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Advisory lock files between processes of this machine (the app, `servelab serve`, `servelab run`): a lock is a
 * file created with O_EXCL that names its holder — pid, program, host, boot id, the process's start time and since
 * when. A lock whose holder is gone (no such pid, the pid now belongs to a process started later, or the machine
 * booted since) is stale and is taken over; a lock from another host is never judged, only reported. Locks are
 * released by their holder (only while the file still carries its token) and, failing that, when the process exits.
 * Taking over a stale lock happens under a second lock (`<lock>.takeover`), so two processes that both find the same
 * stale lock cannot both remove it and each end up holding a fresh one.
 */

export interface LockHolder {
  pid: number;
  /** What the holder is, in the user's words: `servelab run`, `the Servelab desktop app`. */
  program: string;
  hostname: string;
  /** Linux's /proc/sys/kernel/random/boot_id; null where there is none. */
  bootId: string | null;
  /** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null where there is none. */
  processStart: string | null;
  /** When the lock was taken (ISO time). */
  since: string;
  token: string;
}

export interface HeldLock {
  readonly path: string;
  readonly holder: LockHolder;
  release(): Promise<void>;
}

let programLabel: string | undefined;

/** Names this process in lock files (the CLI sets `servelab <command>`); derived from argv when not set. */
export function setLockProgram(label: string): void {
  programLabel = label;
}

export function lockProgram(): string {
  if (programLabel) return programLabel;
  if (process.versions.electron) return 'the Servelab desktop app';
  const script = basename(process.argv[1] ?? '');
  if (/^(servelab(\.js)?|cli\.js)$/.test(script)) return `servelab${process.argv[2] ? ` ${process.argv[2]}` : ''}`;
  return `${basename(process.argv[0] ?? 'node')}${script ? ` ${script}` : ''}`;
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** Field 22 of /proc/<pid>/stat, counted after the command name (which may hold spaces and parentheses). */
export function processStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function thisHolder(program: string): LockHolder {
  return {
    pid: process.pid,
    program,
    hostname: hostname(),
    bootId: readBootId(),
    processStart: processStartOf(process.pid),
    since: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
}

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid !== 'number' || typeof value.token !== 'string' || typeof value.hostname !== 'string') return null;
    return {
      pid: value.pid,
      program: typeof value.program === 'string' ? value.program : 'another program',
      hostname: value.hostname,
      bootId: typeof value.bootId === 'string' ? value.bootId : null,
      processStart: typeof value.processStart === 'string' ? value.processStart : null,
      since: typeof value.since === 'string' ? value.since : 'an unknown time',
      token: value.token,
    };
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder of a lock is certainly gone (only judged for this host). */
export function holderIsGone(holder: LockHolder): boolean {
  if (holder.hostname !== hostname()) return false;
  const bootId = readBootId();
  if (holder.bootId && bootId && holder.bootId !== bootId) return true;
  if (!pidExists(holder.pid)) return true;
  if (holder.processStart) {
    const start = processStartOf(holder.pid);
    if (start !== null && start !== holder.processStart) return true;
  }
  return false;
}

/** "servelab run (pid 123, since 2026-…)" — with the host when it is another one. */
export function describeHolder(holder: LockHolder): string {
  const where = holder.hostname === hostname() ? '' : ` on ${holder.hostname}`;
  return `${holder.program} (pid ${holder.pid}${where}, since ${holder.since})`;
}

// Locks this process holds, removed if it exits without releasing them (process.exit, an uncaught error).
const held = new Map<string, string>();
let exitHookInstalled = false;
function rememberHeld(path: string, token: string): void {
  held.set(path, token);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [file, mine] of held) {
      try {
        if (parseHolder(readFileSync(file, 'utf8'))?.token === mine) rmSync(file, { force: true });
      } catch {
        // Already gone, or unreadable: nothing of ours to remove.
      }
    }
  });
}

/** An unparsable lock is a holder caught between create and write, unless it has been so for this long. */
const TORN_LOCK_MS = 5_000;

type Attempt = { ok: true; lock: HeldLock } | { ok: false; holder: LockHolder | null };

/** One try: create the lock, or report who holds it (a stale holder is removed and the create tried once more). */
async function tryAcquire(path: string, program: string): Promise<Attempt> {
  for (let round = 0; round < 3; round++) {
    const holder = thisHolder(program);
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(holder)}\n`);
      } finally {
        await handle.close();
      }
      rememberHeld(path, holder.token);
      return { ok: true, lock: { path, holder, release: () => releaseLock(path, holder.token) } };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        // The folder is not there yet.
        await mkdir(dirname(path), { recursive: true });
        continue;
      }
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = await readHolder(path);
    if (current === 'gone') continue;
    if (current === 'torn') {
      if (!(await removeIfStale(path, null))) return { ok: false, holder: null };
      continue;
    }
    if (!holderIsGone(current)) return { ok: false, holder: current };
    if (!(await removeIfStale(path, current.token))) return { ok: false, holder: current };
  }
  return { ok: false, holder: (await readHolderOrNull(path)) ?? null };
}

async function readHolder(path: string): Promise<LockHolder | 'gone' | 'torn'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  return parseHolder(text) ?? 'torn';
}

async function readHolderOrNull(path: string): Promise<LockHolder | null> {
  const holder = await readHolder(path);
  return typeof holder === 'string' ? null : holder;
}

/**
 * Removes the lock at `path` if it is still the stale one seen (same token; or, for a torn file, still torn and
 * old), under the takeover lock. Returns whether the caller may try to create the lock again.
 */
async function removeIfStale(path: string, staleToken: string | null): Promise<boolean> {
  return withGuard(`${path}.takeover`, async () => {
    const current = await readHolder(path);
    if (current === 'gone') return true;
    if (current === 'torn') {
      if (staleToken !== null) return false;
      const age = Date.now() - (await stat(path)).mtimeMs;
      if (age < TORN_LOCK_MS) return false;
    } else if (current.token !== staleToken || !holderIsGone(current)) {
      return false;
    }
    // Moved aside first, so a reader never sees a half-removed lock.
    const aside = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.stale`);
    await rename(path, aside);
    await rm(aside, { force: true });
    return true;
  });
}

async function withGuard(guard: string, fn: () => Promise<boolean>): Promise<boolean> {
  const holder = thisHolder('a lock takeover');
  try {
    const handle = await open(guard, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(holder)}\n`);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process is taking over right now, or one died doing so (its guard is removed once it is gone).
    const other = await readHolder(guard);
    if (other === 'torn') {
      // Empty or half-written: its writer died between creating and writing it, unless it is writing right now.
      const age = await stat(guard).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age >= TORN_LOCK_MS) await rm(guard, { force: true });
    } else if (other !== 'gone' && holderIsGone(other)) await rm(guard, { force: true });
    return false;
  }
  try {
    return await fn();
  } finally {
    await rm(guard, { force: true });
  }
}

async function releaseLock(path: string, token: string): Promise<void> {
  held.delete(path);
  const current = await readHolderOrNull(path).catch(() => null);
  if (current?.token === token) await rm(path, { force: true });
}

export interface LockOptions {
  /** Who this process is, for the message another process shows (default: `lockProgram()`). */
  program?: string;
}

/** Takes the lock now or reports its holder: for long holds such as a study's run. */
export async function tryLock(path: string, opts: LockOptions = {}): Promise<{ ok: true; lock: HeldLock } | { ok: false; holder: LockHolder | null }> {
  return tryAcquire(path, opts.program ?? lockProgram());
}

/** The live holder of a lock, or null when it is free or stale (reads only; nothing is created or removed). */
export async function liveHolder(path: string): Promise<LockHolder | null> {
  const holder = await readHolder(path).catch(() => 'gone' as const);
  if (holder === 'gone' || holder === 'torn') return null;
  return holderIsGone(holder) ? null : holder;
}

export class LockTimeoutError extends Error {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | null,
  ) {
    super(`${path} is held by ${holder ? describeHolder(holder) : 'a process that is writing it'}`);
  }
}

/**
 * Runs `fn` holding the lock at `path`, waiting for it (polling, up to `timeoutMs`): for short read-modify-write
 * sections of files several processes share. A holder that keeps the lock past the wait is named in the error.
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, opts: LockOptions & { timeoutMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let wait = 5;
  for (;;) {
    const attempt = await tryAcquire(path, opts.program ?? lockProgram());
    if (attempt.ok) {
      try {
        return await fn();
      } finally {
        await attempt.lock.release();
      }
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(path, attempt.holder);
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 100);
  }
}
