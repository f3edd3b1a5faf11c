import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { repoRoot } from '../helpers/repo';

/**
 * Where the Electron binary would be, worked out the way `require('electron')` does but without its side
 * effect: requiring it when the binary is missing starts a download.
 */
function electronBinary(): { path: string | null; reason: string } {
  const packageDir = join(repoRoot, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const candidate = join(override, relative ?? 'electron');
    return existsSync(candidate)
      ? { path: candidate, reason: '' }
      : { path: null, reason: `ELECTRON_OVERRIDE_DIST_PATH is set but ${candidate} does not exist` };
  }
  if (!relative) return { path: null, reason: `no Electron binary: ${pathFile} is missing (the electron package's binary was never installed)` };
  const candidate = join(packageDir, 'dist', relative);
  return existsSync(candidate) ? { path: candidate, reason: '' } : { path: null, reason: `no Electron binary at ${candidate}` };
}

/** Skips the test, saying why, where no Electron window can be opened; else the binary. */
function electronOrSkip(): string {
  const binary = electronBinary();
  if (!binary.path) console.log(`electron.spec: skipped: ${binary.reason}`);
  test.skip(!binary.path, binary.reason);
  const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  if (!hasDisplay) console.log('electron.spec: skipped: no DISPLAY or WAYLAND_DISPLAY for an Electron window (run under xvfb-run)');
  test.skip(!hasDisplay, 'no display for an Electron window; run under xvfb-run');
  return binary.path!;
}

const mainEntry = join(repoRoot, 'out', 'main', 'index.js');
const sandboxArgs = process.platform === 'linux' ? ['--no-sandbox'] : [];
const EXAMPLE = join(repoRoot, 'examples', 'qwen3-8b-latency-h100.servelab');

/** A copy of an example project under a name of its own, so the window shows which one it opened. */
function writeProject(path: string, name: string): void {
  const project = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { study: { name: string } };
  project.study.name = name;
  writeFileSync(path, `${JSON.stringify(project, null, 2)}\n`);
}

test('the desktop app opens a window titled Servelab', async () => {
  const executablePath = electronOrSkip();
  expect(existsSync(mainEntry), `${mainEntry} is missing: run \`npx electron-vite build\` first`).toBe(true);

  // A throwaway config home keeps the app's data out of the real profile.
  const configHome = mkdtempSync(join(tmpdir(), 'servelab-electron-'));
  const app = await electron.launch({
    executablePath,
    args: [mainEntry, ...sandboxArgs],
    env: { ...process.env, XDG_CONFIG_HOME: configHome, SERVELAB_DATA_DIR: join(configHome, 'servelab') } as Record<string, string>,
  });
  try {
    const window = await app.firstWindow();
    await expect.poll(() => window.title()).toBe('Servelab');
  } finally {
    await app.close();
    rmSync(configHome, { recursive: true, force: true });
  }
});

test('a project given on the command line opens in the window, and a second launch hands its project to that window', async () => {
  const executablePath = electronOrSkip();
  expect(existsSync(mainEntry), `${mainEntry} is missing: run \`npx electron-vite build\` first`).toBe(true);
  const configHome = mkdtempSync(join(tmpdir(), 'servelab-electron-'));
  const first = join(configHome, 'first.servelab');
  const second = join(configHome, 'second.servelab');
  writeProject(first, 'Opened from the command line');
  writeProject(second, 'Handed over by a second launch');
  const env = { ...process.env, XDG_CONFIG_HOME: configHome } as Record<string, string>;
  const app = await electron.launch({ executablePath, args: [mainEntry, ...sandboxArgs, first], env });
  try {
    const window = await app.firstWindow();
    await expect(window.getByRole('heading', { level: 1, name: /Opened from the command line/ })).toBeVisible({ timeout: 30_000 });

    // The second launch finds the first one holding the lock, hands it its project and quits.
    const launch = spawn(executablePath, [mainEntry, ...sandboxArgs, 'second.servelab'], { cwd: configHome, env, stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => launch.on('exit', resolve));
    expect(code).toBe(0);
    await expect(window.getByRole('heading', { level: 1, name: /Handed over by a second launch/ })).toBeVisible({ timeout: 30_000 });
    expect(app.windows()).toHaveLength(1);
  } finally {
    await app.close();
    rmSync(configHome, { recursive: true, force: true });
  }
});
