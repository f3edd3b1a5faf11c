import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { ServelabError, type ErrorCode } from '../../shared/contract';
import type { KnownHostsStore } from './known-hosts';
import type { PromptAsker } from './prompt-broker';
import type { AuthSecrets, RememberedSecret } from './auth-plan';
import type { ConnectionLog, ConnectionLogWriter } from './connection-log';
import { openForwardedStream, openSshHop, type OpenSshHopOptions } from './connect';
import { connectionKey, targetAddress, targetLabel, type SshTarget } from './ssh-target';

/**
 * One SSH connection per host spec (user@host:port plus its jump chain), shared by every user of that host.
 * Jump hosts are pool entries too, shared by the connections that go through them and kept open while any
 * does. A connection that drops while in use is reopened automatically with exponential backoff and jitter;
 * failures that need the person (host key, authentication) stop that and are reported as `failed`.
 *
 * Pooled clients belong to the pool: callers never `end()` them, they `release(hostId)` once per `acquire`.
 */

export type HostConnectionState = 'connecting' | 'ready' | 'reconnecting' | 'failed' | 'idle';

export interface ConnectionStateEvent {
  hostId: string;
  state: HostConnectionState;
  /** Milliseconds since the epoch. */
  time: number;
  /** `reconnecting`: the attempt about to be made, from 1. */
  attempt?: number;
  /** `reconnecting`: how long until that attempt. */
  delayMs?: number;
  /** `reconnecting` and `failed`: what went wrong, for people. */
  reason?: string;
  /** `failed`: the error's code (HOST_KEY_UNKNOWN, AUTH_FAILED…). */
  code?: ErrorCode;
  /** `failed`: the error's details (for example the presented host key). */
  details?: Record<string, unknown>;
}

export interface ReconnectPolicy {
  /** Delay before the first attempt. */
  initialDelayMs: number;
  /** Cap on the delay, jitter included. */
  maxDelayMs: number;
  factor: number;
  /** 0–1: each delay is spread by ± this fraction. */
  jitter: number;
  /** Attempts before giving up with `failed`; Infinity keeps trying while the connection is in use. */
  maxAttempts: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = { initialDelayMs: 1_000, maxDelayMs: 60_000, factor: 2, jitter: 0.2, maxAttempts: Infinity };

export interface SshConnectionPoolOptions {
  knownHosts: KnownHostsStore;
  /** Per hop, as for openSshClient. */
  timeoutSeconds: number;
  prompts?: PromptAsker;
  log?: ConnectionLog;
  secrets?: AuthSecrets;
  /**
   * Keep passphrases and passwords typed during this pool's life in memory, so an automatic reconnect does
   * not need the person again (default true). They are dropped by closeAll().
   */
  keepTypedSecrets?: boolean;
  reconnect?: Partial<ReconnectPolicy>;
  /** How long a connection nobody uses stays open for the next user. Default 60 s; 0 closes at once. */
  idleTimeoutMs?: number;
  random?: () => number;
  now?: () => number;
  /** Opens one hop (replaced in unit tests). */
  openHop?: (target: SshTarget, opts: OpenSshHopOptions) => Promise<Client>;
  /** Opens the tunnel through a jump host (replaced in unit tests). */
  openStream?: (via: Client, viaTarget: SshTarget, next: SshTarget, log?: ConnectionLogWriter) => Promise<Duplex>;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
// These need a person (accept a key, fix credentials): retrying on a timer would only repeat them.
const PERMANENT_CODES: ReadonlySet<ErrorCode> = new Set(['HOST_KEY_UNKNOWN', 'HOST_KEY_CHANGED', 'HOST_KEY_REVOKED', 'AUTH_FAILED', 'NOT_SUPPORTED', 'BAD_INPUT']);

type EntryStatus = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'failed';

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

interface Entry {
  key: string;
  /** The hop itself, without jumps: those are `parent`. */
  hop: SshTarget;
  parent: Entry | undefined;
  children: Set<Entry>;
  /** References per host id. */
  users: Map<string, number>;
  /** Every host id that used this entry, for state events. */
  hostIds: Set<string>;
  client: Client | undefined;
  status: EntryStatus;
  /** Settles when the current connect or reconnect ends. */
  pending: Deferred<Client> | undefined;
  retryTimer: ReturnType<typeof setTimeout> | undefined;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  disposed: boolean;
  /** Only this attempt may adopt its result (a dispose or a newer attempt invalidates it). */
  generation: number;
}

export class SshConnectionPool {
  private readonly entries = new Map<string, Entry>();
  /** Which entry each host id last acquired. */
  private readonly hostEntries = new Map<string, string>();
  private readonly states = new Map<string, ConnectionStateEvent>();
  private readonly listeners = new Set<(event: ConnectionStateEvent) => void>();
  private readonly policy: ReconnectPolicy;
  private readonly idleTimeoutMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly openHop: NonNullable<SshConnectionPoolOptions['openHop']>;
  private readonly openStream: NonNullable<SshConnectionPoolOptions['openStream']>;
  private readonly typedPassphrases = new Map<string, string>();
  private readonly typedPasswords = new Map<string, string>();
  private readonly secrets: AuthSecrets;

