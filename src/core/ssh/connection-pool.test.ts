import { describe, it, expect } from 'vitest';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Client } from 'ssh2';
import { SshConnectionPool, type ConnectionStateEvent, type SshConnectionPoolOptions } from './connection-pool';
import { KnownHostsStore } from './known-hosts';
import { ConnectionLog } from './connection-log';
import type { SshTarget } from './ssh-target';
import { ServelabError } from '../../shared/contract';

/** Stands for an ssh2 Client: `drop()` is the network going away, `end()` a deliberate close. */
class FakeClient extends EventEmitter {
  ended = false;
  constructor(readonly name: string) {
    super();
  }
  end(): this {
    this.ended = true;
    this.emit('close');
    return this;
  }
  drop(): void {
    this.emit('error', new Error('read ECONNRESET'));
    this.emit('close');
  }
}

type Outcome = 'ok' | ServelabError;

/** A pool whose hops open instantly, following a script of outcomes per host. */
function fakePool(opts: { script?: Record<string, Outcome[]>; extra?: Partial<SshConnectionPoolOptions> } = {}) {
  const opened: { host: string; role: string | undefined; viaStream: boolean }[] = [];
  const clients: FakeClient[] = [];
  const streams: string[] = [];
  const events: ConnectionStateEvent[] = [];
  const log = new ConnectionLog();
  const pool = new SshConnectionPool({
    knownHosts: new KnownHostsStore({ appFile: '/nonexistent/known_hosts', readOnlyFiles: [] }),
    timeoutSeconds: 5,
    log,
    idleTimeoutMs: 0,
    random: () => 0.5,
    reconnect: { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0.5 },
    openHop: async (target, hopOpts) => {
      opened.push({ host: target.host, role: hopOpts.role, viaStream: hopOpts.sock !== undefined });
      const outcome = opts.script?.[target.host]?.shift() ?? 'ok';
      if (outcome !== 'ok') throw outcome;
      const client = new FakeClient(`${target.host}#${opened.length}`);
      clients.push(client);
      return client as unknown as Client;
    },
    openStream: async (via, _viaTarget, next) => {
      streams.push(`${(via as unknown as FakeClient).name}->${next.host}`);
      return new PassThrough();
    },
    ...opts.extra,
  });
  pool.onState((e) => events.push(e));
  const states = (hostId: string) => events.filter((e) => e.hostId === hostId).map((e) => e.state);
  const latest = (host: string) => [...clients].reverse().find((c) => c.name.startsWith(`${host}#`)) as FakeClient;
  return { pool, opened, clients, streams, events, states, latest, log };
}

const target = (host: string, extra: Partial<SshTarget> = {}): SshTarget => ({ host, port: 22, user: 'ann', ...extra });
const viaJump = (host: string): SshTarget => target(host, { jumps: [target('jump')] });
const until = async (check: () => boolean, ms = 2_000) => {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
};
const failure = (code: 'CONNECT_FAILED' | 'AUTH_FAILED' | 'TIMEOUT', message: string = code) => new ServelabError(code, message);

