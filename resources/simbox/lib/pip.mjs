// `pip` and `uv pip` against the simulated package index: real output shapes and exit codes, scaled time,
// name==version recorded in the environment's manifest.

import { existsSync, readFileSync } from 'node:fs';
import { indexEntry, normalizePackageName, PACKAGE_INDEX, versionCompare } from './catalog.mjs';
import { readEnv, sitePackages, syncEntryPoints, writeEnv } from './envs.mjs';
import { hash32 } from './rng.mjs';
import { loadConfig } from './state.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const PIP_VERSION_DEFAULT = '24.0';

/** Parses a requirement: name[extras](==|>=|<=|~=|>|<)version, or a wheel URL/path. */
export function parseRequirement(spec) {
  const wheel = /(?:^|\/)([A-Za-z0-9_.-]+?)-(\d[^-]*?)(?:\+[^-]+)?-[^/]*\.whl$/.exec(spec);
  if (wheel) return { raw: spec, name: wheel[1], extras: [], op: '==', version: wheel[2], wheelUrl: spec };
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?\s*(?:(==|>=|<=|~=|!=|>|<)\s*([^\s;,]+))?\s*$/.exec(spec);
  if (!m) return null;
  return { raw: spec, name: m[1], extras: m[2] ? m[2].split(',').map((s) => s.trim()).filter(Boolean) : [], op: m[3] ?? null, version: m[4] ?? null };
}

const isPre = (v) => /(a|b|rc)\d+/.test(v);

/** The version pip would pick, or null. */
export function pickVersion(req, { pre = false } = {}) {
  const entry = indexEntry(req.name);
  if (!entry) return { entry: null, version: null };
  const allowPre = pre || (req.version && isPre(req.version));
  const candidates = entry.versions.filter((v) => allowPre || !isPre(v));
  const ok = candidates.filter((v) => {
    if (!req.op) return true;
    const c = versionCompare(v, req.version);
    return { '==': c === 0, '>=': c >= 0, '<=': c <= 0, '>': c > 0, '<': c < 0, '!=': c !== 0, '~=': c >= 0 }[req.op];
  });
  return { entry, version: ok.length ? ok[ok.length - 1] : null, shown: entry.versions.filter((v) => pre || !isPre(v)) };
}

function scaleMs() {
  return loadConfig().timeScale * 1000;
}

function bar(total, unit) {
  const n = total.toFixed(1);
  return `   ${'━'.repeat(40)} ${n}/${n} ${unit} ${(60 + (hash32(unit, n) % 60)).toFixed(1)} MB/s eta 0:00:00`;
}

const PIP_INSTALL_USAGE = `
Usage:   
  pip install [options] <requirement specifier> [package-index-options] ...
  pip install [options] -r <requirements file> [package-index-options] ...
  pip install [options] [-e] <vcs project url> ...
  pip install [options] [-e] <local project path> ...
  pip install [options] <archive url/path> ...

`;

const PIP_FLAGS_WITH_VALUE = new Set(['--extra-index-url', '--index-url', '-i', '--upgrade-strategy', '--root-user-action', '-c', '--constraint', '-r', '--requirement', '--target', '-t', '--prefix', '--cache-dir', '--find-links', '-f', '--python-version', '--platform', '--only-binary', '--no-binary', '--progress-bar', '--timeout', '--retries', '--trusted-host']);
const PIP_FLAGS = new Set(['-U', '--upgrade', '--pre', '--no-deps', '--force-reinstall', '--no-cache-dir', '-q', '--quiet', '-v', '--verbose', '--prefer-binary', '--no-build-isolation', '--disable-pip-version-check', '--break-system-packages', '--user', '--ignore-installed', '-I', '--no-warn-script-location', '--no-input', '--isolated', '--require-hashes', '--no-index']);

