import { describe, expect, it } from 'vitest';
import { SlotPool, slotsOf } from './slot-pool';

const gpu = (hostId: string, index: string) => ({ hostId, index, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' });

describe('slotsOf', () => {
  it('cuts each host into slots of whole trials, never across hosts', () => {
    const gpus = [gpu('a', '0'), gpu('a', '1'), gpu('a', '2'), gpu('b', '0'), gpu('b', '1')];
    expect(slotsOf(gpus, 1)).toHaveLength(5);
    expect(slotsOf(gpus, 2)).toEqual([
      { hostId: 'a', gpus: ['0', '1'] },
      { hostId: 'b', gpus: ['0', '1'] },
    ]);
    expect(slotsOf(gpus, 4)).toEqual([]);
  });
});

describe('SlotPool', () => {
  it('never hands one slot to two holders and serves waiters in order', async () => {
    const pool = new SlotPool([{ hostId: 'a', gpus: ['0'] }]);
    const first = await pool.acquire();
    const order: string[] = [];
    const second = pool.acquire().then((s) => order.push(`second ${s?.gpus[0]}`));
    const third = pool.acquire().then((s) => order.push(`third ${s?.gpus[0]}`));
    await Promise.resolve();
    expect(order).toEqual([]);
    pool.release(first!);
    await second;
    expect(order).toEqual(['second 0']);
    pool.release({ hostId: 'a', gpus: ['0'] });
    await third;
    expect(order).toEqual(['second 0', 'third 0']);
  });

  it('caps the servers running at once below the number of slots', async () => {
    const pool = new SlotPool([{ hostId: 'a', gpus: ['0'] }, { hostId: 'a', gpus: ['1'] }], 1);
    const held = await pool.acquire();
    let got = false;
    const waiting = pool.acquire().then(() => (got = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toBe(false);
    pool.release(held!);
    await waiting;
    expect(got).toBe(true);
  });

  it('gives null to a wait that is aborted', async () => {
    const pool = new SlotPool([{ hostId: 'a', gpus: ['0'] }]);
    await pool.acquire();
    const abort = new AbortController();
    const waiting = pool.acquire(abort.signal);
    abort.abort();
    expect(await waiting).toBeNull();
  });
});
