// `python3` of the simulated box: handles `-m venv`, `-m pip`, the engines' modules, `-c "import vllm; …"` checks
// and Servelab's model prefetch script (hf-prefetch.mjs); everything else goes to the real python3 found later on
// PATH, so the box stays usable.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEnv, readEnv } from './envs.mjs';
import { isPrefetchScript, prefetchMain } from './hf-prefetch.mjs';
import { pipMain } from './pip.mjs';
import { loadConfig } from './state.mjs';

const SIMBOX_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** The first python3 on PATH that is not one of the simbox's own shims. */
export function realPython(name = 'python3') {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      if (real.startsWith(SIMBOX_ROOT)) continue;
      const head = readFileSync(real, { encoding: 'latin1', flag: 'r' }).slice(0, 400);
      if (head.includes('Servelab simbox')) continue;
      return candidate;
    } catch {
      // not there or not executable
    }
  }
  return null;
}

/** The real interpreter's version, or the box's default. */
export function basePythonVersion() {
  const py = realPython();
  if (py) {
    const r = spawnSync(py, ['--version'], { encoding: 'utf8' });
    const m = /Python (\d+\.\d+\.\d+)/.exec(`${r.stdout}${r.stderr}`);
    if (m) return m[1];
  }
  return '3.12.3';
}

function delegate(argv) {
  const py = realPython();
  if (!py) {
    if (argv[0] === '--version' || argv[0] === '-V') {
      process.stdout.write('Python 3.12.3\n');
      return 0;
    }
    process.stderr.write('python3: the simulated box has no real Python interpreter for this command (only venv, pip and the engines are simulated).\n');
    return 127;
  }
  const r = spawnSync(py, argv, { stdio: 'inherit' });
  return r.status ?? 1;
}

const MODULE_PACKAGE = { vllm: 'vllm', sglang: 'sglang', tensorrt_llm: 'tensorrt_llm', torch: 'torch', transformers: 'transformers', flashinfer: 'flashinfer_python' };

function moduleVersion(pkgs, mod) {
  const pkg = MODULE_PACKAGE[mod];
  const v = pkg ? pkgs[pkg] ?? pkgs[pkg.replace(/_/g, '-')] : null;
  if (!v) return null;
  return mod === 'torch' ? `${v}+cu128` : v;
}

function moduleNotFound(name, prog = '<string>') {
  process.stderr.write(`Traceback (most recent call last):\n  File "${prog}", line 1, in <module>\nModuleNotFoundError: No module named '${name}'\n`);
  return 1;
}

