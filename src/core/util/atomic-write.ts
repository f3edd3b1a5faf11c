import { open, readdir, rename, mkdir, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file the user owns so that a crash leaves either the old or the new content, never half of one:
 * temp file in the same folder → fsync → rename → fsync the folder. A write that fails removes its temp file.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    // A full disk or a failed rename leaves no temp file behind.
    await rm(temp, { force: true });
    throw error;
  }
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  } finally {
    await dirHandle.close();
  }
}

/**
 * Removes the temp files of writes to `path` that never finished (a process killed mid-write leaves one). Only for
 * a caller that holds the lock every writer of `path` takes, so no write in progress loses its temp file.
 */
export async function removeAbandonedTemps(path: string): Promise<void> {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(prefix) && /^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length))) await rm(join(dir, name), { force: true });
  }
}
