// ProxyCommand against real OpenSSH: the classic `ssh -W %h:%p jump` (the real OpenSSH client) into the network
// namespace lab, a plain relay (`busybox nc`), commands that fail, and the proxy's life ending with the connection.
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { caught, run } from '../helpers/ssh-client';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshLab, type SshLab } from '../helpers/netns';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore, knownHostsName } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { ConnectionLog } from '../../src/core/ssh/connection-log';
import { SshConnectionPool } from '../../src/core/ssh/connection-pool';
import { shellQuote } from '../../src/shared/shell-quote';

let lab: SshLab;
let plain: TestSshd;
let scratch: string;
let files = 0;

beforeAll(async () => {
  [lab, plain] = await Promise.all([startSshLab(), startTestSshd({ nvidiaSmi: false })]);
  scratch = await mkdtemp(join(tmpdir(), 'servelab-proxy-'));
});

afterAll(async () => {
  await Promise.all([lab?.stop(), plain?.stop()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function hostKeyLine(sshd: TestSshd): Promise<{ keyType: string; publicKey: string }> {
  const [keyType, publicKey] = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim().split(' ') as [string, string];
  return { keyType, publicKey };
}

async function storeTrusting(...hosts: TestSshd[]): Promise<KnownHostsStore> {
  const store = new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++files}`), readOnlyFiles: [] });
  for (const sshd of hosts) await store.add({ host: sshd.host, port: sshd.port, ...(await hostKeyLine(sshd)) });
  return store;
}

/** `ssh -W host:port jump` with the lab's key and a known_hosts of its own for the jump host: never asks anything. */
async function sshDashW(to: TestSshd): Promise<string> {
  const knownHosts = join(scratch, `jump_known_hosts_${++files}`);
  const key = await hostKeyLine(lab.jump);
  await writeFile(knownHosts, `${knownHostsName(lab.jump.host, lab.jump.port)} ${key.keyType} ${key.publicKey}\n`);
  const q = shellQuote;
  return [
    'ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=yes',
    `-o UserKnownHostsFile=${q(knownHosts)} -o GlobalKnownHostsFile=/dev/null -o IdentitiesOnly=yes -i ${q(lab.clientKey)}`,
    `-l ${q(lab.jump.user)} -p ${lab.jump.port} -W ${q(`${to.host}:${to.port}`)} ${q(lab.jump.host)}`,
  ].join(' ');
}

/** A relay like `nc`, saying what it does on stderr first. */
function relay(to: TestSshd, marker: string): string {
  return `sh -c ${shellQuote(`echo "relay ${marker} to ${to.host} port ${to.port}" >&2; exec busybox nc ${to.host} ${to.port}`)}`;
}

/** Pids whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

async function gone(marker: string, timeoutMs = 5_000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if ((await processesWith(marker)).length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('ProxyCommand', () => {
  it('reaches a GPU host that only the jump host can reach through `ssh -W %h:%p jump`', async () => {
    const target: SshTarget = { host: lab.gpu1.host, port: lab.gpu1.port, user: lab.gpu1.user, identityFiles: [lab.clientKey], proxyCommand: await sshDashW(lab.gpu1) };
    const knownHosts = await storeTrusting(lab.gpu1);
    if (lab.mode === 'netns') {
      const direct = await caught(openSshClient({ ...target, proxyCommand: null }, { knownHosts, timeoutSeconds: 1 }));
      expect(['CONNECT_FAILED', 'TIMEOUT']).toContain(direct.code);
    }
    const log = new ConnectionLog();
    const client = await openSshClient(target, { knownHosts, timeoutSeconds: 15, log: log.writer('gpu1') });
    try {
      if (lab.mode === 'netns') expect(await run(client, 'hostname')).toBe('gpu1');
      expect(await run(client, 'id -un')).toBe(lab.gpu1.user);
      const text = log.entries('gpu1').map((e) => e.message).join('\n');
      expect(text).toContain(`Executing proxy command: exec ssh -F /dev/null`);
      expect(log.entries('gpu1').find((e) => e.message.startsWith('Executing proxy command'))?.level).toBe('debug');
      expect(text).toMatch(/Host key of .* matches known_hosts/);
      expect(await processesWith(`-W ${lab.gpu1.host}:${lab.gpu1.port}`)).not.toHaveLength(0);
    } finally {
      client.end();
    }
    expect(await gone(`-W ${lab.gpu1.host}:${lab.gpu1.port}`)).toBe(true);
  });

  it('carries the connection over a plain relay, shows its stderr in the log and ends it with the connection', async () => {
    const marker = `m${files + 1000}x${process.pid}`;
    const log = new ConnectionLog();
    const target: SshTarget = { host: plain.host, port: plain.port, user: plain.user, identityFiles: [plain.identityFile], proxyCommand: relay(plain, marker) };
    const client = await openSshClient(target, { knownHosts: await storeTrusting(plain), timeoutSeconds: 10, log: log.writer('plain') });
    try {
      expect(await run(client, 'id -un')).toBe(plain.user);
      expect(log.entries('plain').map((e) => e.message)).toContain(`proxy command: relay ${marker} to ${plain.host} port ${plain.port}`);
      expect(await processesWith(`busybox nc ${plain.host} ${plain.port}`)).not.toHaveLength(0);
    } finally {
      client.end();
    }
    expect(await gone(`busybox nc ${plain.host} ${plain.port}`)).toBe(true);
  });

  it('ends the proxy when the connection fails after it started (an unknown host key)', async () => {
    const marker = `refused${process.pid}`;
    const target: SshTarget = { host: plain.host, port: plain.port, user: plain.user, identityFiles: [plain.identityFile], proxyCommand: relay(plain, marker) };
    const error = await caught(openSshClient(target, { knownHosts: await storeTrusting(), timeoutSeconds: 10 }));
    expect(error.code).toBe('HOST_KEY_UNKNOWN');
    expect(await gone(`busybox nc ${plain.host} ${plain.port}`)).toBe(true);
  });

  it('reaches a jump host through its own ProxyCommand, the first hop of a chain', async () => {
    const jump: SshTarget = { host: lab.jump.host, port: lab.jump.port, user: lab.jump.user, identityFiles: [lab.clientKey], proxyCommand: relay(lab.jump, 'to-jump') };
    const target: SshTarget = { host: lab.gpu2.host, port: lab.gpu2.port, user: lab.gpu2.user, identityFiles: [lab.clientKey], jumps: [jump] };
    const log = new ConnectionLog();
    const client = await openSshClient(target, { knownHosts: await storeTrusting(lab.jump, lab.gpu2), timeoutSeconds: 15, log: log.writer('gpu2') });
    try {
      if (lab.mode === 'netns') expect(await run(client, 'hostname')).toBe('gpu2');
      expect(log.entries('gpu2').map((e) => e.message).join('\n')).toContain('proxy command: relay to-jump');
    } finally {
      client.end();
    }
    expect(await gone(`busybox nc ${lab.jump.host} ${lab.jump.port}`)).toBe(true);
  });

  it('reports a command that exits early with its status and its last output', async () => {
    const target: SshTarget = {
      host: 'bastion.invalid',
      port: 22,
      user: 'me',
      identityFiles: [plain.identityFile],
      proxyCommand: `sh -c ${shellQuote('echo "looking for the bastion" >&2; echo "channel 0: open failed: administratively prohibited" >&2; exit 1')}`,
    };
    const log = new ConnectionLog();
    const error = await caught(openSshClient(target, { knownHosts: await storeTrusting(), timeoutSeconds: 10, log: log.writer('b') }));
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('exited with status 1');
    expect(error.message).toContain('channel 0: open failed: administratively prohibited');
    expect(error.details).toMatchObject({ exitCode: 1, stderr: ['looking for the bastion', 'channel 0: open failed: administratively prohibited'] });
    expect(log.entries('b').map((e) => e.message)).toContain('proxy command: looking for the bastion');
  });

  it('reports a command that is not found', async () => {
    const target: SshTarget = { host: 'h.invalid', port: 22, user: 'me', identityFiles: [plain.identityFile], proxyCommand: 'servelab-no-such-proxy %h' };
    const error = await caught(openSshClient(target, { knownHosts: await storeTrusting(), timeoutSeconds: 10, env: { ...process.env, SHELL: '/bin/sh' } }));
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('exited with status 127');
    expect(error.message).toMatch(/servelab-no-such-proxy.*not found/);
    expect(error.details).toMatchObject({ exitCode: 127 });
  });
});

/** Whether `predicate` holds within `timeoutMs`. */
async function within(timeoutMs: number, predicate: () => boolean | Promise<boolean>): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return predicate();
}

function sigkillAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe('ProxyCommand life', () => {
  // What a test started that must not outlive it, even when an assertion fails first.
  const markers: string[] = [];
  const marked = (marker: string) => {
    markers.push(marker);
    return marker;
  };
  afterEach(async () => {
    for (const marker of markers.splice(0)) sigkillAll(await processesWith(marker));
  });
  const directTo = (sshd: TestSshd, proxyCommand: string): SshTarget => ({ host: sshd.host, port: sshd.port, user: sshd.user, identityFiles: [sshd.identityFile], proxyCommand });

  it('reports the connection closed when the proxy dies after the login, and the pool stops calling the host ready', async () => {
    const marker = `busybox nc ${plain.host} ${plain.port}`;
    const pool = new SshConnectionPool({ knownHosts: await storeTrusting(plain), timeoutSeconds: 10, idleTimeoutMs: 0, reconnect: { initialDelayMs: 60_000, maxAttempts: 1 } });
    try {
      const client = await pool.acquire('dies', directTo(plain, `sh -c ${shellQuote(`exec ${marker}`)}`));
      let closed = false;
      client.once('close', () => {
        closed = true;
      });
      expect(await run(client, 'echo hi')).toBe('hi');
      expect(pool.state('dies').state).toBe('ready');
      const relays = await processesWith(marker);
      expect(relays).not.toHaveLength(0);
      sigkillAll(relays);
      expect(await within(3_000, () => closed)).toBe(true);
      expect(pool.state('dies').state).not.toBe('ready');
    } finally {
      await pool.closeAll();
    }
  });

  it('reports a proxy that exits after the server banner with its status and last output, not as a timeout', async () => {
    const command = `sh -c ${shellQuote(`printf 'SSH-2.0-Fake\\r\\n'; echo 'bastion said no' >&2; sleep 0.3; exit 3`)}`;
    const started = Date.now();
    const error = await caught(openSshClient({ host: 'x.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: command }, { knownHosts: await storeTrusting(), timeoutSeconds: 8 }));
    expect(error.code).toBe('CONNECT_FAILED');
    expect(error.message).toContain('exited with status 3');
    expect(error.message).toContain('bastion said no');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('hangs up on a proxy that keeps running after the connection ends', async () => {
    // nc exits when sshd hangs up; the shell then sleeps on, as a proxy on a wedged path would.
    const sleeper = marked(`sleep 5${process.pid}1`);
    const client = await openSshClient(directTo(plain, `sh -c ${shellQuote(`busybox nc ${plain.host} ${plain.port}; ${sleeper}`)}`), { knownHosts: await storeTrusting(plain), timeoutSeconds: 10 });
    try {
      expect(await run(client, 'echo hi')).toBe('hi');
    } finally {
      client.end();
    }
    // SIGHUP comes at once, well before the 2 s SIGKILL.
    expect(await gone(sleeper, 1_500)).toBe(true);
  });

  it('kills a proxy that ignores SIGHUP once the grace is over', async () => {
    const sleeper = marked(`sleep 5${process.pid}2`);
    const client = await openSshClient(directTo(plain, `sh -c ${shellQuote(`trap '' HUP; busybox nc ${plain.host} ${plain.port}; exec ${sleeper}`)}`), { knownHosts: await storeTrusting(plain), timeoutSeconds: 10 });
    try {
      expect(await run(client, 'echo hi')).toBe('hi');
    } finally {
      client.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await processesWith(sleeper)).not.toHaveLength(0);
    expect(await gone(sleeper, 3_000)).toBe(true);
  });

  it('kills what the proxy left in its group, even after the proxy itself has exited', async () => {
    const sleeper = marked(`sleep 5${process.pid}3`);
    let closed = false;
    const client = await openSshClient(directTo(plain, `sh -c ${shellQuote(`trap '' HUP; ${sleeper} & exec busybox nc ${plain.host} ${plain.port}`)}`), { knownHosts: await storeTrusting(plain), timeoutSeconds: 10 });
    client.once('close', () => {
      closed = true;
    });
    try {
      expect(await run(client, 'echo hi')).toBe('hi');
      expect(await processesWith(sleeper)).not.toHaveLength(0);
    } finally {
      client.end();
    }
    expect(await within(2_000, () => closed)).toBe(true);
    expect(await gone(sleeper, 4_000)).toBe(true);
  });

  it('ends a proxy that hangs until the deadline', async () => {
    const sleeper = marked(`sleep 5${process.pid}4`);
    const error = await caught(openSshClient({ host: 'h.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: sleeper }, { knownHosts: await storeTrusting(), timeoutSeconds: 1 }));
    expect(error.code).toBe('TIMEOUT');
    expect(await gone(sleeper, 3_000)).toBe(true);
  });

  it('bounds a silent ProxyCommand by ConnectTimeout, from its start to the end of the key exchange, and ends it', async () => {
    const sleeper = marked(`sleep 5${process.pid}5`);
    const started = Date.now();
    const error = await caught(
      openSshClient({ host: 'h.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: sleeper, connectTimeoutSeconds: 1 }, { knownHosts: await storeTrusting(), timeoutSeconds: 20 }),
    );
    const elapsed = Date.now() - started;
    expect(error.code).toBe('TIMEOUT');
    expect(error.message).toBe('Connection timed out during banner exchange with u@h.invalid:22 through its ProxyCommand (ConnectTimeout 1 s).');
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(4_000);
    expect(await gone(sleeper, 3_000)).toBe(true);
  });

  it('does not blame a proxy that exited normally, and says when a proxy failed for want of a terminal', async () => {
    const normal = await caught(openSshClient({ host: 'h.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: 'true' }, { knownHosts: await storeTrusting(), timeoutSeconds: 5 }));
    expect(normal.code).toBe('CONNECT_FAILED');
    expect(normal.message).not.toContain('exited with status 0');
    expect(normal.message).toContain('(its ProxyCommand exited normally)');
    const tty = await caught(
      openSshClient(
        { host: 'h.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: `sh -c ${shellQuote("echo \"read_passphrase: can't open /dev/tty: No such device or address\" >&2; exit 255")}` },
        { knownHosts: await storeTrusting(), timeoutSeconds: 5 },
      ),
    );
    expect(tty.message).toContain('exited with status 255');
    expect(tty.message).toContain('It runs without a terminal, so it cannot ask for a password or passphrase');
  });

  it('keeps credentials in the command out of the log and the error', async () => {
    const log = new ConnectionLog();
    const command = `sh -c ${shellQuote('exit 2')} --service-token-secret s3cretvalue http://me:hunter2@proxy.invalid`;
    const error = await caught(openSshClient({ host: 'h.invalid', port: 22, user: 'u', identityFiles: [plain.identityFile], proxyCommand: command }, { knownHosts: await storeTrusting(), timeoutSeconds: 5, log: log.writer('c') }));
    expect(error.code).toBe('CONNECT_FAILED');
    const everything = [error.message, JSON.stringify(error.details), ...log.entries('c').map((e) => e.message)].join('\n');
    expect(everything).toContain('exited with status 2');
    expect(everything).toContain('me:<redacted>@proxy.invalid');
    expect(everything).not.toContain('s3cretvalue');
    expect(everything).not.toContain('hunter2');
  });
});
