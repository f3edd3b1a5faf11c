import { copyFile, open } from 'node:fs/promises';
import { z } from 'zod';
import { ServelabError, describeIssues, fieldIssues } from '../../shared/contract';

export interface VersionedFileSpec<T> {
  /** The version this build writes. */
  version: number;
  schema: z.ZodType<T>;
  /** `migrations[v]` turns a version-v document into version v+1. */
  migrations?: Record<number, (doc: unknown) => unknown>;
  /** Largest file read (default 64 MiB, as for imports); a larger one is refused, untouched. */
  maxBytes?: number;
}

export const MAX_VERSIONED_FILE_BYTES = 64 * 1024 * 1024;

/** Reads at most `maxBytes`: a file that is larger (or grows past it while read) is refused with its size. */
async function readCapped(path: string, maxBytes: number): Promise<string> {
  const handle = await open(path, 'r');
  const tooLarge = (bytes: number) =>
    new ServelabError(
      'BAD_INPUT',
      `${path} is ${(bytes / 1024 / 1024).toFixed(1)} MiB, more than the ${(maxBytes / 1024 / 1024).toFixed(0)} MiB a Servelab file may have; it was left untouched. Move it away (or put its .bak in its place) and try again.`,
    );
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) throw tooLarge(size);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(total);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    await handle.close();
  }
}

export interface VersionedFileRead<T> {
  data: T;
  /** The version the file had on disk (older than `version` when it was migrated). */
  fileVersion: number;
}

/**
 * Reads a file the user owns that carries `schemaVersion`: migrates an older one (the caller then saves it; the old
 * file is kept as `<file>.v<N>.bak`), refuses a newer or damaged one with an error that names the version or the
 * field (and one over 64 MiB with its size), and never writes it in that case. Returns null when there is no file.
 */
export async function readVersionedFile<T>(path: string, spec: VersionedFileSpec<T>): Promise<VersionedFileRead<T> | null> {
  let text: string;
  try {
    text = await readCapped(path, spec.maxBytes ?? MAX_VERSIONED_FILE_BYTES);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServelabError('BAD_INPUT', `${path} is not valid JSON (${(error as Error).message}); it was left untouched.`);
  }
  const version = (json as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new ServelabError('BAD_INPUT', `${path} is damaged: schemaVersion is missing or not a version number; it was left untouched.`);
  }
  if (version > spec.version) {
    throw new ServelabError(
      'NOT_SUPPORTED',
      `${path} was written by a newer Servelab (schemaVersion ${version}); this version reads up to ${spec.version}. It was left untouched.`,
    );
  }
  let current = json;
  for (let v = version; v < spec.version; v++) {
    const migrate = spec.migrations?.[v];
    if (!migrate) throw new ServelabError('INTERNAL', `No migration from schemaVersion ${v} of ${path}.`);
    try {
      current = migrate(current);
    } catch (error) {
      const detail = error instanceof z.ZodError ? describeIssues(fieldIssues(error)) : (error as Error).message;
      throw new ServelabError('BAD_INPUT', `${path} (schemaVersion ${v}) is damaged: ${detail}; it was left untouched.`);
    }
  }
  const parsed = spec.schema.safeParse(current);
  if (!parsed.success) {
    throw new ServelabError('BAD_INPUT', `${path} is damaged: ${describeIssues(fieldIssues(parsed.error))}; it was left untouched.`);
  }
  // Keep the old file beside the new one: an older Servelab can still read it.
  if (version < spec.version) await copyFile(path, `${path}.v${version}.bak`);
  return { data: parsed.data, fileVersion: version };
}