/** `python -m pip …` inside an environment. Returns the exit code. */
export async function pipMain(envDir, argv, out = process.stdout, err = process.stderr) {
  const manifest = readEnv(envDir);
  const pipVersion = manifest.packages.pip ?? PIP_VERSION_DEFAULT;
  const pyShort = manifest.python.split('.').slice(0, 2).join('.');
  const site = sitePackages(envDir, manifest);
  const cmd = argv[0];
  if (cmd === '--version' || cmd === '-V') {
    out.write(`pip ${pipVersion} from ${site}/pip (python ${pyShort})\n`);
    return 0;
  }
  if (cmd === 'list') {
    const rows = Object.entries(manifest.packages).sort(([a], [b]) => a.localeCompare(b));
    const w = Math.max(7, ...rows.map(([n]) => n.length));
    const wv = Math.max(7, ...rows.map(([, v]) => v.length));
    out.write(`${'Package'.padEnd(w)} ${'Version'.padEnd(wv)}\n${'-'.repeat(w)} ${'-'.repeat(wv)}\n`);
    for (const [n, v] of rows) out.write(`${n.padEnd(w)} ${v.padEnd(wv)}\n`.replace(/ +\n$/, '\n'));
    return 0;
  }
  if (cmd === 'freeze') {
    for (const [n, v] of Object.entries(manifest.packages).sort(([a], [b]) => a.localeCompare(b))) if (n !== 'pip' && n !== 'setuptools') out.write(`${n}==${v}\n`);
    return 0;
  }
  if (cmd === 'show') {
    const names = argv.slice(1).filter((a) => !a.startsWith('-'));
    let missing = false;
    names.forEach((name, i) => {
      const key = Object.keys(manifest.packages).find((k) => normalizePackageName(k) === normalizePackageName(name));
      if (!key) {
        missing = true;
        return;
      }
      if (i > 0) out.write('---\n');
      out.write(`Name: ${key}\nVersion: ${manifest.packages[key]}\nSummary: (simulated by the Servelab simbox)\nLocation: ${site}\nRequires: \nRequired-by: \n`);
    });
    if (missing) err.write(`WARNING: Package(s) not found: ${names.filter((n) => !Object.keys(manifest.packages).some((k) => normalizePackageName(k) === normalizePackageName(n))).join(', ')}\n`);
    return missing && names.length === 1 ? 1 : 0;
  }
  if (cmd === 'uninstall') {
    const names = argv.slice(1).filter((a) => !a.startsWith('-'));
    for (const name of names) {
      const key = Object.keys(manifest.packages).find((k) => normalizePackageName(k) === normalizePackageName(name));
      if (!key) {
        err.write(`WARNING: Skipping ${name} as it is not installed.\n`);
        continue;
      }
      const v = manifest.packages[key];
      out.write(`Found existing installation: ${key} ${v}\nUninstalling ${key}-${v}:\n  Successfully uninstalled ${key}-${v}\n`);
      delete manifest.packages[key];
    }
    writeEnv(envDir, manifest);
    syncEntryPoints(envDir, manifest);
    return 0;
  }
  if (cmd !== 'install') {
    err.write(`ERROR: unknown command "${cmd ?? ''}"\n`);
    return 1;
  }

  const specs = [];
  const opts = { pre: false, upgrade: false, quiet: false, noDeps: false, force: false };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const [flag] = a.split('=');
    if (PIP_FLAGS_WITH_VALUE.has(flag)) {
      if (!a.includes('=')) i++;
      if (flag === '-r' || flag === '--requirement') {
        const file = a.includes('=') ? a.split('=')[1] : argv[i];
        if (!existsSync(file)) {
          err.write(`ERROR: Could not open requirements file: [Errno 2] No such file or directory: '${file}'\n`);
          return 1;
        }
        specs.push(...readFileSync(file, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean));
      }
      continue;
    }
    if (PIP_FLAGS.has(a)) {
      if (a === '--pre') opts.pre = true;
      if (a === '-U' || a === '--upgrade') opts.upgrade = true;
      if (a === '-q' || a === '--quiet') opts.quiet = true;
      if (a === '--no-deps') opts.noDeps = true;
      if (a === '--force-reinstall') opts.force = true;
      continue;
    }
    if (a.startsWith('-')) {
      err.write(`${PIP_INSTALL_USAGE}no such option: ${flag}\n`);
      return 2;
    }
    specs.push(a);
  }
  if (specs.length === 0) {
    err.write('ERROR: You must give at least one requirement to install (see "pip help install")\n');
    return 1;
  }
  return installInto(envDir, manifest, specs, { ...opts, tool: 'pip' }, out, err);
}

