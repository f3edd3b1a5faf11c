import { ServelabError } from '../../shared/contract';
import { GpuBook, type GpuSet, type HostGpus } from '../../shared/study/gpu-placement';

/**
 * Hands GPUs to a study's servers: `acquire(count)` resolves to `count` GPUs on one host that no other server holds,
 * at most `limit` servers at once. Placement and the order waiters are served in — best fit, well-connected sets
 * first, and a reservation that keeps smaller requests from starving a large one — are `GpuBook`'s
 * (`src/shared/study/gpu-placement.ts`), the same rule the plan's estimate simulates.
 */
export class GpuAllocator {
  private readonly book: GpuBook;
  private readonly waiters = new Map<number, (set: GpuSet | null) => void>();
  private nextId = 1;

  constructor(hosts: readonly HostGpus[], limit?: number) {
    this.book = new GpuBook(hosts, limit);
  }

  /** The most GPUs one request can get (the largest host's). */
  get largestHost(): number {
    return this.book.largestHost;
  }

  /**
   * `count` GPUs on one host, once the rule lets this request start; null when `signal` aborts the wait. A request
   * larger than every host is refused at once (it would wait forever).
   */
  acquire(count: number, signal?: AbortSignal): Promise<GpuSet | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (count > this.book.largestHost) {
      return Promise.reject(new ServelabError('BAD_INPUT', `A server of ${count} GPUs fits on no host of the study: the largest has ${this.book.largestHost}.`));
    }
    const id = this.nextId++;
    this.book.enqueue(id, count);
    const granted = new Promise<GpuSet | null>((resolve) => {
      const onAbort = () => {
        if (!this.waiters.delete(id)) return;
        this.book.withdraw(id);
        resolve(null);
        // Its reservation may have held back requests behind it.
        this.dispatch();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, (set) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(set);
      });
    });
    this.dispatch();
    return granted;
  }

  release(set: GpuSet): void {
    this.book.release(set);
    this.dispatch();
  }

  private dispatch(): void {
    for (const grant of this.book.dispatch()) {
      const resolve = this.waiters.get(grant.id);
      this.waiters.delete(grant.id);
      resolve?.(grant.set);
    }
  }
}
