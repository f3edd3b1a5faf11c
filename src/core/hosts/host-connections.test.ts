import { describe, it, expect } from 'vitest';
import { ServelabError } from '../../shared/contract';
import { HostConnections, type HostConnectionsDeps } from './host-connections';

function connections(): { hc: HostConnections; states: unknown[] } {
  const states: unknown[] = [];
  const deps = {
    hosts: { list: () => [] },
    pool: { onState: () => () => {}, release: () => {} },
    events: { emit: (_name: string, payload: unknown) => states.push(payload) },
    secrets: { get: async () => null },
    resolveTarget: () => {
      throw new Error('not used');
    },
    dataDir: '/nonexistent',
    simboxBinDir: null,
  } as unknown as HostConnectionsDeps;
  return { hc: new HostConnections(deps), states };
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
});
