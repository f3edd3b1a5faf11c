import { describe, expect, it } from 'vitest';
import { createDispatcher, type CallHandlers } from './dispatcher';
import { ServelabError } from '../../shared/contract';

function handlers(overrides: Partial<CallHandlers> = {}): CallHandlers {
  const unused = async () => {
    throw new Error('not used in this test');
  };
  return {
    'app:info': async () => ({ name: 'Servelab', version: '1.0.0', dataDir: '/tmp/x', problems: [] }),
    'hosts:list': async () => [],
    'hosts:add': unused,
    'hosts:update': unused,
    'hosts:remove': unused,
    'hosts:sshConfigAliases': unused,
    'hosts:states': unused,
    'hosts:connect': unused,
    'hosts:disconnect': unused,
    'hosts:connectionLog': unused,
    'hosts:inventory': unused,
    'hosts:acceptHostKey': unused,
    'hosts:replaceHostKey': unused,
    'hosts:restoreDemoLab': unused,
    'prompts:pending': unused,
    'prompts:answer': unused,
    'prompts:cancel': unused,
    'engines:list': unused,
    'engines:install': unused,
    'engines:remove': unused,
    'servers:launch': unused,
    'servers:stop': unused,
    'servers:list': unused,
    'servers:onBox': unused,
    'secrets:list': unused,
    'secrets:set': unused,
    'secrets:remove': unused,
    'models:prefetch': unused,
    'results:list': unused,
    'results:import': unused,
    'results:remove': unused,
    'datasets:list': unused,
    'datasets:fetch': unused,
    'bench:run': unused,
    'bench:cancel': unused,
    'studies:create': unused,
    'studies:open': unused,
    'studies:save': unused,
    'studies:plan': unused,
    'studies:run': unused,
    'studies:cancel': unused,
    'studies:report': unused,
    'studies:export': unused,
    'studies:examples': unused,
    'studies:fromExample': unused,
    'studies:recent': unused,
    'studies:trialLogs': unused,
    'studies:gpuMemory': unused,
    'dialogs:saveFile': unused,
    'dialogs:openFile': unused,
    ...overrides,
  } as CallHandlers;
}

describe('createDispatcher', () => {
  it('returns the handler output in an ok envelope', async () => {
    const dispatch = createDispatcher(handlers());
    expect(await dispatch('app:info', {})).toEqual({ ok: true, data: { name: 'Servelab', version: '1.0.0', dataDir: '/tmp/x', problems: [] } });
  });

  it('refuses a name outside the contract', async () => {
    const result = await createDispatcher(handlers())('fs:readFile', { path: '/etc/passwd' });
    expect(result).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CALL' } });
  });

  it('rejects bad input with BAD_INPUT and issues that name each field, without calling the handler', async () => {
    let called = false;
    const dispatch = createDispatcher(
      handlers({
        'hosts:add': async () => {
          called = true;
          throw new Error('should not run');
        },
      }),
    );
    const result = await dispatch('hosts:add', { address: 'gpu 1', port: 70000, user: '', proxyJump: 'a b' });
    expect(called).toBe(false);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('BAD_INPUT');
    const paths = result.error.issues!.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['address', 'port', 'user', 'proxyJump']));
    expect(result.error.message).toContain('port');
  });

  it('rejects extra keys where the contract is strict', async () => {
    const result = await createDispatcher(handlers())('hosts:list', { everything: true });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
  });

  it('passes a ServelabError through with its code and details', async () => {
    const dispatch = createDispatcher(
      handlers({
        'hosts:inventory': async () => {
          throw new ServelabError('HOST_KEY_UNKNOWN', 'unknown key', { details: { fingerprint: 'SHA256:x' } });
        },
      }),
    );
    expect(await dispatch('hosts:inventory', { hostId: 'h1' })).toEqual({
      ok: false,
      error: { code: 'HOST_KEY_UNKNOWN', message: 'unknown key', details: { fingerprint: 'SHA256:x' } },
    });
  });

  it('turns an unexpected exception into INTERNAL and logs the stack', async () => {
    const lines: string[] = [];
    const dispatch = createDispatcher(
      handlers({
        'hosts:list': async () => {
          throw new TypeError('boom');
        },
      }),
      (line) => lines.push(line),
    );
    expect(await dispatch('hosts:list', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringContaining('boom') } });
    expect(lines.join('\n')).toContain('TypeError');
  });

  it('never lets output that breaks the contract reach a transport', async () => {
    const dispatch = createDispatcher(handlers({ 'hosts:list': async () => [{ id: 1 }] as never }));
    expect(await dispatch('hosts:list', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });
});
