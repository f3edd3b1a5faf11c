import { describe, it, expect } from 'vitest';
import { finishResolution } from './finish';
import type { RawSshOptions, SshResolveContext } from './types';
import { resolvedHostView } from './view';

const ctx: SshResolveContext = { env: {}, localUser: 'me', home: '/home/me', uid: 1000, localHostname: 'ws', shell: '/bin/sh', systemConfigFile: '/etc/ssh/ssh_config' };

function raw(values: Record<string, string>, warnings?: string[]): RawSshOptions {
  return { values: new Map(Object.entries(values).map(([k, v]) => [k, [v]])), origins: new Map(), ...(warnings ? { warnings } : {}) };
}

describe('resolvedHostView', () => {
  it("shows what ssh warned about while resolving, the jump host's named", async () => {
    const host = await finishResolution(
      raw({ hostname: 'box', proxyjump: 'hop' }, ['Warning: Identity file /k not accessible: No such file or directory.']),
      { destination: 'box' },
      ctx,
      'ssh -G',
      async (request) => finishResolution(raw({ hostname: request.destination, stricthostkeychecking: 'false' }, ['Deprecated option "x"']), request, ctx, 'ssh -G', async () => {
        throw new Error('no more hops');
      }),
    );
    expect(resolvedHostView(host).warnings).toEqual([
      'Warning: Identity file /k not accessible: No such file or directory.',
      'jump host hop: Deprecated option "x"',
      'StrictHostKeyChecking no is treated as ask: Servelab never accepts a key silently.',
    ]);
  });
});
