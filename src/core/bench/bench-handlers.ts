import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { EventBus } from '../dispatch/event-bus';
import type { BoxTransport } from '../box/box-transport';
import { importResults, formatProblem } from '../../shared/results';
import type { ResultsLibrary } from '../results/results-library';
import { DatasetStore, SHAREGPT_FILE, SHAREGPT_URL, type DatasetRecord } from './dataset-store';
import { prepareMeasurement } from './measure';

export type ReleasableBoxTransport = BoxTransport & { release(): void };

export interface BenchHandlerDeps {
  events: EventBus;
  box(hostId: string): Promise<ReleasableBoxTransport>;
  results: ResultsLibrary;
  /** Each run's local folder (the fetched JSON) goes under here. */
  runsDir: string;
  /** The demo lab generates its dataset instead of downloading it. */
  isDemo(hostId: string): boolean;
  hostLabel(hostId: string): string;
}

type BenchCalls = Pick<
  CallHandlers,
  'results:list' | 'results:import' | 'results:remove' | 'datasets:list' | 'datasets:fetch' | 'bench:run' | 'bench:cancel'
>;

export function newRunId(): string {
  return `run-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** The results library, the boxes' dataset caches and benchmark runs against launched servers. */
export function benchHandlers(deps: BenchHandlerDeps): BenchCalls {
  const running = new Map<string, AbortController>();

  async function withBox<T>(hostId: string, work: (box: ReleasableBoxTransport) => Promise<T>): Promise<T> {
    const box = await deps.box(hostId);
    try {
      return await work(box);
    } finally {
      box.release();
    }
  }

  async function shareGpt(hostId: string, box: ReleasableBoxTransport, url?: string, sha256?: string): Promise<DatasetRecord> {
    const store = new DatasetStore(box);
    if (deps.isDemo(hostId)) return store.synthesizeShareGpt(SHAREGPT_FILE);
    return store.fetch(SHAREGPT_FILE, url ?? SHAREGPT_URL, {
      ...(sha256 !== undefined ? { sha256 } : {}),
      onProgress: (p) => deps.events.emit('datasets:progress', { hostId, file: SHAREGPT_FILE, bytes: p.bytes, total: p.total }),
    });
  }

  return {
    'results:list': async () => {
      if (deps.results.problem) throw new ServelabError('BAD_INPUT', deps.results.problem);
      return deps.results.list();
    },

    'results:import': async ({ files, gpuCount }) => {
      const errors: string[] = [];
      const warnings: string[] = [];
      const entries = [];
      for (const file of files) {
        const outcome = importResults(file.text, file.name);
        errors.push(...outcome.errors.map(formatProblem));
        warnings.push(...outcome.warnings.map(formatProblem));
        for (const result of outcome.records) {
          const where = result.source ? `${result.source.file}#${result.source.index + 1}` : file.name;
          entries.push({
            kind: 'imported' as const,
            status: 'ok' as const,
            title: result.provenance?.model ? `${where} · ${result.provenance.model}` : where,
            result,
            ...(gpuCount !== undefined ? { gpuCount } : {}),
          });
        }
      }
      const added = entries.length > 0 ? await deps.results.add(entries) : [];
      if (added.length > 0) deps.events.emit('results:changed', {});
      return { added, errors, warnings };
    },

    'results:remove': async ({ ids }) => {
      const removed = await deps.results.remove(ids);
      if (removed > 0) deps.events.emit('results:changed', {});
      return { removed };
    },

    'datasets:list': ({ hostId }) => withBox(hostId, (box) => new DatasetStore(box).list()),

    'datasets:fetch': ({ hostId, url, sha256 }) => withBox(hostId, (box) => shareGpt(hostId, box, url, sha256)),

    'bench:run': async ({ hostId, serverId, workload, clientVersion }) => {
      const box = await deps.box(hostId);
      const runId = newRunId();
      const abort = new AbortController();
      let prepared;
      try {
        // The demo lab generates its ShareGPT file; a real box must have it fetched first (datasets:fetch).
        prepared = await prepareMeasurement(box, {
          runId,
          serverId,
          workload,
          ...(clientVersion !== undefined ? { clientVersion } : {}),
          hostLabel: deps.hostLabel(hostId),
          ...(deps.isDemo(hostId) ? { shareGptSource: { kind: 'synthetic' as const } } : {}),
          runsDir: deps.runsDir,
          signal: abort.signal,
          onLog: (text) => deps.events.emit('bench:log', { runId, text }),
          onProgress: (p) => deps.events.emit('bench:progress', { runId, done: p.done, total: p.total }),
        });
      } catch (error) {
        box.release();
        throw error;
      }
      running.set(runId, abort);
      void prepared
        .run()
        .then(async (measured) => {
          const [entry] = await deps.results.add([measured]);
          deps.events.emit('results:changed', {});
          deps.events.emit('bench:done', {
            runId,
            ok: entry!.status === 'ok',
            message: entry!.status === 'ok' ? `${entry!.title}: done` : (entry!.error ?? 'failed'),
            entryId: entry!.id,
          });
        })
        .catch((error: unknown) => deps.events.emit('bench:done', { runId, ok: false, message: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          running.delete(runId);
          box.release();
        });
      return { runId };
    },

    'bench:cancel': async ({ runId }) => {
      const abort = running.get(runId);
      if (!abort) return { cancelled: false };
      abort.abort(new ServelabError('CANCELLED', 'Benchmark cancelled.'));
      return { cancelled: true };
    },
  };
}
