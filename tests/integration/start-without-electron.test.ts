// `npm start` where Electron's binary cannot be fetched: one message that says so and offers the browser UI, no
// downloader stack trace. The download is pointed at a closed port on this machine, so the test never reaches out.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));
const installed = existsSync(join(electronDir, 'path.txt'));
const cache = mkdtempSync(join(tmpdir(), 'servelab-electron-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const env = {
  ...process.env,
  ELECTRON_MIRROR: 'http://127.0.0.1:1/',
  electron_config_cache: cache,
  ELECTRON_EXEC_PATH: '',
  ELECTRON_OVERRIDE_DIST_PATH: '',
};

const MESSAGE = /^Servelab's desktop window needs Electron [\d.]+, which could not be fetched \(its download server could not be reached\)\.\nThe same workbench runs in your browser, served from this machine only: npm run serve\n/m;

describe.skipIf(installed)('npm start without Electron', () => {
  it('says in one message that Electron could not be fetched and points to npm run serve, without a stack trace', () => {
    const started = spawnSync(process.execPath, ['scripts/start.mjs'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(started.status).toBe(1);
    expect(started.stdout).toMatch(/^Fetching Electron [\d.]+, once, for the desktop app…\n$/);
    expect(started.stderr).toMatch(MESSAGE);
    expect(started.stderr).not.toMatch(/^\s+at /m);
    expect(started.stderr).not.toMatch(/TypeError|Error:/);
    // Not a terminal: no question is asked, and nothing was built.
    expect(started.stdout + started.stderr).not.toContain('Open it in your browser now?');
  });

  it('on a terminal, offers to open the browser UI instead, and stops when declined', () => {
    // util-linux `script` gives the command a terminal; the answer comes on its input.
    const started = spawnSync('script', ['-qec', `${process.execPath} scripts/start.mjs`, '/dev/null'], { env, input: 'n\n', encoding: 'utf8', timeout: 60_000 });
    expect(started.status).toBe(1);
    expect(started.stdout).toContain('Open it in your browser now? [Y/n]');
    expect(started.stdout.replace(/\r/g, '')).toMatch(MESSAGE);
    expect(started.stdout).not.toMatch(/^\s+at /m);
  });
});
