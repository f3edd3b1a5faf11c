import { describe, expect, it } from 'vitest';
import { GpuBook, contiguous, hostsOf, placeGpus, type GpuSet, type HostGpus } from './gpu-placement';

const host = (hostId: string, n: number, connected?: HostGpus['connected']): HostGpus => ({ hostId, gpus: Array.from({ length: n }, (_, i) => String(i)), ...(connected ? { connected } : {}) });
const set = (hostId: string, ...gpus: number[]): GpuSet => ({ hostId, gpus: gpus.map(String) });
/** Free unless listed as held ("a:0"). */
const freeExcept =
  (...held: string[]) =>
  (h: string, g: string) =>
    !held.includes(`${h}:${g}`);

describe('hostsOf', () => {
  it('groups GPUs by host in index order (10 after 9, not after 1)', () => {
    const gpu = (hostId: string, index: string) => ({ hostId, index, name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' });
    expect(hostsOf([gpu('a', '10'), gpu('a', '9'), gpu('b', '0'), gpu('a', '1')])).toEqual([
      { hostId: 'a', gpus: ['1', '9', '10'] },
      { hostId: 'b', gpus: ['0'] },
    ]);
  });
});

describe('contiguous', () => {
  it('holds for consecutive indices in any order, not for gaps', () => {
    expect(contiguous(['2', '3', '1'])).toBe(true);
    expect(contiguous(['0', '2'])).toBe(false);
  });
});

describe('placeGpus', () => {
  it('gives an idle 8-GPU host’s first GPUs: a 2-GPU server leaves six in one block', () => {
    expect(placeGpus([host('a', 8)], () => true, 2)).toEqual(set('a', 0, 1));
    expect(placeGpus([host('a', 8)], () => true, 4)).toEqual(set('a', 0, 1, 2, 3));
    expect(placeGpus([host('a', 8)], () => true, 8)).toEqual(set('a', 0, 1, 2, 3, 4, 5, 6, 7));
  });

  it('puts a 2-GPU server where it leaves the largest free block intact', () => {
    // A 2-GPU server runs on 0–1: the next one goes on 2–3, keeping 4–7 whole for a 4-GPU server.
    expect(placeGpus([host('a', 8)], freeExcept('a:0', 'a:1'), 2)).toEqual(set('a', 2, 3));
    // A 4-GPU server on 0–3: 4–5, not 5–6 (which would leave 4 and 7 alone).
    expect(placeGpus([host('a', 8)], freeExcept('a:0', 'a:1', 'a:2', 'a:3'), 2)).toEqual(set('a', 4, 5));
    // A server on 2–3 left 0–1 and 4–7 free: a 2-GPU server fills 0–1.
    expect(placeGpus([host('a', 8)], freeExcept('a:2', 'a:3'), 2)).toEqual(set('a', 0, 1));
  });

  it('packs a small server onto the busier of two hosts of four, keeping the idle one for a 4-GPU server', () => {
    const hosts = [host('a', 4), host('b', 4)];
    expect(placeGpus(hosts, freeExcept('b:0', 'b:1'), 2)).toEqual(set('b', 2, 3));
    expect(placeGpus(hosts, freeExcept('b:0', 'b:1'), 4)).toEqual(set('a', 0, 1, 2, 3));
    expect(placeGpus(hosts, freeExcept('a:0', 'b:0'), 4)).toBeNull();
  });

  it('prefers a set aligned to its size among equally good ones', () => {
    // 2–7 free: 2–5 and 4–7 each leave a pair; 4–7 is the aligned half of the box.
    expect(placeGpus([host('a', 8)], freeExcept('a:0', 'a:1'), 4)).toEqual(set('a', 4, 5, 6, 7));
  });

  it('takes scattered GPUs when no connected set is free, rather than waiting', () => {
    expect(placeGpus([host('a', 8)], freeExcept('a:1', 'a:3', 'a:5', 'a:7'), 2)).toEqual(set('a', 0, 2));
  });

  it('follows the host’s own topology when it has one', () => {
    // A box where NVLink joins 0–2 and 1–3 (a made-up edge case, not a real box's matrix).
    const pairs = [
      ['0', '2'],
      ['1', '3'],
    ];
    const linked = (gpus: readonly string[]) => gpus.length === 1 || pairs.some((p) => gpus.length === 2 && gpus.every((g) => p.includes(g)));
    expect(placeGpus([host('a', 4, linked)], () => true, 2)).toEqual(set('a', 0, 2));
    // With 0 busy, the pair 1–3 keeps a linked block; 2 alone is what is left.
    expect(placeGpus([host('a', 4, linked)], freeExcept('a:0'), 2)).toEqual(set('a', 1, 3));
  });
});

describe('GpuBook', () => {
  it('runs 2-, 4- and 8-GPU servers on one 8-GPU host without ever sharing a GPU', () => {
    const book = new GpuBook([host('a', 8)]);
    book.enqueue(1, 8);
    book.enqueue(2, 4);
    book.enqueue(3, 2);
    book.enqueue(4, 2);
    expect(book.dispatch()).toEqual([{ id: 1, set: set('a', 0, 1, 2, 3, 4, 5, 6, 7) }]);
    expect(book.dispatch()).toEqual([]);
    book.release(set('a', 0, 1, 2, 3, 4, 5, 6, 7));
    // Once the 8-GPU server ends, the 4- and both 2-GPU servers start side by side.
    expect(book.dispatch()).toEqual([
      { id: 2, set: set('a', 0, 1, 2, 3) },
      { id: 3, set: set('a', 4, 5) },
      { id: 4, set: set('a', 6, 7) },
    ]);
    expect(book.gpusInUse).toBe(8);
  });

  it('does not let small servers starve a large one: free GPUs it waits for stay free for it', () => {
    const book = new GpuBook([host('a', 8)]);
    book.enqueue(1, 4);
    book.enqueue(2, 2);
    expect(book.dispatch().map((g) => g.id)).toEqual([1, 2]);
    book.enqueue(3, 8);
    book.enqueue(4, 2);
    expect(book.dispatch()).toEqual([]);
    expect(book.reservationOf(3)).toEqual(set('a', 0, 1, 2, 3, 4, 5, 6, 7));
    // The 4-GPU server ends: a 2-GPU server would fit on 0–3, but those are the 8-GPU server's.
    book.release(set('a', 0, 1, 2, 3));
    expect(book.dispatch()).toEqual([]);
    book.release(set('a', 4, 5));
    expect(book.dispatch()).toEqual([{ id: 3, set: set('a', 0, 1, 2, 3, 4, 5, 6, 7) }]);
    book.release(set('a', 0, 1, 2, 3, 4, 5, 6, 7));
    expect(book.dispatch()).toEqual([{ id: 4, set: set('a', 0, 1) }]);
  });

  it('lets a small server take GPUs outside a waiting server’s reservation (two hosts of four)', () => {
    const book = new GpuBook([host('a', 4), host('b', 4)]);
    book.enqueue(1, 2);
    book.enqueue(2, 2);
    expect(book.dispatch()).toEqual([
      { id: 1, set: set('a', 0, 1) },
      // Best fit puts the second beside the first, keeping b whole.
      { id: 2, set: set('a', 2, 3) },
    ]);
    book.enqueue(3, 4);
    book.enqueue(4, 4);
    book.enqueue(5, 2);
    // b goes to the first 4-GPU server; the second reserves a, so the 2-GPU request waits behind it.
    expect(book.dispatch()).toEqual([{ id: 3, set: set('b', 0, 1, 2, 3) }]);
    expect(book.reservationOf(4)?.hostId).toBe('a');
    book.release(set('a', 0, 1));
    expect(book.dispatch()).toEqual([]);
    book.release(set('a', 2, 3));
    expect(book.dispatch()).toEqual([{ id: 4, set: set('a', 0, 1, 2, 3) }]);
    book.release(set('b', 0, 1, 2, 3));
    expect(book.dispatch()).toEqual([{ id: 5, set: set('b', 0, 1) }]);
  });

  it('backfills: a waiting 4-GPU server keeps one host, a later 2-GPU server starts on the other', () => {
    const book = new GpuBook([host('a', 4), host('b', 4)]);
    book.enqueue(1, 2);
    book.enqueue(2, 3);
    expect(book.dispatch()).toEqual([
      { id: 1, set: set('a', 0, 1) },
      { id: 2, set: set('b', 0, 1, 2) },
    ]);
    book.enqueue(3, 4);
    book.enqueue(4, 1);
    // The 4-GPU server keeps a (two of its GPUs still held, fewer than b's three); the 1-GPU one takes b's last.
    expect(book.dispatch()).toEqual([{ id: 4, set: set('b', 3) }]);
    expect(book.reservationOf(3)).toEqual(set('a', 0, 1, 2, 3));
  });

  it('moves a waiting server to whichever host frees first', () => {
    const book = new GpuBook([host('a', 4), host('b', 4)]);
    book.enqueue(1, 4);
    book.enqueue(2, 2);
    book.dispatch();
    book.enqueue(3, 4);
    expect(book.dispatch()).toEqual([]);
    expect(book.reservationOf(3)?.hostId).toBe('b');
    book.release(set('a', 0, 1, 2, 3));
    expect(book.dispatch()).toEqual([{ id: 3, set: set('a', 0, 1, 2, 3) }]);
  });

  it('runs at most `limit` servers at once', () => {
    const book = new GpuBook([host('a', 4)], 1);
    book.enqueue(1, 1);
    book.enqueue(2, 1);
    expect(book.dispatch()).toEqual([{ id: 1, set: set('a', 0) }]);
    book.release(set('a', 0));
    expect(book.dispatch()).toEqual([{ id: 2, set: set('a', 0) }]);
  });

  it('frees a withdrawn request’s reservation for the requests behind it', () => {
    const book = new GpuBook([host('a', 4)]);
    book.enqueue(1, 2);
    book.dispatch();
    book.enqueue(2, 4);
    book.enqueue(3, 2);
    expect(book.dispatch()).toEqual([]);
    book.withdraw(2);
    expect(book.dispatch()).toEqual([{ id: 3, set: set('a', 2, 3) }]);
  });

  it('refuses a request larger than every host, and a release of GPUs nobody holds', () => {
    const book = new GpuBook([host('a', 4), host('b', 4)]);
    expect(() => book.enqueue(1, 8)).toThrow(/8 GPUs fit on no host \(the largest has 4\)/);
    expect(() => book.release(set('a', 0))).toThrow(/was not held/);
  });
});