  constructor(private readonly opts: SshConnectionPoolOptions) {
    this.policy = { ...DEFAULT_RECONNECT_POLICY, ...opts.reconnect };
    this.idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
    this.openHop = opts.openHop ?? openSshHop;
    this.openStream = opts.openStream ?? openForwardedStream;
    const outer = opts.secrets;
    const keep = opts.keepTypedSecrets ?? true;
    this.secrets = {
      passphrase: async (file) => this.typedPassphrases.get(file) ?? (await outer?.passphrase?.(file)) ?? null,
      ...(outer?.remember ? { remember: (secret: RememberedSecret, value: string) => outer.remember?.(secret, value) } : {}),
      accepted: (secret, value) => {
        if (keep) {
          if (secret.kind === 'passphrase') this.typedPassphrases.set(secret.identityFile, value);
          else this.typedPasswords.set(targetAddress(secret), value);
        }
        outer?.accepted?.(secret, value);
      },
    };
  }

  /**
   * The live client for this host: the pooled one, a new connection, or the one a reconnect in progress
   * produces. Each acquire holds a reference until `release(hostId)`.
   */
  async acquire(hostId: string, target: SshTarget): Promise<Client> {
    const entry = this.entryFor(target);
    this.hostEntries.set(hostId, entry.key);
    entry.hostIds.add(hostId);
    entry.users.set(hostId, (entry.users.get(hostId) ?? 0) + 1);
    this.cancelIdleClose(entry);
    try {
      return await this.clientOf(entry);
    } catch (error) {
      this.dropReference(entry, hostId);
      throw error;
    }
  }

  /**
   * For long-running remote jobs: a function returning the host's live client, waiting for a reconnect after
   * a drop. Its first successful call holds one reference (as acquire does) until `release(hostId)`.
   */
  provider(hostId: string, target: SshTarget): () => Promise<Client> {
    let held: Entry | undefined;
    return async () => {
      if (held && !held.disposed && held.users.has(hostId)) return this.clientOf(held);
      const client = await this.acquire(hostId, target);
      held = this.entries.get(poolKey(target));
      return client;
    };
  }

  /** Drops one reference; an entry nobody uses closes after the idle timeout. */
  release(hostId: string): void {
    const key = this.hostEntries.get(hostId);
    const entry = key ? this.entries.get(key) : undefined;
    if (entry) this.dropReference(entry, hostId);
  }

