import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServelabError } from '../../../../shared/contract';
import type { SshResolveContext } from '../types';
import { builtInRawOptions } from './index';
import { processesWith, uniqueSleep } from '../../../../../tests/helpers/processes';

// The reader's own behaviour, with its hooks injected; agreement with ssh itself is ssh-oracle*.test.ts.
describe('builtInRawOptions', () => {
  let dir: string;
  let configFile: string;
  const ctx = (): SshResolveContext => ({
    env: { HOME: dir, SHELL: '/bin/sh', AGENT_DIR: '/run/agents' },
    localUser: 'me',
    home: dir,
    uid: 1000,
    localHostname: 'ws.lab.example',
    shell: '/bin/sh',
    systemConfigFile: join(dir, 'system_config'),
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-builtin-'));
    configFile = join(dir, 'config');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('says where each value came from; command-line values have no origin', async () => {
    await writeFile(configFile, 'Host gpu1\n  HostName 10.0.0.7\n  IdentityFile ~/.ssh/a\nHost *\n  IdentityFile ~/.ssh/b\n  Port 2200\n');
    const raw = await builtInRawOptions({ destination: 'gpu1', configFile, user: 'cli' }, ctx());
    expect(raw.values.get('hostname')).toEqual(['10.0.0.7']);
    expect(raw.values.get('identityfile')).toEqual(['~/.ssh/a', '~/.ssh/b']);
    expect(raw.origins.get('hostname')).toEqual({ file: configFile, line: 2 });
    expect(raw.origins.get('identityfile#1')).toEqual({ file: configFile, line: 5 });
    expect(raw.origins.get('port')).toEqual({ file: configFile, line: 6 });
    expect(raw.values.get('user')).toEqual(['cli']);
    expect(raw.origins.has('user')).toBe(false);
  });

  it('runs Match exec through the hook with its tokens expanded, only when earlier criteria held', async () => {
    await writeFile(configFile, 'Match host nothere exec "never %h"\n  User no\nMatch exec "check %h %n %p %r %u %L %d"\n  User yes\n');
    const commands: string[] = [];
    const raw = await builtInRawOptions({ destination: 'Box', configFile }, ctx(), {
      runExec: async (command) => {
        commands.push(command);
        return true;
      },
    });
    expect(commands).toEqual([`check Box Box 22 me me ws ${dir}`]);
    expect(raw.values.get('user')).toEqual(['yes']);
    expect(raw.values.get('hostname')).toEqual(['box']);
  });

  it('canonicalises through the lookup hook and reads the config again for the new name', async () => {
    await writeFile(
      configFile,
      'CanonicalizeHostname yes\nCanonicalDomains a.example b.example\nCanonicalizePermittedCNAMEs *.b.example:*.c.example\nHost *.c.example\n  User canon\n',
    );
    const asked: string[] = [];
    const raw = await builtInRawOptions({ destination: 'gpu', configFile }, ctx(), {
      lookupHost: async (name) => {
        asked.push(name);
        return name === 'gpu.b.example.' ? { canonicalName: 'gpu.c.example' } : null;
      },
    });
    expect(asked).toEqual(['gpu.a.example.', 'gpu.b.example.']);
    expect(raw.values.get('hostname')).toEqual(['gpu.c.example']);
    expect(raw.values.get('user')).toEqual(['canon']);
  });

  it('expands identityagent and userknownhostsfile, leaves identityfile and proxyjump as written', async () => {
    await writeFile(configFile, 'IdentityAgent ${AGENT_DIR}/%r.sock\nUserKnownHostsFile ~/kh-%k\nIdentityFile ~/.ssh/%h\nProxyJump %r@jump\n');
    const raw = await builtInRawOptions({ destination: 'x', configFile }, ctx());
    expect(raw.values.get('identityagent')).toEqual(['/run/agents/me.sock']);
    expect(raw.values.get('userknownhostsfile')).toEqual([`${dir}/kh-x`]);
    expect(raw.values.get('identityfile')).toEqual(['~/.ssh/%h']);
    expect(raw.values.get('proxyjump')).toEqual(['%r@jump']);
  });

  it('refuses a bad config with ssh\'s lines, as SSH_CONFIG_INVALID', async () => {
    await writeFile(configFile, 'UseKeychain yes\nPort 0\n');
    const err = await builtInRawOptions({ destination: 'x', configFile }, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServelabError);
    expect((err as ServelabError).code).toBe('SSH_CONFIG_INVALID');
    expect((err as ServelabError).message).toBe(
      [`${configFile}: line 1: Bad configuration option: usekeychain`, `${configFile} line 2: Bad port '0'.`, `${configFile}: terminating, 2 bad configuration options`].join('\n'),
    );
  });

  it('reads the user file, then the system-wide one, when no -F is given', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, '.ssh'), { mode: 0o755 });
    await writeFile(join(dir, '.ssh', 'config'), 'Host x\n  User fromuser\n', { mode: 0o644 });
    await writeFile(join(dir, 'system_config'), 'Host *\n  User fromsystem\n  Port 2022\n');
    const raw = await builtInRawOptions({ destination: 'x' }, { ...ctx(), uid: process.getuid?.() ?? 0 });
    expect(raw.values.get('user')).toEqual(['fromuser']);
    expect(raw.values.get('port')).toEqual(['2022']);
  });

  it.skipIf(process.platform !== 'linux')('stops a Match exec that does not finish, with what it started, and says so', async () => {
    const seconds = uniqueSleep();
    await writeFile(configFile, `Match exec "sleep ${seconds}; true"\n  User never\n`);
    const error = await builtInRawOptions({ destination: 'box', configFile }, ctx(), { execDeadline: Date.now() + 400 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect(error).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining(`Match exec "sleep ${seconds}; true" did not finish`) });
    await new Promise((r) => setTimeout(r, 100));
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
  });
});
