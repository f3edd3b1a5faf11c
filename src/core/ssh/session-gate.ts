import type { EventEmitter } from 'node:events';
import type { Client } from 'ssh2';
import { ServelabError } from '../../shared/contract';

/**
 * sshd allows a connection only so many session channels at once (OpenSSH's MaxSessions, 10 unless the server says
 * otherwise) and refuses one more with "open failed". A study keeps several long ones open (server logs, benchmark
 * runs, relays into Slurm jobs) beside short ones, so every session channel of one connection opens through its
 * gate: beyond the limit an open waits for a channel to close, and refusals while others are open teach the gate the
 * server's lower limit instead of failing the command.
 */
export const DEFAULT_SESSION_LIMIT = 10;
/** Refusals in a row, with others open, before the limit is taken to be what is open. */
const REFUSALS_BEFORE_LOWERING = 3;
/** A lowered limit is tried one higher again after this long (a refusal may have come from a passing state). */
const LIMIT_PROBE_MS = 60_000;

/** How ssh2 reports sshd refusing a channel: SSH2_OPEN_ADMINISTRATIVELY_PROHIBITED, "open failed" (serverloop.c). */
export function isSessionRefusal(error: unknown): boolean {
  return error instanceof Error && /Channel open failure: open failed/i.test(error.message);
}

export interface SessionOpenOptions {
  /** Waits behind every other command: for re-opens of long streams, which should not delay short commands. */
  background?: boolean;
  /** Leaves the queue (rejecting with the reason) when the caller gives up before a session is free. */
  signal?: AbortSignal;
}

interface Waiter {
  wake(): void;
}

class SessionGate {
  private open = 0;
  private limit = DEFAULT_SESSION_LIMIT;
  private loweredAt = 0;
  private readonly foreground: Waiter[] = [];
  private readonly background: Waiter[] = [];
  private closed = false;

  constructor(client: Client) {
    // Every command waiting for or holding a session listens for the connection's close.
    client.setMaxListeners(Math.max(client.getMaxListeners(), 200));
    client.once('close', () => {
      this.closed = true;
      for (const waiter of [...this.foreground.splice(0), ...this.background.splice(0)]) waiter.wake();
    });
  }

  /** A slot for one channel; fails when the connection closed, or the caller gave up, while waiting. */
  async take(opts: SessionOpenOptions = {}): Promise<void> {
    const queue = opts.background ? this.background : this.foreground;
    for (;;) {
      opts.signal?.throwIfAborted();
      if (this.closed) throw new ServelabError('CONNECT_FAILED', 'The SSH connection closed before a remote command could start.');
      if (this.limit < DEFAULT_SESSION_LIMIT && Date.now() - this.loweredAt > LIMIT_PROBE_MS) {
        this.limit++;
        this.loweredAt = Date.now();
      }
      // A background open also lets waiting foreground ones go first.
      if (this.open < this.limit && (!opts.background || this.foreground.length === 0)) break;
      await new Promise<void>((resolve) => {
        const waiter: Waiter = {
          wake: () => {
            opts.signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          resolve();
        };
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    }
    this.open++;
  }

  give(): void {
    this.open--;
    (this.foreground.shift() ?? this.background.shift())?.wake();
  }

  /** Channels open besides the caller's own slot. */
  others(): number {
    return this.open - 1;
  }

  /** The server refused a session with `open` of them open: that many is its limit. */
  lower(open: number): void {
    this.limit = Math.max(1, Math.min(this.limit, open));
    this.loweredAt = Date.now();
  }

  /** For tests and messages: channels open, the limit in force, commands waiting. */
  get usage(): { open: number; limit: number; waiting: number } {
    return { open: this.open, limit: this.limit, waiting: this.foreground.length + this.background.length };
  }
}

const gates = new WeakMap<Client, SessionGate>();

function gateOf(client: Client): SessionGate {
  let gate = gates.get(client);
  if (!gate) {
    gate = new SessionGate(client);
    gates.set(client, gate);
  }
  return gate;
}

/**
 * Closes a session channel whether or not its output was read: ssh2 emits a channel's `close` (which gives its
 * session back to the gate) only after its readable sides ended, and a stream nobody reads never ends.
 */
export function closeSessionChannel(channel: EventEmitter): void {
  const streams = channel as unknown as { resume?: () => void; stderr?: { resume?: () => void }; close?: () => void };
  streams.resume?.();
  streams.stderr?.resume?.();
  streams.close?.();
}

/**
 * Opens one session channel (exec, sftp) through the connection's gate; its slot is given back when the channel
 * closes. `open` is ssh2's call with its callback; `use` is called with the channel inside that callback, before
 * ssh2 parses the next packet (a quick command's exit status can come in the same read as the open's reply), and
 * its result is what the promise gives. What `open` throws or reports is passed on, except a refusal that the gate
 * can wait out.
 */
export async function openSession<C extends EventEmitter, T>(
  client: Client,
  open: (done: (error: Error | undefined, channel: C) => void) => void,
  use: (channel: C) => T,
  opts: SessionOpenOptions = {},
): Promise<T> {
  const gate = gateOf(client);
  await gate.take(opts);
  for (let refusals = 0; ; ) {
    try {
      return await new Promise<T>((resolve, reject) => {
        try {
          open((error, channel) => {
            if (error) {
              reject(error);
              return;
            }
            let given = false;
            channel.once('close', () => {
              if (given) return;
              given = true;
              gate.give();
            });
            try {
              resolve(use(channel));
            } catch (failure) {
              closeSessionChannel(channel);
              reject(new UseFailed(failure));
            }
          });
        } catch (error) {
          reject(error as Error);
        }
      });
    } catch (error) {
      // The channel opened (its slot goes back when it closes); what `use` threw is the caller's own failure.
      if (error instanceof UseFailed) throw error.cause;
      const others = gate.others();
      if (!isSessionRefusal(error) || others < 1) {
        gate.give();
        throw error;
      }
      // sshd frees a session a moment after its channel closed: a refusal just after one is tried again, the slot
      // kept, and only refusals in a row lower the limit to what is open.
      refusals++;
      if (refusals < REFUSALS_BEFORE_LOWERING) {
        await new Promise((resolve) => setTimeout(resolve, 100 * refusals));
      } else {
        gate.lower(others);
        gate.give();
        await gate.take(opts);
        refusals = 0;
      }
    }
  }
}

class UseFailed {
  constructor(readonly cause: unknown) {}
}

/** Whether commands wait for a session of this connection: a long-lived one should make way (remote job streams). */
export function sessionsContended(client: Client): boolean {
  return gateOf(client).usage.waiting > 0;
}

/** The gate's state for a connection (tests). */
export function sessionUsage(client: Client): { open: number; limit: number; waiting: number } {
  return gateOf(client).usage;
}
