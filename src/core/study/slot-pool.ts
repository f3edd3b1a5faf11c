import type { GpuFacts } from '../../shared/study/plan-context';

/** A set of GPUs on one host that one trial's server gets to itself. */
export interface GpuSlot {
  hostId: string;
  gpus: string[];
}

/** The hosts' GPUs cut into slots of `perTrial` GPUs each (on one host; leftover GPUs stay idle). */
export function slotsOf(gpus: GpuFacts[], perTrial: number): GpuSlot[] {
  const byHost = new Map<string, string[]>();
  for (const g of gpus) byHost.set(g.hostId, [...(byHost.get(g.hostId) ?? []), g.index]);
  const slots: GpuSlot[] = [];
  for (const [hostId, indices] of byHost) {
    for (let i = 0; i + perTrial <= indices.length; i += perTrial) slots.push({ hostId, gpus: indices.slice(i, i + perTrial) });
  }
  return slots;
}

/**
 * Hands out GPU slots so that no GPU ever runs two servers, and at most `limit` servers run at once. Waiters are
 * served in order; an aborted wait resolves to null.
 */
export class SlotPool {
  private readonly free: GpuSlot[];
  private readonly waiters: Array<(slot: GpuSlot | null) => void> = [];
  private inUse = 0;

  constructor(
    slots: GpuSlot[],
    private readonly limit: number = slots.length,
  ) {
    this.free = [...slots];
  }

  get size(): number {
    return this.free.length + this.inUse;
  }

  acquire(signal?: AbortSignal): Promise<GpuSlot | null> {
    if (signal?.aborted) return Promise.resolve(null);
    if (this.free.length > 0 && this.inUse < this.limit) {
      this.inUse++;
      return Promise.resolve(this.free.shift() as GpuSlot);
    }
    return new Promise((resolve) => {
      const waiter = (slot: GpuSlot | null) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(slot);
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(slot: GpuSlot): void {
    const next = this.waiters.shift();
    if (next) {
      next(slot);
      return;
    }
    this.inUse--;
    this.free.push(slot);
  }
}
