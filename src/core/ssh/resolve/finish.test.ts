import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finishResolution, splitKnownHostsLine, type ResolveHop } from './finish';
import { findOpenSsh } from './openssh';
import { resolveSshHost } from './resolve-host';
import type { RawSshOptions, ResolvedSshHost, SshResolveContext, SshResolveRequest } from './types';
import { ServelabError } from '../../../shared/contract';
import { fakeLocalAccount, hasNssWrapper, type LocalAccount } from '../../../../tests/helpers/local-account';

const ctx: SshResolveContext = {
  env: { SSH_AUTH_SOCK: '/run/agent.sock', XDG_RUNTIME_DIR: '/run/user/7' },
  localUser: 'me',
  home: '/home/me',
  uid: 1007,
  localHostname: 'laptop.lan',
  shell: '/bin/sh',
  systemConfigFile: '/etc/ssh/ssh_config',
};

function raw(values: Record<string, string | string[]>): RawSshOptions {
  return { values: new Map(Object.entries(values).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])), origins: new Map() };
}

const noHops: ResolveHop = async () => {
  throw new Error('no hop expected');
};

describe('finishResolution', () => {
  it('expands IdentityFile and CertificateFile as ssh does at connect time, dropping IdentityFile none', async () => {
    const host = await finishResolution(
      raw({
        hostname: 'gpu.example',
        user: 'ann',
        port: '2200',
        identityfile: ['~/.ssh/%h_%r_%p', 'none', '${XDG_RUNTIME_DIR}/k_%u_%l_%L_%d_%i', '~/%n_%k_%%'],
        certificatefile: '~/.ssh/%r-cert.pub',
        stricthostkeychecking: 'false',
        connecttimeout: 'none',
      }),
      { destination: 'gpu' },
      ctx,
      'ssh -G',
      noHops,
    );
    expect(host.identityFiles).toEqual([
      '/home/me/.ssh/gpu.example_ann_2200',
      '/run/user/7/k_me_laptop.lan_laptop_/home/me_1007',
      '/home/me/gpu_gpu_%',
    ]);
    expect(host.certificateFiles).toEqual(['/home/me/.ssh/ann-cert.pub']);
    expect(host).toMatchObject({ alias: 'gpu', strictHostKeyChecking: 'no', connectTimeout: null, identityAgent: '/run/agent.sock', proxyCommand: null, proxyJump: [] });
  });

  it('takes %k from HostKeyAlias, else the name as typed, and reports an unknown token or variable as ssh does', async () => {
    const withAlias = await finishResolution(raw({ hostname: 'h', user: 'u', port: '22', identityfile: '%k', hostkeyalias: 'kal' }), { destination: 'x' }, ctx, 'ssh -G', noHops);
    expect(withAlias.identityFiles).toEqual(['kal']);
    const bad = (file: string) => finishResolution(raw({ hostname: 'h', user: 'u', port: '22', identityfile: file }), { destination: 'x' }, ctx, 'ssh -G', noHops);
    await expect(bad('%z')).rejects.toMatchObject({ code: 'SSH_CONFIG_INVALID', message: expect.stringMatching(/unknown key %z/) });
    await expect(bad('${NOPE}/k')).rejects.toMatchObject({ code: 'SSH_CONFIG_INVALID', message: expect.stringMatching(/NOPE/) });
  });

  it('reads the agent, keepalive and host key options', async () => {
    const finish = (values: Record<string, string>) => finishResolution(raw({ hostname: 'h', user: 'u', port: '22', ...values }), { destination: 'x' }, ctx, 'built-in', noHops);
    expect((await finish({ identityagent: 'none' })).identityAgent).toBe('none');
    expect((await finish({ identityagent: '$XDG_RUNTIME_DIR' })).identityAgent).toBe('/run/user/7');
    expect((await finish({ identityagent: '/tmp/a.sock' })).identityAgent).toBe('/tmp/a.sock');
    const noAgent = await finishResolution(raw({ hostname: 'h' }), { destination: 'x' }, { ...ctx, env: {} }, 'built-in', noHops);
    expect(noAgent).toMatchObject({ identityAgent: 'none', user: 'me', port: 22, connectionAttempts: 1, serverAliveInterval: 0, serverAliveCountMax: 3 });
    const set = await finish({
      stricthostkeychecking: 'accept-new',
      connecttimeout: '7',
      connectionattempts: '3',
      serveraliveinterval: '60',
      serveralivecountmax: '5',
      userknownhostsfile: '/a/known /b/known',
      globalknownhostsfile: '/etc/ssh/ssh_known_hosts',
      proxycommand: 'nc %h %p %r %n %k %%',
    });
    expect(set).toMatchObject({
      strictHostKeyChecking: 'accept-new',
      connectTimeout: 7,
      connectionAttempts: 3,
      serverAliveInterval: 60,
      serverAliveCountMax: 5,
      userKnownHostsFiles: ['/a/known', '/b/known'],
      globalKnownHostsFiles: ['/etc/ssh/ssh_known_hosts'],
      proxyCommand: 'nc h 22 u x x %',
      source: 'built-in',
    });
  });

  it('resolves the hop nearest the destination through the earlier ones, %r being the destination user', async () => {
    const asked: SshResolveRequest[] = [];
    const hop: ResolveHop = async (request, depth) => {
      asked.push(request);
      const base = await finishResolution(raw({ hostname: `${request.destination}.example`, user: request.user ?? 'cfg', port: String(request.port ?? 22) }), request, ctx, 'ssh -G', noHops);
      // The earlier hops are this hop's own -J: resolved the same way, one level deeper.
      if (request.proxyJump === undefined) return base;
      const earlier = await finishResolution(raw({ hostname: 'h', user: 'u', port: '22', proxyjump: request.proxyJump }), request, ctx, 'ssh -G', hop, depth);
      return { ...base, proxyJump: earlier.proxyJump };
    };
    const host = await finishResolution(raw({ hostname: 'dest.example', user: 'ann', port: '22', proxyjump: '%r@a:2200,ssh://b' }), { destination: 'dest', configFile: '/cfg' }, ctx, 'ssh -G', hop);
    expect(asked).toEqual([
      { destination: 'b', configFile: '/cfg', proxyJump: 'ann@a:2200' },
      { destination: 'a', configFile: '/cfg', user: 'ann', port: 2200 },
    ]);
    expect(host.proxyJump.map((j) => [j.alias, j.user, j.hostname, j.port])).toEqual([
      ['a', 'ann', 'a.example', 2200],
      ['b', 'cfg', 'b.example', 22],
    ]);
  });

  it('says when it is the jump host that could not be resolved', async () => {
    const failingHop: ResolveHop = async () => {
      throw new ServelabError('SSH_CONFIG_INVALID', '/c line 3: Bad configuration option: x');
    };
    await expect(finishResolution(raw({ proxyjump: 'bastion' }), { destination: 'gpu' }, ctx, 'ssh -G', failingHop)).rejects.toMatchObject({
      code: 'SSH_CONFIG_INVALID',
      message: 'resolving jump host bastion for gpu: /c line 3: Bad configuration option: x',
    });
  });

  it('bounds a ProxyJump chain that loops', async () => {
    const loop: ResolveHop = (request, depth) => finishResolution(raw({ hostname: request.destination, proxyjump: 'again' }), request, ctx, 'ssh -G', loop, depth);
    const error = await finishResolution(raw({ hostname: 'h', proxyjump: 'again' }), { destination: 'x' }, ctx, 'ssh -G', loop).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('BAD_INPUT');
    await expect(finishResolution(raw({ hostname: 'h', proxyjump: 'a, b' }), { destination: 'x' }, ctx, 'ssh -G', noHops)).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});

/** What `ssh -v` does when it connects: its debug lines are the truth for connect-time values. */
function sshVerbose(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    const child = execFile('ssh', ['-v', ...args], { env, timeout: 20_000 }, (_error, _stdout, stderr) => resolve(stderr));
    child.stdin?.end();
  });
}

