import { spawn } from 'node:child_process';
import type { CliIo } from '../../src/cli/cli-io';
import { cliPath } from './repo';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command in-process with its own environment and folder, capturing what it prints. */
export async function runCaptured(command: (io: CliIo) => Promise<number>, env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env, cwd };
  const code = await command(io);
  return { code, stdout, stderr };
}

/** Runs the built `servelab` (out/main/cli.js) as a real process; stdin gets `stdin` (or nothing) and is closed. */
export function runBuiltCli(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd, env: options.env ?? { ...process.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
