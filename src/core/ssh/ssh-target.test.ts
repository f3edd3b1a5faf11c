import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectionKey, parseJumpHop, resolveTarget, targetLabel, type HostSpec } from './ssh-target';
import { ServelabError } from '../../shared/contract';

describe('resolveTarget', () => {
  let home: string;
  let configPath: string;
  const resolve = (spec: HostSpec, env: NodeJS.ProcessEnv = {}) => resolveTarget(spec, { configPath, env: { HOME: home, ...env }, home, localUser: 'me' });

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servelab-target-'));
    await mkdir(join(home, '.ssh'));
    configPath = join(home, '.ssh', 'config');
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('fills in OpenSSH defaults for a bare address', async () => {
    await writeFile(join(home, '.ssh', 'id_ed25519'), 'key');
    expect(resolve({ address: '10.0.0.7' }, { SSH_AUTH_SOCK: '/run/agent.sock' })).toEqual({
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
    });
  });

  it('lets explicit fields win over the config, the explicit key first', async () => {
    await writeFile(configPath, ['Host box', '  HostName box.example', '  User cfg', '  Port 2200', '  IdentityFile ~/.ssh/cfg_key', '  ServerAliveInterval 5', '  ServerAliveCountMax 2'].join('\n'));
    expect(resolve({ alias: 'box', user: 'ann', port: 2222, identityFile: '/keys/mine' })).toMatchObject({
      host: 'box.example',
      user: 'ann',
      port: 2222,
      identityFile: '/keys/mine',
      identityFiles: ['/keys/mine', join(home, '.ssh', 'cfg_key')],
      keepaliveIntervalSeconds: 5,
      keepaliveCountMax: 2,
    });
    // An address next to the alias says where it really is.
    expect(resolve({ alias: 'box', address: '10.9.9.9' }).host).toBe('10.9.9.9');
    expect(() => resolve({})).toThrow(ServelabError);
  });

  it('takes the agent from IdentityAgent, else SSH_AUTH_SOCK; none turns it off', async () => {
    await writeFile(configPath, ['Host off', '  IdentityAgent none', 'Host path', '  IdentityAgent ~/agent.sock', 'Host env', '  IdentityAgent $OTHER_SOCK', 'Host same', '  IdentityAgent SSH_AUTH_SOCK'].join('\n'));
    const env = { SSH_AUTH_SOCK: '/default.sock', OTHER_SOCK: '/other.sock' };
    expect(resolve({ alias: 'off' }, env).agentSocket).toBeNull();
    expect(resolve({ alias: 'path' }, env).agentSocket).toBe(join(home, 'agent.sock'));
    expect(resolve({ alias: 'env' }, env).agentSocket).toBe('/other.sock');
    expect(resolve({ alias: 'same' }, env).agentSocket).toBe('/default.sock');
    expect(resolve({ alias: 'nothing' }).agentSocket).toBeNull();
  });

  it('resolves every ProxyJump hop through the config, outermost first', async () => {
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
    const target = resolve({ alias: 'gpu1' });
    expect(target.jumps.map((j) => [j.alias, j.user, j.host, j.port, j.jumps])).toEqual([
      ['edge', 'default', 'edge.example', 22, []],
      ['bastion', 'ops', 'bastion.example', 2222, []],
      ['inner', 'default', '10.1.0.1', 22, []],
    ]);
    expect(target.jumps[1]?.identityFiles).toEqual([join(home, '.ssh', 'bastion.example.key')]);
    expect(connectionKey(target)).toBe('default@10.1.0.11:22 via default@10.1.0.1:22 via ops@bastion.example:2222 via default@edge.example:22');
    expect(targetLabel(target)).toBe('gpu1 (default@10.1.0.11:22)');

    expect(resolve({ alias: 'gpu1', proxyJump: 'none' }).jumps).toEqual([]);
    expect(resolve({ alias: 'gpu1', proxyJump: 'x@[fe80::1]:2200' }).jumps.map((j) => [j.user, j.host, j.port])).toEqual([['x', 'fe80::1', 2200]]);
  });

  it('refuses ProxyCommand and ProxyJump loops', async () => {
    await writeFile(configPath, ['Host viacmd', '  ProxyCommand nc %h %p', 'Host a', '  ProxyJump b', 'Host b', '  ProxyJump a'].join('\n'));
    expect(() => resolve({ alias: 'viacmd' })).toThrow(/ProxyCommand/);
    try {
      resolve({ alias: 'a' });
      throw new Error('expected a failure');
    } catch (error) {
      expect((error as ServelabError).code).toBe('BAD_INPUT');
      expect((error as Error).message).toMatch(/longer than 8 hops or loops/);
    }
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