/**
 * Resolves and "installs" requirements into an environment. tool: 'pip' (pip's messages) or 'uv' (uv's).
 */
export async function installInto(envDir, manifest, specs, opts, out = process.stdout, err = process.stderr) {
  const ms = scaleMs();
  const site = sitePackages(envDir, manifest);
  const plan = [];
  for (const raw of specs) {
    const req = parseRequirement(raw);
    if (!req) {
      if (opts.tool === 'uv') err.write(`error: Failed to parse: \`${raw}\`\n`);
      else err.write(`ERROR: Invalid requirement: '${raw}'\n`);
      return opts.tool === 'uv' ? 2 : 1;
    }
    const pick = pickVersion(req, { pre: opts.pre });
    if (!pick.entry || !pick.version) {
      if (opts.tool === 'uv') {
        const why = !pick.entry ? `Because ${req.name} was not found in the package registry and you require ${req.raw}, we can conclude that your requirements are unsatisfiable.` : `Because there is no version of ${req.name}${req.op ?? '=='}${req.version} and you require ${req.raw}, we can conclude that your requirements are unsatisfiable.`;
        err.write(`  × No solution found when resolving dependencies:\n  ╰─▶ ${why}\n`);
        return 1;
      }
      err.write(`ERROR: Could not find a version that satisfies the requirement ${req.raw} (from versions: ${pick.shown?.length ? pick.shown.join(', ') : 'none'})\nERROR: No matching distribution found for ${req.raw}\n`);
      return 1;
    }
    plan.push({ req, entry: pick.entry, key: normalizePackageName(req.name), version: pick.version });
  }

  const changes = [];
  const deps = new Map();
  for (const p of plan) {
    const extrasKnown = typeof p.entry.extras === 'function' ? p.entry.extras(p.version) : p.entry.extras;
    for (const x of p.req.extras) {
      if (!extrasKnown.includes(x)) {
        if (opts.tool === 'uv') err.write(`warning: The package \`${p.entry.display}==${p.version}\` does not have an extra named \`${x}\`\n`);
        else out.write(`WARNING: ${p.entry.display} ${p.version} does not provide the extra '${x}'\n`);
      }
    }
    if (!opts.noDeps) for (const [n, v] of p.entry.deps) deps.set(n, v);
  }

  if (opts.tool === 'uv') {
    const total = plan.length + deps.size + 40;
    await sleep(1.2 * ms);
    err.write(`Resolved ${total} packages in ${(0.9 + total * 0.01).toFixed(2)}s\n`);
    const fresh = plan.filter((p) => opts.force || manifest.packages[p.entry.display] !== p.version);
    const newDeps = [...deps].filter(([n, v]) => manifest.packages[n] !== v);
    if (fresh.length === 0 && newDeps.length === 0) {
      err.write(`Audited ${total} packages in 12ms\n`);
      return 0;
    }
    const size = fresh.reduce((s, p) => s + p.entry.sizeMB, 0) + newDeps.length * 120;
    await sleep((size / 90) * ms);
    err.write(`Prepared ${fresh.length + newDeps.length + 38} packages in ${(size / 90).toFixed(2)}s\n`);
    await sleep(2.5 * ms);
    err.write(`Installed ${fresh.length + newDeps.length + 38} packages in ${(2.1 + fresh.length * 0.3).toFixed(2)}s\n`);
    const lines = [];
    for (const [n, v] of newDeps) {
      if (manifest.packages[n]) lines.push(` - ${n}==${manifest.packages[n]}`);
      lines.push(` + ${n}==${v}`);
      manifest.packages[n] = v;
    }
    for (const p of fresh) {
      if (manifest.packages[p.entry.display]) lines.push(` - ${p.entry.display}==${manifest.packages[p.entry.display]}`);
      lines.push(` + ${p.entry.display}==${p.version}`);
      manifest.packages[p.entry.display] = p.version;
      changes.push(p);
    }
    err.write(`${lines.sort((a, b) => a.slice(3).localeCompare(b.slice(3))).join('\n')}\n`);
    writeEnv(envDir, manifest);
    syncEntryPoints(envDir, manifest);
    return 0;
  }

  // pip
  const say = (s) => {
    if (!opts.quiet) out.write(`${s}\n`);
  };
  const already = plan.filter((p) => !opts.force && manifest.packages[p.entry.display] === p.version && !(opts.upgrade && false));
  const todo = plan.filter((p) => !already.includes(p));
  for (const p of already) say(`Requirement already satisfied: ${p.req.raw} in ${site} (${p.version})`);
  if (todo.length === 0) {
    for (const [n, v] of deps) say(`Requirement already satisfied: ${n}==${v} in ${site} (from ${plan[0].entry.display}) (${v})`);
    return 0;
  }
  for (const p of todo) {
    say(p.req.wheelUrl ? `Collecting ${p.entry.display}==${p.version}` : `Collecting ${p.req.raw}`);
    say(`  Downloading ${p.entry.wheel(p.version)}.metadata (${8 + (hash32(p.version) % 20)} kB)`);
    await sleep(0.6 * ms);
  }
  const depTodo = [...deps].filter(([n, v]) => manifest.packages[n] !== v);
  for (const [n, v] of depTodo) {
    say(`Collecting ${n}==${v} (from ${todo[0].entry.display}==${todo[0].version})`);
    say(`  Downloading ${n.replace(/-/g, '_')}-${v}-py3-none-any.whl.metadata (${4 + (hash32(n) % 30)} kB)`);
    await sleep(0.15 * ms);
  }
  for (const p of todo) {
    say(`Downloading ${p.entry.wheel(p.version)} (${p.entry.sizeMB.toFixed(1)} MB)`);
    await sleep((p.entry.sizeMB / 85) * ms);
    say(bar(p.entry.sizeMB, 'MB'));
  }
  for (const [n, v] of depTodo) {
    const mb = n === 'torch' ? 888.1 : n === 'tensorrt' ? 2103.4 : 2 + (hash32(n, v) % 400) / 10;
    say(`Downloading ${n.replace(/-/g, '_')}-${v}-py3-none-any.whl (${mb.toFixed(1)} MB)`);
    await sleep((mb / 85) * ms);
    say(bar(mb, 'MB'));
  }
  const installing = [...depTodo.map(([n]) => n), ...todo.map((p) => p.entry.display)];
  say(`Installing collected packages: ${installing.join(', ')}`);
  for (const p of todo) {
    const old = manifest.packages[p.entry.display];
    if (old) {
      say(`  Attempting uninstall: ${p.entry.display}`);
      say(`    Found existing installation: ${p.entry.display} ${old}`);
      say(`    Uninstalling ${p.entry.display}-${old}:`);
      say(`      Successfully uninstalled ${p.entry.display}-${old}`);
    }
  }
  await sleep((20 + todo.length * 15) * ms);
  for (const [n, v] of depTodo) manifest.packages[n] = v;
  for (const p of todo) {
    manifest.packages[p.entry.display] = p.version;
    changes.push(p);
  }
  writeEnv(envDir, manifest);
  syncEntryPoints(envDir, manifest);
  say(`Successfully installed ${[...depTodo.map(([n, v]) => `${n}-${v}`), ...todo.map((p) => `${p.entry.display}-${p.version}`)].join(' ')}`);
  return 0;
}

export { PACKAGE_INDEX };
