import { spawn, spawnSync, type StdioOptions } from 'node:child_process';

// A `Match exec` in the config can run anything, for as long as it likes: ssh -G and the built-in reader's
// exec commands get this long.
export const RESOLVE_TIMEOUT_MS = 15_000;

export interface GroupRunOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** stdin, stdout, stderr: 'pipe' ones are collected. */
  stdio: StdioOptions;
  maxBuffer?: number;
}

export interface GroupRunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The time ran out and the whole process group was killed. */
  timedOut: boolean;
}

/** Kills a process and everything it started: its process group (POSIX), its process tree (Windows). */
export function killGroup(pid: number, platform: NodeJS.Platform = process.platform): void {
  try {
    if (platform === 'win32') spawnSync('taskkill', ['/T', '/F', '/PID', String(pid)], { windowsHide: true, stdio: 'ignore' });
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs a program in its own process group and, when the time runs out, kills the group: a grandchild (the
 * shell's `sleep` under a `Match exec`) goes with it instead of living on under PID 1. Rejects only when the
 * program cannot be started (the error carries node's `code`: ENOENT, EACCES).
 */
export function runInOwnGroup(file: string, args: readonly string[], opts: GroupRunOptions): Promise<GroupRunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env: opts.env, stdio: opts.stdio, detached: true, windowsHide: true });
    const maxBuffer = opts.maxBuffer ?? 4 * 1024 * 1024;
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < maxBuffer) stdout += chunk;
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < maxBuffer) stderr += chunk;
    });
    // ssh -G never reads stdin; a closed one keeps a Match exec from waiting on it.
    child.stdin?.end();
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, opts.timeoutMs);
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr, timedOut });
    });
  });
}
