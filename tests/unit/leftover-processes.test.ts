// The end-of-suite check (scripts/leftover-processes.mjs) against real processes: what it counts as the run's, what
// it leaves to others, and that a process it found is no longer listed once it ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leftoverAfter, leftoverProcesses, RUN_MARK, statOf } from '../../scripts/leftover-processes.mjs';

let dir: string;
const children: ChildProcess[] = [];
const RUN = `run-${process.pid}-${Date.now()}`;

/** A detached `sleep` (its own session, as the suite's jobs are) with `env` added, in `cwd`. */
function sleeper(env: Record<string, string>, cwd: string): ChildProcess {
  const child = spawn('sleep', ['60'], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, detached: true, stdio: 'ignore' });
  children.push(child);
  return child;
}

async function started(child: ChildProcess): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return child.pid as number;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-leftover-'));
});
afterEach(async () => {
  const running = children.splice(0).filter((child) => child.exitCode === null && child.signalCode === null);
  await Promise.all(running.map((child) => new Promise((resolve) => child.once('exit', resolve).kill('SIGKILL'))));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('leftover processes of a test run', () => {
  it("finds the run's own processes by its mark, and unmarked ones by the removed test folder they run in", async () => {
    const since = statOf(process.pid)!.startTicks;
    const lab = await mkdtemp(join(dir, 'lab-'));
    const marked = await started(sleeper({ [RUN_MARK]: RUN }, '/'));
    const inFolder = await started(sleeper({}, lab));
    const others = await started(sleeper({ [RUN_MARK]: 'another-run' }, lab));
    const pids = (options: { since: number }) => leftoverProcesses({ runId: RUN, prefixes: [join(dir, 'lab-')], ...options });
    // While the folder is there, an unmarked process in it may be another suite's: not counted.
    expect(pids({ since }).map((p) => p.pid)).toEqual([marked]);
    await rm(lab, { recursive: true, force: true });
    const byPid = new Map(pids({ since }).map((p) => [p.pid, p]));
    expect(byPid.get(marked)?.why).toBe(`started by this run (${RUN_MARK})`);
    expect(byPid.get(marked)?.command).toBe('sleep 60');
    expect(byPid.get(inFolder)?.why).toBe(`its working folder is in ${lab}, a test's temporary folder that is gone`);
    expect(byPid.get(inFolder)?.cwd).toBe(`${lab} (deleted)`);
    // Another run's process is that run's to report; this process (the run itself) is never listed.
    expect(byPid.has(others)).toBe(false);
    expect(byPid.has(process.pid)).toBe(false);
    // A folder match counts only for processes started during the run.
    const later = statOf(inFolder)!.startTicks + 1;
    expect(pids({ since: later }).map((p) => p.pid)).not.toContain(inFolder);
  });

  it('no longer lists a process once it has ended', async () => {
    const pid = await started(sleeper({ [RUN_MARK]: `${RUN}-2` }, '/'));
    const child = children.at(-1)!;
    expect(leftoverProcesses({ runId: `${RUN}-2`, prefixes: [dir] }).map((p) => p.pid)).toEqual([pid]);
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
    expect(await leftoverAfter(5, { runId: `${RUN}-2`, prefixes: [dir] })).toEqual([]);
  });
});
