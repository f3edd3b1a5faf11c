import { randomBytes } from 'node:crypto';
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ServelabError } from '../../shared/contract';

/** How long the file picked in a save dialog may be written to; it is written once. */
const GRANT_TTL_MS = 10 * 60_000;

/**
 * Paths the user picked in the native save dialog, behind opaque single-use handles. The renderer only ever holds
 * the handle, so a script in the page cannot turn `studies:export` into "write this text to any file".
 */
export class SaveGrants {
  private readonly grants = new Map<string, { path: string; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(path: string): string {
    const handle = randomBytes(24).toString('base64url');
    this.grants.set(handle, { path, expiresAt: this.now() + GRANT_TTL_MS });
    return handle;
  }

  /** The path behind the handle, once; null when unknown, used or expired. */
  take(handle: string): string | null {
    const grant = this.grants.get(handle);
    this.grants.delete(handle);
    return grant && grant.expiresAt >= this.now() ? grant.path : null;
  }
}

export type ExportOut = string | { saveHandle: string };

function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
}

/**
 * Where `studies:export` may write: the file picked in the save dialog (by its handle), or a `.<format>` file
 * directly inside an existing folder under the project's folder or the data folder's `exports/`. Symlinked
 * folders are followed before the check, so a link cannot lead the write elsewhere. Anything else is refused.
 */
export async function resolveExportTarget(opts: {
  projectPath: string;
  format: string;
  out: ExportOut;
  exportsDir: string | null;
  grants: SaveGrants | null;
}): Promise<string> {
  const { projectPath, format, out, exportsDir, grants } = opts;
  if (typeof out !== 'string') {
    const picked = grants?.take(out.saveHandle) ?? null;
    if (!picked) {
      throw new ServelabError('BAD_INPUT', 'The file picked in the save dialog can be written once, within 10 minutes: choose the file again.', {
        issues: [{ path: 'out', message: 'unknown, used or expired save-dialog handle' }],
      });
    }
    return picked;
  }
  const projectDir = dirname(resolve(projectPath));
  const target = resolve(projectDir, out);
  const exportsRoot = exportsDir === null ? null : resolve(exportsDir);
  const places = exportsRoot === null ? `the project's folder (${projectDir})` : `the project's folder (${projectDir}) or ${exportsRoot}`;
  const refuse = (why: string): never => {
    throw new ServelabError(
      'BAD_INPUT',
      `Servelab writes a report only to a file you pick in the save dialog, or as a .${format} file inside ${places}; ${target} ${why}.`,
      { issues: [{ path: 'out', message: why }] },
    );
  };
  if (!basename(target).endsWith(`.${format}`) || basename(target) === `.${format}`) refuse(`does not end with .${format}`);
  if (exportsRoot !== null && within(target, exportsRoot)) await mkdir(exportsRoot, { recursive: true });
  let parent: string;
  try {
    parent = await realpath(dirname(target));
  } catch {
    return refuse('is in a folder that does not exist');
  }
  const roots: string[] = [];
  for (const root of exportsRoot === null ? [projectDir] : [projectDir, exportsRoot]) {
    try {
      roots.push(await realpath(root));
    } catch {
      // A root that does not exist holds nothing to write into.
    }
  }
  if (!roots.some((root) => within(parent, root))) refuse('is outside them');
  const final = join(parent, basename(target));
  // The project's folder is wherever the caller says the project is: there a report is only ever a new file, so no
  // existing page, README or sheet can be replaced by naming a project beside it. Replacing takes the save dialog.
  const exportsReal = exportsRoot === null ? null : await realpath(exportsRoot).catch(() => null);
  const inExports = exportsReal !== null && within(parent, exportsReal);
  if (!inExports && (await lstat(final).then(() => true, () => false))) refuse('already exists; pick it in the save dialog to replace it');
  return final;
}
