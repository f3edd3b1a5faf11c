// Where a server's GPUs go: which set of free GPUs on one host a request of N GPUs gets, and in what order waiting
// requests are served. Pure and synchronous, so the run's allocator (`src/core/study/gpu-allocator.ts`) and the plan's
// wall-clock estimate (`schedule-simulation.ts`) place servers by the same rule.
import { nvlinkConnected } from '../model/gpu-topology';
import type { GpuFacts, PlanContext } from './plan-context';

/** A set of GPUs on one host that one server holds by itself. */
export interface GpuSet {
  hostId: string;
  gpus: string[];
}

/** One host's GPUs as placement sees them. */
export interface HostGpus {
  hostId: string;
  /** The usable GPU indices, in index order. */
  gpus: string[];
  /**
   * Whether a set of this host's GPUs is well connected (NVLink between every pair, as the host's topology says).
   * Absent: a set of consecutive indices is, the best guess without a topology (on most boxes neighbours share a
   * switch or an NVLink bridge).
   */
  connected?: (gpus: readonly string[]) => boolean;
}

/** The study's GPUs grouped by host, hosts in first-seen order, each host's GPUs by index. */
export function hostsOf(gpus: readonly GpuFacts[]): HostGpus[] {
  const byHost = new Map<string, string[]>();
  for (const g of gpus) byHost.set(g.hostId, [...(byHost.get(g.hostId) ?? []), g.index]);
  return [...byHost].map(([hostId, list]) => ({ hostId, gpus: [...new Set(list)].sort(byIndex) }));
}

/**
 * The hosts' GPUs as the run and the plan's estimate place servers on them: a host whose link matrix is known counts a
 * set as well connected when NVLink joins every pair of it.
 */
export function placementHosts(ctx: PlanContext): HostGpus[] {
  return hostsOf(ctx.gpus).map((host) => {
    const links = ctx.topology?.[host.hostId];
    return links ? { ...host, connected: (set: readonly string[]) => nvlinkConnected(links, set) } : host;
  });
}

function byIndex(a: string, b: string): number {
  return Number(a) - Number(b) || a.localeCompare(b);
}

/** The default "well connected": consecutive GPU indices. */
export function contiguous(gpus: readonly string[]): boolean {
  const n = gpus.map(Number).sort((a, b) => a - b);
  return n.every((v, i) => Number.isInteger(v) && (i === 0 || v === n[i - 1]! + 1));
}

const gpuKey = (hostId: string, gpu: string) => `${hostId}\n${gpu}`;

/** Past this many k-subsets of a host's free GPUs only windows of consecutive free GPUs are tried (hosts of 16+). */
const SUBSET_LIMIT = 2000;

