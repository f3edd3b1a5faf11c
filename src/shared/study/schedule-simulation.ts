// The plan's wall-clock estimate: the servers of a plan list-scheduled on the study's GPUs by the run's own placement
// rule (`GpuBook`), in the run's order (largest first), each holding its GPUs for its estimated seconds.
import { GpuBook, type GpuSet, type HostGpus } from './gpu-placement';

export interface ScheduledServer {
  /** The server's key (one launch runs all its trials). */
  key: string;
  gpus: number;
  /** Launch, warm-ups and benchmarks, end to end. */
  seconds: number;
}

export interface SimulatedSchedule {
  /** From the first launch to the last server's end. */
  wallSeconds: number;
  /** The most GPUs held at one moment. */
  peakGpus: number;
  /** Where and when each server ran; servers no host can hold are left out. */
  placements: Record<string, { start: number; end: number; set: GpuSet }>;
}

/** Largest first, the order `runTrials` asks for GPUs in: big servers are placed before small ones fill the gaps. */
export function launchOrder<T extends { gpus: number }>(servers: readonly T[]): T[] {
  return [...servers].sort((a, b) => b.gpus - a.gpus);
}

/** Runs the servers on the hosts as the runner would, on a simulated clock. */
export function simulateSchedule(hosts: readonly HostGpus[], servers: readonly ScheduledServer[], limit?: number): SimulatedSchedule {
  const book = new GpuBook(hosts, limit);
  const order = launchOrder(servers.filter((s) => s.gpus <= book.largestHost && s.gpus >= 1));
  order.forEach((s, i) => book.enqueue(i, s.gpus));
  const placements: SimulatedSchedule['placements'] = {};
  const running: Array<{ end: number; set: GpuSet }> = [];
  let now = 0;
  let peakGpus = 0;
  for (;;) {
    for (const grant of book.dispatch()) {
      const server = order[grant.id]!;
      const end = now + Math.max(0, server.seconds);
      placements[server.key] = { start: now, end, set: grant.set };
      running.push({ end, set: grant.set });
    }
    peakGpus = Math.max(peakGpus, book.gpusInUse);
    if (running.length === 0) break;
    // Every server ending at the earliest end frees its GPUs before the next placement.
    now = Math.min(...running.map((r) => r.end));
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i]!.end === now) {
        book.release(running[i]!.set);
        running.splice(i, 1);
      }
    }
  }
  return { wallSeconds: now, peakGpus, placements };
}
