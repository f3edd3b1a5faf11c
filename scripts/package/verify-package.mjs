// Verifies a packaged Linux app (the output of package-with-standin.mjs) and returns one result per check:
// { name, ok, detail }. Nothing here runs the app; it reads what electron-builder wrote:
// - app.asar (read with @electron/asar): what must be in it (package.json, its main entry, the preload, the renderer
//   and every asset it names, the production dependencies) and what must not (sources, tests, fixtures, scripts,
//   TypeScript, source maps, devDependencies, native *.node files, ssh2's native crypto binding);
// - every import in out/main/*.js and every require in out/preload/*.cjs resolves inside the asar: relative ones to
//   files, bare ones to a Node builtin, `electron`, or a package in the asar's node_modules whose entry file exists;
// - the extra resources: simbox/bin/* executable, simbox/lib, examples/*.servelab, node/bin/node of the pinned version;
// - the declarations: the effective configuration registers the project document type (from
//   src/shared/project-document.json) and no URL protocol; the deb's and the AppImage's desktop entries list the MIME
//   type and no x-scheme-handler; the deb installs a MIME definition of the type with its glob;
// - the fuse policy in electron-builder.config.mjs has the required hardening (REQUIRED_FUSES), the fuses read back
//   from the packaged executable equal that policy, and the fuses the policy does not name (Electron 45's
//   WasmTrapHandlers) are at Electron's default.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ELECTRON_DEFAULT_FUSES } from './electron-standin.mjs';
import { NODE_RUNTIME_VERSION } from './node-runtime.mjs';

const require = createRequire(import.meta.url);
const asar = require('@electron/asar');
const yaml = require('js-yaml');
const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses');

const PROJECT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const FUSE_ON = 0x31;
const FUSE_OFF = 0x30;

/** electron-builder's `electronFuses` option names → @electron/fuses wire index (app-builder-lib platformPackager.js). */
const FUSE_OPTION_INDEX = {
  runAsNode: FuseV1Options.RunAsNode,
  enableCookieEncryption: FuseV1Options.EnableCookieEncryption,
  enableNodeOptionsEnvironmentVariable: FuseV1Options.EnableNodeOptionsEnvironmentVariable,
  enableNodeCliInspectArguments: FuseV1Options.EnableNodeCliInspectArguments,
  enableEmbeddedAsarIntegrityValidation: FuseV1Options.EnableEmbeddedAsarIntegrityValidation,
  onlyLoadAppFromAsar: FuseV1Options.OnlyLoadAppFromAsar,
  loadBrowserProcessSpecificV8Snapshot: FuseV1Options.LoadBrowserProcessSpecificV8Snapshot,
  grantFileProtocolExtraPrivileges: FuseV1Options.GrantFileProtocolExtraPrivileges,
};

// ---------------------------------------------------------------------------------------------------- the asar

