// The `servelab` command as a user runs it: the built bin, a real process, real sshd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/repo';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

let sshd: TestSshd;
let dir: string;

function runCli(args: string[], opts: { timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: dir,
      env: { ...process.env, HOME: dir, SERVELAB_DATA_DIR: join(dir, 'data') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) {
    throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
  }
  dir = mkdtempSync(join(tmpdir(), 'servelab-cli-proc-'));
  sshd = await startTestSshd();
});

afterAll(async () => {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('servelab command', () => {
  it('prints usage and its version', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('servelab <command>');
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('exits 2 on an unknown command', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "frobnicate"');
  });

  it('refuses an unknown host key with its fingerprint, then reads the box with --accept-new', async () => {
    const base = ['inventory', `${sshd.user}@127.0.0.1`, '--port', String(sshd.port), '--identity', sshd.identityFile, '--known-hosts', join(dir, 'kh')];
    const refused = await runCli([...base, '--json']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(sshd.hostKeyFingerprint);
    expect(refused.stdout).toBe('');

    const accepted = await runCli([...base, '--accept-new', '--json']);
    expect(accepted.code, accepted.stderr).toBe(0);
    const inventory = JSON.parse(accepted.stdout) as { gpus: { name: string; memoryTotalMiB: number; computeCapability: string }[]; cudaVersion: string };
    expect(inventory.gpus[0]).toMatchObject({ name: 'NVIDIA H200', memoryTotalMiB: 143771, computeCapability: '9.0' });
    expect(inventory.cudaVersion).toBe('13.0');

    // The key is now known: no flag needed.
    expect((await runCli([...base, '--json'])).code).toBe(0);
  });

  it('serves the UI on 127.0.0.1 with a sign-in code and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--data-dir', join(dir, 'serve-data')], { cwd: dir });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const m = /Servelab UI: (http:\/\/127\.0\.0\.1:\d+\/\?code=[A-Za-z0-9_-]+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`serve exited early: ${stdout}`)));
    });
    const page = await fetch(url.replace(/\?.*/, ''));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Servelab');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
