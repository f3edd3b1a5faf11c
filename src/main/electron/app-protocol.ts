import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { resolveStaticPath } from '../../core/util/static-path';
import { CONTENT_TYPES } from '../../shared/content-types';

/**
 * The built renderer is served from `app://servelab/…` (a standard, secure custom scheme) instead of `file://`:
 * on a file:// page CSP 'self' matches every local file, and file:// pages may fetch other files. Here 'self'
 * is `app://servelab` and nothing else, and the handler serves only files inside out/renderer.
 */
export const APP_SCHEME = 'app';
export const APP_HOST = 'servelab';
export const APP_INDEX_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** For `protocol.registerSchemesAsPrivileged`, before the app is ready. */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true, codeCache: true } as const;

/**
 * The policy the app page is served with: index.html's own (no WebSocket: the desktop app talks to the core
 * over IPC) plus frame-ancestors, which only a header can set.
 */
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The file inside `rendererDir` an app:// URL names, or null for another host, `..`, encoded separators or NUL. */
export function appFilePath(rendererDir: string, url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== `${APP_SCHEME}:` || parsed.host !== APP_HOST) return null;
  return resolveStaticPath(rendererDir, parsed.pathname);
}

/** The `protocol.handle('app', …)` handler: the built file with the CSP header, or 404. */
export async function appProtocolResponse(rendererDir: string, url: string, read: (path: string) => Promise<Buffer> = readFile): Promise<Response> {
  const path = appFilePath(rendererDir, url);
  if (path) {
    try {
      const body = await read(path);
      return new Response(new Uint8Array(body), {
        status: 200,
        headers: {
          'Content-Type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
          'Content-Security-Policy': APP_CSP,
          'X-Content-Type-Options': 'nosniff',
        },
      });
    } catch {
      // Missing or unreadable: the same 404 as a path outside the folder.
    }
  }
  return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}
