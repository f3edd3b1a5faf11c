import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { CONTENT_TYPES } from '../../shared/content-types';
import { resolveStaticPath } from '../../core/util/static-path';

export async function readStaticFile(root: string, urlPath: string): Promise<{ body: Buffer; contentType: string } | null> {
  const path = resolveStaticPath(root, urlPath);
  if (!path) return null;
  try {
    if (!(await stat(path)).isFile()) return null;
    return { body: await readFile(path), contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}