/** Splits Python source into simple statements (`;` and newlines, outside strings and brackets). */
function statements(code) {
  const out = [];
  let cur = '';
  let depth = 0;
  let quote = null;
  for (const c of code) {
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if ((c === ';' || c === '\n') && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Emulates the version checks people run (`import vllm; print(vllm.__version__)`); null = not emulable. */
function emulateCode(code, pkgs) {
  const names = new Map();
  const printed = [];
  for (const st of statements(code)) {
    let m;
    if ((m = /^import\s+(.+)$/.exec(st))) {
      for (const part of m[1].split(',')) {
        const [mod, alias] = part.trim().split(/\s+as\s+/);
        const root = mod.split('.')[0];
        if (MODULE_PACKAGE[root]) {
          const v = moduleVersion(pkgs, root);
          if (!v) return { code: moduleNotFound(root) };
          names.set(alias ?? root, { mod: root, version: v });
        } else names.set(alias ?? root, { mod: root, version: null });
      }
    } else if ((m = /^from\s+([\w.]+)\s+import\s+(.+)$/.exec(st))) {
      const root = m[1].split('.')[0];
      if (MODULE_PACKAGE[root]) {
        const v = moduleVersion(pkgs, root);
        if (!v) return { code: moduleNotFound(root) };
        for (const part of m[2].split(',')) {
          const [n, alias] = part.trim().split(/\s+as\s+/);
          names.set(alias ?? n, n === '__version__' ? { literal: v } : { mod: root, version: v });
        }
      }
    } else if ((m = /^print\((.*)\)$/.exec(st))) {
      const values = [];
      for (const arg of m[1].split(',').map((s) => s.trim()).filter(Boolean)) {
        let a;
        if ((a = /^(\w+)\.__version__$/.exec(arg)) && names.get(a[1])?.version) values.push(names.get(a[1]).version);
        else if ((a = /^(\w+)$/.exec(arg)) && names.get(a[1])?.literal) values.push(names.get(a[1]).literal);
        else if ((a = /^(['"])(.*)\1$/.exec(arg))) values.push(a[2]);
        else if ((a = /^(\w+)\.cuda\.is_available\(\)$/.exec(arg)) && names.get(a[1])?.mod === 'torch') values.push('True');
        else if ((a = /^(\w+)\.version\.cuda$/.exec(arg)) && names.get(a[1])?.mod === 'torch') values.push('12.8');
        else return null;
      }
      printed.push(values.join(' '));
    } else return null;
  }
  for (const line of printed) process.stdout.write(`${line}\n`);
  return { code: 0 };
}

const EXTERNALLY_MANAGED = `error: externally-managed-environment

× This environment is externally managed
╰─> To install Python packages system-wide, try apt install
    python3-xyz, where xyz is the package you are trying to
    install.
    
    If you wish to install a non-Debian-packaged Python package,
    create a virtual environment using python3 -m venv path/to/venv.
    Then use path/to/venv/bin/python and path/to/venv/bin/pip. Make
    sure you have python3-full installed.
    
    If you wish to install a non-Debian packaged Python application,
    it may be easiest to use pipx install xyz, which will manage a
    virtual environment for you. Make sure you have pipx installed.
    
    See /usr/share/doc/python3.12/README.venv for more information.

note: If you believe this is a mistake, please contact your Python installation or OS distribution provider. You can override this, at the risk of breaking your system installation, by passing --break-system-packages.
hint: See PEP 668 for the detailed specification.
`;

/**
 * @param {string[]} argv
 * @param {{envDir: string|null, prog?: string}} ctx envDir null: the box's system python3.
 */
export async function pythonMain(argv, ctx) {
  const env = ctx.envDir ? readEnv(ctx.envDir) : null;
  const pkgs = env?.packages ?? {};
  const prog = ctx.prog ?? (ctx.envDir ? join(ctx.envDir, 'bin', 'python') : '/usr/bin/python3');
  if (env && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`Python ${env.python}\n`);
    return 0;
  }
  if (argv[0] === '-m' && argv[1]) {
    const mod = argv[1];
    const rest = argv.slice(2);
    if (mod === 'venv') return venvMain(rest, ctx);
    if (mod === 'pip') {
      if (env) return pipMain(ctx.envDir, rest);
      if (rest[0] === '--version' || rest[0] === '-V') {
        const py = basePythonVersion().split('.').slice(0, 2).join('.');
        process.stdout.write(`pip 24.0 from /usr/lib/python3/dist-packages/pip (python ${py})\n`);
        return 0;
      }
      if (rest[0] === 'install' && !rest.includes('--break-system-packages')) {
        process.stderr.write(EXTERNALLY_MANAGED);
        return 1;
      }
      return delegate(argv);
    }
    const root = mod.split('.')[0];
    if (MODULE_PACKAGE[root] && ['vllm', 'sglang', 'tensorrt_llm'].includes(root)) {
      if (!moduleVersion(pkgs, root)) {
        process.stderr.write(`${prog}: Error while finding module specification for '${mod}' (ModuleNotFoundError: No module named '${root}')\n`);
        return 1;
      }
      const { sglangLaunchMain, trtllmServeMain, vllmApiServerMain, vllmMain } = await import('./engine-cli.mjs');
      const version = moduleVersion(pkgs, root);
      if (mod === 'sglang.launch_server') return sglangLaunchMain(rest, { version }).then(() => null);
      if (mod === 'vllm.entrypoints.openai.api_server') return vllmApiServerMain(rest, { version, processEnv: process.env }).then(() => null);
      if (mod === 'vllm.entrypoints.cli.main') return vllmMain(rest, { version, processEnv: process.env }).then(() => null);
      if (mod === 'tensorrt_llm.commands.serve') return trtllmServeMain(rest, { version, python: prog }).then(() => null);
      process.stderr.write(`${prog}: module '${mod}' is not part of the simulated box (simulated: sglang.launch_server, vllm.entrypoints.openai.api_server, tensorrt_llm.commands.serve).\n`);
      return 1;
    }
    return delegate(argv);
  }
  if (argv[0] === '-c' && argv[1] !== undefined) {
    if (env && isPrefetchScript(argv[1])) return prefetchMain(argv.slice(2), { packages: pkgs });
    if (/\b(vllm|sglang|tensorrt_llm)\b/.test(argv[1]) || (env && /\b(torch|transformers)\b/.test(argv[1]))) {
      const r = emulateCode(argv[1], pkgs);
      if (r) return r.code;
      process.stderr.write('python: the simulated box can only evaluate imports and version prints of the engine packages.\n');
      return 1;
    }
  }
  return delegate(argv);
}

/** `python -m venv [--clear] [--without-pip] … DIR`. */
async function venvMain(argv, ctx) {
  const dirs = argv.filter((a) => !a.startsWith('-'));
  const flags = argv.filter((a) => a.startsWith('-'));
  const known = ['--clear', '--upgrade', '--without-pip', '--system-site-packages', '--symlinks', '--copies', '--upgrade-deps', '--without-scm-ignore-files', '--prompt'];
  const bad = flags.find((f) => !known.includes(f.split('=')[0]));
  if (bad || dirs.length === 0) {
    process.stderr.write(`usage: venv [-h] [--system-site-packages] [--symlinks | --copies] [--clear]\n            [--upgrade] [--without-pip] [--prompt PROMPT] [--upgrade-deps]\n            [--without-scm-ignore-files]\n            ENV_DIR [ENV_DIR ...]\nvenv: error: ${bad ? `unrecognized arguments: ${bad}` : 'the following arguments are required: ENV_DIR'}\n`);
    return 2;
  }
  const ms = loadConfig().timeScale * 1000;
  const python = ctx.envDir ? readEnv(ctx.envDir).python : basePythonVersion();
  for (const d of dirs) {
    await sleep(3 * ms);
    createEnv(d, { python, clear: flags.includes('--clear'), withPip: !flags.includes('--without-pip'), command: `${ctx.prog ?? '/usr/bin/python3'} -m venv ${resolve(d)}` });
  }
  return 0;
}

export async function main(argv) {
  const code = await pythonMain(argv, { envDir: null });
  if (code !== null && code !== undefined) process.exitCode = code;
}