  onState(listener: (event: ConnectionStateEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The last state reported for a host (idle when none). */
  state(hostId: string): ConnectionStateEvent {
    return this.states.get(hostId) ?? { hostId, state: 'idle', time: this.now() };
  }

  /** Closes every connection now (outermost users first), ending reconnects and waiting acquires. */
  async closeAll(): Promise<void> {
    const depth = (entry: Entry): number => (entry.parent ? 1 + depth(entry.parent) : 0);
    const all = [...this.entries.values()].sort((a, b) => depth(b) - depth(a));
    for (const entry of all) this.dispose(entry, 'The connection pool was closed.');
    this.typedPassphrases.clear();
    this.typedPasswords.clear();
  }

  private entryFor(target: SshTarget): Entry {
    const hops = [...(target.jumps ?? []), target];
    let parent: Entry | undefined;
    let entry: Entry | undefined;
    hops.forEach((hop, index) => {
      const chainTarget: SshTarget = { ...hop, jumps: hops.slice(0, index).map((j) => ({ ...j, jumps: [] })) };
      const key = poolKey(chainTarget);
      let existing = this.entries.get(key);
      if (!existing) {
        existing = {
          key,
          hop: { ...hop, jumps: [] },
          parent,
          children: new Set(),
          users: new Map(),
          hostIds: new Set(),
          client: undefined,
          status: 'idle',
          pending: undefined,
          retryTimer: undefined,
          idleTimer: undefined,
          disposed: false,
          generation: 0,
        };
        this.entries.set(key, existing);
        parent?.children.add(existing);
        if (parent) this.cancelIdleClose(parent);
      } else if (index === hops.length - 1) {
        // The latest credentials for this hop win (for example a password the user just saved).
        existing.hop = { ...hop, jumps: [] };
      }
      parent = existing;
      entry = existing;
    });
    return entry as unknown as Entry;
  }

  private clientOf(entry: Entry): Promise<Client> {
    if (entry.disposed) return Promise.reject(closedError(entry));
    if (entry.status === 'ready' && entry.client) return Promise.resolve(entry.client);
    if (entry.pending) return entry.pending.promise;
    return this.connect(entry);
  }

  private connect(entry: Entry): Promise<Client> {
    const pending = deferred<Client>();
    entry.pending = pending;
    entry.status = 'connecting';
    this.emit(entry, { state: 'connecting' });
    const generation = ++entry.generation;
    this.open(entry).then(
      (client) => {
        if (entry.disposed || generation !== entry.generation) {
          client.end();
          pending.reject(closedError(entry));
          return;
        }
        this.adopt(entry, client);
      },
      (error: unknown) => {
        if (entry.disposed || generation !== entry.generation) {
          pending.reject(closedError(entry));
          return;
        }
        this.fail(entry, asServelabError(error));
      },
    );
    return pending.promise;
  }

  /** Opens the hop's connection: through its jump host's (pooled) client when it has one. */
  private async open(entry: Entry): Promise<Client> {
    const log = this.writerFor(entry);
    let sock: Duplex | undefined;
    if (entry.parent) {
      const via = await this.clientOf(entry.parent);
      sock = await this.openStream(via, entry.parent.hop, entry.hop, log);
    }
    const hostId = this.contextHostIds(entry)[0] ?? targetAddress(entry.hop);
    const typedPassword = this.typedPasswords.get(targetAddress(entry.hop));
    const hop = entry.hop.password === undefined && typedPassword !== undefined ? { ...entry.hop, password: typedPassword } : entry.hop;
    return this.openHop(hop, {
      knownHosts: this.opts.knownHosts,
      timeoutSeconds: this.opts.timeoutSeconds,
      hostId,
      log,
      role: entry.users.size === 0 && entry.children.size > 0 ? 'jump' : 'target',
      ...(sock ? { sock } : {}),
      ...(this.opts.prompts ? { prompts: this.opts.prompts } : {}),
      secrets: this.secrets,
    });
  }

  private adopt(entry: Entry, client: Client): void {
    const pending = entry.pending;
    entry.pending = undefined;
    entry.client = client;
    entry.status = 'ready';
    let lastError: string | undefined;
    client.on('error', (error: Error) => {
      lastError = error.message;
    });
    client.once('close', () => this.onDrop(entry, client, lastError));
    this.emit(entry, { state: 'ready' });
    pending?.resolve(client);
  }

  private fail(entry: Entry, error: ServelabError): void {
    const pending = entry.pending;
    entry.pending = undefined;
    entry.status = 'failed';
    this.emit(entry, { state: 'failed', reason: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) });
    pending?.reject(error);
  }

  private onDrop(entry: Entry, client: Client, lastError: string | undefined): void {
    if (entry.client !== client) return;
    entry.client = undefined;
    if (entry.disposed) return;
    const reason = lastError ? `the connection dropped (${lastError})` : 'the connection dropped';
    this.writerFor(entry)('warn', `Lost the connection to ${targetLabel(entry.hop)}: ${reason}.`);
    if (entry.users.size === 0) {
      // A jump host only reopens when a connection through it asks; an unused entry just goes away.
      entry.status = 'idle';
      if (entry.children.size === 0) this.dispose(entry, 'closed while unused');
      return;
    }
    entry.pending = deferred<Client>();
    this.scheduleReconnect(entry, reason, 1);
  }

  private scheduleReconnect(entry: Entry, reason: string, attempt: number): void {
    const delayMs = this.delayFor(attempt);
    entry.status = 'reconnecting';
    const generation = ++entry.generation;
    this.emit(entry, { state: 'reconnecting', attempt, delayMs, reason });
    this.writerFor(entry)('info', `Reconnecting to ${targetLabel(entry.hop)} in ${formatDelay(delayMs)} (attempt ${attempt})…`);
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      if (entry.disposed || generation !== entry.generation) return;
      this.open(entry).then(
        (client) => {
          if (entry.disposed || generation !== entry.generation) {
            client.end();
            return;
          }
          this.writerFor(entry)('info', `Reconnected to ${targetLabel(entry.hop)}.`);
          this.adopt(entry, client);
        },
        (error: unknown) => {
          if (entry.disposed || generation !== entry.generation) return;
          const failure = asServelabError(error);
          if (PERMANENT_CODES.has(failure.code) || attempt >= this.policy.maxAttempts) {
            this.writerFor(entry)('error', `Giving up reconnecting to ${targetLabel(entry.hop)}: ${failure.message.split('\n')[0]}`);
            this.fail(entry, failure);
            return;
          }
          this.scheduleReconnect(entry, failure.message.split('\n')[0] ?? failure.message, attempt + 1);
        },
      );
    }, delayMs);
  }

