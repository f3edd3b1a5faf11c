import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { WS_PATH, WireCallSchema, type WireServerMessage } from '../../shared/contract';
import type { Core } from '../../core/create-core';
import { readStaticFile } from './static-files';

export const RENDERER_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self' ws://127.0.0.1:*; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface WsHostOptions {
  /** 0 picks a free port. */
  port?: number;
  /** Folder of the built renderer to serve at `/`; omit to serve the contract only. */
  rendererDir?: string;
  /** For tests; normally a fresh 256-bit random token. */
  token?: string;
  log?: (line: string) => void;
}

export interface WsHost {
  readonly port: number;
  readonly token: string;
  /** The page to open: the token rides in the fragment, which browsers never send to the server. */
  readonly pageUrl: string;
  readonly wsUrl: string;
  close(): Promise<void>;
}

function tokenMatches(given: string | null, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function reject(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Serves the core's contract over a WebSocket bound to 127.0.0.1 only, so the real renderer can run in a
 * browser against the real core. A connection needs the random token, and a browser connection must come
 * from this server's own page (Origin check), so other local pages cannot drive the core.
 */
export async function startWsHost(core: Core, options: WsHostOptions = {}): Promise<WsHost> {
  const token = options.token ?? randomBytes(32).toString('base64url');
  const log = options.log ?? (() => {});
  const sockets = new Set<WebSocket>();

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      const file = options.rendererDir ? await readStaticFile(options.rendererDir, req.url ?? '/') : null;
      if (!file) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found');
        return;
      }
      res.writeHead(200, {
        'Content-Type': file.contentType,
        'Content-Security-Policy': RENDERER_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : file.body);
    })();
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 * 1024 });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const ownOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== WS_PATH) return reject(socket, 404, 'Not Found');
    if (!tokenMatches(url.searchParams.get('token'), token)) {
      log('websocket connection refused: missing or wrong token');
      return reject(socket, 401, 'Unauthorized');
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins.has(origin)) {
      log(`websocket connection refused: foreign origin ${origin}`);
      return reject(socket, 403, 'Forbidden');
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    sockets.add(ws);
    const send = (message: WireServerMessage) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const unsubscribe = core.events.subscribe((event) => send({ type: 'event', ...event }));
    ws.on('message', (data) => {
      void (async () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(String(data));
        } catch {
          ws.close(1003, 'frames must be JSON');
          return;
        }
        const call = WireCallSchema.safeParse(parsed);
        if (!call.success) {
          ws.close(1003, 'not a call frame');
          return;
        }
        const envelope = await core.dispatch(call.data.name, call.data.input);
        send({ type: 'result', id: call.data.id, envelope });
      })();
    });
    ws.on('close', () => {
      unsubscribe();
      sockets.delete(ws);
    });
  });

  return {
    port,
    token,
    pageUrl: `http://127.0.0.1:${port}/#token=${token}`,
    wsUrl: `ws://127.0.0.1:${port}${WS_PATH}?token=${token}`,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