/** The asar's file list as posix paths without the leading slash, and a reader for one file. */
function openAsar(asarPath) {
  // @electron/asar keeps each archive's header in memory; a rewritten archive must be read afresh.
  asar.uncache(asarPath);
  const entries = asar.listPackage(asarPath, { isPack: false }).map((p) => p.replace(/\\/g, '/').replace(/^\//, ''));
  const files = new Set(entries.filter((p) => asar.statFile(asarPath, p, false).files === undefined));
  return { files, read: (p) => asar.extractFile(asarPath, p).toString('utf8') };
}

function requiredFiles(archive) {
  const results = [];
  const must = (path, why) => results.push({ name: `app.asar has ${path}`, ok: archive.files.has(path), detail: why });
  must('package.json', 'the app manifest');
  const manifest = archive.files.has('package.json') ? JSON.parse(archive.read('package.json')) : {};
  const main = posix.normalize(manifest.main ?? 'index.js');
  must(main, 'package.json "main"');
  must('out/preload/index.cjs', 'the preload');
  must('out/renderer/index.html', 'the renderer page');
  if (archive.files.has('out/renderer/index.html')) {
    const html = archive.read('out/renderer/index.html');
    const named = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => posix.join('out/renderer', m[1]));
    const missing = named.filter((p) => !archive.files.has(p));
    results.push({ name: 'app.asar has every asset index.html names', ok: named.length > 0 && missing.length === 0, detail: missing.length ? `missing: ${missing.join(', ')}` : `${named.length} assets` });
    const chunkMissing = [];
    for (const file of [...archive.files].filter((p) => p.startsWith('out/renderer/assets/') && p.endsWith('.js'))) {
      for (const m of archive.read(file).matchAll(/["'`]\.\/([A-Za-z0-9_.-]+\.(?:js|css))["'`]/g)) {
        const target = posix.join(posix.dirname(file), m[1]);
        if (!archive.files.has(target)) chunkMissing.push(`${target} (named by ${file})`);
      }
    }
    results.push({ name: 'app.asar has every chunk the renderer scripts name', ok: chunkMissing.length === 0, detail: chunkMissing.join(', ') || 'all present' });
  }
  // Production dependencies and theirs, through each package's "dependencies" (optional ones are left out on purpose).
  const missingDeps = [];
  const seen = new Set();
  const visit = (deps, from) => {
    for (const name of Object.keys(deps ?? {})) {
      if (seen.has(name)) continue;
      seen.add(name);
      const pj = `node_modules/${name}/package.json`;
      if (!archive.files.has(pj)) {
        missingDeps.push(`${name} (needed by ${from})`);
        continue;
      }
      visit(JSON.parse(archive.read(pj)).dependencies, name);
    }
  };
  visit(manifest.dependencies, 'package.json');
  results.push({ name: 'app.asar has the production dependencies and theirs', ok: seen.size > 0 && missingDeps.length === 0, detail: missingDeps.length ? `missing: ${missingDeps.join(', ')}` : [...seen].join(', ') });
  return results;
}

function forbiddenFiles(archive) {
  const project = JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8'));
  const devOnly = Object.keys(project.devDependencies ?? {}).filter((name) => !(name in (project.dependencies ?? {})));
  const rules = [
    ['only package.json, out/ and node_modules/ at the top', (p) => !/^(package\.json$|out\/|node_modules\/)/.test(p)],
    ['no project sources, tests, fixtures or scripts', (p) => /^(src|tests|scripts|docs|perf|resources|examples)\//.test(p) || /(^|\/)fixtures\//.test(p)],
    ['no TypeScript sources or declarations', (p) => /\.(ts|tsx|mts|cts)$/.test(p)],
    ['no source maps', (p) => p.endsWith('.map')],
    ['no native addons (*.node) and no ssh2 native crypto build', (p) => p.endsWith('.node') || p.includes('ssh2/lib/protocol/crypto/build/') || /^node_modules\/(cpu-features|nan)\//.test(p)],
    [`no devDependencies (${devOnly.length}, e.g. electron, vite, react, echarts)`, (p) => devOnly.some((name) => p.startsWith(`node_modules/${name}/`) || p.includes(`/node_modules/${name}/`))],
  ];
  return rules.map(([name, bad]) => {
    const offenders = [...archive.files].filter(bad);
    return { name: `app.asar has ${name}`, ok: offenders.length === 0, detail: offenders.length ? `found: ${offenders.slice(0, 8).join(', ')}${offenders.length > 8 ? ` and ${offenders.length - 8} more` : ''}` : 'none' };
  });
}

// ------------------------------------------------------------------------------------------- import resolution

const BUILTINS = new Set(builtinModules);
const isBuiltin = (spec) => spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]);

/** Import specifiers of an ES module or CommonJS file: static imports and re-exports, import('…'), require('…'). */
export function importSpecifiers(source) {
  const specs = new Set();
  const patterns = [
    /\bimport\s+(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/g,
    /\bexport\s+(?:\*|\{[^}]*\})\s+from\s+["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) specs.add(m[1]);
  return [...specs];
}

/** The file a package's exports/main leads to for `subpath` ('.' or './x'), as an ESM import under Node would pick. */
function packageEntry(manifest, subpath) {
  const pick = (target) => {
    if (typeof target === 'string') return target;
    if (Array.isArray(target)) return target.map(pick).find(Boolean) ?? null;
    if (target && typeof target === 'object') {
      for (const condition of ['node', 'import', 'default', 'require']) if (condition in target) {
        const found = pick(target[condition]);
        if (found) return found;
      }
    }
    return null;
  };
  if (manifest.exports !== undefined) {
    const exp = manifest.exports;
    const map = typeof exp === 'string' || Array.isArray(exp) || !Object.keys(exp).some((k) => k.startsWith('.')) ? { '.': exp } : exp;
    return subpath in map ? pick(map[subpath]) : null;
  }
  if (subpath !== '.') return subpath;
  return manifest.main ?? 'index.js';
}

function resolveInAsar(archive, fromFile, spec) {
  const exists = (p) => [p, `${p}.js`, `${p}.json`, `${p}/index.js`].some((c) => archive.files.has(posix.normalize(c)));
  if (spec.startsWith('./') || spec.startsWith('../')) {
    const target = posix.join(posix.dirname(fromFile), spec);
    return archive.files.has(target) ? null : `${spec} (no ${target})`;
  }
  if (isBuiltin(spec)) return null;
  if (spec === 'electron' || spec.startsWith('electron/')) return null;
  const parts = spec.split('/');
  const name = spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const subpath = spec === name ? '.' : `./${spec.slice(name.length + 1)}`;
  const pj = `node_modules/${name}/package.json`;
  if (!archive.files.has(pj)) return `${spec} (no ${pj})`;
  const entry = packageEntry(JSON.parse(archive.read(pj)), subpath);
  if (!entry) return `${spec} (${name}'s package.json exports no ${subpath})`;
  const file = posix.join(`node_modules/${name}`, entry);
  return exists(file) ? null : `${spec} (entry ${file} missing)`;
}

function importsResolve(archive) {
  const scripts = [...archive.files].filter((p) => /^out\/main\/.*\.js$/.test(p) || /^out\/preload\/.*\.cjs$/.test(p));
  const unresolved = [];
  let count = 0;
  for (const file of scripts) {
    for (const spec of importSpecifiers(archive.read(file))) {
      count += 1;
      const problem = resolveInAsar(archive, file, spec);
      if (problem) unresolved.push(`${file}: ${problem}`);
    }
  }
  return [{ name: 'every import in out/main and out/preload resolves inside app.asar', ok: scripts.length > 0 && unresolved.length === 0, detail: unresolved.length ? unresolved.join('; ') : `${count} imports in ${scripts.length} files` }];
}

// ------------------------------------------------------------------------------------------ extra resources

const isExecutable = (path) => existsSync(path) && (statSync(path).mode & 0o111) === 0o111;

function extraResources(resourcesDir) {
  const results = [];
  const simboxBin = join(PROJECT_DIR, 'resources', 'simbox', 'bin');
  const tools = readdirSync(simboxBin);
  const notExecutable = tools.filter((tool) => !isExecutable(join(resourcesDir, 'simbox', 'bin', tool)));
  results.push({ name: 'simbox/bin/* are there and executable', ok: notExecutable.length === 0, detail: notExecutable.length ? `missing or not executable: ${notExecutable.join(', ')}` : tools.join(', ') });
  const libs = readdirSync(join(PROJECT_DIR, 'resources', 'simbox', 'lib')).filter((f) => !f.endsWith('.d.mts'));
  const missingLibs = libs.filter((f) => !existsSync(join(resourcesDir, 'simbox', 'lib', f)));
  if (!existsSync(join(resourcesDir, 'simbox', 'package.json'))) missingLibs.push('simbox/package.json');
  results.push({ name: 'simbox/lib and simbox/package.json are there', ok: missingLibs.length === 0, detail: missingLibs.length ? `missing: ${missingLibs.join(', ')}` : `${libs.length} modules` });
  const examples = readdirSync(join(PROJECT_DIR, 'examples')).filter((f) => f.endsWith('.servelab'));
  const missingExamples = examples.filter((f) => !existsSync(join(resourcesDir, 'examples', f)));
  results.push({ name: 'examples/*.servelab are there', ok: examples.length > 0 && missingExamples.length === 0, detail: missingExamples.length ? `missing: ${missingExamples.join(', ')}` : examples.join(', ') });
  const node = join(resourcesDir, 'node', 'bin', 'node');
  const license = existsSync(join(resourcesDir, 'node', 'LICENSE'));
  if (!isExecutable(node)) {
    results.push({ name: `node/bin/node is Node ${NODE_RUNTIME_VERSION}`, ok: false, detail: 'missing or not executable' });
  } else if (process.platform === 'linux' && process.arch === 'x64') {
    const out = spawnSync(node, ['--version'], { encoding: 'utf8' });
    const version = (out.stdout ?? '').trim();
    results.push({ name: `node/bin/node is Node ${NODE_RUNTIME_VERSION}`, ok: version === `v${NODE_RUNTIME_VERSION}`, detail: `--version printed ${JSON.stringify(version || out.stderr)}` });
  } else {
    results.push({ name: `node/bin/node is there (not run: this is not Linux x64)`, ok: true, detail: node });
  }
  results.push({ name: 'node/LICENSE is there', ok: license, detail: license ? 'present' : 'missing' });
  return results;
}

// ------------------------------------------------------------------------------------------- declarations

function declarations(pkg) {
  const doc = JSON.parse(readFileSync(join(PROJECT_DIR, 'src', 'shared', 'project-document.json'), 'utf8'));
  // The configuration as written to builder-effective-config.yaml, read back from the file.
  const config = existsSync(pkg.effectiveConfigFile ?? '') ? (yaml.load(readFileSync(pkg.effectiveConfigFile, 'utf8')) ?? {}) : {};
  const associations = [config.fileAssociations, config.linux?.fileAssociations].flat().filter(Boolean);
  const ours = associations.find((a) => [a.ext].flat().includes(doc.extension));
  const results = [];
  results.push({
    name: `the configuration registers .${doc.extension} as ${doc.mimeType} ("${doc.typeName}", Editor)`,
    ok: !!ours && ours.name === doc.typeName && ours.mimeType === doc.mimeType && ours.role === 'Editor',
    detail: ours ? JSON.stringify(ours) : `no association for .${doc.extension} in ${pkg.effectiveConfigFile}`,
  });
  const protocols = [config.protocols, config.linux?.protocols, config.mac?.protocols, config.win?.protocols].flat().filter(Boolean);
  results.push({ name: 'the configuration registers no URL protocol', ok: protocols.length === 0, detail: protocols.length ? JSON.stringify(protocols) : 'none' });
  for (const [target, entry] of Object.entries({ deb: pkg.desktopEntries?.deb, AppImage: pkg.desktopEntries?.appImage })) {
    const mime = /^MimeType=(.*)$/m.exec(entry ?? '')?.[1] ?? '';
    const types = mime.split(';').filter(Boolean);
    results.push({
      name: `the ${target} desktop entry lists ${doc.mimeType} and no URL scheme`,
      ok: types.includes(doc.mimeType) && !types.some((t) => t.startsWith('x-scheme-handler/')),
      detail: entry ? `MimeType=${mime}` : 'no desktop entry was computed',
    });
  }
  const xml = pkg.debMimeXml ?? '';
  const typeBlock = new RegExp(`<mime-type type="${doc.mimeType.replace(/[.+]/g, '\\$&')}">([\\s\\S]*?)</mime-type>`).exec(xml)?.[1] ?? '';
  results.push({
    name: `the deb defines ${doc.mimeType} for *.${doc.extension}`,
    ok: typeBlock.includes(`<glob pattern="*.${doc.extension}"/>`) && pkg.debMimeInstallPath === '/usr/share/mime/packages/servelab.xml',
    detail: xml ? `installed at ${pkg.debMimeInstallPath}` : 'no MIME definition was computed',
  });
  return results;
}

// ------------------------------------------------------------------------------------------------- fuses

/**
 * The fuses every Servelab package must have, whatever electron-builder.config.mjs says: the wire is compared with
 * the configured policy, so without this a policy edited to turn RunAsNode back on would pass as well.
 */
export const REQUIRED_FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  enableEmbeddedAsarIntegrityValidation: true,
  onlyLoadAppFromAsar: true,
  enableCookieEncryption: true,
};

/** The required fuses `policy` leaves out or sets the other way, as `option (wanted on|off)`. */
export function requiredFuseProblems(policy) {
  return Object.entries(REQUIRED_FUSES)
    .filter(([option, want]) => policy[option] !== want)
    .map(([option, want]) => `${option} (wanted ${want ? 'on' : 'off'}, the policy has ${policy[option] === undefined ? 'nothing' : policy[option] ? 'on' : 'off'})`);
}

async function fuses(executable, policy) {
  const problems = requiredFuseProblems(policy);
  const required = {
    name: 'the fuse policy has the required hardening (RunAsNode, NODE_OPTIONS, --inspect off; ASAR integrity, only-load-from-ASAR, cookie encryption on)',
    ok: problems.length === 0,
    detail: problems.join(', ') || 'all set',
  };
  if (!existsSync(executable)) return [required, { name: 'the packaged executable carries the fuse policy', ok: false, detail: `no ${executable}` }];
  const wire = await getCurrentFuseWire(executable);
  const length = Object.keys(wire).filter((k) => /^\d+$/.test(k)).length;
  const results = [
    required,
    { name: `the fuse wire has Electron 45's ${ELECTRON_DEFAULT_FUSES.length} fuses`, ok: length === ELECTRON_DEFAULT_FUSES.length, detail: `wire version ${wire.version}, ${length} fuses` },
  ];
  const named = new Set();
  for (const [option, index] of Object.entries(FUSE_OPTION_INDEX)) {
    if (policy[option] === undefined) continue;
    named.add(index);
    const want = policy[option] ? FUSE_ON : FUSE_OFF;
    results.push({ name: `fuse ${option} is ${policy[option] ? 'on' : 'off'}`, ok: wire[index] === want, detail: `byte ${index} is ${JSON.stringify(String.fromCharCode(wire[index] ?? 0))}` });
  }
  ELECTRON_DEFAULT_FUSES.forEach(([name, on], index) => {
    if (named.has(index)) return;
    const want = on ? FUSE_ON : FUSE_OFF;
    results.push({ name: `fuse ${name} (not in the policy) is at Electron's default, ${on ? 'on' : 'off'}`, ok: wire[index] === want, detail: `byte ${index} is ${JSON.stringify(String.fromCharCode(wire[index] ?? 0))}` });
  });
  return results;
}

// ------------------------------------------------------------------------------------------ unpacked layout

function unpackedLayout(appOutDir, executableName) {
  const resources = join(appOutDir, 'resources');
  return [
    {
      name: `the app's executable is ${executableName} (Electron's, renamed) and no electron is left`,
      ok: isExecutable(join(appOutDir, executableName)) && !existsSync(join(appOutDir, 'electron')),
      detail: readdirSync(appOutDir).join(', '),
    },
    { name: "Electron's licence is kept as LICENSE.electron.txt", ok: existsSync(join(appOutDir, 'LICENSE.electron.txt')), detail: 'required beside the binary by its licence' },
    {
      name: 'nothing beside app.asar could be loaded as the app (no resources/app, no default_app.asar)',
      ok: !existsSync(join(resources, 'app')) && !existsSync(join(resources, 'default_app.asar')),
      detail: existsSync(resources) ? readdirSync(resources).join(', ') : 'no resources folder',
    },
  ];
}

// --------------------------------------------------------------------------------------------------- entry

/**
 * Verifies the result of packageLinuxWithStandIn (`pkg`) against the fuse `policy` (electron-builder's
 * `electronFuses`). Returns the list of results; the package is good when every one is ok.
 */
export async function verifyPackage(pkg, { policy, executableName = 'servelab' }) {
  const resourcesDir = join(pkg.appOutDir, 'resources');
  const asarPath = join(resourcesDir, 'app.asar');
  const results = [];
  if (!existsSync(asarPath)) {
    results.push({ name: 'resources/app.asar exists', ok: false, detail: `no ${asarPath}` });
  } else {
    const archive = openAsar(asarPath);
    results.push(...requiredFiles(archive), ...forbiddenFiles(archive), ...importsResolve(archive));
  }
  results.push(...unpackedLayout(pkg.appOutDir, executableName), ...extraResources(resourcesDir), ...declarations(pkg));
  results.push(...(await fuses(join(pkg.appOutDir, executableName), policy)));
  return results;
}

/** The results as a pass/fail list, one line each. */
export function formatResults(results) {
  return results.map((r) => `${r.ok ? 'PASS' : 'FAIL'}  ${r.name}${r.detail ? ` — ${r.detail}` : ''}`).join('\n');
}
