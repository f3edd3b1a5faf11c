import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, posix } from 'node:path';
import type { Client, SFTPWrapper, Stats } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { execCollect } from './exec';
import { openSession } from './session-gate';
import { shellQuote } from '../../shared/shell-quote';

export interface TransferOptions {
  /** Called as bytes move: bytes transferred so far and the file's size. */
  onProgress?: (bytes: number, total: number) => void;
}

export interface TransferResult {
  /** The remote file, with `~` resolved. */
  remotePath: string;
  localPath: string;
  bytes: number;
  /** SHA-256 (hex) that both ends agreed on. */
  sha256: string;
}

// SSH_FX_NO_SUCH_FILE in the SFTP protocol.
const SFTP_NO_SUCH_FILE = 2;

/**
 * Copies a local file to the box: parent folders are created, the data goes to a temporary name next to the
 * target, its SHA-256 is checked on the box against the local file, and only then is it renamed into place.
 */
export async function uploadFile(client: Client, localPath: string, remotePath: string, opts: TransferOptions = {}): Promise<TransferResult> {
  const local = await stat(localPath).catch((error: NodeJS.ErrnoException) => {
    throw new ServelabError(error.code === 'ENOENT' ? 'NOT_FOUND' : 'BAD_INPUT', `Cannot read ${localPath}: ${error.message}`, { details: { localPath } });
  });
  if (!local.isFile()) throw new ServelabError('BAD_INPUT', `${localPath} is not a file.`, { details: { localPath } });

  return withSftp(client, async (sftp) => {
    const target = await resolveRemotePath(sftp, remotePath);
    const folder = posix.dirname(target);
    await makeRemoteFolders(sftp, folder);
    const temp = posix.join(folder, `.${posix.basename(target)}.servelab-${randomBytes(4).toString('hex')}.part`);
    try {
      opts.onProgress?.(0, local.size);
      await sftpCall<void>(`upload ${localPath} to ${temp}`, (cb) =>
        sftp.fastPut(localPath, temp, { step: (done: number, _chunk: number, total: number) => opts.onProgress?.(done, total) }, cb),
      );
      opts.onProgress?.(local.size, local.size);
      const [localHash, remoteHash] = [await sha256OfLocalFile(localPath), await sha256OfRemoteFile(client, temp)];
      if (localHash !== remoteHash) throw checksumMismatch(target, localHash, remoteHash, 'upload');
      await renameRemote(sftp, temp, target);
      return { remotePath: target, localPath, bytes: local.size, sha256: localHash };
    } catch (error) {
      await sftpCall<void>('remove the partial upload', (cb) => sftp.unlink(temp, cb)).catch(() => {});
      throw error;
    }
  });
}

/**
 * Copies a file from the box: local parent folders are created, the data goes to a temporary name next to the
 * target, its SHA-256 is checked against `sha256sum` on the box, and only then is it renamed into place.
 */
