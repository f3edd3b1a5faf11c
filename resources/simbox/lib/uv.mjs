// `uv` of the simulated box: `uv venv`, `uv pip install|uninstall|list|freeze|show`, `uv --version`.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createEnv, envFromPython, isEnv, readEnv } from './envs.mjs';
import { installInto, pipMain } from './pip.mjs';
import { basePythonVersion } from './python-shim.mjs';
import { loadConfig } from './state.mjs';

export const UV_VERSION = '0.8.22';
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function unexpected(arg, usage) {
  process.stderr.write(`error: unexpected argument '${arg}' found\n\nUsage: ${usage}\n\nFor more information, try '--help'.\n`);
  return 2;
}

async function venv(argv) {
  let dir = '.venv';
  let python = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--python' || a === '-p') python = argv[++i];
    else if (a.startsWith('--python=')) python = a.split('=')[1];
    else if (a === '--clear' || a === '--allow-existing' || a === '--seed' || a === '-q' || a === '--quiet' || a === '--no-project') continue;
    else if (a === '--prompt') i++;
    else if (a.startsWith('-')) return unexpected(a, 'uv venv [OPTIONS] [PATH]');
    else dir = a;
  }
  const base = basePythonVersion();
  const version = python && /^\d+\.\d+$/.test(python) ? (base.startsWith(`${python}.`) ? base : `${python}.${python === '3.12' ? 3 : 0}`) : python && /^\d+\.\d+\.\d+$/.test(python) ? python : base;
  const abs = resolve(dir);
  await sleep(0.4 * loadConfig().timeScale * 1000);
  process.stderr.write(`Using CPython ${version} interpreter at: /usr/bin/python${version.split('.').slice(0, 2).join('.')}\nCreating virtual environment at: ${dir}\n`);
  // uv replaces an existing environment at that path.
  createEnv(abs, { python: version, clear: true, withPip: false, command: `uv venv ${dir}` });
  process.stderr.write(`Activate with: source ${dir}/bin/activate\n`);
  return 0;
}

function targetEnv(python) {
  if (python) {
    const env = envFromPython(python);
    if (!env) {
      process.stderr.write(`error: Failed to inspect Python interpreter from provided path at \`${python}\`\n  Caused by: Failed to query Python interpreter at \`${python}\`\n  Caused by: No such file or directory (os error 2)\n`);
      return null;
    }
    return env;
  }
  if (process.env.VIRTUAL_ENV && isEnv(process.env.VIRTUAL_ENV)) return process.env.VIRTUAL_ENV;
  if (isEnv(resolve('.venv'))) return resolve('.venv');
  process.stderr.write('error: No virtual environment found; run `uv venv` to create an environment, or pass `--system` to install into a non-virtual environment\n');
  return null;
}

async function pip(argv) {
  const sub = argv[0];
  const usage = 'uv pip install [OPTIONS] <PACKAGE|--requirements <REQUIREMENTS>|--editable <EDITABLE>|--group <GROUP>>';
  let python = null;
  const specs = [];
  const opts = { pre: false, upgrade: false, noDeps: false, force: false, tool: 'uv' };
  const rest = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.split(/=(.*)/s);
    if (flag === '--python' || flag === '-p') python = inline ?? argv[++i];
    else if (flag === '--system') {
      process.stderr.write('error: The interpreter at /usr is externally managed, and indicates the following:\n\n  To install Python packages system-wide, try apt install\n  python3-xyz, where xyz is the package you are trying to\n  install.\n\nConsider creating a virtual environment with `uv venv`.\n');
      return 2;
    } else if (['--extra-index-url', '--index-url', '-i', '--index', '--torch-backend', '--prerelease', '--index-strategy', '--resolution', '-c', '--constraint', '--cache-dir', '--link-mode'].includes(flag)) {
      const v = inline ?? argv[++i];
      if (flag === '--prerelease' && v === 'allow') opts.pre = true;
    } else if (flag === '-r' || flag === '--requirements') {
      const file = inline ?? argv[++i];
      if (!existsSync(file)) {
        process.stderr.write(`error: File not found: \`${file}\`\n`);
        return 2;
      }
      specs.push(...readFileSync(file, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean));
    } else if (flag === '-U' || flag === '--upgrade') opts.upgrade = true;
    else if (flag === '--no-deps') opts.noDeps = true;
    else if (flag === '--reinstall' || flag === '--force-reinstall') opts.force = true;
    else if (['-q', '--quiet', '-v', '--verbose', '--no-cache', '--compile-bytecode', '--no-build-isolation', '-y'].includes(flag)) continue;
    else if (a.startsWith('-')) return unexpected(flag, sub === 'install' ? usage : `uv pip ${sub} [OPTIONS]`);
    else if (sub === 'install') specs.push(a);
    else rest.push(a);
  }
  const env = targetEnv(python);
  if (!env) return 2;
  if (sub === 'install') {
    if (specs.length === 0) {
      process.stderr.write(`error: the following required arguments were not provided:\n  <PACKAGE|--requirements <REQUIREMENTS>|--editable <EDITABLE>|--group <GROUP>>\n\nUsage: ${usage}\n\nFor more information, try '--help'.\n`);
      return 2;
    }
    process.stderr.write(`Using Python ${readEnv(env).python} environment at: ${env}\n`);
    return installInto(env, readEnv(env), specs, opts, process.stdout, process.stderr);
  }
  if (['list', 'freeze', 'show'].includes(sub)) return pipMain(env, [sub, ...rest]);
  if (sub === 'uninstall') return pipMain(env, ['uninstall', '-y', ...rest]);
  process.stderr.write(`error: unrecognized subcommand '${sub}'\n\nUsage: uv pip [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n`);
  return 2;
}

export async function main(argv) {
  let code;
  const cmd = argv[0];
  if (cmd === '--version' || cmd === '-V' || cmd === 'version' || (cmd === 'self' && argv[1] === 'version')) {
    process.stdout.write(`uv ${UV_VERSION} (Servelab simbox)\n`);
    code = 0;
  } else if (cmd === 'venv') code = await venv(argv.slice(1));
  else if (cmd === 'pip') code = await pip(argv.slice(1));
  else {
    process.stderr.write(`error: unrecognized subcommand '${cmd ?? ''}'\n\nUsage: uv [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n(The simulated uv offers: venv, pip install|uninstall|list|freeze|show, --version.)\n`);
    code = 2;
  }
  process.exitCode = code;
}
