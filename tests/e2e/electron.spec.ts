import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

test('the desktop app opens a window titled Servelab', async () => {
  const binary = electronBinary();
  if (!binary.path) console.log(`electron.spec: skipped: ${binary.reason}`);
  test.skip(!binary.path, binary.reason);
  const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  if (!hasDisplay) console.log('electron.spec: skipped: no DISPLAY or WAYLAND_DISPLAY for an Electron window (run under xvfb-run)');
  test.skip(!hasDisplay, 'no display for an Electron window; run under xvfb-run');

  const mainEntry = join(repoRoot, 'out', 'main', 'index.js');
  expect(existsSync(mainEntry), `${mainEntry} is missing: run \`npx electron-vite build\` first`).toBe(true);

  // A throwaway config home keeps the app's data out of the real profile.
  const configHome = mkdtempSync(join(tmpdir(), 'servelab-electron-'));
  const app = await electron.launch({
    executablePath: binary.path!,
    args: [mainEntry, ...(process.platform === 'linux' ? ['--no-sandbox'] : [])],
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
