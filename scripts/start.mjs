// `npm start`: open the desktop app from this checkout. The electron package fetches Electron's binary on first
// use; that is done here, quietly, so that when it cannot be fetched (offline, blocked) the user reads one message
// and can open the same workbench in the browser instead, rather than a downloader's stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const electronDir = dirname(require.resolve('electron/package.json'));
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;

/** Electron's executable as the electron package names it (path.txt), when it is there. */
function installedElectron() {
  if (process.env.ELECTRON_EXEC_PATH) return existsSync(process.env.ELECTRON_EXEC_PATH) ? process.env.ELECTRON_EXEC_PATH : null;
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const executable = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, readFileSync(pathFile, 'utf8'))
    : join(electronDir, 'dist', readFileSync(pathFile, 'utf8'));
  return existsSync(executable) ? executable : null;
}

/** Why the download failed, in a few words: the network's fault said as such, else the downloader's first line. */
function fetchFailure(output) {
  if (/fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|certificate/i.test(output)) {
    return 'its download server could not be reached';
  }
  const lines = output.split('\n').map((l) => l.trim());
  const line = lines.find((l) => l && !l.startsWith('at ') && !/^Downloading Electron/i.test(l));
  return line ?? 'no reason given';
}

function fetchElectron() {
  process.stdout.write(`Fetching Electron ${electronVersion}, once, for the desktop app…\n`);
  const fetched = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const executable = installedElectron();
  if (fetched.status === 0 && executable) return { executable };
  return { failure: fetchFailure(`${fetched.stderr ?? ''}\n${fetched.stdout ?? ''}`) };
}

function run(args) {
  return spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
}

const build = () => run([require.resolve('electron-vite/bin/electron-vite.js'), 'build']);

async function askYesNo(question) {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(question)).trim().toLowerCase();
    return answer === '' || answer === 'y' || answer === 'yes';
  } finally {
    rl.close();
  }
}

let electron = installedElectron();
if (!electron) {
  const fetched = fetchElectron();
  if (fetched.failure) {
    process.stderr.write(
      `\nServelab's desktop window needs Electron ${electronVersion}, which could not be fetched (${fetched.failure}).\n` +
        'The same workbench runs in your browser, served from this machine only: npm run serve\n' +
        '(To get the desktop app, retry when online, or set ELECTRON_MIRROR to a mirror you can reach.)\n\n',
    );
    const interactive = process.stdin.isTTY && process.stdout.isTTY;
    if (!interactive || !(await askYesNo('Open it in your browser now? [Y/n] '))) process.exit(1);
    const built = build();
    if (built !== 0) process.exit(built);
    // Of what was meant for the desktop app, the browser UI takes the projects to open; Electron's switches it has not.
    const projects = process.argv.slice(2).filter((arg) => arg.endsWith('.servelab'));
    process.exit(run([join(root, 'bin', 'servelab.js'), 'serve', '--open', ...projects]));
  }
  electron = fetched.executable;
}

const built = build();
if (built !== 0) process.exit(built);
const child = spawn(electron, ['.', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('error', (error) => {
  process.stderr.write(`\nServelab could not start Electron (${electron}): ${error.message}\nThe same workbench runs in your browser: npm run serve\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
