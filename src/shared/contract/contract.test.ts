import { describe, expect, it } from 'vitest';
import { CALLS, CALL_NAMES, EVENTS, EVENT_NAMES, splitCallName } from './index';

describe('contract', () => {
  it('declares a schema pair for exactly the call names the preload exposes', () => {
    expect(Object.keys(CALLS).sort()).toEqual([...CALL_NAMES].sort());
    for (const name of CALL_NAMES) {
      expect(CALLS[name].input).toBeDefined();
      expect(CALLS[name].output).toBeDefined();
    }
  });

  it('declares a payload schema for exactly the event names', () => {
    expect(Object.keys(EVENTS).sort()).toEqual([...EVENT_NAMES].sort());
  });

  it('names every call domain:action', () => {
    for (const name of CALL_NAMES) {
      expect(name).toMatch(/^[a-z]+:[a-zA-Z]+$/);
      const { domain, action } = splitCallName(name);
      expect(`${domain}:${action}`).toBe(name);
    }
  });

  it('rejects a host with a shell metacharacter or option-like address and names the field', () => {
    const bad = CALLS['hosts:add'].input.safeParse({ address: '-oProxyCommand=x', user: 'a;b', auth: { method: 'key', identityFile: '' } });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['address', 'user', 'auth.identityFile']));
  });

  it('fills the SSH port default', () => {
    const ok = CALLS['hosts:add'].input.parse({ address: 'gpu1.lab', user: 'ubuntu', auth: { method: 'key', identityFile: '~/.ssh/id_ed25519' } });
    expect(ok.port).toBe(22);
  });
});
