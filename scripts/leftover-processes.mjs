// Processes a test run left behind (Linux /proc). A run is marked by SERVELAB_TEST_RUN=<id> in the environment of
// everything it starts (scripts/test-suite.mjs sets it); a process is the run's when its environment carries that
// mark, or, where the environment cannot be read or was replaced (an sshd session, a job it started), when it started
// after the run did and its command line, working folder, HOME or SERVELAB_SIMBOX_HOME lies in a temporary folder the
// tests make (`<tmp>/servelab-…`, `<tmp>/simbox-test-…`) that is gone already: a test removes its folder when it ends,
// and a live folder may be another suite's, running beside this one. Zombies are dead already and not counted; this
// process and its ancestors (the run itself) never are.
//
//   node scripts/leftover-processes.mjs [--wait SECONDS]
// lists them and exits 1 when some are still there after the wait (default 20 s: a removed box's simulated server
// takes a few seconds to notice), else 0.

import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const RUN_MARK = 'SERVELAB_TEST_RUN';
/** The run's start, in clock ticks since boot as /proc/<pid>/stat counts them (its field 22). */
export const RUN_SINCE = 'SERVELAB_TEST_RUN_SINCE';
export const TEST_TEMP_PREFIXES = [join(tmpdir(), 'servelab-'), join(tmpdir(), 'simbox-test-')];

/** State and start time (ticks since boot) of a process; null when it is gone. */
export function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in brackets and may hold spaces or brackets: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], ppid: Number(fields[1]), startTicks: Number(fields[19]) };
  } catch {
    return null;
  }
}

function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function link(path) {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** This process and the ones it runs under, up to init. */
function ancestors() {
  const out = new Set();
  let pid = process.pid;
  while (pid > 1 && !out.has(pid)) {
    out.add(pid);
    pid = statOf(pid)?.ppid ?? 1;
  }
  return out;
}

/**
 * The processes of run `runId` still alive: `{ pid, ppid, why, command, cwd }`. `since` (ticks since boot) bounds the
 * folder-based match to processes started during the run.
 */
export function leftoverProcesses({ runId, since = 0, prefixes = TEST_TEMP_PREFIXES } = {}) {
  const skip = ancestors();
  const found = [];
  // The test folder a text names (`<tmp>/servelab-e2e-AbC123`), when it names one that no longer exists.
  const goneTestFolder = (text) => {
    if (text === null) return null;
    for (const prefix of prefixes) {
      const at = text.indexOf(prefix);
      if (at === -1) continue;
      const folder = /^[^/\s'"]*/.exec(text.slice(at + prefix.length));
      const root = `${prefix}${folder?.[0] ?? ''}`;
      if (!existsSync(root)) return root;
    }
    return null;
  };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (skip.has(pid)) continue;
    const stat = statOf(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    const command = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ').replace(/\s+/g, ' ');
    if (command === '') continue; // A kernel thread.
    const cwd = link(`/proc/${pid}/cwd`);
    const environ = read(`/proc/${pid}/environ`);
    const vars = new Map((environ ?? '').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    let why = null;
    if (runId && vars.get(RUN_MARK) === runId) why = `started by this run (${RUN_MARK})`;
    else if (stat.startTicks >= since && (vars.get(RUN_MARK) === undefined || !runId)) {
      const where = [
        ['command line', command],
        ['working folder', cwd],
        ['HOME', vars.get('HOME') ?? null],
        ['SERVELAB_SIMBOX_HOME', vars.get('SERVELAB_SIMBOX_HOME') ?? null],
      ]
        .map(([what, text]) => [what, goneTestFolder(text)])
        .find(([, root]) => root !== null);
      if (where) why = `its ${where[0]} is in ${where[1]}, a test's temporary folder that is gone`;
    }
    if (why) found.push({ pid, ppid: stat.ppid, why, command: command.length > 300 ? `${command.slice(0, 300)}…` : command, cwd });
  }
  return found;
}

/** Looks again every second until none is left or `waitSeconds` have passed; returns those still there. */
export async function leftoverAfter(waitSeconds, options) {
  const until = Date.now() + waitSeconds * 1000;
  let left = leftoverProcesses(options);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    left = leftoverProcesses(options);
  }
  return left;
}

export function describeLeftovers(left) {
  return left.map((p) => `  pid ${p.pid} (parent ${p.ppid}): ${p.command}\n    cwd ${p.cwd ?? '?'}; ${p.why}`).join('\n');
}

async function main() {
  const at = process.argv.indexOf('--wait');
  const wait = at > 0 ? Number(process.argv[at + 1]) : 20;
  const runId = process.env[RUN_MARK];
  const since = Number(process.env[RUN_SINCE] ?? 0);
  const left = await leftoverAfter(wait, { runId, since });
  if (left.length === 0) {
    process.stdout.write('No process left behind by the tests.\n');
    return;
  }
  process.stderr.write(`The tests left ${left.length} process${left.length === 1 ? '' : 'es'} running (${wait} s after they ended):\n${describeLeftovers(left)}\n`);
  process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
