import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { ServelabError } from '../../shared/contract';
import type { BoxHttpFailure, BoxHttpRequest, BoxHttpResponse } from './box-transport';

// Health and API probes answer in bytes or kilobytes; this only bounds a runaway response.
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ServelabError('BAD_INPUT', `${port} is not a TCP port.`);
}

export function boxHttpFailure(failure: BoxHttpFailure, message: string): ServelabError {
  return new ServelabError(failure === 'timeout' ? 'TIMEOUT' : 'CONNECT_FAILED', message, { details: { failure } });
}

/** The BoxHttpFailure of an httpRequest rejection, or null for any other error. */
export function httpFailureOf(error: unknown): BoxHttpFailure | null {
  if (!(error instanceof ServelabError)) return null;
  const failure = error.details?.failure;
  return failure === 'refused' || failure === 'reset' || failure === 'timeout' || failure === 'connection-closed' ? failure : null;
}

/**
 * Sends one HTTP/1.1 request to 127.0.0.1:port, over `stream` when given (a forwarded SSH channel), else over a
 * local TCP connection, and collects the whole response.
 */
export function sendHttpRequest(port: number, request: BoxHttpRequest, stream?: Duplex): Promise<BoxHttpResponse> {
  const where = `127.0.0.1:${port}${request.path}`;
  return new Promise<BoxHttpResponse>((resolve, reject) => {
    let settled = false;
    const finish = (error: ServelabError | null, response?: BoxHttpResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        stream?.destroy();
        reject(error);
      } else {
        resolve(response as BoxHttpResponse);
      }
    };
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    const headers: Record<string, string> = { ...(request.headers ?? {}) };
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = String(body.length);
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: request.method ?? 'GET',
      path: request.path,
      headers,
      agent: false,
      ...(stream ? { createConnection: () => stream } : {}),
    });
    const timer = setTimeout(() => finish(boxHttpFailure('timeout', `No HTTP answer from ${where} on the box within ${request.timeoutMs / 1000} s.`)), request.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish(networkFailure(error, where)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          finish(new ServelabError('REMOTE_COMMAND_FAILED', `The answer of ${where} is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; it was cut off.`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error: NodeJS.ErrnoException) => finish(networkFailure(error, where)));
      res.on('end', () =>
        finish(null, { status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('close', () => {
        if (!res.complete) finish(boxHttpFailure('reset', `The server at ${where} on the box closed the connection in the middle of its answer.`));
      });
    });
    req.end(body);
  });
}

function networkFailure(error: NodeJS.ErrnoException, where: string): ServelabError {
  if (error.code === 'ECONNREFUSED') return boxHttpFailure('refused', `Nothing listens on ${where} on the box (connection refused).`);
  return boxHttpFailure('reset', `The server at ${where} on the box closed the connection without an answer (${error.code ?? error.message}).`);
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