describe('SshConnectionPool', () => {
  it('keeps targets reached through different ProxyCommands apart, and shares one reached through the same', async () => {
    const { pool, opened } = fakePool();
    const viaA = target('10.0.0.5', { proxyCommand: 'ssh -W 10.0.0.5:22 bastion-a' });
    const viaB = target('10.0.0.5', { proxyCommand: 'ssh -W 10.0.0.5:22 bastion-b' });
    const [a, b, direct] = await Promise.all([pool.acquire('a', viaA), pool.acquire('b', viaB), pool.acquire('d', target('10.0.0.5'))]);
    expect(a).not.toBe(b);
    expect(direct).not.toBe(a);
    expect(direct).not.toBe(b);
    expect(await pool.acquire('a2', { ...viaA })).toBe(a);
    expect(opened).toHaveLength(3);
    await pool.closeAll();
  });

  it('shares one connection per host spec and closes it when the last user releases it', async () => {
    const { pool, opened, states, clients } = fakePool();
    const [a, b] = await Promise.all([pool.acquire('h1', target('gpu1')), pool.acquire('h2', target('gpu1'))]);
    expect(a).toBe(b);
    expect(opened).toHaveLength(1);
    const other = await pool.acquire('h3', target('gpu1', { user: 'bob' }));
    expect(other).not.toBe(a);
    pool.release('h1');
    expect(clients[0]?.ended).toBe(false);
    pool.release('h2');
    expect(clients[0]?.ended).toBe(true);
    expect(states('h1')).toEqual(['connecting', 'ready', 'idle']);
    expect(pool.state('h3').state).toBe('ready');
    await pool.closeAll();
    expect(pool.state('h3').state).toBe('idle');
  });

  it('keeps an unused connection for the idle timeout, for the next user', async () => {
    const { pool, opened, clients } = fakePool({ extra: { idleTimeoutMs: 30 } });
    const first = await pool.acquire('h1', target('gpu1'));
    pool.release('h1');
    expect(await pool.acquire('h1', target('gpu1'))).toBe(first);
    pool.release('h1');
    await until(() => clients[0]?.ended === true);
    expect(opened).toHaveLength(1);
  });

  it('opens a jump host once for every connection through it and closes it after the last one', async () => {
    const { pool, opened, streams, clients } = fakePool();
    await Promise.all([pool.acquire('g1', viaJump('gpu1')), pool.acquire('g2', viaJump('gpu2'))]);
    expect(opened.map((o) => [o.host, o.role, o.viaStream])).toEqual([
      ['jump', 'jump', false],
      ['gpu1', 'target', true],
      ['gpu2', 'target', true],
    ]);
    expect(streams).toEqual(['jump#1->gpu1', 'jump#1->gpu2']);
    const jump = clients[0] as FakeClient;
    pool.release('g1');
    expect(jump.ended).toBe(false);
    pool.release('g2');
    expect(jump.ended).toBe(true);
  });

  it('reconnects with exponential backoff and jitter after a drop, and acquire waits for it', async () => {
    const { pool, opened, events, states, latest } = fakePool({ script: { gpu1: ['ok', failure('CONNECT_FAILED', 'refused'), failure('TIMEOUT', 'slow'), 'ok'] } });
    const first = await pool.acquire('h', target('gpu1'));
    latest('gpu1').drop();
    const waiting = pool.acquire('h', target('gpu1'));
    const second = await waiting;
    expect(second).not.toBe(first);
    expect(opened).toHaveLength(4);
    expect(states('h')).toEqual(['connecting', 'ready', 'reconnecting', 'reconnecting', 'reconnecting', 'ready']);
    const retries = events.filter((e) => e.state === 'reconnecting');
    // random() = 0.5 puts the jitter at zero: 10, 20, 40 ms (the cap).
    expect(retries.map((e) => [e.attempt, e.delayMs])).toEqual([
      [1, 10],
      [2, 20],
      [3, 40],
    ]);
    expect(retries[0]?.reason).toBe('the connection dropped (read ECONNRESET)');
    expect(retries[1]?.reason).toBe('refused');
    await pool.closeAll();
  });

  it('spreads delays by the jitter and caps them', async () => {
    let r = 0;
    const { pool, events, latest } = fakePool({
      script: { gpu1: ['ok', failure('CONNECT_FAILED'), failure('CONNECT_FAILED'), failure('CONNECT_FAILED'), 'ok'] },
      extra: { random: () => [1, 0, 1, 0][r++ % 4] as number },
    });
    await pool.acquire('h', target('gpu1'));
    latest('gpu1').drop();
    await pool.acquire('h', target('gpu1'));
    expect(events.filter((e) => e.state === 'reconnecting').map((e) => e.delayMs)).toEqual([15, 10, 40, 20]);
    await pool.closeAll();
  });

  it('stops at a failure that needs the user and lets waiting users see it', async () => {
    const { pool, opened, states, latest } = fakePool({ script: { gpu1: ['ok', failure('AUTH_FAILED', 'Permission denied')] } });
    await pool.acquire('h', target('gpu1'));
    const provide = pool.provider('job', target('gpu1'));
    await provide();
    latest('gpu1').drop();
    await expect(provide()).rejects.toMatchObject({ code: 'AUTH_FAILED' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(opened).toHaveLength(2);
    expect(states('h')).toEqual(['connecting', 'ready', 'reconnecting', 'failed']);
    expect(pool.state('h')).toMatchObject({ state: 'failed', code: 'AUTH_FAILED', reason: 'Permission denied' });
    // An explicit acquire tries again.
    await pool.acquire('h', target('gpu1'));
    expect(pool.state('h').state).toBe('ready');
    await pool.closeAll();
  });

  it('does not retry a first connection that fails, and forgets it', async () => {
    const { pool, opened, states } = fakePool({ script: { gpu1: [failure('CONNECT_FAILED', 'refused')] } });
    await expect(pool.acquire('h', target('gpu1'))).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(opened).toHaveLength(1);
    expect(states('h')).toEqual(['connecting', 'failed']);
  });

  it('gives up after maxAttempts', async () => {
    const { pool, states, latest } = fakePool({
      script: { gpu1: ['ok', failure('CONNECT_FAILED'), failure('CONNECT_FAILED')] },
      extra: { reconnect: { initialDelayMs: 1, maxDelayMs: 2, factor: 2, jitter: 0, maxAttempts: 2 } },
    });
    await pool.acquire('h', target('gpu1'));
    latest('gpu1').drop();
    await expect(pool.acquire('h', target('gpu1'))).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    expect(states('h')).toEqual(['connecting', 'ready', 'reconnecting', 'reconnecting', 'failed']);
  });

  it('reopens the jump host when a connection through it reconnects', async () => {
    const { pool, opened, latest, states } = fakePool();
    await pool.acquire('g1', viaJump('gpu1'));
    latest('jump').drop();
    latest('gpu1').drop();
    const client = await pool.acquire('g1', viaJump('gpu1'));
    expect((client as unknown as FakeClient).name).toBe('gpu1#4');
    expect(opened.map((o) => o.host)).toEqual(['jump', 'gpu1', 'jump', 'gpu1']);
    expect(states('g1')).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
    await pool.closeAll();
  });

  it('ends reconnecting when the last user releases, and closeAll fails waiting acquires', async () => {
    const { pool, opened, latest, states } = fakePool({ extra: { reconnect: { initialDelayMs: 50, maxDelayMs: 50 } } });
    await pool.acquire('h', target('gpu1'));
    latest('gpu1').drop();
    pool.release('h');
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(opened).toHaveLength(1);
    expect(states('h').at(-1)).toBe('idle');

    await pool.acquire('h2', target('gpu2'));
    latest('gpu2').drop();
    const waiting = pool.acquire('h2', target('gpu2'));
    await pool.closeAll();
    await expect(waiting).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('writes drops and reconnects to the host’s connection log', async () => {
    const { pool, latest, log } = fakePool();
    await pool.acquire('h', target('gpu1'));
    latest('gpu1').drop();
    await pool.acquire('h', target('gpu1'));
    expect(log.entries('h').map((e) => e.message)).toEqual([
      'Lost the connection to ann@gpu1:22: the connection dropped (read ECONNRESET).',
      'Reconnecting to ann@gpu1:22 in 10 ms (attempt 1)…',
      'Reconnected to ann@gpu1:22.',
    ]);
    await pool.closeAll();
  });
  it('offers typed secrets to reconnects, and forgets them on closeAll', async () => {
    const seen: { password: string | undefined; passphrase: string | null }[] = [];
    const { pool, latest } = fakePool({
      extra: {
        openHop: async (hop, hopOpts) => {
          seen.push({ password: hop.password, passphrase: (await hopOpts.secrets?.passphrase?.('/k')) ?? null });
          if (seen.length === 1) {
            hopOpts.secrets?.accepted?.({ kind: 'passphrase', identityFile: '/k' }, 'pp');
            hopOpts.secrets?.accepted?.({ kind: 'password', user: hop.user, host: hop.host, port: hop.port }, 'pw');
          }
          return new FakeClient(`${hop.host}#${seen.length}`) as unknown as Client;
        },
      },
    });
    const client = await pool.acquire('h', target('gpu1'));
    (client as unknown as FakeClient).drop();
    await pool.acquire('h', target('gpu1'));
    await pool.closeAll();
    await pool.acquire('h', target('gpu1'));
    expect(seen).toEqual([
      { password: undefined, passphrase: null },
      { password: 'pw', passphrase: 'pp' },
      { password: undefined, passphrase: null },
    ]);
    expect(latest).toBeDefined();
    await pool.closeAll();
  });
});
