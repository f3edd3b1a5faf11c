import { describe, it, expect } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { connectTcp, type TcpConnectError } from './tcp-connect';
import type { ConnectionLogLevel } from './connection-log';

/** A port on 127.0.0.1 that nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function failure(promise: Promise<unknown>): Promise<TcpConnectError> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as TcpConnectError,
  );
}

describe('connectTcp', () => {
  it('tries ConnectionAttempts times, pausing in between, and says how many attempts were made', async () => {
    const port = await closedPort();
    const logged: [ConnectionLogLevel, string][] = [];
    const started = Date.now();
    const error = await failure(connectTcp('127.0.0.1', port, { attempts: 3, retryDelayMs: 50, log: (level, message) => logged.push([level, message]) }));
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.attempts).toBe(3);
    expect(logged.filter(([, m]) => m.startsWith('connect to 127.0.0.1'))).toHaveLength(3);
    expect(logged.map(([, m]) => m)).toContain('Trying again (attempt 3 of 3)…');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('does not try a name that does not resolve again', async () => {
    const logged: string[] = [];
    const error = await failure(connectTcp('no-such-host.invalid', 22, { attempts: 3, retryDelayMs: 10, log: (_level, message) => logged.push(message) }));
    expect(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']).toContain(error.code);
    expect(error.attempts).toBe(1);
    expect(logged.filter((m) => m.startsWith('Trying again'))).toHaveLength(0);
    expect(logged).toContain(`Could not resolve hostname no-such-host.invalid: ${error.message}${error.message.includes(error.code ?? '') ? '' : ` (${error.code})`}`);
  });

  it('gives up at once when aborted during the pause between attempts', async () => {
    const port = await closedPort();
    const abort = new AbortController();
    const started = Date.now();
    const attempt = failure(connectTcp('127.0.0.1', port, { attempts: 5, retryDelayMs: 5_000, signal: abort.signal }));
    setTimeout(() => abort.abort(), 100);
    const error = await attempt;
    expect(error.code).toBe('ABORT_ERR');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
