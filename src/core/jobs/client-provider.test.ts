import { describe, it, expect } from 'vitest';
import type { Client } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { withClient } from './client-provider';

const policy = { initialDelayMs: 1, maxDelayMs: 4, giveUpAfterMs: 200 };
const fakeClient = {} as Client;

describe('withClient', () => {
  it('asks for a new connection and retries while the failure is a dropped connection', async () => {
    let calls = 0;
    const result = await withClient(
      async () => fakeClient,
      async () => {
        calls++;
        if (calls < 3) throw new ServelabError('CONNECT_FAILED', 'dropped');
        return 'done';
      },
      { policy },
    );
    expect(result).toBe('done');
    expect(calls).toBe(3);
  });

  it('does not retry a refused login or host key', async () => {
    let calls = 0;
    const provider = async () => {
      calls++;
      throw new ServelabError('HOST_KEY_CHANGED', 'changed');
    };
    await expect(withClient(provider, async () => 1, { policy })).rejects.toMatchObject({ code: 'HOST_KEY_CHANGED' });
    expect(calls).toBe(1);
  });

  it('gives up after the policy time with the last connection error', async () => {
    const provider = async (): Promise<Client> => {
      throw new ServelabError('CONNECT_FAILED', 'unreachable');
    };
    await expect(withClient(provider, async () => 1, { policy })).rejects.toThrow('unreachable');
  });

  it('stops waiting as soon as it is aborted', async () => {
    const stop = new AbortController();
    const provider = async (): Promise<Client> => {
      stop.abort(new Error('stopped'));
      throw new ServelabError('CONNECT_FAILED', 'unreachable');
    };
    await expect(withClient(provider, async () => 1, { policy: { ...policy, initialDelayMs: 60_000 }, signal: stop.signal })).rejects.toThrow('stopped');
  });
});