  /** Exponential backoff, spread by ± jitter, capped. */
  private delayFor(attempt: number): number {
    const { initialDelayMs, maxDelayMs, factor, jitter } = this.policy;
    const base = Math.min(maxDelayMs, initialDelayMs * Math.pow(factor, Math.max(0, attempt - 1)));
    const spread = base * Math.min(1, Math.max(0, jitter)) * (this.random() * 2 - 1);
    return Math.max(0, Math.round(Math.min(maxDelayMs, base + spread)));
  }

  private dropReference(entry: Entry, hostId: string): void {
    const count = entry.users.get(hostId) ?? 0;
    if (count <= 1) entry.users.delete(hostId);
    else entry.users.set(hostId, count - 1);
    this.maybeIdle(entry);
  }

  private maybeIdle(entry: Entry): void {
    if (entry.disposed || entry.users.size > 0 || entry.children.size > 0) return;
    // Nobody waits for a reconnect any more.
    if (entry.status === 'reconnecting' || entry.status === 'failed' || !entry.client) {
      this.dispose(entry, 'no longer used');
      return;
    }
    if (this.idleTimeoutMs <= 0) {
      this.dispose(entry, 'no longer used');
      return;
    }
    this.cancelIdleClose(entry);
    entry.idleTimer = setTimeout(() => this.dispose(entry, 'unused for a while'), this.idleTimeoutMs);
    entry.idleTimer.unref?.();
  }

  private cancelIdleClose(entry: Entry): void {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }

  private dispose(entry: Entry, why: string): void {
    if (entry.disposed) return;
    entry.disposed = true;
    entry.generation++;
    this.cancelIdleClose(entry);
    if (entry.retryTimer) clearTimeout(entry.retryTimer);
    entry.retryTimer = undefined;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
    const wasFailed = entry.status === 'failed';
    const client = entry.client;
    entry.client = undefined;
    entry.status = 'idle';
    if (client) {
      this.writerFor(entry)('info', `Closing the connection to ${targetLabel(entry.hop)} (${why}).`);
      client.end();
    }
    entry.pending?.reject(closedError(entry));
    entry.pending = undefined;
    for (const child of [...entry.children]) this.dispose(child, why);
    if (!wasFailed) this.emit(entry, { state: 'idle' });
    for (const hostId of entry.hostIds) if (this.hostEntries.get(hostId) === entry.key) this.hostEntries.delete(hostId);
    const parent = entry.parent;
    if (parent) {
      parent.children.delete(entry);
      this.maybeIdle(parent);
    }
  }

  private emit(entry: Entry, event: Omit<ConnectionStateEvent, 'hostId' | 'time'>): void {
    for (const hostId of entry.hostIds) {
      // A host id that moved on to another target no longer follows this entry.
      if (this.hostEntries.has(hostId) && this.hostEntries.get(hostId) !== entry.key) continue;
      const full: ConnectionStateEvent = { hostId, time: this.now(), ...event };
      this.states.set(hostId, full);
      for (const listener of [...this.listeners]) {
        try {
          listener(full);
        } catch {
          // One faulty subscriber must not stop the others or the pool.
        }
      }
    }
  }

  /** The host ids whose connections depend on this entry: its own and those going through it. */
  private contextHostIds(entry: Entry): string[] {
    const ids = new Set(entry.hostIds);
    for (const child of entry.children) for (const id of this.contextHostIds(child)) ids.add(id);
    return [...ids];
  }

  private writerFor(entry: Entry): ConnectionLogWriter {
    const log = this.opts.log;
    if (!log) return () => {};
    return (level, message) => {
      const ids = this.contextHostIds(entry);
      for (const id of ids.length > 0 ? ids : [targetAddress(entry.hop)]) log.write(id, level, message);
    };
  }
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Nobody may be waiting when a connection fails; that is not an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

function closedError(entry: Entry): ServelabError {
  return new ServelabError('CONNECT_FAILED', `The connection to ${targetLabel(entry.hop)} was closed.`, { details: { host: entry.hop.host, port: entry.hop.port } });
}

function asServelabError(error: unknown): ServelabError {
  if (error instanceof ServelabError) return error;
  return new ServelabError('CONNECT_FAILED', error instanceof Error ? error.message : String(error));
}

function formatDelay(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/**
 * Which pooled connection a target shares: its chain of addresses, and the ProxyCommand its first hop is reached
 * through. `ssh -W %h:%p bastion-a` and `… bastion-b` to the same `10.0.0.5:22` are different machines.
 */
function poolKey(target: SshTarget): string {
  const first = [...(target.jumps ?? []), target][0];
  const key = connectionKey(target);
  return first?.proxyCommand ? `${key} via ProxyCommand ${first.proxyCommand}` : key;
}
