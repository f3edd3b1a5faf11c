import { describe, it, expect, vi, beforeEach, afterEach } from 'vitest';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawSshOptions, SshResolveContext } from './types';

const builtIn = vi.hoisted(() => ({ raw: undefined as RawSshOptions | undefined, calls: 0 }));
// The built-in reader is another module's job: here it answers what each test sets.
vi.mock('./builtin/index', () => ({
  builtInRawOptions: async () => {
    builtIn.calls += 1;
    if (!builtIn.raw) throw new Error('no built-in answer');
    return builtIn.raw;
  },
}));

const { findOpenSsh } = await import('./openssh');
const { resolveSshHost, localSshResolveContext } = await import('./resolve-host');

const hasSsh = findOpenSsh(process.env) !== null;

describe('resolveSshHost', () => {
  let dir: string;
  let config: string;
  let ctx: SshResolveContext;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-resolve-'));
    config = join(dir, 'config');
    await writeFile(config, ['Host box', '  HostName box.example', '  User ann', '  Port 2200', ''].join('\n'));
    ctx = { ...localSshResolveContext({ PATH: process.env.PATH ?? '/usr/bin:/bin' }) };
    builtIn.raw = undefined;
    builtIn.calls = 0;
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!hasSsh)('borrows file and line from the built-in reader only where it agrees with ssh -G', async () => {
    builtIn.raw = {
      values: new Map([
        ['hostname', ['box.example']],
        ['user', ['someone-else']],
        ['port', ['2200']],
      ]),
      origins: new Map([
        ['hostname', { file: config, line: 2 }],
        ['user', { file: config, line: 3 }],
        ['port', { file: config, line: 4 }],
      ]),
    };
    const host = await resolveSshHost({ destination: 'box', configFile: config }, ctx, { resolver: 'ssh -G' });
    expect(host).toMatchObject({ source: 'ssh -G', hostname: 'box.example', user: 'ann', port: 2200 });
    expect(host.origins).toEqual({ hostname: { file: config, line: 2 }, port: { file: config, line: 4 } });
  });

  it.skipIf(!hasSsh)('resolves without origins when the built-in reader cannot answer', async () => {
    const host = await resolveSshHost({ destination: 'box', configFile: config }, ctx);
    expect(host).toMatchObject({ source: 'ssh -G', hostname: 'box.example', origins: {} });
  });

  it('uses the built-in reader when asked, when SERVELAB_SSH_RESOLVER says so, or when there is no OpenSSH client', async () => {
    builtIn.raw = { values: new Map([['hostname', ['from-reader']]]), origins: new Map([['hostname', { file: config, line: 2 }]]) };
    expect(await resolveSshHost({ destination: 'box' }, ctx, { resolver: 'built-in' })).toMatchObject({ source: 'built-in', hostname: 'from-reader', origins: { hostname: { file: config, line: 2 } } });
    expect((await resolveSshHost({ destination: 'box' }, { ...ctx, env: { ...ctx.env, SERVELAB_SSH_RESOLVER: 'built-in' } })).source).toBe('built-in');
    const noSsh = { ...ctx, env: { PATH: join(dir, 'empty') } };
    expect((await resolveSshHost({ destination: 'box' }, noSsh)).source).toBe('built-in');
    await expect(resolveSshHost({ destination: 'box' }, noSsh, { resolver: 'ssh -G' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });

  it('gives up on an ssh -G that does not answer, and refuses a destination that would be an option', async () => {
    // A stand-in for an ssh whose config runs a Match exec that never ends.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'ssh'), '#!/bin/sh\nexec sleep 60\n');
    await chmod(join(bin, 'ssh'), 0o755);
    expect(findOpenSsh({ PATH: `${join(dir, 'nothing')}:${bin}` })).toBe(join(bin, 'ssh'));
    const hanging = { resolver: 'ssh -G', sshPath: join(bin, 'ssh'), timeoutMs: 300 } as const;
    const error = await resolveSshHost({ destination: 'box' }, ctx, hanging).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/no answer within 0.3 s/) });
    await expect(resolveSshHost({ destination: '-oProxyCommand=x' }, ctx, hanging)).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });
});
