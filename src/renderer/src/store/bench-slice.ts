import type { StateCreator } from 'zustand';
import { describeWorkload } from '../../../shared/bench/workload';
import type { CallInput, EventPayload } from '../../../shared/contract';
import type { ApiClient } from '../api/client';
import { LogBuffer } from '../logs/log-buffer';
import { withLog } from './engines-slice';
import type { AppState } from './types';

/** One benchmark the user started, as its events reported it. */
export interface BenchRun {
  runId: string;
  hostId: string;
  serverId: string;
  /** describeWorkload of what was sent. */
  workload: string;
  done: number;
  total: number | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  cancelling: boolean;
  outcome: { ok: boolean; message: string; entryId: string | null } | null;
}

export interface BenchSlice {
  benchRuns: Record<string, BenchRun>;
  /** The newest run per server id. */
  latestBenchByServer: Record<string, string>;
  /** Resolves to the run id; throws the core's ServelabError when the run was refused. */
  startBenchmark(input: CallInput<'bench:run'>): Promise<string>;
  cancelBenchmark(runId: string): Promise<void>;
  applyBenchProgress(event: EventPayload<'bench:progress'>): void;
  applyBenchLog(event: EventPayload<'bench:log'>): void;
  applyBenchDone(event: EventPayload<'bench:done'>): void;
}


function emptyRun(runId: string): BenchRun {
  return { runId, hostId: '', serverId: '', workload: '', done: 0, total: null, log: new LogBuffer(), cancelling: false, outcome: null };
}

/** Benchmark runs against launched servers, mirrored from bench:* events. */
export function createBenchSlice(api: ApiClient): StateCreator<AppState, [], [], BenchSlice> {
  const update = (set: Parameters<StateCreator<AppState, [], [], BenchSlice>>[0], runId: string, change: (run: BenchRun) => Partial<BenchRun>) =>
    set((s) => {
      // Events can come before bench:run has answered; the run is filled in when it does.
      const run = s.benchRuns[runId] ?? emptyRun(runId);
      return { benchRuns: { ...s.benchRuns, [runId]: { ...run, ...change(run) } } };
    });

  return (set, get) => ({
    benchRuns: {},
    latestBenchByServer: {},

    async startBenchmark(input) {
      const { runId } = await api.call('bench:run', input);
      update(set, runId, () => ({ hostId: input.hostId, serverId: input.serverId, workload: describeWorkload({ ...input.workload, backend: input.workload.backend ?? 'openai-chat' }) }));
      set((s) => ({ latestBenchByServer: { ...s.latestBenchByServer, [input.serverId]: runId } }));
      return runId;
    },

    async cancelBenchmark(runId) {
      update(set, runId, () => ({ cancelling: true }));
      try {
        await api.call('bench:cancel', { runId });
      } catch {
        // The run goes on; its bench:done still arrives and settles the view.
        update(set, runId, () => ({ cancelling: false }));
      }
    },

    applyBenchProgress(event) {
      update(set, event.runId, () => ({ done: event.done, total: event.total }));
    },

    applyBenchLog(event) {
      // Appended in place: no store update per log event.
      const run = get().benchRuns[event.runId];
      if (run) run.log.append(event.text);
      else set((s) => ({ benchRuns: { ...s.benchRuns, [event.runId]: withLog(emptyRun(event.runId), event.text) } }));
    },

    applyBenchDone(event) {
      update(set, event.runId, () => ({ cancelling: false, outcome: { ok: event.ok, message: event.message, entryId: event.entryId ?? null } }));
      // The summary reads the new entry from the library.
      if (event.entryId) void get().loadResults();
    },
  });
}
