import { copyFile, readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ServelabError, describeIssues, fieldIssues } from '../../shared/contract';

export interface VersionedFileSpec<T> {
  /** The version this build writes. */
  version: number;
  schema: z.ZodType<T>;
  /** `migrations[v]` turns a version-v document into version v+1. */
  migrations?: Record<number, (doc: unknown) => unknown>;
}

export interface VersionedFileRead<T> {
  data: T;
  /** The version the file had on disk (older than `version` when it was migrated). */
  fileVersion: number;
}

/**
 * Reads a file the user owns that carries `schemaVersion`: migrates an older one (the caller then saves it; the old
 * file is kept as `<file>.v<N>.bak`), refuses a newer or damaged one with an error that names the version or the
 * field, and never writes it in that case. Returns null when there is no file.
 */
export async function readVersionedFile<T>(path: string, spec: VersionedFileSpec<T>): Promise<VersionedFileRead<T> | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
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
