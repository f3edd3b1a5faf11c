/**
 * The TCP connection under a direct SSH hop, with OpenSSH's ConnectTimeout and ConnectionAttempts
 * (sshconnect.c ssh_connect_direct at V_9_2_P1): up to `attempts` tries, 1 s apart ("Trying again..."), each
 * bounded by `timeoutSeconds` when one is set. A name that does not resolve is not tried again: ssh resolves it once,
 * before the attempts. Every attempt is written to the connection log.
 */
import { Socket } from 'node:net';
import type { ConnectionLogWriter } from './connection-log';

export interface TcpConnectOptions {
  /** ConnectionAttempts; at least 1. */
  attempts?: number;
  /** ConnectTimeout for each attempt; null or absent: no limit of its own (the caller's deadline still applies). */
  timeoutSeconds?: number | null;
  log?: ConnectionLogWriter;
  signal?: AbortSignal;
  /** Called as each attempt starts, so the caller can give the banner exchange what is left of that attempt's ConnectTimeout. */
  onAttempt?: (attempt: number) => void;
  /** The pause between attempts (1 s, as ssh); tests may shorten it. */
  retryDelayMs?: number;
}

const RETRY_DELAY_MS = 1_000;

// getaddrinfo's answers for a name that does not resolve (now).
const RESOLVE_FAILURES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);

/** The last attempt's error, with how many attempts were made. */
export type TcpConnectError = Error & { code?: string; attempts?: number };

/**
 * A connected socket, or the last attempt's error (its `code` is ECONNREFUSED, ETIMEDOUT, ENOTFOUND…, its
 * `attempts` how many were made).
 */
export async function connectTcp(host: string, port: number, opts: TcpConnectOptions = {}): Promise<Socket> {
  const attempts = Math.max(1, Math.floor(opts.attempts ?? 1));
  let lastError: TcpConnectError = new Error('no attempt was made');
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (opts.signal?.aborted) throw abortError();
    if (attempt > 1) {
      await delay(opts.retryDelayMs ?? RETRY_DELAY_MS, opts.signal);
      opts.log?.('info', `Trying again (attempt ${attempt} of ${attempts})…`);
    }
    opts.log?.('debug', `Connecting to ${host} port ${port} (attempt ${attempt} of ${attempts}).`);
    opts.onAttempt?.(attempt);
    try {
      return await connectOnce(host, port, opts.timeoutSeconds ?? null, opts.signal);
    } catch (error) {
      lastError = Object.assign(error as Error, { attempts: attempt });
      if (opts.signal?.aborted) throw lastError;
      const code = (lastError as NodeJS.ErrnoException).code;
      if (code && RESOLVE_FAILURES.has(code)) {
        opts.log?.('warn', `Could not resolve hostname ${host}: ${describe(lastError)}`);
        throw lastError;
      }
      opts.log?.('warn', `connect to ${host} port ${port} failed: ${describe(lastError)}`);
    }
  }
  throw lastError;
}

function connectOnce(host: string, port: number, timeoutSeconds: number | null, signal: AbortSignal | undefined): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (error: Error | null) => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.removeListener('error', onError);
      if (error) {
        socket.destroy();
        reject(error);
      } else {
        resolve(socket);
      }
    };
    const onError = (error: Error) => done(error);
    const onAbort = () => done(abortError());
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutSeconds !== null && timeoutSeconds > 0) {
      timer = setTimeout(() => {
        const error = Object.assign(new Error(`Connection timed out after ${timeoutSeconds} s (ConnectTimeout)`), { code: 'ETIMEDOUT' });
        done(error);
      }, Math.round(timeoutSeconds * 1000));
    }
    socket.connect({ host, port }, () => done(null));
  });
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

function abortError(): Error {
  return Object.assign(new Error('The connection attempt was stopped'), { code: 'ABORT_ERR' });
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
