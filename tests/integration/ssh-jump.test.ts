// Jump hosts and the connection pool against real OpenSSH: a jump host and two GPU hosts that only the jump
// host can reach (network namespaces, see tests/helpers/netns.ts).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { caught, run } from '../helpers/ssh-client';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshLab, type SshLab } from '../helpers/netns';
import type { TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { resolveTarget, type SshTarget } from '../../src/core/ssh/ssh-target';
import { fakeLocalAccount } from '../helpers/local-account';
import { ConnectionLog } from '../../src/core/ssh/connection-log';
import { PromptBroker } from '../../src/core/ssh/prompt-broker';
import { ScriptedPrompts } from '../helpers/scripted-prompts';
import { SshConnectionPool, type ConnectionStateEvent } from '../../src/core/ssh/connection-pool';

let lab: SshLab;
let scratch: string;
let files = 0;

beforeAll(async () => {
  lab = await startSshLab();
  scratch = await mkdtemp(join(tmpdir(), 'servelab-jump-'));
});

afterAll(async () => {
  await lab?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function hostKeyLine(sshd: TestSshd): Promise<{ keyType: string; publicKey: string }> {
  const [keyType, publicKey] = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim().split(' ') as [string, string];
  return { keyType, publicKey };
}

/** A known_hosts store of its own that trusts the given hosts' current keys. */
async function storeTrusting(...hosts: TestSshd[]): Promise<KnownHostsStore> {
  const store = new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++files}`), readOnlyFiles: [] });
  for (const sshd of hosts) await store.add({ host: sshd.host, port: sshd.port, ...(await hostKeyLine(sshd)) });
  return store;
}

function hop(sshd: TestSshd, extra: Partial<SshTarget> = {}): SshTarget {
  return { host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [lab.clientKey], ...extra };
}

function viaJump(sshd: TestSshd, extra: Partial<SshTarget> = {}): SshTarget {
  return { ...hop(sshd, extra), jumps: [hop(lab.jump)] };
}

function waitFor(events: ConnectionStateEvent[], predicate: (e: ConnectionStateEvent) => boolean, timeoutMs = 20_000): Promise<ConnectionStateEvent> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const found = events.find(predicate);
      if (found) {
        clearInterval(poll);
        resolve(found);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`state not reached; saw ${events.map((e) => `${e.hostId}:${e.state}`).join(', ')}`));
      }
    }, 20);
  });
}

describe('ProxyJump', () => {
  it('reaches the GPU hosts only through the jump host, checking every hop and logging each step', async () => {
    const knownHosts = await storeTrusting(lab.jump, lab.gpu1, lab.gpu2);
    if (lab.mode === 'netns') {
      const direct = await caught(openSshClient(hop(lab.gpu1), { knownHosts, timeoutSeconds: 1 }));
      expect(['CONNECT_FAILED', 'TIMEOUT']).toContain(direct.code);
    }

    const log = new ConnectionLog();
    const gpu1 = await openSshClient(viaJump(lab.gpu1), { knownHosts, timeoutSeconds: 10, log: log.writer('gpu1'), hostId: 'gpu1' });
    const gpu2 = await openSshClient(viaJump(lab.gpu2), { knownHosts, timeoutSeconds: 10 });
    try {
      if (lab.mode === 'netns') {
        expect(await run(gpu1, 'hostname')).toBe('gpu1');
        expect(await run(gpu2, 'hostname')).toBe('gpu2');
      }
      expect(await run(gpu1, 'id -un')).toBe(lab.gpu1.user);
      const text = log.entries('gpu1').map((e) => e.message).join('\n');
      expect(text).toContain(`Connecting to jump host ${lab.jump.user}@${lab.jump.host}:${lab.jump.port}`);
      expect(text).toContain(`Opening a tunnel through jump host ${lab.jump.user}@${lab.jump.host}:${lab.jump.port} to ${lab.gpu1.host}:${lab.gpu1.port}`);
      expect(text).toMatch(/Host key of jump host .* matches known_hosts/);
      expect(text).toContain(`Logged in as ${lab.gpu1.user} with key ${lab.clientKey}.`);
    } finally {
      gpu1.end();
      gpu2.end();
    }
  });

  it('resolves a chain from ~/.ssh/config with Include and %-tokens', async () => {
    const home = join(scratch, 'home');
    await mkdir(join(home, '.ssh', 'conf.d'), { recursive: true });
    await mkdir(join(home, '.ssh', 'keys'), { recursive: true });
    for (const sshd of [lab.jump, lab.gpu1]) await copyFile(lab.clientKey, join(home, '.ssh', 'keys', `${sshd.user}@${sshd.host}`));
    const block = (alias: string, sshd: TestSshd) => [`Host ${alias}`, `  HostName ${sshd.host}`, `  User ${sshd.user}`, `  Port ${sshd.port}`].join('\n');
    await writeFile(join(home, '.ssh', 'conf.d', 'lab.conf'), [block('bastion', lab.jump), block('gpu1', lab.gpu1)].join('\n') + '\n');
    await writeFile(
      join(home, '.ssh', 'config'),
      ['Include conf.d/*.conf', 'Host gpu*', '  ProxyJump bastion', '  ServerAliveInterval 7', 'Host *', '  IdentityFile ~/.ssh/keys/%r@%h', '  IdentitiesOnly yes', ''].join('\n'),
    );

    // ssh takes `~` from the passwd entry: the test runs ssh as a local account whose home is `home`.
    const account = await fakeLocalAccount(join(scratch, 'account'), { user: 'local-user', home, hostname: 'laptop' });
    const context = account.context();
    const target = await resolveTarget({ alias: 'gpu1' }, { configPath: join(home, '.ssh', 'config'), env: context.env, context });
    expect(target).toMatchObject({
      host: lab.gpu1.host,
      user: lab.gpu1.user,
      keepaliveIntervalSeconds: 7,
      identitiesOnly: true,
      identityFiles: [join(home, '.ssh', 'keys', `${lab.gpu1.user}@${lab.gpu1.host}`)],
      jumps: [{ alias: 'bastion', host: lab.jump.host, user: lab.jump.user, identityFiles: [join(home, '.ssh', 'keys', `${lab.jump.user}@${lab.jump.host}`)] }],
    });
    const client = await openSshClient(target, { knownHosts: await storeTrusting(lab.jump, lab.gpu1), timeoutSeconds: 10 });
    try {
      expect(await run(client, 'id -un')).toBe(lab.gpu1.user);
    } finally {
      client.end();
    }
  });

  it('reports an unknown jump host key naming the jump host, and connects once it is accepted', async () => {
    const knownHosts = await storeTrusting(lab.gpu1);
    const error = await caught(openSshClient(viaJump(lab.gpu1), { knownHosts, timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(error.message).toContain('jump host');
    expect(error.details).toMatchObject({ host: lab.jump.host, port: lab.jump.port, role: 'jump', fingerprint: lab.jump.hostKeyFingerprint });
    const d = error.details as { host: string; port: number; keyType: string; publicKey: string };
    await knownHosts.add({ host: d.host, port: d.port, keyType: d.keyType, publicKey: d.publicKey });
    const client = await openSshClient(viaJump(lab.gpu1), { knownHosts, timeoutSeconds: 10 });
    client.end();
  });

  it('refuses a jump host whose key changed or is revoked', async () => {
    const file = join(scratch, `known_hosts_${++files}`);
    const other = await hostKeyLine(lab.gpu2);
    const gpu1Key = await hostKeyLine(lab.gpu1);
    const jumpName = lab.jump.port === 22 ? lab.jump.host : `[${lab.jump.host}]:${lab.jump.port}`;
    const gpu1Name = lab.gpu1.port === 22 ? lab.gpu1.host : `[${lab.gpu1.host}]:${lab.gpu1.port}`;
    await writeFile(file, `${jumpName} ${other.keyType} ${other.publicKey}\n${gpu1Name} ${gpu1Key.keyType} ${gpu1Key.publicKey}\n`);
    const changed = await caught(openSshClient(viaJump(lab.gpu1), { knownHosts: new KnownHostsStore({ appFile: file, readOnlyFiles: [] }), timeoutSeconds: 10 }));
    expect(changed.code).toBe('HOST_KEY_CHANGED');
    expect(changed.message).toContain(`Host key for jump host ${jumpName} has changed`);
    expect(changed.details).toMatchObject({ host: lab.jump.host, role: 'jump', fingerprint: lab.jump.hostKeyFingerprint });

    const jumpKey = await hostKeyLine(lab.jump);
    const revokedFile = join(scratch, `revoked_${files}`);
    await writeFile(revokedFile, `@revoked * ${jumpKey.keyType} ${jumpKey.publicKey}\n`);
    const trusted = await storeTrusting(lab.jump, lab.gpu1);
    const withRevocation = new KnownHostsStore({ appFile: trusted.writableFile, readOnlyFiles: [revokedFile] });
    const revoked = await caught(openSshClient(viaJump(lab.gpu1), { knownHosts: withRevocation, timeoutSeconds: 10 }));
    expect(revoked.code).toBe('HOST_KEY_REVOKED');
    expect(revoked.details).toMatchObject({ host: lab.jump.host, role: 'jump' });
  });
});

describe('SshConnectionPool over real sshd', () => {
  const fast = { initialDelayMs: 100, maxDelayMs: 1_000, factor: 2, jitter: 0.2 };

  it('shares one jump connection, and after the jump host drops every session both hosts reconnect', async () => {
    const log = new ConnectionLog();
    const pool = new SshConnectionPool({ knownHosts: await storeTrusting(lab.jump, lab.gpu1, lab.gpu2), timeoutSeconds: 10, log, reconnect: fast, idleTimeoutMs: 0 });
    const events: ConnectionStateEvent[] = [];
    pool.onState((e) => events.push(e));
    try {
      const [c1, c2] = await Promise.all([pool.acquire('gpu1', viaJump(lab.gpu1)), pool.acquire('gpu2', viaJump(lab.gpu2))]);
      expect(await run(c1, 'id -un')).toBe(lab.gpu1.user);
      expect(await run(c2, 'id -un')).toBe(lab.gpu2.user);
      const jumpConnects = log.entries('gpu1').filter((e) => e.message.startsWith('Connecting to jump host'));
      expect(jumpConnects).toHaveLength(1);
      expect(log.entries('gpu2').filter((e) => e.message.startsWith('Connecting to jump host'))).toHaveLength(1);
      // The same client for a second user of the host.
      expect(await pool.acquire('gpu1', viaJump(lab.gpu1))).toBe(c1);
      pool.release('gpu1');

      await lab.jump.dropSessions();
      await waitFor(events, (e) => e.hostId === 'gpu1' && e.state === 'reconnecting');
      const again = await pool.acquire('gpu1', viaJump(lab.gpu1));
      expect(again).not.toBe(c1);
      expect(await run(again, 'id -un')).toBe(lab.gpu1.user);
      const provide = pool.provider('gpu2', viaJump(lab.gpu2));
      expect(await run(await provide(), 'id -un')).toBe(lab.gpu2.user);

      const gpu1States = events.filter((e) => e.hostId === 'gpu1').map((e) => e.state);
      expect(gpu1States).toEqual(['connecting', 'ready', 'reconnecting', 'ready']);
      const reconnecting = events.find((e) => e.state === 'reconnecting');
      expect(reconnecting).toMatchObject({ attempt: 1 });
      expect(reconnecting?.delayMs).toBeLessThanOrEqual(120);
      expect(log.entries('gpu1').map((e) => e.message).join('\n')).toMatch(/Lost the connection to .*\n.*Reconnecting to/);
    } finally {
      await pool.closeAll();
    }
    expect(events.filter((e) => e.hostId === 'gpu1').at(-1)?.state).toBe('idle');
  });

  it('notices a dead network through keepalive and reconnects when it is back', async (ctx) => {
    // Pulling a link needs the namespaced lab.
    if (lab.mode !== 'netns') ctx.skip();
    const pool = new SshConnectionPool({ knownHosts: await storeTrusting(lab.jump, lab.gpu1), timeoutSeconds: 5, reconnect: fast, idleTimeoutMs: 0 });
    const events: ConnectionStateEvent[] = [];
    pool.onState((e) => events.push(e));
    const target = viaJump(lab.gpu1, { keepaliveIntervalSeconds: 1, keepaliveCountMax: 1 });
    target.jumps = [hop(lab.jump, { keepaliveIntervalSeconds: 1, keepaliveCountMax: 1 })];
    try {
      await pool.acquire('gpu1', target);
      lab.setJumpLink(false);
      await waitFor(events, (e) => e.state === 'reconnecting');
      lab.setJumpLink(true);
      await waitFor(events, (e) => e.state === 'ready' && events.indexOf(e) > 1);
      expect(await run(await pool.acquire('gpu1', target), 'hostname')).toBe('gpu1');
    } finally {
      lab.setJumpLink(true);
      await pool.closeAll();
    }
  });

  it('does not ask for a passphrase again when it reconnects', async () => {
    const broker = new PromptBroker();
    const answers = new ScriptedPrompts(broker).reply([lab.jump.identityPassphrase]);
    const pool = new SshConnectionPool({ knownHosts: await storeTrusting(lab.jump), timeoutSeconds: 10, prompts: broker, reconnect: fast, idleTimeoutMs: 0 });
    const events: ConnectionStateEvent[] = [];
    pool.onState((e) => events.push(e));
    const target = hop(lab.jump, { identityFiles: [lab.jump.encryptedIdentityFile] });
    try {
      await pool.acquire('jump', target);
      await lab.jump.dropSessions();
      await waitFor(events, (e) => e.state === 'reconnecting');
      await waitFor(events, (e) => e.state === 'ready' && events.indexOf(e) > 1);
      expect(await run(await pool.acquire('jump', target), 'id -un')).toBe(lab.jump.user);
      expect(answers.requests).toHaveLength(1);
    } finally {
      await pool.closeAll();
    }
  });

  it('reports failed without a reconnect loop when the login stops working', async () => {
    const pool = new SshConnectionPool({ knownHosts: await storeTrusting(lab.jump), timeoutSeconds: 10, reconnect: fast, idleTimeoutMs: 0 });
    const events: ConnectionStateEvent[] = [];
    pool.onState((e) => events.push(e));
    try {
      const refused = await caught(pool.acquire('nobody', hop(lab.jump, { user: 'nobody' })));
      expect(refused.code).toBe('AUTH_FAILED');
      expect(events.map((e) => `${e.hostId}:${e.state}`)).toEqual(['nobody:connecting', 'nobody:failed']);

      // A key that disappears while connected: the reconnect fails authentication once and stops there.
      const key = join(scratch, 'vanishing_key');
      await copyFile(lab.clientKey, key);
      const client = await pool.acquire('jump', hop(lab.jump, { identityFiles: [key] }));
      expect(await run(client, 'id -un')).toBe(lab.jump.user);
      await rm(key);
      await lab.jump.dropSessions();
      const failed = await waitFor(events, (e) => e.hostId === 'jump' && e.state === 'failed');
      expect(failed.code).toBe('AUTH_FAILED');
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(events.filter((e) => e.hostId === 'jump').map((e) => e.state)).toEqual(['connecting', 'ready', 'reconnecting', 'failed']);
      expect((await caught(pool.acquire('jump', hop(lab.jump, { identityFiles: [key] })))).code).toBe('AUTH_FAILED');
    } finally {
      await pool.closeAll();
    }
  });
});

// Last: it changes gpu2's host key for good.
describe('a target host key that changes between connects', () => {
  it('is refused behind the jump host', async () => {
    const knownHosts = await storeTrusting(lab.jump, lab.gpu2);
    const first = await openSshClient(viaJump(lab.gpu2), { knownHosts, timeoutSeconds: 10 });
    first.end();
    await lab.gpu2.rotateHostKey();
    const error = await caught(openSshClient(viaJump(lab.gpu2), { knownHosts, timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_CHANGED');
    expect(error.details).toMatchObject({ host: lab.gpu2.host, role: 'target', fingerprint: lab.gpu2.hostKeyFingerprint });
  });
});