export async function downloadFile(client: Client, remotePath: string, localPath: string, opts: TransferOptions = {}): Promise<TransferResult> {
  return withSftp(client, async (sftp) => {
    const source = await resolveRemotePath(sftp, remotePath);
    const remote = await sftpCall<Stats>(`read ${source}`, (cb) => sftp.stat(source, cb));
    if (!remote.isFile()) throw new ServelabError('BAD_INPUT', `${source} on the box is not a file.`, { details: { remotePath: source } });
    await mkdir(dirname(localPath), { recursive: true });
    const temp = join(dirname(localPath), `.${basename(localPath)}.servelab-${randomBytes(4).toString('hex')}.part`);
    try {
      opts.onProgress?.(0, remote.size);
      await sftpCall<void>(`download ${source}`, (cb) =>
        sftp.fastGet(source, temp, { step: (done: number, _chunk: number, total: number) => opts.onProgress?.(done, total) }, cb),
      );
      const bytes = (await stat(temp)).size;
      opts.onProgress?.(bytes, Math.max(bytes, remote.size));
      const remoteHash = await sha256OfRemoteFile(client, source);
      const localHash = await sha256OfLocalFile(temp);
      if (localHash !== remoteHash) throw checksumMismatch(source, remoteHash, localHash, 'download');
      await rename(temp, localPath);
      return { remotePath: source, localPath, bytes, sha256: localHash };
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  });
}

/** `~` and `~/…` resolve against the SFTP session's start folder (the remote HOME); relative paths too. */
export async function resolveRemotePath(sftp: SFTPWrapper, path: string): Promise<string> {
  if (path.includes('\0')) throw new ServelabError('BAD_INPUT', 'A remote path cannot contain a NUL byte.');
  if (path.startsWith('/')) return posix.normalize(path);
  const home = await sftpCall<string>('find the remote home folder', (cb) => sftp.realpath('.', cb));
  const rest = path === '~' ? '' : path.startsWith('~/') ? path.slice(2) : path;
  return posix.join(home, rest);
}

/** `mkdir -p` over SFTP: creates each missing folder of an absolute path, tolerating a concurrent creator. */
export async function makeRemoteFolders(sftp: SFTPWrapper, folder: string): Promise<void> {
  const parts = posix.normalize(folder).split('/').filter(Boolean);
  let current = '';
  for (const part of parts) {
    current += `/${part}`;
    const path = current;
    const existing = await sftpCall<Stats>(`read ${path}`, (cb) => sftp.stat(path, cb)).catch((error: unknown) => {
      if (sftpCode(error) === SFTP_NO_SUCH_FILE) return undefined;
      throw error;
    });
    if (existing) {
      if (!existing.isDirectory()) throw new ServelabError('REMOTE_COMMAND_FAILED', `${path} on the box exists and is not a folder.`, { details: { path } });
      continue;
    }
    try {
      await sftpCall<void>(`create the folder ${path}`, (cb) => sftp.mkdir(path, cb));
    } catch (error) {
      const now = await sftpCall<Stats>(`read ${path}`, (cb) => sftp.stat(path, cb)).catch(() => undefined);
      if (!now?.isDirectory()) throw error;
    }
  }
}

export async function sha256OfLocalFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** SHA-256 of a file on the box through `sha256sum` (or `shasum -a 256` where coreutils is missing). */
export async function sha256OfRemoteFile(client: Client, path: string): Promise<string> {
  const q = shellQuote(path);
  const script = `if command -v sha256sum >/dev/null 2>&1; then sha256sum -- ${q}; else shasum -a 256 -- ${q}; fi\n`;
  const result = await execCollect(client, 'sh -s', { stdin: script, timeoutSeconds: 600 });
  // sha256sum prefixes the line with a backslash when the name holds a newline or backslash.
  const match = /^\\?([0-9a-f]{64})\s/.exec(result.stdout);
  if (result.code !== 0 || !match) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not compute the SHA-256 of ${path} on the box: ${result.stderr.trim() || `exit status ${result.code}`}`, {
      details: { path },
    });
  }
  return match[1] as string;
}

function checksumMismatch(file: string, expected: string, actual: string, direction: 'upload' | 'download'): ServelabError {
  return new ServelabError(
    'REMOTE_COMMAND_FAILED',
    `The ${direction} of ${file} is corrupt: SHA-256 ${actual} does not match the source's ${expected}. The partial copy was removed.`,
    { details: { file, expectedSha256: expected, actualSha256: actual, reason: 'checksum-mismatch' } },
  );
}

/** Replaces the target atomically where the server has posix-rename (OpenSSH does), else removes it first. */
async function renameRemote(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
  try {
    await sftpCall<void>(`rename ${from} to ${to}`, (cb) => sftp.ext_openssh_rename(from, to, cb));
    return;
  } catch (error) {
    if (!/does not support/i.test((error as Error).message)) throw error;
  }
  await sftpCall<void>(`replace ${to}`, (cb) => sftp.unlink(to, cb)).catch(() => {});
  await sftpCall<void>(`rename ${from} to ${to}`, (cb) => sftp.rename(from, to, cb));
}

/** Opens an SFTP session for `work` and always closes it; a connection that drops fails the work, never hangs it. */
async function withSftp<T>(client: Client, work: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
  const sftp = await openSession<SFTPWrapper, SFTPWrapper>(client, (done) => client.sftp(done), (opened) => opened).catch((error: unknown) => {
    throw error instanceof ServelabError ? error : sftpError('open an SFTP session', error as Error);
  });
  let onClose: () => void = () => {};
  const closed = new Promise<never>((_resolve, reject) => {
    onClose = () => reject(new ServelabError('CONNECT_FAILED', 'The SSH connection closed during a file transfer.'));
    client.once('close', onClose);
    sftp.once('close', onClose);
  });
  closed.catch(() => {});
  try {
    return await Promise.race([work(sftp), closed]);
  } finally {
    client.removeListener('close', onClose);
    sftp.removeListener('close', onClose);
    sftp.end();
  }
}

function sftpCall<T>(what: string, call: (cb: (error: Error | null | undefined, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    try {
      call((error, value) => (error ? reject(sftpError(what, error)) : resolve(value as T)));
    } catch (error) {
      reject(sftpError(what, error as Error));
    }
  });
}

function sftpCode(error: unknown): number | undefined {
  const code = (error as { details?: { sftpCode?: unknown } } | undefined)?.details?.sftpCode;
  return typeof code === 'number' ? code : undefined;
}

function sftpError(what: string, error: Error & { code?: unknown }): ServelabError {
  if (/not connected|no response from server/i.test(error.message)) {
    return new ServelabError('CONNECT_FAILED', `The SSH connection dropped while trying to ${what}.`);
  }
  const sftpCode = typeof error.code === 'number' ? error.code : undefined;
  return new ServelabError(sftpCode === SFTP_NO_SUCH_FILE ? 'NOT_FOUND' : 'REMOTE_COMMAND_FAILED', `Could not ${what}: ${error.message}`, {
    details: sftpCode === undefined ? {} : { sftpCode },
  });
}