function debugValues(stderr: string, pattern: RegExp): string[] {
  return [...stderr.matchAll(pattern)].map((m) => m[1] as string);
}

describe('known_hosts files whose path contains a space', () => {
  it('splits ssh -G\'s line only where a new path starts', () => {
    expect(splitKnownHostsLine('/tmp/a b/kh /tmp/c ~/.ssh/k d')).toEqual(['/tmp/a b/kh', '/tmp/c', '~/.ssh/k d']);
    expect(splitKnownHostsLine('C:\\Users\\John Smith/.ssh/known_hosts __PROGRAMDATA__\\ssh/x')).toEqual([
      'C:\\Users\\John Smith/.ssh/known_hosts',
      '__PROGRAMDATA__\\ssh/x',
    ]);
    expect(splitKnownHostsLine('none')).toEqual(['none']);
  });

  it("replaces Win32-OpenSSH's __PROGRAMDATA__ placeholder with the folder it stands for", async () => {
    const host = await finishResolution(raw({ globalknownhostsfile: ['__PROGRAMDATA__\\ssh/ssh_known_hosts'] }), { destination: 'h' }, { ...ctx, env: { ProgramData: 'D:\\PD' } }, 'ssh -G', noHops);
    expect(host.globalKnownHostsFiles).toEqual(['D:\\PD\\ssh/ssh_known_hosts']);
  });

  it('keeps a structured list from the resolver as it is', async () => {
    const options = raw({ userknownhostsfile: ['/x', 'y/kh'] });
    options.fileLists = new Map([['userknownhostsfile', ['/x y/kh']]]);
    const host = await finishResolution(options, { destination: 'h' }, ctx, 'built-in', noHops);
    expect(host.userKnownHostsFiles).toEqual(['/x y/kh']);
  });

  it.each(['ssh -G', 'built-in'] as const)('reads the whole path with %s', async (resolver) => {
    if (resolver === 'ssh -G' && !findOpenSsh(process.env)) return;
    const dir = await mkdtemp(join(tmpdir(), 'servelab-kh-'));
    try {
      const config = join(dir, 'config');
      await writeFile(config, ['Host h', `  UserKnownHostsFile "${dir}/my dir/known_hosts" ${dir}/second`, `  GlobalKnownHostsFile "${dir}/g h"`, ''].join('\n'));
      const host = await resolveSshHost({ destination: 'h', configFile: config }, { ...ctx, env: process.env }, { resolver });
      expect(host.userKnownHostsFiles).toEqual([`${dir}/my dir/known_hosts`, `${dir}/second`]);
      expect(host.globalKnownHostsFiles).toEqual([`${dir}/g h`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('an address with a %', () => {
  it.each(['ssh -G', 'built-in'] as const)('keeps fe80::1%%eth0 as the HostName with %s', async (resolver) => {
    if (resolver === 'ssh -G' && !findOpenSsh(process.env)) return;
    const host = await resolveSshHost({ destination: 'box', configFile: '/dev/null', hostName: 'fe80::1%eth0' }, { ...ctx, env: process.env }, { resolver });
    expect(host.hostname).toBe('fe80::1%eth0');
  });
});

describe('refusals of the request\'s own fields', () => {
  it.each(['ssh -G', 'built-in'] as const)('names the ProxyJump field with %s, not the config', async (resolver) => {
    if (resolver === 'ssh -G' && !findOpenSsh(process.env)) return;
    const error = await resolveSshHost({ destination: 'h', configFile: '/dev/null', proxyJump: 'a, b' }, { ...ctx, env: process.env }, { resolver }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/ProxyJump "a, b" given for h/), issues: [{ path: 'proxyJump' }] });
  });
});

describe.skipIf(!hasNssWrapper || !findOpenSsh(process.env))('finishResolution against ssh -v', () => {
  let dir: string;
  let account: LocalAccount;
  let config: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-finish-'));
    const home = join(dir, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    account = await fakeLocalAccount(join(dir, 'account'), { user: 'tester', home, hostname: 'node7.cluster.example' });
    config = join(dir, 'config');
    await writeFile(
      config,
      [
        'Host tokens',
        '  HostName %h.internal',
        '  User ann',
        '  Port 2201',
        '  HostKeyAlias TokAlias',
        '  IdentityFile ~/.ssh/id_%h_%r_%p_%l_%L_%d_%u_%n_%k_%C_%i',
        '  IdentityFile ${XDG_RUNTIME_DIR}/key_%%_%r',
        '  IdentityFile ~',
        '  CertificateFile ~/.ssh/%r@%h-cert.pub',
        'Host viacommand',
        '  User bob',
        '  ProxyCommand true %h %p %r %n %k %%',
        'Host dest',
        '  HostName dest.internal',
        '  Port 2022',
        '  ProxyJump %r@mid:2200,last',
        'Host mid',
        '  HostName mid.internal',
        '  ProxyJump edge',
        'Host last',
        '  HostName last.internal',
        '  ProxyJump ignored-after-the-first-hop',
        'Host edge',
        '  HostName edge.internal',
        '  User edgeuser',
        '  ProxyCommand true %h %p %r',
        'Host *',
        '  User alice',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const context = () => account.context({ XDG_RUNTIME_DIR: join(dir, 'run') });
  const resolve = (destination: string): Promise<ResolvedSshHost> => resolveSshHost({ destination, configFile: config }, context(), { resolver: 'ssh -G' });

  it('expands identity and certificate files exactly as ssh loads them', async () => {
    const host = await resolve('tokens');
    const stderr = await sshVerbose(['-F', config, '-o', 'ProxyCommand=exit 0', '-o', 'BatchMode=yes', 'tokens', 'true'], context().env);
    // ssh also tries FILE-cert beside each identity when no CertificateFile is given; here one is.
    expect(host.identityFiles).toEqual(debugValues(stderr, /debug1: identity file (.*) type -?\d+/g));
    expect(host.certificateFiles).toEqual(debugValues(stderr, /debug1: certificate file (.*) type -?\d+/g));
    expect(host.identityFiles[0]).toContain('_node7.cluster.example_node7_');
    expect(host.hostKeyAlias).toBe('tokalias');
  });

  it('expands ProxyCommand tokens exactly as ssh runs it', async () => {
    const host = await resolve('viacommand');
    const stderr = await sshVerbose(['-F', config, '-o', 'BatchMode=yes', 'viacommand', 'true'], context().env);
    expect(`exec ${host.proxyCommand}`).toBe(debugValues(stderr, /debug1: Executing proxy command: (.*)/g)[0]);
  });

  it('resolves nested ProxyJump hops in the order ssh reaches them', async () => {
    const host = await resolve('dest');
    expect(host.proxyJump.map((hop) => hop.alias)).toEqual(['edge', 'mid', 'last']);
    // Each ssh in the chain runs the next one with `-W '[host]:port' hop`: the host and port of what it reaches.
    const stderr = await sshVerbose(['-F', config, '-o', 'BatchMode=yes', 'dest', 'true'], context().env);
    const commands = debugValues(stderr, /debug1: Executing proxy command: (.*)/g);
    const chain = [...host.proxyJump, host];
    const expected = chain
      .slice(1)
      .reverse()
      .map((reached, index) => {
        const via = chain[chain.length - 2 - index] as { alias: string };
        return `-W '[${reached.hostname}]:${reached.port}' ${via.alias}`;
      });
    expect(commands.slice(0, -1).map((command) => command.replace(/^.* (-W .*)$/, '$1'))).toEqual(expected);
    const first = host.proxyJump[0] as ResolvedSshHost['proxyJump'][number];
    expect(commands.at(-1)).toBe(`exec ${first.proxyCommand}`);
    expect(first.proxyCommand).toBe('true edge.internal 22 edgeuser');
    // `%r@mid` is the destination's user, given to mid as -l.
    expect(commands[1]).toContain('-l alice -p 2200');
    expect(host.proxyJump[1]).toMatchObject({ user: 'alice', port: 2200, hostname: 'mid.internal' });
  });

  it('reports a config ssh refuses with ssh own words', async () => {
    const bad = join(dir, 'bad_config');
    await writeFile(bad, 'Host x\n  NoSuchOption yes\n');
    const error = await resolveSshHost({ destination: 'x', configFile: bad }, context(), { resolver: 'ssh -G' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SSH_CONFIG_INVALID' });
    expect((error as Error).message).toContain(`${bad}: line 2: Bad configuration option: nosuchoption`);
    expect((error as Error).message).not.toContain('Pseudo-terminal');
  });
});
