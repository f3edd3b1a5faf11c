import { describe, it, expect } from 'vitest';
import { ServelabError } from '../../shared/contract';
import { HostConnections, type HostConnectionsDeps } from './host-connections';
import type { Host } from '../../shared/model/host';
import type { ResolvedSshTarget } from '../ssh/ssh-target';

function connections(target?: Partial<ResolvedSshTarget>): { hc: HostConnections; states: unknown[]; log: [string, string, string][] } {
  const states: unknown[] = [];
  const log: [string, string, string][] = [];
  const deps = {
    hosts: { list: () => [{ id: 'h1', kind: 'ssh', alias: 'gpu-box', address: '10.0.0.5', user: null, port: null, identityFile: null, proxyJump: null }] },
    connectionLog: { write: (hostId: string, level: string, message: string) => log.push([hostId, level, message]) },
    pool: { onState: () => () => {}, release: () => {} },
    events: { emit: (_name: string, payload: unknown) => states.push(payload) },
    secrets: { get: async () => null },
    resolveTarget: async () => {
      if (target) return { ...target };
      throw new ServelabError('TIMEOUT', 'ssh -G gpu-box gave no answer within 15 s');
    },
    dataDir: '/nonexistent',
    simboxBinDir: null,
  } as unknown as HostConnectionsDeps;
  return { hc: new HostConnections(deps), states, log };
}

const presented = { host: '10.0.0.5', port: 2222, keyType: 'ssh-ed25519', fingerprint: 'SHA256:abc', publicKey: 'AAAA' };

describe('HostConnections.noteFailure', () => {
  it('offers an unknown key for accepting, under its HostKeyAlias when the host has one', () => {
    const { hc, states } = connections();
    hc.noteFailure('h1', new ServelabError('HOST_KEY_UNKNOWN', 'unknown', { details: presented }));
    expect(hc.pendingKeys.get('h1')).toMatchObject({ host: '10.0.0.5', port: 2222, problem: 'unknown' });
    hc.noteFailure('h2', new ServelabError('HOST_KEY_UNKNOWN', 'unknown', { details: { ...presented, hostKeyAlias: 'gpu-alias' } }));
    expect(hc.pendingKeys.get('h2')).toMatchObject({ host: 'gpu-alias', port: 22, publicKey: 'AAAA' });
    expect(hc.pendingKeys.get('h2')?.keptInMemory).toBeUndefined();
    // UserKnownHostsFile /dev/null: accepting it will keep it in memory only.
    hc.noteFailure('h3', new ServelabError('HOST_KEY_UNKNOWN', 'unknown', { details: { ...presented, keptInMemory: true } }));
    expect(hc.pendingKeys.get('h3')).toMatchObject({ host: '10.0.0.5', keptInMemory: true });
    expect(states).toHaveLength(3);
  });

  it('does not offer a key refused under StrictHostKeyChecking yes', () => {
    const { hc, states } = connections();
    hc.noteFailure('h1', new ServelabError('HOST_KEY_UNKNOWN', 'No ED25519 host key is known', { details: { ...presented, strictHostKeyChecking: 'yes' } }));
    expect(hc.pendingKeys.has('h1')).toBe(false);
    expect(states).toMatchObject([{ hostId: 'h1', state: 'failed', message: 'No ED25519 host key is known' }]);
  });

  it("writes a failure to resolve the host to its connection log, but not the pool's own failures again", async () => {
    const { hc, log } = connections();
    const error = await hc.resolve({ alias: 'gpu-box', address: '10.0.0.5', user: null, port: null, identityFile: null, proxyJump: null }).catch((e: unknown) => e);
    hc.noteFailure('h1', error);
    hc.noteFailure('h1', new ServelabError('CONNECT_FAILED', 'connection refused'));
    expect(log).toEqual([['h1', 'error', 'Resolving gpu-box: ssh -G gpu-box gave no answer within 15 s']]);
  });

  it('writes what ssh warned about while resolving the host to its connection log', async () => {
    const { hc, log } = connections({ resolveWarnings: ['Warning: Identity file /k not accessible: No such file or directory.'] });
    await hc.targetFor({ id: 'h1', kind: 'ssh', alias: 'gpu-box', address: '10.0.0.5', user: null, port: null, identityFile: null, proxyJump: null } as Host);
    expect(log).toEqual([['h1', 'warn', 'Resolving gpu-box: Warning: Identity file /k not accessible: No such file or directory.']]);
  });
});
