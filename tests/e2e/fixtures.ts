import { spawn, type ChildProcess } from 'node:child_process';
import { stopChild } from '../helpers/processes';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { cliPath, repoRoot } from '../helpers/repo';
import { startSshLab, type SshLab } from '../helpers/netns';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { fakeLocalAccount } from '../helpers/local-account';

export interface RunningCore {
  /**
   * The first sign-in link serve printed on stdout: `http://127.0.0.1:<port>/?code=…`. The code signs in one tab
   * once; the tab keeps its session, so reloading or loading this link again in the same page works.
   */
  pageUrl: string;
  /** The same server without a code. */
  origin: string;
  dataDir: string;
  /** The core's HOME and its passwd entry's home: a throwaway folder, so ~/.ssh is the test's own. */
  home: string;
  /** `<home>/.ssh/config`, passed with --ssh-config; absent until a test writes it. */
  sshConfigPath: string;
  /** Everything the core printed, for failure messages. */
  output(): string;
}

const UI_LINE = /Servelab UI: (http:\/\/127\.0\.0\.1:\d+\/\?code=\S+)/;

/**
 * Starts `servelab serve` on a free port with its own data folder and HOME; resolves once it printed its address.
 * No SSH agent is passed on, so only the keys a test names are tried.
 */
async function startCore(root: string, projects: readonly string[] = []): Promise<{ child: ChildProcess; core: RunningCore }> {
  const dataDir = join(root, 'data');
  const home = join(root, 'home');
  const sshConfigPath = join(home, '.ssh', 'config');
  await mkdir(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  const { SSH_AUTH_SOCK: _agent, ...env } = process.env;
  // ssh takes `~` from the passwd entry, not $HOME: the core's user gets this home in its own passwd entry.
  const account = await fakeLocalAccount(join(root, 'account'), { user: userInfo().username, home, hostname: hostname() });
  const child = spawn(
    process.execPath,
    [
      cliPath,
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--known-hosts',
      join(dataDir, 'known_hosts'),
      '--no-user-known-hosts',
      '--ssh-config',
      sshConfigPath,
      ...projects,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, ...account.env, HOME: home } },
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
  return { child, core: { pageUrl, origin, dataDir, home, sshConfigPath, output: () => output } };
}


// Each test gets a core of its own (data folder, HOME, ssh config), so hosts added by one spec never show in another.
export const test = base.extend<{ core: RunningCore; openAtStart: string[] }, { sshd: TestSshd; lab: SshLab }>({
  /** Project files named on serve's command line, which the first page that signs in opens. */
  openAtStart: [[], { option: true }],
  core: async ({ openAtStart }, use) => {
    const root = await mkdtemp(join(tmpdir(), 'servelab-e2e-'));
    const { child, core } = await startCore(root, openAtStart);
    try {
      await use(core);
    } finally {
      await stopChild(child);
      await rm(root, { recursive: true, force: true });
    }
  },
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
  lab: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const lab = await startSshLab({ nvidiaSmi: true });
      try {
        await use(lab);
      } finally {
        await lab.stop();
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],
});

export { expect };

/**
 * Saves `test-results/screenshots/<name>-light.png` and `<name>-dark.png`. The theme is switched on the
 * document directly, so an open dialog stays open and focus stays where it is. `height` makes the window that
 * tall for the shot (the workbench scrolls inside its own pane, so a full-page shot would not show more).
 */
export async function screenshotBothThemes(page: Page, name: string, opts: { height?: number } = {}): Promise<void> {
  const viewport = page.viewportSize();
  if (opts.height && viewport) await page.setViewportSize({ width: viewport.width, height: opts.height });
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
  if (opts.height && viewport) await page.setViewportSize(viewport);
}
