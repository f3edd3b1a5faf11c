// The core's host calls over a real sshd, as the UI drives them: an ~/.ssh/config alias with an encrypted key,
// the passphrase asked through prompt events, the connection log, reconnects, and the explicit key replacement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { MemorySecretStore } from '../../src/core/secrets/secret-store';
import type { EventMessage } from '../../src/shared/contract';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

let sshd: TestSshd;
let home: string;
const secrets = new MemorySecretStore();

async function newCore(dataDir: string): Promise<{ core: Core; events: EventMessage[] }> {
  const core = await createCore({
    dataDir,
    secrets,
    userKnownHostsFiles: [],
    // ssh reads ~/.ssh/config from the passwd home, not $HOME: the test's config is named.
    sshConfigPath: join(home, '.ssh', 'config'),
    env: { HOME: home, USER: 'tester', PATH: process.env.PATH ?? '/usr/bin:/bin' },
    connectTimeoutSeconds: 10,
    reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
  });
  const events: EventMessage[] = [];
  core.events.subscribe((e) => events.push(e));
  return { core, events };
}

function ok<T>(envelope: { ok: boolean; data?: unknown; error?: { code: string; message: string } }): T {
  if (!envelope.ok) throw new Error(`${envelope.error!.code}: ${envelope.error!.message}`);
  return envelope.data as T;
}

/** Answers every passphrase prompt the core raises with the given answer, remembering it. */
function answerPrompts(core: Core, answer: string): () => number {
  let asked = 0;
  const off = core.events.subscribe((e) => {
    if (e.name !== 'prompts:request') return;
    asked += 1;
    expect(e.payload).toMatchObject({ kind: 'passphrase', prompts: [{ echo: false }], allowRemember: true });
    void core.dispatch('prompts:answer', { requestId: e.payload.requestId, answers: [answer], remember: true });
  });
  return () => {
    off();
    return asked;
  };
}