function binomial(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** The k-sets of `list` worth trying: all of them on hosts of up to a dozen GPUs, else consecutive windows. */
function subsets(list: readonly string[], k: number): string[][] {
  if (k > list.length || k <= 0) return [];
  if (binomial(list.length, k) > SUBSET_LIMIT) return Array.from({ length: list.length - k + 1 }, (_, i) => list.slice(i, i + k));
  const out: string[][] = [];
  const pick: string[] = [];
  const walk = (from: number) => {
    if (pick.length === k) {
      out.push([...pick]);
      return;
    }
    for (let i = from; i <= list.length - (k - pick.length); i++) {
      pick.push(list[i]!);
      walk(i + 1);
      pick.pop();
    }
  };
  walk(0);
  return out;
}

/** The most GPUs among `free` that still form one well-connected set: what a later large request could get there. */
function largestBlock(host: HostGpus, free: readonly string[]): number {
  if (!host.connected) {
    let best = 0;
    let run = 0;
    free.forEach((g, i) => {
      run = i > 0 && Number(g) === Number(free[i - 1]) + 1 ? run + 1 : 1;
      best = Math.max(best, run);
    });
    return best;
  }
  for (let k = free.length; k > 1; k--) if (subsets(free, k).some((s) => host.connected!(s))) return k;
  return free.length > 0 ? 1 : 0;
}

/** What is known of each GPU while placing: free, or not to be given (held by a server, or kept for a waiter). */
export type IsFree = (hostId: string, gpu: string) => boolean;

interface Scored {
  set: GpuSet;
  score: number[];
}

/** Lexicographic: the first differing entry decides, higher wins. */
function better(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

/**
 * The set of `count` free GPUs on one host a new server gets, or null when no host has that many free. Among the
 * possible sets, in this order of importance:
 *
 * 1. a well-connected set (`HostGpus.connected`, else consecutive indices) before a scattered one;
 * 2. best fit: the set that leaves the largest well-connected free block across all hosts — a 2-GPU server goes
 *    beside a running 4-GPU one rather than into the middle of an idle host, and onto the host with less room;
 * 3. the largest free block left on its own host, then the host with the fewest free GPUs (the tightest fit);
 * 4. a set aligned to its size (GPUs 4–7 for four, not 2–5), then the lower host and the lower indices.
 */
export function placeGpus(hosts: readonly HostGpus[], isFree: IsFree, count: number): GpuSet | null {
  const freeOf = hosts.map((h) => h.gpus.filter((g) => isFree(h.hostId, g)));
  const blocks = hosts.map((h, i) => largestBlock(h, freeOf[i]!));
  let best: Scored | null = null;
  hosts.forEach((host, h) => {
    const free = freeOf[h]!;
    if (free.length < count) return;
    const elsewhere = Math.max(0, ...blocks.filter((_, i) => i !== h));
    for (const gpus of subsets(free, count)) {
      const rest = free.filter((g) => !gpus.includes(g));
      const left = largestBlock(host, rest);
      const connected = (host.connected ?? contiguous)(gpus) ? 1 : 0;
      const aligned = Number(gpus[0]) % count === 0 ? 1 : 0;
      const score = [connected, Math.max(elsewhere, left), left, -free.length, aligned];
      // Ties keep the first found: the lower host, then the lower indices (subsets come in that order).
      if (!best || better(score, best.score)) best = { set: { hostId: host.hostId, gpus }, score };
    }
  });
  return (best as Scored | null)?.set ?? null;
}

/** A waiting request's reservation: the set with the fewest GPUs still held, among those no earlier waiter keeps. */
function reservationFor(hosts: readonly HostGpus[], open: IsFree, held: IsFree, count: number): GpuSet | null {
  let best: Scored | null = null;
  for (const host of hosts) {
    const candidates = host.gpus.filter((g) => open(host.hostId, g));
    for (const gpus of subsets(candidates, count)) {
      const busy = gpus.filter((g) => held(host.hostId, g)).length;
      const connected = (host.connected ?? contiguous)(gpus) ? 1 : 0;
      const score = [-busy, connected, Number(gpus[0]) % count === 0 ? 1 : 0];
      if (!best || better(score, best.score)) best = { set: { hostId: host.hostId, gpus }, score };
    }
  }
  return (best as Scored | null)?.set ?? null;
}

export interface Grant {
  id: number;
  set: GpuSet;
}

interface Waiter {
  id: number;
  count: number;
  reserved: GpuSet | null;
}

/**
 * The GPUs of a study's hosts, the servers holding them and the requests waiting, served by one rule:
 *
 * - Never two servers on one GPU, and at most `limit` servers at once.
 * - Waiting requests are looked at in arrival order; each one that fits on GPUs nobody holds or keeps starts at once,
 *   placed by `placeGpus`.
 * - No starvation: a request that cannot start keeps a reservation — the set it will get, chosen as the one with the
 *   fewest GPUs still held. GPUs of a reservation that become free stay free for it; requests behind it may only take
 *   GPUs outside it, so they fill gaps (a 2-GPU trial beside a running 4-GPU one) but never delay it. A request ahead
 *   in the queue may still take them (it came first), and then the reservation moves. The oldest waiter's
 *   reservation can only lose held GPUs, and every server ends, so it starts in finite time, and so does each
 *   request after it.
 */
export class GpuBook {
  private readonly held = new Set<string>();
  private readonly queue: Waiter[] = [];
  private servers = 0;

  constructor(
    readonly hosts: readonly HostGpus[],
    private readonly limit: number = Number.POSITIVE_INFINITY,
  ) {}

  /** The most GPUs one server can get: the largest host's. */
  get largestHost(): number {
    return Math.max(0, ...this.hosts.map((h) => h.gpus.length));
  }

  /** GPUs held by running servers. */
  get gpusInUse(): number {
    return this.held.size;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Queues a request; `dispatch` says when it starts. A request larger than every host would wait forever: refused. */
  enqueue(id: number, count: number): void {
    if (!Number.isInteger(count) || count < 1 || count > this.largestHost) throw new RangeError(`${count} GPUs fit on no host (the largest has ${this.largestHost}).`);
    this.queue.push({ id, count, reserved: null });
  }

  /** Drops a waiting request (its wait was given up) and its reservation. */
  withdraw(id: number): void {
    const at = this.queue.findIndex((w) => w.id === id);
    if (at >= 0) this.queue.splice(at, 1);
  }

  release(set: GpuSet): void {
    for (const g of set.gpus) {
      if (!this.held.delete(gpuKey(set.hostId, g))) throw new Error(`GPU ${g} of ${set.hostId} was not held.`);
    }
    this.servers--;
  }

  /** Starts every waiting request the rule lets start now, in queue order, and renews the others' reservations. */
  dispatch(): Grant[] {
    const grants: Grant[] = [];
    const kept = new Set<string>();
    const isHeld: IsFree = (h, g) => this.held.has(gpuKey(h, g));
    for (const waiter of [...this.queue]) {
      if (this.servers >= this.limit) break;
      const set = placeGpus(this.hosts, (h, g) => !isHeld(h, g) && !kept.has(gpuKey(h, g)), waiter.count);
      if (set) {
        this.withdraw(waiter.id);
        for (const g of set.gpus) this.held.add(gpuKey(set.hostId, g));
        this.servers++;
        grants.push({ id: waiter.id, set });
        continue;
      }
      if (!waiter.reserved || waiter.reserved.gpus.some((g) => kept.has(gpuKey(waiter.reserved!.hostId, g)))) {
        waiter.reserved = reservationFor(this.hosts, (h, g) => !kept.has(gpuKey(h, g)), isHeld, waiter.count);
      }
      for (const g of waiter.reserved?.gpus ?? []) kept.add(gpuKey(waiter.reserved!.hostId, g));
    }
    return grants;
  }

  /** The reservation a waiting request keeps, if any (for tests and for showing why a trial waits). */
  reservationOf(id: number): GpuSet | null {
    return this.queue.find((w) => w.id === id)?.reserved ?? null;
  }
}
