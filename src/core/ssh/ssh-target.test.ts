import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionKey, parseJumpHop, resolveRequestOf, resolveTarget, targetLabel, type HostSpec } from './ssh-target';
import { findOpenSsh } from './resolve/openssh';
import { fakeLocalAccount, hasNssWrapper, type LocalAccount } from '../../../tests/helpers/local-account';
import { ServelabError } from '../../shared/contract';

// Resolved by the real OpenSSH client (ssh -G) as a local account of the test's own: `~` is that account's home.
describe.skipIf(!hasNssWrapper || !findOpenSsh(process.env))('resolveTarget', () => {
  let dir: string;
  let home: string;
  let configPath: string;
  let account: LocalAccount;
  const resolve = (spec: HostSpec, env: NodeJS.ProcessEnv = {}) => resolveTarget(spec, { configPath, env: account.context(env).env, context: account.context(env) });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-target-'));
    home = join(dir, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    // Given as -F: the test reads no system-wide file.
    configPath = join(dir, 'ssh_config');
    await writeFile(configPath, '');
    account = await fakeLocalAccount(join(dir, 'account'), { user: 'me', home, hostname: 'laptop.example' });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fills in OpenSSH defaults for a bare address, with only the default keys that exist', async () => {
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'key');
    expect(await resolve({ address: '10.0.0.7' }, { SSH_AUTH_SOCK: '/run/agent.sock' })).toEqual({
      host: '10.0.0.7',
      port: 22,
      user: 'me',
      alias: '10.0.0.7',
      jumps: [],
      identityFiles: [join(home, '.ssh', 'id_ed25519')],
      identitiesOnly: false,
      agentSocket: '/run/agent.sock',
      keepaliveIntervalSeconds: 15,
      keepaliveCountMax: 4,
      proxyCommand: null,
      hostKeyAlias: null,
      strictHostKeyChecking: 'ask',
      knownHostsFiles: [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2'), '/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'],
      userKnownHostsFiles: [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2')],
      certificateFiles: [],
      connectTimeoutSeconds: null,
      connectionAttempts: 1,
    });
  });

  it('lets explicit fields win over the config, the explicit key first', async () => {
    const mine = join(dir, 'mine');
    await writeFile(mine, 'key');
    await writeFile(join(home, '.ssh', 'cfg_key'), 'key');
    await writeFile(
      configPath,
      ['Host box', '  HostName box.example', '  User cfg', '  Port 2200', '  IdentityFile ~/.ssh/cfg_key', '  IdentityFile ~/.ssh/missing', '  ServerAliveInterval 5', '  ServerAliveCountMax 2'].join('\n'),
    );
    expect(await resolve({ alias: 'box', user: 'ann', port: 2222, identityFile: mine })).toMatchObject({
      host: 'box.example',
      user: 'ann',
      port: 2222,
      identityFile: mine,
      // ~/.ssh/missing does not exist: skipped, as ssh skips it.
      identityFiles: [mine, join(home, '.ssh', 'cfg_key')],
      keepaliveIntervalSeconds: 5,
      keepaliveCountMax: 2,
    });
    // An address next to the alias says where it really is.
    expect((await resolve({ alias: 'box', address: '10.9.9.9' })).host).toBe('10.9.9.9');
    await expect(resolve({})).rejects.toThrow(ServelabError);
  });

  it('takes the agent from IdentityAgent, else SSH_AUTH_SOCK; none turns it off', async () => {
    await writeFile(configPath, ['Host off', '  IdentityAgent none', 'Host path', '  IdentityAgent ~/agent.sock', 'Host env', '  IdentityAgent $OTHER_SOCK', 'Host same', '  IdentityAgent SSH_AUTH_SOCK'].join('\n'));
    const env = { SSH_AUTH_SOCK: '/default.sock', OTHER_SOCK: '/other.sock' };
    expect((await resolve({ alias: 'off' }, env)).agentSocket).toBeNull();
    expect((await resolve({ alias: 'path' }, env)).agentSocket).toBe(join(home, 'agent.sock'));
    expect((await resolve({ alias: 'env' }, env)).agentSocket).toBe('/other.sock');
    expect((await resolve({ alias: 'same' }, env)).agentSocket).toBe('/default.sock');
    expect((await resolve({ alias: 'nothing' })).agentSocket).toBeNull();
  });

  it('resolves every ProxyJump hop through the config, outermost first', async () => {
    await writeFile(join(home, '.ssh', 'bastion.example.key'), 'key');
    await writeFile(
      configPath,
      [
        'Host gpu1',
        '  HostName 10.1.0.11',
        '  ProxyJump ops@bastion:2222,inner',
        'Host bastion',
        '  HostName bastion.example',
        '  User cfg-user',
        '  Port 22',
        '  ProxyJump edge',
        'Host inner',
        '  HostName 10.1.0.1',
        '  ProxyJump ignored-for-later-hops',
        'Host edge',
        '  HostName edge.example',
        'Host *',
        '  User default',
        '  IdentityFile ~/.ssh/%h.key',
      ].join('\n'),
    );
    const target = await resolve({ alias: 'gpu1' });
    expect(target.jumps.map((j) => [j.alias, j.user, j.host, j.port, j.jumps])).toEqual([
      ['edge', 'default', 'edge.example', 22, []],
      ['bastion', 'ops', 'bastion.example', 2222, []],
      ['inner', 'default', '10.1.0.1', 22, []],
    ]);
    expect(target.jumps[1]?.identityFiles).toEqual([join(home, '.ssh', 'bastion.example.key')]);
    expect(connectionKey(target)).toBe('default@10.1.0.11:22 via default@10.1.0.1:22 via ops@bastion.example:2222 via default@edge.example:22');
    expect(targetLabel(target)).toBe('gpu1 (default@10.1.0.11:22)');

    expect((await resolve({ alias: 'gpu1', proxyJump: 'none' })).jumps).toEqual([]);
    expect((await resolve({ alias: 'gpu1', proxyJump: 'x@[fe80::1]:2200' })).jumps.map((j) => [j.user, j.host, j.port])).toEqual([['x', 'fe80::1', 2200]]);
  });

  it('keeps a CertificateFile that does not exist, since any CertificateFile keeps ssh from trying <key>-cert.pub', async () => {
    await writeFile(configPath, ['Host c', '  CertificateFile ~/.ssh/missing-cert.pub'].join('\n'));
    expect((await resolve({ alias: 'c' })).certificateFiles).toEqual([join(home, '.ssh', 'missing-cert.pub')]);
  });

  it('carries a ProxyCommand with its tokens expanded, and refuses ProxyJump loops', async () => {
    await writeFile(configPath, ['Host viacmd', '  User u1', '  ProxyCommand nc %h %p %r %%', 'Host a', '  ProxyJump b', 'Host b', '  ProxyJump a'].join('\n'));
    const viaCommand = await resolve({ alias: 'viacmd' });
    expect(viaCommand.proxyCommand).toBe('nc viacmd 22 u1 %');
    expect(viaCommand.jumps).toEqual([]);
    const error = await resolve({ alias: 'a' }).catch((e: unknown) => e);
    expect((error as ServelabError).code).toBe('BAD_INPUT');
    expect((error as Error).message).toMatch(/longer than 8 hops or loops/);
  });

  it('gives ssh -F only for a config other than ssh default one, so the system-wide file is read as ssh reads it', () => {
    const context = account.context();
    expect(resolveRequestOf({ alias: 'box' }, join(home, '.ssh', 'config'), context)).toEqual({ destination: 'box' });
    expect(resolveRequestOf({ alias: 'box' }, undefined, context)).toEqual({ destination: 'box' });
    // A saved ProxyJump may have spaces after its commas; ssh's -J takes none.
    expect(resolveRequestOf({ alias: 'box', proxyJump: 'a, b ,c' }, undefined, context)).toEqual({ destination: 'box', proxyJump: 'a,b,c' });
    expect(resolveRequestOf({ alias: 'box' }, join(dir, 'no-such-config'), context)).toEqual({ destination: 'box', configFile: 'none' });
    expect(resolveRequestOf({ alias: 'box', address: '10.0.0.2', user: 'u', port: 2, identityFile: '/k', proxyJump: ' j ' }, configPath, context)).toEqual({
      destination: 'box',
      configFile: configPath,
      hostName: '10.0.0.2',
      user: 'u',
      port: 2,
      identityFiles: ['/k'],
      proxyJump: 'j',
    });
  });
});

describe('parseJumpHop', () => {
  it('reads the forms OpenSSH accepts', () => {
    expect(parseJumpHop('host')).toEqual({ name: 'host' });
    expect(parseJumpHop('u@host:2200')).toEqual({ name: 'host', user: 'u', port: 2200 });
    expect(parseJumpHop('ssh://u@host:2201')).toEqual({ name: 'host', user: 'u', port: 2201 });
    expect(parseJumpHop('[::1]:22')).toEqual({ name: '::1', port: 22 });
    expect(parseJumpHop('fe80::1')).toEqual({ name: 'fe80::1' });
    expect(() => parseJumpHop('@host')).toThrow(ServelabError);
    expect(() => parseJumpHop('host:99999')).toThrow(ServelabError);
  });
});
