import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSshConfigAliases, resolveSshConfigHost } from './ssh-config';

describe('resolveSshConfigHost', () => {
  let home: string;
  let configPath: string;
  const resolve = (alias: string) => resolveSshConfigHost(alias, { configPath, user: 'me', env: { HOME: home } });

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servelab-sshcfg-'));
    await mkdir(join(home, '.ssh'));
    configPath = join(home, '.ssh', 'config');
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('returns the alias itself when there is no config file', () => {
    expect(resolve('gpu1')).toEqual({ hostName: 'gpu1', identityFiles: [] });
  });

  it('takes the first value of each option and accumulates IdentityFile', async () => {
    await writeFile(
      configPath,
      [
        '# lab boxes',
        'Host h200',
        '    HostName 10.0.0.7',
        '    User ubuntu',
        '    Port 2200',
        '    IdentityFile ~/.ssh/lab_ed25519',
        '',
        'Host h200 other',
        '    HostName ignored.example',
        '    User ignored',
        '',
        'Host *',
        '    IdentityFile ~/.ssh/id_ed25519',
        '    Port 22',
      ].join('\n'),
    );
    expect(resolve('h200')).toEqual({
      hostName: '10.0.0.7',
      user: 'ubuntu',
      port: 2200,
      identityFiles: [join(home, '.ssh/lab_ed25519'), join(home, '.ssh/id_ed25519')],
    });
    expect(resolve('other')).toEqual({ hostName: 'ignored.example', user: 'ignored', port: 22, identityFiles: [join(home, '.ssh/id_ed25519')] });
  });

  it('matches wildcards and honours negation', async () => {
    await writeFile(
      configPath,
      ['Host gpu? !gpu9', '  User lab', 'Host *.farm', '  HostName=%h.internal', '  User = farmer', 'Host "quoted"', '  Port 2022'].join('\n'),
    );
    expect(resolve('gpu1').user).toBe('lab');
    expect(resolve('gpu9').user).toBeUndefined();
    expect(resolve('gpu10').user).toBeUndefined();
    expect(resolve('n1.farm')).toMatchObject({ hostName: 'n1.farm.internal', user: 'farmer' });
    expect(resolve('quoted').port).toBe(2022);
  });

  it('expands %-tokens in IdentityFile', async () => {
    await writeFile(configPath, ['Host box', '  HostName box.example', '  User ann', '  IdentityFile ~/.ssh/%r@%h-%p_%u_%n_100%%', '  IdentityFile none'].join('\n'));
    expect(resolve('box').identityFiles).toEqual([join(home, '.ssh/ann@box.example-22_me_box_100%')]);
  });

  it('follows Include relative to ~/.ssh, with globs, in order', async () => {
    await mkdir(join(home, '.ssh', 'config.d'));
    await writeFile(join(home, '.ssh', 'config.d', '20-b.conf'), 'Host b\n  HostName b.example\n');
    await writeFile(join(home, '.ssh', 'config.d', '10-a.conf'), 'Host a b\n  HostName first.example\n  User from-a\n');
    await writeFile(join(home, '.ssh', 'extra'), 'Host c\n  Port 2200\n');
    await writeFile(configPath, 'Include config.d/*.conf\nInclude ~/.ssh/extra\nHost *\n  User default\n');
    expect(resolve('b')).toEqual({ hostName: 'first.example', user: 'from-a', identityFiles: [] });
    expect(resolve('c')).toEqual({ hostName: 'c', user: 'default', port: 2200, identityFiles: [] });
  });

  it('applies an Include inside a Host block only to that host', async () => {
    await writeFile(join(home, '.ssh', 'inner'), 'User inner\nHost *\nPort 2300\n');
    await writeFile(configPath, 'Host x\n  Include inner\nHost y\n  HostName y.example\n');
    expect(resolve('x')).toMatchObject({ user: 'inner', port: 2300 });
    expect(resolve('y')).toEqual({ hostName: 'y.example', identityFiles: [] });
  });

  it('skips Match blocks without running anything, but applies Match all', async () => {
    const marker = join(home, 'ran');
    await writeFile(
      configPath,
      [`Match exec "touch ${marker}"`, '  User matched', 'Match host box', '  Port 1', 'Match all', '  IdentityFile ~/.ssh/all_key'].join('\n'),
    );
    expect(resolve('box')).toEqual({ hostName: 'box', identityFiles: [join(home, '.ssh/all_key')] });
    const { existsSync } = await import('node:fs');
    expect(existsSync(marker)).toBe(false);
  });

  it('stops at include loops', async () => {
    await writeFile(configPath, 'Include config\nHost loop\n  User l\n');
    expect(resolve('loop').user).toBe('l');
  });
  it('reads IdentitiesOnly, IdentityAgent, ServerAlive* and expands ${VAR} and more tokens', async () => {
    await writeFile(
      configPath,
      [
        'Host box',
        '  HostName box.example',
        '  IdentitiesOnly yes',
        '  IdentityAgent ~/.ssh/agent-%h.sock',
        '  IdentityFile ${KEYS}/%n_%d',
        '  ServerAliveInterval 30',
        '  ServerAliveCountMax 5',
        'Host plain',
        '  IdentitiesOnly no',
        '  IdentityAgent SSH_AUTH_SOCK',
        'Host off',
        '  IdentityAgent none',
        'Host env',
        '  IdentityAgent $MY_AGENT',
      ].join('\n'),
    );
    const resolveEnv = (alias: string) => resolveSshConfigHost(alias, { configPath, user: 'me', env: { HOME: home, KEYS: '/keys' } });
    expect(resolveEnv('box')).toEqual({
      hostName: 'box.example',
      identityFiles: [`/keys/box_${home}`],
      identitiesOnly: true,
      identityAgent: join(home, '.ssh/agent-box.example.sock'),
      serverAliveInterval: 30,
      serverAliveCountMax: 5,
    });
    expect(resolveEnv('plain')).toMatchObject({ identitiesOnly: false, identityAgent: 'SSH_AUTH_SOCK' });
    expect(resolveEnv('off').identityAgent).toBe('none');
    expect(resolveEnv('env').identityAgent).toBe('$MY_AGENT');
  });

  it('takes whichever of ProxyJump and ProxyCommand comes first, with %-tokens in ProxyJump', async () => {
    await writeFile(
      configPath,
      [
        'Host a',
        '  ProxyJump jump-%h:%p, second',
        'Host b',
        '  ProxyCommand ssh -W %h:%p bastion',
        'Host c',
        '  ProxyJump none',
        'Host *',
        '  ProxyJump fallback',
        '  ProxyCommand never-used',
      ].join('\n'),
    );
    const withOverrides = resolveSshConfigHost('a', { configPath, user: 'me', env: { HOME: home }, remoteUser: 'ann', port: 2200 });
    expect(withOverrides.proxyJump).toBe('jump-a:2200,second');
    expect(resolve('b')).toMatchObject({ proxyCommand: 'ssh -W %h:%p bastion' });
    expect(resolve('b').proxyJump).toBeUndefined();
    expect(resolve('c').proxyJump).toBe('none');
    expect(resolve('other').proxyJump).toBe('fallback');
  });
});

