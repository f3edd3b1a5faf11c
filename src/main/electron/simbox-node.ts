import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SimboxNode } from '../../core/box/demo-lab';

/**
 * The Node.js the demo lab's simulated tools run on in the desktop app. A packaged app cannot run its own binary as
 * Node (the RunAsNode fuse is off), so it ships one beside app.asar (`<resources>/node/bin/node`, on Linux and
 * macOS; the demo lab needs a POSIX shell, so Windows packages have none). From a checkout, Electron itself runs as
 * Node. Null: this package has no runtime for the demo lab.
 */
export function simboxNodeFor(opts: { isPackaged: boolean; resourcesPath: string; electronPath: string; exists?: (path: string) => boolean }): SimboxNode | null {
  if (!opts.isPackaged) return { execPath: opts.electronPath, isElectron: true };
  const bundled = join(opts.resourcesPath, 'node', 'bin', 'node');
  return (opts.exists ?? existsSync)(bundled) ? { execPath: bundled, isElectron: false } : null;
}
