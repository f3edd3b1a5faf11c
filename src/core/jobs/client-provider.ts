import type { Client } from 'ssh2';
import { ServelabError } from '../../shared/contract';

/**
 * Returns a live SSH connection to one box, opening a new one when the previous one dropped. Whatever it returns
 * may still die at any moment; callers retry through `withClient`.
 */
export type SshClientProvider = () => Promise<Client>;

export interface RetryPolicy {
  /** First wait after a failed attempt; doubles each time. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** How long to keep trying without a single success before giving up. */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 5_000, giveUpAfterMs: 5 * 60_000 };

/** A dropped or unreachable connection is worth retrying; a refused host key or login is not. */
export function isTransientConnectionError(error: unknown): boolean {
  return error instanceof ServelabError && (error.code === 'CONNECT_FAILED' || error.code === 'TIMEOUT');
}

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Backoff state for one sequence of attempts; `succeeded()` restarts both the delay and the give-up clock. */
export class Backoff {
  private nextDelayMs: number;
  private since = Date.now();

  constructor(private readonly policy: RetryPolicy) {
    this.nextDelayMs = policy.initialDelayMs;
  }

  succeeded(): void {
    this.nextDelayMs = this.policy.initialDelayMs;
    this.since = Date.now();
  }

  /** Waits before the next attempt, or throws `cause` once the policy's time is up. */
  async wait(cause: unknown, signal?: AbortSignal): Promise<void> {
    if (Date.now() - this.since >= this.policy.giveUpAfterMs) throw cause;
    const wait = this.nextDelayMs;
    this.nextDelayMs = Math.min(this.policy.maxDelayMs, this.nextDelayMs * 2);
    await delay(wait, signal);
  }
}

/**
 * Runs `operation` on a connection from `provider`, asking for a fresh one and trying again (with backoff) while the
 * failure is a dropped or unreachable connection. `operation` must be safe to run again after a partial attempt.
 * Works for any kind of connection: an ssh2 client, or a command channel.
 */
export async function withClient<C, T>(
  provider: () => Promise<C>,
  operation: (client: C) => Promise<T>,
  opts: { policy?: RetryPolicy; signal?: AbortSignal } = {},
): Promise<T> {
  const backoff = new Backoff(opts.policy ?? DEFAULT_RETRY_POLICY);
  for (;;) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    try {
      return await operation(await provider());
    } catch (error) {
      if (!isTransientConnectionError(error)) throw error;
      await backoff.wait(error, opts.signal);
    }
  }
}
