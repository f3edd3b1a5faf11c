import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the simulated GPU box lives in the repository and in the app's resources. */
const SIMBOX_BIN = join('resources', 'simbox', 'bin');

export interface SimboxLookup {
  /** Electron's `process.resourcesPath` in a packaged app, where `simbox/` is shipped beside app.asar. */
  resourcesPath?: string | undefined;
  /** A module URL (or file path) to search upwards from; default: this module. */
  from?: string;
}

/** A folder holding the simbox commands, runnable from outside any archive. */
export function isSimboxBinDir(dir: string): boolean {
  if (dir.includes(`app.asar${sep}`)) return false;
  return existsSync(join(dir, 'simbox')) && existsSync(join(dir, 'nvidia-smi'));
}

/**
 * Finds the simbox `bin/` folder: in a packaged app under `process.resourcesPath`; otherwise upwards from the
 * running module, which finds `resources/simbox/bin` from the sources (vitest), from the built `out/main/*.js`
 * (and its chunks) and from an unpacked app. Null when the app ships without it.
 */
export function resolveSimboxBinDir(lookup: SimboxLookup = {}): string | null {
  const candidates: string[] = [];
  if (lookup.resourcesPath) {
    candidates.push(
      join(lookup.resourcesPath, 'simbox', 'bin'),
      join(lookup.resourcesPath, SIMBOX_BIN),
      join(lookup.resourcesPath, 'app.asar.unpacked', SIMBOX_BIN),
    );
  }
  const from = lookup.from ?? import.meta.url;
  let dir = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (let depth = 0; depth < 6; depth++) {
    candidates.push(join(dir, SIMBOX_BIN));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return candidates.find(isSimboxBinDir) ?? null;
}
