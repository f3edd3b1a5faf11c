import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { CONTENT_TYPES } from '../../shared/content-types';

/**
 * Resolves a URL path to a file inside `root`, or null when it would escape it (`..`, encoded slashes,
 * NUL bytes) — the static server must never serve anything but the built renderer.
 */
export function resolveStaticPath(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]!.split('#')[0]!);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const full = normalize(join(root, relative));
  const base = normalize(root.endsWith(sep) ? root : root + sep);
  return full.startsWith(base) ? full : null;
}

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
