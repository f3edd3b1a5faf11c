import { describe, expect, it } from 'vitest';
import { GpuAllocator } from './gpu-allocator';

const host = (hostId: string, n: number) => ({ hostId, gpus: Array.from({ length: n }, (_, i) => String(i)) });

describe('GpuAllocator', () => {
  it('never hands one GPU to two servers and serves a waiter once its GPUs are released', async () => {
    const pool = new GpuAllocator([host('a', 8)]);
    const big = await pool.acquire(8);
    const order: string[] = [];
    const four = pool.acquire(4).then((s) => order.push(`four ${s?.gpus.join(',')}`));
    const two = pool.acquire(2).then((s) => order.push(`two ${s?.gpus.join(',')}`));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    pool.release(big!);
    await Promise.all([four, two]);
    expect(order).toEqual(['four 0,1,2,3', 'two 4,5']);
  });

  it('places mixed sizes on two hosts of four, each server on one host', async () => {
    const pool = new GpuAllocator([host('a', 4), host('b', 4)]);
    const sets = await Promise.all([pool.acquire(4), pool.acquire(2), pool.acquire(2)]);
    expect(sets).toEqual([
      { hostId: 'a', gpus: ['0', '1', '2', '3'] },
      { hostId: 'b', gpus: ['0', '1'] },
      { hostId: 'b', gpus: ['2', '3'] },
    ]);
  });

  it('keeps free GPUs for a waiting large server instead of starting smaller ones behind it', async () => {
    const pool = new GpuAllocator([host('a', 8)]);
    const four = await pool.acquire(4);
    const two = await pool.acquire(2);
    const started: string[] = [];
    const eight = pool.acquire(8).then((s) => (started.push('eight'), s));
    const late = pool.acquire(2).then((s) => (started.push('late two'), s));
    pool.release(four!);
    await new Promise((r) => setTimeout(r, 5));
    expect(started).toEqual([]);
    pool.release(two!);
    pool.release((await eight)!);
    await late;
    expect(started).toEqual(['eight', 'late two']);
  });

  it('caps the servers running at once', async () => {
    const pool = new GpuAllocator([host('a', 2)], 1);
    const held = await pool.acquire(1);
    let got = false;
    const waiting = pool.acquire(1).then(() => (got = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(got).toBe(false);
    pool.release(held!);
    await waiting;
    expect(got).toBe(true);
  });

  it('gives null to an aborted wait, and the requests behind it go on', async () => {
    const pool = new GpuAllocator([host('a', 4)]);
    await pool.acquire(2);
    const abort = new AbortController();
    const four = pool.acquire(4, abort.signal);
    const two = pool.acquire(2);
    abort.abort();
    expect(await four).toBeNull();
    expect(await two).toEqual({ hostId: 'a', gpus: ['2', '3'] });
    const already = new AbortController();
    already.abort();
    expect(await pool.acquire(1, already.signal)).toBeNull();
  });

  it('refuses at once a server larger than every host, rather than waiting forever', async () => {
    const pool = new GpuAllocator([host('a', 4), host('b', 4)]);
    await expect(pool.acquire(8)).rejects.toMatchObject({ code: 'BAD_INPUT', message: 'A server of 8 GPUs fits on no host of the study: the largest has 4.' });
  });
});
