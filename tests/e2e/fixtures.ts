import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { cliPath, repoRoot } from '../helpers/repo';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

export interface RunningCore {
  /** The page with its token: `http://127.0.0.1:<port>/#token=…`. */
  pageUrl: string;
  /** The same server without the token. */
  origin: string;
  dataDir: string;
  /** Everything the core printed, for failure messages. */
  output(): string;
}

const UI_LINE = /Servelab UI: (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/;

/** Starts `servelab serve` on a free port with its own data folder; resolves once it printed its address. */
async function startCore(dataDir: string): Promise<{ child: ChildProcess; core: RunningCore }> {
  const child = spawn(
    process.execPath,
    [cliPath, 'serve', '--port', '0', '--data-dir', dataDir, '--known-hosts', join(dataDir, 'known_hosts'), '--no-user-known-hosts'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const pageUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`servelab serve printed no "Servelab UI:" line within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = UI_LINE.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`servelab serve exited (${code ?? signal}) before printing its address:\n${output}`));
    });
  });
  const origin = new URL(pageUrl).origin;
  return { child, core: { pageUrl, origin, dataDir, output: () => output } };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export const test = base.extend<object, { core: RunningCore; sshd: TestSshd }>({
  core: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dataDir = await mkdtemp(join(tmpdir(), 'servelab-e2e-'));
      const { child, core } = await startCore(dataDir);
      try {
        await use(core);
      } finally {
        await stopProcess(child);
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    { scope: 'worker' },
  ],
  sshd: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const sshd = await startTestSshd();
      try {
        await use(sshd);
      } finally {
        await sshd.stop();
      }
    },
    { scope: 'worker' },
  ],
});

export { expect };

/**
 * Saves `test-results/screenshots/<name>-light.png` and `<name>-dark.png`. The theme is switched on the
 * document directly, so an open dialog stays open and focus stays where it is.
 */
export async function screenshotBothThemes(page: Page, name: string): Promise<void> {
  const original = await page.evaluate(() => document.documentElement.dataset.theme ?? 'light');
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((value) => {
      document.documentElement.dataset.theme = value;
      document.documentElement.style.colorScheme = value;
    }, theme);
    await page.screenshot({ path: `test-results/screenshots/${name}-${theme}.png`, animations: 'disabled', caret: 'hide' });
  }
  await page.evaluate((value) => {
    document.documentElement.dataset.theme = value;
    document.documentElement.style.colorScheme = value;
  }, original);
}
