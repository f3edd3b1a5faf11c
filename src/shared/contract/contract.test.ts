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

  it('accepts only the app shell’s own commands in app:command', () => {
    expect(EVENTS['app:command'].safeParse({ command: 'saveAs' }).success).toBe(true);
    expect(EVENTS['app:command'].safeParse({ command: 'page:hosts' }).success).toBe(true);
    expect(EVENTS['app:command'].safeParse({ command: 'rm -rf' }).success).toBe(false);
  });

  it('takes a .servelab target for studies:saveAs', () => {
    expect(CALLS['studies:saveAs'].input.safeParse({ path: '/a/x.servelab', out: '/b/y.servelab' }).success).toBe(true);
    const bad = CALLS['studies:saveAs'].input.safeParse({ path: '/a/x.servelab', out: '/b/y.json' });
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(['out']);
  });

  it('names every call domain:action', () => {
    for (const name of CALL_NAMES) {
      expect(name).toMatch(/^[a-z]+:[a-zA-Z]+$/);
      const { domain, action } = splitCallName(name);
      expect(`${domain}:${action}`).toBe(name);
    }
  });

  it('rejects a host with a shell metacharacter or option-like address and names the field', () => {
    const bad = CALLS['hosts:add'].input.safeParse({ address: '-oProxyCommand=x', user: 'a;b', identityFile: '', proxyJump: 'a b,c' });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['address', 'user', 'identityFile', 'proxyJump']));
  });

  it('needs an address unless an ssh config alias is chosen', () => {
    const none = CALLS['hosts:add'].input.safeParse({ user: 'ubuntu' });
    expect(none.error!.issues.map((i) => i.path.join('.'))).toEqual(['address']);
    expect(CALLS['hosts:add'].input.safeParse({ alias: 'gpu1' }).success).toBe(true);
    expect(CALLS['hosts:add'].input.safeParse({ address: 'gpu1.lab', proxyJump: 'me@bastion:2222,jump2' }).success).toBe(true);
  });

  it('takes a Slurm scheduler mark on add and update, and null to clear it', () => {
    expect(CALLS['hosts:add'].input.parse({ address: 'login.hpc', scheduler: 'slurm' })).toMatchObject({ scheduler: 'slurm' });
    expect(CALLS['hosts:update'].input.parse({ hostId: 'h', scheduler: null })).toEqual({ hostId: 'h', scheduler: null });
    const bad = CALLS['hosts:add'].input.safeParse({ address: 'login.hpc', scheduler: 'pbs' });
    expect(bad.error!.issues.map((i) => i.path.join('.'))).toEqual(['scheduler']);
  });

  it('lets an update clear an override with null', () => {
    const ok = CALLS['hosts:update'].input.parse({ hostId: 'h', port: null, proxyJump: null });
    expect(ok).toEqual({ hostId: 'h', port: null, proxyJump: null });
  });
});
