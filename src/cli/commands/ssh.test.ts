import { describe, it, expect } from 'vitest';
import { formatResolved, parseResolve } from './ssh';
import type { CliIo } from '../cli-io';
import type { ResolvedSshHost } from '../../core/ssh/resolve/types';

const host: ResolvedSshHost = {
  alias: 'gpu',
  hostname: 'gpu.example',
  port: 2200,
  user: 'ann',
  identityFiles: ['/home/ann/.ssh/a', '/home/ann/.ssh/b'],
  identitiesOnly: true,
  identityAgent: 'none',
  certificateFiles: [],
  proxyJump: [],
  proxyCommand: null,
  hostKeyAlias: null,
  strictHostKeyChecking: 'no',
  userKnownHostsFiles: ['/home/ann/.ssh/known_hosts'],
  globalKnownHostsFiles: [],
  connectTimeout: 5,
  connectionAttempts: 1,
  serverAliveInterval: 0,
  serverAliveCountMax: 3,
  batchMode: false,
  source: 'ssh -G',
  origins: { user: { file: '/home/ann/.ssh/config', line: 3 }, 'identityFiles#1': { file: '/etc/ssh/ssh_config', line: 9 } },
};

describe('formatResolved', () => {
  it('shows each value with where it was set, and what Servelab does differently', () => {
    const lines = formatResolved(host).split('\n');
    expect(lines[0]).toBe('gpu, resolved by ssh -G:');
    expect(lines.find((l) => l.includes(' user '))).toMatch(/^ {2}user\s+ann\s+\/home\/ann\/\.ssh\/config:3$/);
    expect(lines.find((l) => l.includes('/home/ann/.ssh/a'))).toMatch(/identityFiles\s+\/home\/ann\/\.ssh\/a$/);
    expect(lines.find((l) => l.includes('/home/ann/.ssh/b'))).toMatch(/^\s+\/home\/ann\/\.ssh\/b\s+\/etc\/ssh\/ssh_config:9$/);
    expect(lines).toContain('Warning: StrictHostKeyChecking no is treated as ask: Servelab never accepts a key silently.');
  });
});

describe('parseResolve', () => {
  const io = { cwd: '/work/here', env: { HOME: '/home/me' } } as unknown as CliIo;
  const request = (args: string[]) => {
    const command = parseResolve(args, io);
    if (command === 'help') throw new Error('help');
    return command.request;
  };

  it('takes the user that comes first, -l or user@, as ssh does', () => {
    expect(request(['bob@x', '-l', 'alice']).user).toBe('bob');
    expect(request(['-l', 'alice', 'bob@x']).user).toBe('alice');
    expect(request(['-lalice', 'bob@x']).user).toBe('alice');
    expect(request(['x', '-l', 'alice']).user).toBe('alice');
    expect(request(['bob@x']).user).toBe('bob');
  });

  it('keeps -i files as given, as ssh does (it expands them itself), and makes -F absolute', () => {
    expect(request(['x', '-i', 'keys/k', '-i', '~/.ssh/k2', '-i', '/abs/k3', '-F', 'cfg'])).toMatchObject({
      identityFiles: ['keys/k', '~/.ssh/k2', '/abs/k3'],
      configFile: '/work/here/cfg',
    });
  });
});
