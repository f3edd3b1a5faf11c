import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of example studies: `examples/` shipped beside the app's resources, or found upwards from the running
 * module (the sources, the built `out/main`). Null when the app ships without it.
 */
export function resolveExamplesDir(lookup: { resourcesPath?: string | undefined; from?: string } = {}): string | null {
  const candidates: string[] = [];
  if (lookup.resourcesPath) candidates.push(join(lookup.resourcesPath, 'examples'));
  const from = lookup.from ?? import.meta.url;
  let dir = dirname(from.startsWith('file:') ? fileURLToPath(from) : from);
  for (let depth = 0; depth < 6; depth++) {
    candidates.push(join(dir, 'examples'));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return candidates.find((d) => existsSync(join(d, 'qwen3-8b-latency-h100.servelab'))) ?? null;
}