beforeAll(async () => {
  sshd = await startTestSshd();
  home = await mkdtemp(join(tmpdir(), 'servelab-core-home-'));
  await mkdir(join(home, '.ssh'), { mode: 0o700 });
  await writeFile(
    join(home, '.ssh', 'config'),
    [
      'Host gpu-box',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.encryptedIdentityFile}`,
      '  IdentitiesOnly yes',
      '',
      `Match originalhost exec-box exec "touch ${join(home, 'exec-ran')}"`,
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      `  User ${sshd.user}`,
      '',
      'Host *',
      '  ServerAliveInterval 5',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await sshd?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('hosts through the core', () => {
  it('imports an ssh config alias, asks for the key passphrase through prompt events, and logs every step', async () => {
    const { core, events } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const listed = ok<{ aliases: { alias: string; hostName: string; port: number; user: string }[] }>(await core.dispatch('hosts:sshConfigAliases', {}));
      expect(listed.aliases).toEqual([expect.objectContaining({ alias: 'gpu-box', hostName: '127.0.0.1', port: sshd.port, user: sshd.user })]);

      const host = ok<{ id: string; label: string; address: string }>(await core.dispatch('hosts:add', { alias: 'gpu-box' }));
      expect(host).toMatchObject({ label: 'gpu-box', address: '127.0.0.1' });

      const unknown = await core.dispatch('hosts:inventory', { hostId: host.id });
      expect(unknown).toMatchObject({ ok: false, error: { code: 'HOST_KEY_UNKNOWN', details: { fingerprint: sshd.hostKeyFingerprint } } });
      ok(await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));

      const stopAnswering = answerPrompts(core, sshd.identityPassphrase);
      const inventory = ok<{ gpus: { name: string }[] }>(await core.dispatch('hosts:inventory', { hostId: host.id }));
      expect(inventory.gpus[0]!.name).toBe('NVIDIA H200');
      expect(stopAnswering()).toBe(1);
      expect(events.some((e) => e.name === 'prompts:settled' && e.payload.outcome === 'answered')).toBe(true);

      const log = ok<{ entries: { message: string }[] }>(await core.dispatch('hosts:connectionLog', { hostId: host.id }));
      const text = log.entries.map((e) => e.message).join('\n');
      expect(text).toMatch(/accepted and saved/);
      expect(text).toMatch(/id_ed25519_encrypted/);
      expect(text).not.toContain(sshd.identityPassphrase);
      expect(events.filter((e) => e.name === 'hosts:log').length).toBeGreaterThanOrEqual(log.entries.length);
      expect(JSON.stringify(events)).not.toContain(sshd.identityPassphrase);
    } finally {
      await core.close();
    }
  });

  it('after a restart uses the remembered passphrase from the keychain without asking', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'servelab-core-data-'));
    const first = await newCore(dataDir);
    const host = ok<{ id: string }>(await first.core.dispatch('hosts:add', { alias: 'gpu-box' }));
    await first.core.dispatch('hosts:inventory', { hostId: host.id });
    ok(await first.core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));
    const stop = answerPrompts(first.core, sshd.identityPassphrase);
    ok(await first.core.dispatch('hosts:inventory', { hostId: host.id }));
    stop();
    await first.core.close();

    const second = await newCore(dataDir);
    try {
      ok(await second.core.dispatch('hosts:inventory', { hostId: host.id }));
      expect(second.events.filter((e) => e.name === 'prompts:request')).toEqual([]);
    } finally {
      await second.core.close();
    }
  });

  it('holds a connection on connect, reports reconnecting then ready when the link drops, and releases on disconnect', async () => {
    const { core, events } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const host = ok<{ id: string }>(
        await core.dispatch('hosts:add', { address: '127.0.0.1', port: sshd.port, user: sshd.user, identityFile: sshd.identityFile }),
      );
      await core.dispatch('hosts:connect', { hostId: host.id });
      ok(await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));
      expect(ok<{ state: string; held: boolean }>(await core.dispatch('hosts:connect', { hostId: host.id }))).toMatchObject({ state: 'ready', held: true });
      expect(ok<{ hostId: string; held: boolean }[]>(await core.dispatch('hosts:states', {}))).toEqual([
        expect.objectContaining({ hostId: host.id, state: 'ready', held: true }),
      ]);

      await sshd.dropSessions();
      await expect
        .poll(() => events.some((e) => e.name === 'hosts:state' && e.payload.hostId === host.id && e.payload.state === 'reconnecting'), { timeout: 15_000 })
        .toBe(true);
      await expect
        .poll(
          () => {
            const states = events.filter((e) => e.name === 'hosts:state' && e.payload.hostId === host.id).map((e) => e.payload as { state: string });
            return states.at(-1)?.state;
          },
          { timeout: 15_000 },
        )
        .toBe('ready');

      expect(ok<{ held: boolean }>(await core.dispatch('hosts:disconnect', { hostId: host.id })).held).toBe(false);
    } finally {
      await core.close();
    }
  });

  it('forgets a remembered password with the last host that used it', async () => {
    const { core } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const fields = { address: '127.0.0.1', port: sshd.port, user: sshd.user, password: 'not-the-real-one' };
      const a = ok<{ id: string }>(await core.dispatch('hosts:add', { ...fields, label: 'a' }));
      const b = ok<{ id: string }>(await core.dispatch('hosts:add', { ...fields, label: 'b' }));
      const key = `ssh-password:${sshd.user}@127.0.0.1:${sshd.port}`;
      ok(await core.dispatch('hosts:remove', { hostId: a.id }));
      expect(await secrets.get(key)).toBe('not-the-real-one');
      ok(await core.dispatch('hosts:remove', { hostId: b.id }));
      expect(await secrets.get(key)).toBeNull();
    } finally {
      await core.close();
    }
  });

  it("removes a host without resolving the others: no other host's Match exec runs", async () => {
    const { core } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    const marker = join(home, 'exec-ran');
    try {
      const withExec = ok<{ id: string; passwordKey?: string }>(await core.dispatch('hosts:add', { alias: 'exec-box', password: 'pw-exec' }));
      expect(existsSync(marker)).toBe(true);
      expect(withExec.passwordKey).toBe(`ssh-password:${sshd.user}@127.0.0.1:${sshd.port}`);
      const other = ok<{ id: string }>(await core.dispatch('hosts:add', { address: '127.0.0.2', port: sshd.port, user: 'someone', password: 'pw-other' }));
      await rm(marker);
      ok(await core.dispatch('hosts:remove', { hostId: other.id }));
      expect(existsSync(marker)).toBe(false);
      expect(await secrets.get(`ssh-password:someone@127.0.0.2:${sshd.port}`)).toBeNull();
      expect(await secrets.get(withExec.passwordKey as string)).toBe('pw-exec');
      ok(await core.dispatch('hosts:remove', { hostId: withExec.id }));
      expect(await secrets.get(withExec.passwordKey as string)).toBeNull();
    } finally {
      await core.close();
    }
  });

  it('edits a host: null hands a field back to the ssh config', async () => {
    const { core } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const host = ok<{ id: string }>(await core.dispatch('hosts:add', { alias: 'gpu-box', port: 2, label: 'box' }));
      const updated = ok<{ port: number | null; label: string }>(await core.dispatch('hosts:update', { hostId: host.id, port: null, label: 'H200 box' }));
      expect(updated).toMatchObject({ port: null, label: 'H200 box' });
      const bad = await core.dispatch('hosts:update', { hostId: host.id, proxyJump: 'a b' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_INPUT', issues: [{ path: 'proxyJump' }] } });
      expect(ok<{ removed: boolean }>(await core.dispatch('hosts:remove', { hostId: host.id })).removed).toBe(true);
      expect(ok<unknown[]>(await core.dispatch('hosts:list', {}))).toEqual([]);
    } finally {
      await core.close();
    }
  });

  it('shows how a saved host resolves, with ssh\'s values and what Servelab does differently', async () => {
    const { core } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const host = ok<{ id: string }>(await core.dispatch('hosts:add', { alias: 'gpu-box', user: 'someone-else', label: 'box' }));
      const view = ok<Record<string, unknown>>(await core.dispatch('hosts:resolve', { hostId: host.id }));
      expect(view).toMatchObject({
        hostname: '127.0.0.1',
        port: sshd.port,
        // The saved host's user wins over the config's, as ssh -l does.
        user: 'someone-else',
        identityFiles: [sshd.encryptedIdentityFile],
        identitiesOnly: true,
        serverAliveInterval: 5,
        proxyJump: [],
        proxyCommand: null,
        source: 'ssh -G',
        warnings: [],
      });
      const missing = await core.dispatch('hosts:resolve', { hostId: 'no-such-host' });
      expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    } finally {
      await core.close();
    }
  });

  it('warns that StrictHostKeyChecking no is not followed', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'servelab-core-data-'));
    const sshConfigPath = join(dataDir, 'lax_config');
    await writeFile(sshConfigPath, 'Host lax-box\n  HostName 127.0.0.1\n  StrictHostKeyChecking no\n');
    const core = await createCore({ dataDir, secrets, userKnownHostsFiles: [], sshConfigPath, env: { HOME: home, USER: 'tester' } });
    try {
      const lax = ok<{ id: string }>(await core.dispatch('hosts:add', { alias: 'lax-box', label: 'lax' }));
      expect(ok<Record<string, unknown>>(await core.dispatch('hosts:resolve', { hostId: lax.id }))).toMatchObject({
        hostname: '127.0.0.1',
        strictHostKeyChecking: 'no',
        warnings: ['StrictHostKeyChecking no is treated as ask: Servelab never accepts a key silently.'],
      });
    } finally {
      await core.close();
    }
  });

  // Last: rotating the host key changes the server for every test after it.
  it('refuses a changed key, offers no accept, and connects only after an explicit replacement of exactly the shown key', async () => {
    const { core } = await newCore(await mkdtemp(join(tmpdir(), 'servelab-core-data-')));
    try {
      const host = ok<{ id: string }>(
        await core.dispatch('hosts:add', { address: '127.0.0.1', port: sshd.port, user: sshd.user, identityFile: sshd.identityFile }),
      );
      await core.dispatch('hosts:inventory', { hostId: host.id });
      ok(await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));
      const old = sshd.hostKeyFingerprint;
      await sshd.rotateHostKey();

      const changed = await core.dispatch('hosts:inventory', { hostId: host.id });
      expect(changed).toMatchObject({ ok: false, error: { code: 'HOST_KEY_CHANGED', details: { fingerprint: sshd.hostKeyFingerprint, expectedFingerprint: old } } });
      expect(await core.dispatch('hosts:acceptHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint })).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND' },
      });
      expect(await core.dispatch('hosts:replaceHostKey', { hostId: host.id, fingerprint: old })).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
      ok(await core.dispatch('hosts:replaceHostKey', { hostId: host.id, fingerprint: sshd.hostKeyFingerprint }));
      expect(ok<{ gpus: unknown[] }>(await core.dispatch('hosts:inventory', { hostId: host.id })).gpus).toHaveLength(1);
    } finally {
      await core.close();
    }
  });
});
