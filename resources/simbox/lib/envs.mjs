// Simulated Python environments: a folder with bin/ (python, pip and the engines' entry points as small Node
// scripts), pyvenv.cfg like a real venv, and simbox-env.json listing the installed packages.

import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PACKAGE_INDEX } from './catalog.mjs';
import { writeJsonAtomic } from './state.mjs';

export const MANIFEST = 'simbox-env.json';
const LIB_DIR = dirname(fileURLToPath(import.meta.url));

export function isEnv(dir) {
  return existsSync(join(dir, MANIFEST));
}

export function readEnv(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return null;
  }
}

export function writeEnv(dir, manifest) {
  writeJsonAtomic(join(dir, MANIFEST), manifest);
}

/** The environment a `--python` value points at: the env folder itself or a python inside its bin/. */
export function envFromPython(value) {
  const p = resolve(value);
  if (isEnv(p)) return p;
  const up = dirname(dirname(p));
  if (isEnv(up)) return up;
  return null;
}

function script(kind, comment) {
  const target = pathToFileURL(join(LIB_DIR, 'env-entry.mjs')).href;
  return `#!/usr/bin/env node
// ${comment} of a simulated engine environment (Servelab simbox test double; no real Python runs here).
// Plain dynamic imports only, so this file runs as CommonJS or as ESM whatever package.json is nearby.
import('node:path').then((path) =>
  import(${JSON.stringify(target)}).then((m) => m.main(${JSON.stringify(kind)}, path.dirname(path.dirname(path.resolve(process.argv[1]))), process.argv.slice(2))),
);
`;
}

function writeExec(path, text) {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/** Creates (or with clear, recreates) an environment. */
export function createEnv(dir, { python = '3.12.3', clear = false, withPip = true, command = null } = {}) {
  const abs = resolve(dir);
  if (clear && existsSync(abs)) rmSync(abs, { recursive: true, force: true });
  const [maj, min] = python.split('.');
  mkdirSync(join(abs, 'bin'), { recursive: true });
  mkdirSync(join(abs, 'lib', `python${maj}.${min}`, 'site-packages'), { recursive: true });
  mkdirSync(join(abs, 'include'), { recursive: true });
  writeFileSync(
    join(abs, 'pyvenv.cfg'),
    `home = /usr/bin\ninclude-system-site-packages = false\nversion = ${python}\nexecutable = /usr/bin/python${maj}.${min}\ncommand = ${command ?? `/usr/bin/python3 -m venv ${abs}`}\n# servelab-simbox: simulated environment (test double)\n`,
  );
  for (const name of ['python', 'python3', `python${maj}.${min}`]) writeExec(join(abs, 'bin', name), script('python', 'Python'));
  if (withPip) for (const name of ['pip', 'pip3', `pip${maj}.${min}`]) writeExec(join(abs, 'bin', name), script('pip', 'pip'));
  writeFileSync(
    join(abs, 'bin', 'activate'),
    `# Simulated venv activate (Servelab simbox). Use with: source ${abs}/bin/activate\ndeactivate () {\n    if [ -n "\${_OLD_VIRTUAL_PATH:-}" ] ; then PATH="\${_OLD_VIRTUAL_PATH:-}"; export PATH; unset _OLD_VIRTUAL_PATH; fi\n    unset VIRTUAL_ENV\n    if [ ! "\${1:-}" = "nondestructive" ] ; then unset -f deactivate; fi\n}\ndeactivate nondestructive\nVIRTUAL_ENV=${JSON.stringify(abs)}\nexport VIRTUAL_ENV\n_OLD_VIRTUAL_PATH="$PATH"\nPATH="$VIRTUAL_ENV/bin:$PATH"\nexport PATH\n`,
  );
  const existing = readEnv(abs);
  const manifest = existing && !clear ? existing : { simulated: true, python, packages: withPip ? { pip: '24.0' } : {} };
  writeEnv(abs, manifest);
  syncEntryPoints(abs, manifest);
  return abs;
}

/** Writes/removes the console scripts of installed packages (vllm, trtllm-serve). */
export function syncEntryPoints(dir, manifest) {
  for (const [name, entry] of Object.entries(PACKAGE_INDEX)) {
    for (const ep of entry.entryPoints) {
      const path = join(dir, 'bin', ep);
      if (manifest.packages[name]) writeExec(path, script(ep, ep));
      else rmSync(path, { force: true });
    }
  }
}

export function sitePackages(dir, manifest) {
  const [maj, min] = (manifest?.python ?? '3.12.3').split('.');
  return join(dir, 'lib', `python${maj}.${min}`, 'site-packages');
}
