import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServelabError } from '../../shared/contract';
import { sha256OfLocalFile } from '../ssh/sftp';
import type { TransferProgress, TransferResult } from './box-transport';

/** A path on a local box: `~`, `~/…` and relative paths are under the box's HOME, as over SFTP. */
export function resolveLocalBoxPath(home: string, path: string): string {
  if (path.includes('\0')) throw new ServelabError('BAD_INPUT', 'A path on the box cannot contain a NUL byte.');
  if (isAbsolute(path)) return normalize(path);
  const rest = path === '~' ? '' : path.startsWith('~/') ? path.slice(2) : path;
  return join(home, rest);
}

/**
 * Copies a file the way uploads and downloads to a remote box do: to a temporary name next to the target (parent
 * folders created), SHA-256 of the copy checked against the source, then renamed into place; a failed copy
 * leaves nothing behind.
 */
export async function copyVerified(
  from: string,
  to: string,
  direction: 'upload' | 'download',
  onProgress?: TransferProgress,
): Promise<{ bytes: number; sha256: string }> {
  const source = await stat(from).catch((error: NodeJS.ErrnoException) => {
    throw new ServelabError(error.code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `Cannot read ${from}: ${error.message}`, { details: { path: from } });
  });
  if (!source.isFile()) throw new ServelabError('BAD_INPUT', `${from} is not a file.`, { details: { path: from } });
  await mkdir(dirname(to), { recursive: true });
  const temp = join(dirname(to), `.${basename(to)}.servelab-${randomBytes(4).toString('hex')}.part`);
  try {
    let done = 0;
    onProgress?.(0, source.size);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        done += chunk.length;
        onProgress?.(Math.min(done, source.size), source.size);
        callback(null, chunk);
      },
    });
    await pipeline(createReadStream(from), counter, createWriteStream(temp, { mode: 0o644 }));
    const bytes = (await stat(temp)).size;
    onProgress?.(bytes, Math.max(bytes, source.size));
    const [expected, actual] = await Promise.all([sha256OfLocalFile(from), sha256OfLocalFile(temp)]);
    if (expected !== actual) {
      const file = direction === 'upload' ? to : from;
      throw new ServelabError(
        'REMOTE_COMMAND_FAILED',
        `The ${direction} of ${file} is corrupt: SHA-256 ${actual} does not match the source's ${expected}. The partial copy was removed.`,
        { details: { file, expectedSha256: expected, actualSha256: actual, reason: 'checksum-mismatch' } },
      );
    }
    await rename(temp, to);
    return { bytes, sha256: actual };
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function uploadLocal(home: string, localPath: string, remotePath: string, onProgress?: TransferProgress): Promise<TransferResult> {
  const target = resolveLocalBoxPath(home, remotePath);
  const { bytes, sha256 } = await copyVerified(localPath, target, 'upload', onProgress);
  return { remotePath: target, localPath, bytes, sha256 };
}

export async function downloadLocal(home: string, remotePath: string, localPath: string, onProgress?: TransferProgress): Promise<TransferResult> {
  const source = resolveLocalBoxPath(home, remotePath);
  const { bytes, sha256 } = await copyVerified(source, localPath, 'download', onProgress);
  return { remotePath: source, localPath, bytes, sha256 };
}
