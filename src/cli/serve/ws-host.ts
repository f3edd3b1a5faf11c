import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  SESSION_PATH,
  SessionRequestSchema,
  WS_CLOSE_SERVER_STOPPED,
  WS_CLOSE_SESSION_REVOKED,
  WS_PATH,
  WireClientMessageSchema,
  type SessionGrant,
  type WireServerMessage,
} from '../../shared/contract';
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
  log?: (line: string) => void;
  /** Called after a sign-in code was traded for a session (serve prints the next link). */
  onSignIn?: () => void;
  /** For tests: the clock that sign-in codes expire by. */
  now?: () => number;
}

export interface WsHost {
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /**
   * A sign-in link `http://127.0.0.1:<port>/?code=…`. The code opens one session, once; it is refused after that,
   * and after `ttlMs` when given. Using a code a second time also ends the session it opened, because one of the
   * two users of the link was not the owner.
   */
  signInUrl(ttlMs?: number): string;
  close(): Promise<void>;
}

interface Code {
  expiresAt: number;
  /** The session the code was traded for, once it was. */
  sessionKey?: string;
}

interface Session {
  proofKey: string;
  sockets: Set<WebSocket>;
}

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

function reject(socket: Duplex, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' })
    .end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, limit: number): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves the core's contract over a WebSocket bound to 127.0.0.1 only, so the real renderer can run in a
 * browser against the real core. Only this server's own address is answered (Host check, against DNS rebinding);
 * a connection needs a session, which a page gets once for a single-use sign-in code (see wire.ts), and a browser
 * connection must come from this server's own page (Origin check), so other local pages cannot drive the core.
 * No long-lived secret is ever in a URL: codes are spent on first use, sessions are never printed.
 */
export async function startWsHost(core: Core, options: WsHostOptions = {}): Promise<WsHost> {
  const log = options.log ?? (() => {});
  const now = options.now ?? Date.now;
  // Keyed by a digest of the secret, so lookups never compare secrets byte by byte.
  const codes = new Map<string, Code>();
  const sessions = new Map<string, Session>();
  const sockets = new Set<WebSocket>();
  let port = 0;
  let ownHosts = new Set<string>();
  let ownOrigins = new Set<string>();

  function signIn(req: IncomingMessage, res: ServerResponse, body: string | null): void {
    const parsed = (() => {
      try {
        return SessionRequestSchema.safeParse(JSON.parse(body ?? ''));
      } catch {
        return null;
      }
    })();
    if (!parsed?.success) return sendJson(res, 400, { error: 'The sign-in request must be JSON: {"code": "…"}.' });
    const codeKey = digest(parsed.data.code);
    const code = codes.get(codeKey);
    if (!code) return sendJson(res, 401, { error: 'This sign-in link is not one this Servelab server issued. Open the address `servelab serve` printed.' });
    if (code.sessionKey !== undefined) {
      const earlier = sessions.get(code.sessionKey);
      if (earlier) {
        sessions.delete(code.sessionKey);
        for (const ws of earlier.sockets) ws.close(WS_CLOSE_SESSION_REVOKED, 'sign-in link used twice');
      }
      log('a sign-in link was used a second time: the session it had opened is ended. If you opened it only once, someone else on this machine may have it; stop the server.');
      return sendJson(res, 409, {
        error: 'This sign-in link was already used, so it no longer signs in, and the tab it signed in was disconnected. Open the newest address `servelab serve` printed.',
      });
    }
    if (now() > code.expiresAt) {
      codes.delete(codeKey);
      return sendJson(res, 410, { error: 'This sign-in link has expired. Open the newest address `servelab serve` printed.' });
    }
    const grant: SessionGrant = { session: randomBytes(32).toString('base64url'), proofKey: randomBytes(32).toString('base64url') };
    code.sessionKey = digest(grant.session);
    sessions.set(code.sessionKey, { proofKey: grant.proofKey, sockets: new Set() });
    log(`a browser tab signed in (${req.headers['user-agent'] ?? 'no user agent'})`);
    sendJson(res, 200, grant);
    options.onSignIn?.();
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (!ownHosts.has(req.headers.host ?? '')) {
        res.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8' }).end('This server answers only to its own 127.0.0.1 address.');
        return;
      }
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      if (path === SESSION_PATH) {
        const origin = req.headers.origin;
        if (req.method !== 'POST') return void res.writeHead(405, { Allow: 'POST' }).end();
        if (origin !== undefined && !ownOrigins.has(origin)) return sendJson(res, 403, { error: 'Sign-in is accepted only from this server’s own page.' });
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return sendJson(res, 415, { error: 'The sign-in request must be JSON.' });
        return signIn(req, res, await readBody(req, 4096));
      }
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
  port = (server.address() as AddressInfo).port;
  ownHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  ownOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!ownHosts.has(req.headers.host ?? '')) return reject(socket, 421, 'Misdirected Request');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== WS_PATH) return reject(socket, 404, 'Not Found');
    const given = url.searchParams.get('session');
    const session = given ? sessions.get(digest(given)) : undefined;
    if (!session) {
      log('websocket connection refused: missing or unknown session');
      return reject(socket, 401, 'Unauthorized');
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins.has(origin)) {
      log(`websocket connection refused: foreign origin ${origin}`);
      return reject(socket, 403, 'Forbidden');
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, session));
  });

  wss.on('connection', (ws: WebSocket, session: Session) => {
    sockets.add(ws);
    session.sockets.add(ws);
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
        const message = WireClientMessageSchema.safeParse(parsed);
        if (!message.success) {
          ws.close(1003, 'not a call or hello frame');
          return;
        }
        if (message.data.type === 'hello') {
          send({ type: 'hello', proof: createHmac('sha256', session.proofKey).update(message.data.nonce).digest('base64url') });
          return;
        }
        const envelope = await core.dispatch(message.data.name, message.data.input);
        send({ type: 'result', id: message.data.id, envelope });
      })();
    });
    ws.on('close', () => {
      unsubscribe();
      sockets.delete(ws);
      session.sockets.delete(ws);
    });
  });

  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    signInUrl(ttlMs) {
      const code = randomBytes(32).toString('base64url');
      codes.set(digest(code), { expiresAt: ttlMs === undefined ? Number.POSITIVE_INFINITY : now() + ttlMs });
      return `http://127.0.0.1:${port}/?code=${code}`;
    },
    async close() {
      // A clean close tells open tabs the server stopped, so they do not keep knocking on a port someone else may take.
      for (const ws of sockets) ws.close(WS_CLOSE_SERVER_STOPPED, 'servelab serve stopped');
      await new Promise((resolve) => setTimeout(resolve, sockets.size > 0 ? 200 : 0));
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
