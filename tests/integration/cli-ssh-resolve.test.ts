// `servelab ssh resolve`, the built command as users run it, as a local account of the test's own (libnss-wrapper):
// ssh -G answers, and the connect-time values (`~`, %-tokens, jump hosts) are expanded as ssh expands them.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../helpers/repo';
import { fakeLocalAccount, hasNssWrapper, type LocalAccount } from '../helpers/local-account';
import { findOpenSsh } from '../../src/core/ssh/resolve/openssh';

let dir: string;
let home: string;
let account: LocalAccount;

function servelab(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [cliPath, ...args],
      // HOME as a login sets it (ssh's Include globbing reads it); `~` in the values comes from the passwd entry.
      { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, XDG_RUNTIME_DIR: '/run/user/1234', ...account.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe.skipIf(!hasNssWrapper || !findOpenSsh(process.env))('servelab ssh resolve', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-cli-resolve-'));
    home = join(dir, 'home', 'researcher');
    await mkdir(join(home, '.ssh', 'conf.d'), { recursive: true });
    account = await fakeLocalAccount(join(dir, 'account'), { user: 'researcher', home, hostname: 'ws12.lab.example' });
    await writeFile(
      join(home, '.ssh', 'conf.d', 'cluster.conf'),
      ['Host bastion', '  HostName bastion.lab.example', '  User jumper', '  IdentityFile ~/.ssh/bastion_key', ''].join('\n'),
    );
    await writeFile(
      join(home, '.ssh', 'config'),
      [
        'Include conf.d/*.conf',
        'Host gpu-*',
        '  HostName %h.cluster.internal',
        '  ProxyJump %r@bastion',
        '  IdentityFile ~/.ssh/%r@%h_%L',
        '  CertificateFile ~/.ssh/%r-cert.pub',
        '  IdentityAgent ${XDG_RUNTIME_DIR}/agent.sock',
        '  StrictHostKeyChecking accept-new',
        '  ServerAliveInterval 1m',
        '  ConnectTimeout 12',
        'Host aws-*',
        '  ProxyCommand sh -c "aws ssm start-session --target %h --parameters portNumber=%p # %k %n %r %%"',
        '  HostKeyAlias SSM-Target',
        'Host *',
        '  User ops',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints exactly the resolved host as JSON, ~ and the tokens taken from the passwd entry and host name', async () => {
    const result = await servelab(['ssh', 'resolve', 'gpu-7', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const ssh = join(home, '.ssh');
    const expected = {
      hostname: 'gpu-7.cluster.internal',
      port: 22,
      user: 'ops',
      identityFiles: [`${ssh}/ops@gpu-7.cluster.internal_ws12`],
      identitiesOnly: false,
      identityAgent: '/run/user/1234/agent.sock',
      certificateFiles: [`${ssh}/ops-cert.pub`],
      proxyJump: [{ user: 'ops', hostname: 'bastion.lab.example', port: 22, identityFiles: [`${ssh}/bastion_key`] }],
      proxyCommand: null,
      hostKeyAlias: null,
      strictHostKeyChecking: 'accept-new',
      userKnownHostsFiles: [`${ssh}/known_hosts`, `${ssh}/known_hosts2`],
      connectTimeout: 12,
      serverAliveInterval: 60,
      serverAliveCountMax: 3,
      source: 'ssh -G',
    };
    expect(result.stdout).toBe(`${JSON.stringify(expected)}\n`);
  });

  it('takes -l, -p, -i and -J like ssh, and user@alias', async () => {
    // ssh drops a -i file that does not exist (with a warning): this one does.
    const key = join(dir, 'explicit_key');
    await writeFile(key, 'key');
    const result = await servelab(['ssh', 'resolve', 'ann@gpu-2', '-p', '2222', '-i', key, '-J', 'none', '--json']);
    expect(result.code).toBe(0);
    const host = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(host).toMatchObject({ user: 'ann', port: 2222, proxyJump: [] });
    expect((host.identityFiles as string[])[0]).toBe(key);
    const dashL = JSON.parse((await servelab(['ssh', 'resolve', '-l', 'bob', 'ann@gpu-2', '--json'])).stdout) as { user: string; proxyJump: { user: string }[] };
    // With -l and user@, the first one given wins (ssh -G agrees), and %r in the ProxyJump is that user.
    const userFirst = JSON.parse((await servelab(['ssh', 'resolve', 'ann@gpu-2', '-l', 'bob', '--json'])).stdout) as { user: string };
    expect(userFirst.user).toBe('ann');
    expect(dashL.user).toBe('bob');
    expect(dashL.proxyJump[0]?.user).toBe('bob');
  });

  it('expands ProxyCommand tokens and shows a readable table', async () => {
    const json = JSON.parse((await servelab(['ssh', 'resolve', 'aws-i-0abc', '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      proxyCommand: 'sh -c "aws ssm start-session --target aws-i-0abc --parameters portNumber=22 # ssm-target aws-i-0abc ops %"',
      // ssh keeps host key aliases in lower case.
      hostKeyAlias: 'ssm-target',
      proxyJump: [],
    });
    const table = await servelab(['ssh', 'resolve', 'gpu-7', '--resolver', 'ssh']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('gpu-7, resolved by ssh -G:');
    expect(table.stdout).toMatch(/proxyJump\s+ops@bastion\.lab\.example:22 \(bastion\)/);
    expect(table.stdout).toMatch(/strictHostKeyChecking\s+accept-new/);
  });

  it('prints ssh own message for a config it refuses (exit 1), and usage mistakes exit 2', async () => {
    const bad = join(dir, 'bad_config');
    await writeFile(bad, 'Host x\n  UseKeychain yes\n');
    const refused = await servelab(['ssh', 'resolve', '-F', bad, 'x', '--json']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`${bad}: line 2: Bad configuration option: usekeychain`);
    expect((await servelab(['ssh', 'resolve', 'x', '-p', 'many'])).code).toBe(2);
    expect((await servelab(['ssh', 'resolve', 'x', '--resolver', 'guess'])).code).toBe(2);
    expect((await servelab(['ssh', 'resolve'])).code).toBe(2);
  });
});
