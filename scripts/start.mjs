// `npm start`: build, then open the desktop app. Electron's binary is fetched on first use by the electron
// package; when that is impossible (offline, blocked), say so and point to the browser UI instead.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

let electronPath;
try {
  electronPath = process.env.ELECTRON_EXEC_PATH || require('electron');
} catch (error) {
  process.stderr.write(
    `\nServelab could not start Electron: ${error instanceof Error ? error.message : String(error)}\n` +
      'The same workbench runs in your browser against the same core: npm run serve\n',
  );
  process.exit(1);
}

const build = spawnSync(process.execPath, [require.resolve('electron-vite/bin/electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const child = spawn(electronPath, ['.', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
