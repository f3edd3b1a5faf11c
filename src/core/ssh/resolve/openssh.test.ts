import { describe, it, expect, afterEach } from 'vitest';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanSshStderr, findOpenSsh, openSshRawOptions, parseSshGOutput, sshGArgs } from './openssh';
import { processesWith, uniqueSleep } from '../../../../tests/helpers/processes';

const sshPath = findOpenSsh(process.env);

describe('ssh -G', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('passes the options as ssh takes them, the destination last, and never a destination that reads as an option', () => {
    expect(
      sshGArgs({ destination: 'box', configFile: '/c', user: 'u', port: 2200, identityFiles: ['/k1', '/k2'], proxyJump: 'a,b', hostName: '10.0.0.1' }),
    ).toEqual(['-G', '-F', '/c', '-l', 'u', '-p', '2200', '-i', '/k1', '-i', '/k2', '-J', 'a,b', '-o', 'HostName=10.0.0.1', 'box']);
    expect(() => sshGArgs({ destination: '-oProxyCommand=touch /tmp/x' })).toThrow(/must not be empty or start with "-"/);
  });

  it('keeps the keywords Servelab uses, one entry per line for the repeating ones, the first line for the rest', () => {
    const raw = parseSshGOutput(
      ['User ann', 'hostname box.example', 'port 22', 'identityfile ~/.ssh/id_rsa', 'identityfile ~/.ssh/%h key', 'sendenv LANG', 'proxycommand nc %h %p', ''].join('\n'),
    );
    expect([...raw.values]).toEqual([
      ['user', ['ann']],
      ['hostname', ['box.example']],
      ['port', ['22']],
      ['identityfile', ['~/.ssh/id_rsa', '~/.ssh/%h key']],
      ['proxycommand', ['nc %h %p']],
    ]);
    expect(raw.origins.size).toBe(0);
  });

  it("keeps ssh's complaint without the terminal notice", () => {
    expect(cleanSshStderr('Pseudo-terminal will not be allocated because stdin is not a terminal.\r\n/c: line 2: Bad configuration option: x\n/c: terminating, 1 bad configuration options\n')).toBe(
      '/c: line 2: Bad configuration option: x\n/c: terminating, 1 bad configuration options',
    );
  });

  it('finds ssh on PATH, else the Windows optional feature', async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-openssh-'));
    const ssh = join(dir, 'ssh');
    await writeFile(ssh, '#!/bin/sh\n');
    expect(findOpenSsh({ PATH: dir }, 'linux')).toBeNull();
    await chmod(ssh, 0o755);
    expect(findOpenSsh({ PATH: `${join(dir, 'none')}:${dir}` }, 'linux')).toBe(ssh);
    // On Windows the file only has to exist; the feature's folder is not always on PATH.
    const windowsSsh = `${dir}\\System32\\OpenSSH\\ssh.exe`;
    await writeFile(windowsSsh, '');
    expect(findOpenSsh({ PATH: '', SystemRoot: dir }, 'win32')).toBe(windowsSsh);
    expect(findOpenSsh({ PATH: '', SystemRoot: join(dir, 'elsewhere') }, 'win32')).toBeNull();
  });

  it.skipIf(!sshPath || process.platform !== 'linux')('stops ssh and its Match exec when ssh -G does not answer in time', async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-openssh-'));
    const seconds = uniqueSleep();
    await writeFile(join(dir, 'config'), `Match exec "sleep ${seconds}; true"\n  User never\n`);
    const error = await openSshRawOptions({ destination: 'box', configFile: join(dir, 'config') }, { env: process.env }, sshPath as string, 500).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/no answer within 0.5 s/) });
    await new Promise((r) => setTimeout(r, 100));
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
  });

  it.skipIf(!sshPath)('names the request field ssh refuses, keeps SSH_CONFIG_INVALID for the config, and says when ssh cannot start', async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-openssh-'));
    const config = join(dir, 'config');
    await writeFile(config, 'Host box\n  NoSuchOption yes\n');
    const env = { env: process.env };
    const path = sshPath as string;
    await expect(openSshRawOptions({ destination: 'x', configFile: '/dev/null', proxyJump: 'a, b' }, env, path)).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/ProxyJump "a, b"/),
      issues: [{ path: 'proxyJump' }],
    });
    await expect(openSshRawOptions({ destination: 'x', configFile: '/dev/null', user: 'a;b' }, env, path)).rejects.toMatchObject({ code: 'BAD_INPUT', issues: [{ path: 'user' }] });
    await expect(openSshRawOptions({ destination: 'box', configFile: config }, env, path)).rejects.toMatchObject({
      code: 'SSH_CONFIG_INVALID',
      message: expect.stringMatching(/line 2: Bad configuration option/),
    });
    await expect(openSshRawOptions({ destination: 'x' }, env, join(dir, 'missing-ssh'))).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringContaining(join(dir, 'missing-ssh')),
    });
  });

  it.skipIf(!sshPath)('keeps what ssh -G warns about on a successful run', async () => {
    const raw = await openSshRawOptions({ destination: 'x', configFile: '/dev/null', identityFiles: ['/nonexistent/key'] }, { env: process.env }, sshPath as string);
    expect(raw.warnings).toEqual([expect.stringMatching(/Identity file \/nonexistent\/key not accessible/)]);
  });
});