describe('listSshConfigAliases', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servelab-sshcfg-'));
    await mkdir(join(home, '.ssh', 'conf.d'), { recursive: true });
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('lists the concrete aliases, Includes followed, each once, resolved', async () => {
    const configPath = join(home, '.ssh', 'config');
    await writeFile(join(home, '.ssh', 'conf.d', 'lab.conf'), 'Host gpu1 gpu2\n  User lab\nHost gpu?\n  Port 2222\n');
    await writeFile(
      configPath,
      ['Include conf.d/*.conf', 'Host bastion', '  HostName 203.0.113.5', 'Host gpu1', '  HostName 10.0.0.11', '  ProxyJump bastion', 'Host *.farm !bad.farm', '  User x', 'Host *', '  User fallback'].join('\n'),
    );
    expect(listSshConfigAliases(configPath, { user: 'me', env: { HOME: home } })).toEqual([
      { alias: 'gpu1', hostName: '10.0.0.11', user: 'lab', port: 2222, proxyJump: 'bastion' },
      { alias: 'gpu2', hostName: 'gpu2', user: 'lab', port: 2222 },
      { alias: 'bastion', hostName: '203.0.113.5', user: 'fallback' },
    ]);
    expect(listSshConfigAliases(join(home, 'missing'), { env: { HOME: home } })).toEqual([]);
  });

  it('follows Include classes once each, lower-cases host names and formats ProxyJump as ssh does', async () => {
    const configPath = join(home, '.ssh', 'config');
    await writeFile(join(home, '.ssh', 'conf.d', 'n1'), 'Host one\n  HostName One.Example\n  ProxyJump u@10.0.0.1:2222\n');
    await writeFile(join(home, '.ssh', 'conf.d', 'na'), 'Host letter\n');
    await writeFile(configPath, 'Include conf.d/n[0-9]\nInclude conf.d/n1\nHost two\n  HostName %h.lab\n  Port ssh\n');
    expect(listSshConfigAliases(configPath, { env: { HOME: home } })).toEqual([
      { alias: 'one', hostName: 'one.example', proxyJump: 'u@[10.0.0.1]:2222' },
      { alias: 'two', hostName: 'two.lab', port: 22 },
    ]);
  });
});
