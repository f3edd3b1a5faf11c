import { join } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { assertArrivalSupported } from '../../shared/bench/arrival-support';
import type { Workload } from '../../shared/bench/workload';
import type { ResultEntry } from '../../shared/results/result-entry';
import type { BoxTransport } from '../box/box-transport';
import { collectInventory } from '../inventory/collect';
import { boxCommandRunner } from '../inventory/collect-over-ssh';
import type { ProbeInventory } from '../inventory/parse-probe';
import { readServerRecord } from '../engines/server-launcher';
import { DatasetStore, SHAREGPT_FILE, type DatasetProgress, type DatasetRecord } from './dataset-store';
import { runBenchmark, type BenchProgress } from './bench-runner';
import { measuredEntry, type MeasuredRunContext } from './measured-result';

export const DEFAULT_CLIENT_VERSION = '0.11.0';

/** Where a ShareGPT workload's file comes from when the box's cache has none. */
export type ShareGptSource = { kind: 'synthetic' } | { kind: 'url'; url: string; sha256?: string } | { kind: 'upload'; localPath: string };

export interface MeasureRequest {
  runId: string;
  serverId: string;
  workload: Workload;
  clientVersion?: string;
  /** How the host is named in results. */
  hostLabel: string;
  /** Used only when the cache has no ShareGPT file (or `refreshShareGpt`); without it a missing file is an error. */
  shareGptSource?: ShareGptSource;
  refreshShareGpt?: boolean;
  /** The run's local folder parent (`<runsDir>/<runId>/`). */
  runsDir: string;
  onLog?: (text: string) => void;
  onProgress?: (progress: BenchProgress) => void;
  onDatasetProgress?: (progress: DatasetProgress) => void;
  signal?: AbortSignal;
  /** The box's inventory when the caller has it already (a study reads it once); read from the box otherwise. */
  inventory?: ProbeInventory;
}

/** Everything checked and gathered before the client starts; `run()` then measures and returns the library entry. */
export interface PreparedMeasurement {
  context: MeasuredRunContext;
  run(): Promise<Omit<ResultEntry, 'id' | 'addedAt'>>;
}

/**
 * Prepares one benchmark run against a launched server: reads the server's record on the box (engine, version,
 * argv, model), makes sure the dataset is there and unchanged (fetching, uploading or generating ShareGPT as asked),
 * and reads the GPUs for provenance. Errors here come before anything runs.
 */
export async function prepareMeasurement(box: BoxTransport, request: MeasureRequest): Promise<PreparedMeasurement> {
  const workload = request.workload;
  assertArrivalSupported(workload, request.clientVersion ?? DEFAULT_CLIENT_VERSION);
  const record = await readServerRecord(box, request.serverId);
  if (!record.model) throw new ServelabError('NOT_FOUND', `Server ${request.serverId} has no model in its record; relaunch it with this version of Servelab.`);
  let dataset: DatasetRecord | undefined;
  if (workload.dataset.kind === 'sharegpt' && workload.dataset.path === undefined) {
    dataset = await cachedShareGpt(box, request);
  } else if (workload.dataset.kind !== 'random') {
    const path = workload.dataset.path as string;
    dataset = { file: path, path, ...(await new DatasetStore(box).hash(path)), source: 'upload', origin: path, storedAt: '' };
  }
  const inventory = request.inventory ?? (await collectInventory(boxCommandRunner(box)).catch(() => null));
  const gpus = inventory?.gpus ?? [];
  const pinned = record.gpus ?? [];
  const used = pinned.length > 0 ? gpus.filter((g) => pinned.includes(String(g.index)) || pinned.includes(g.uuid)) : gpus;
  const context: MeasuredRunContext = {
    workload,
    host: request.hostLabel,
    server: { engine: record.engine, version: record.version, argv: record.argv ?? [record.command], envNames: record.envNames ?? [], model: record.model },
    ...(used[0]
      ? {
          gpu: {
            model: used[0].name,
            count: used.length,
            ...(inventory?.driverVersion ? { driver: inventory.driverVersion } : {}),
            ...(inventory?.cudaVersion ? { cuda: inventory.cudaVersion } : {}),
          },
        }
      : {}),
    clientVersion: request.clientVersion ?? DEFAULT_CLIENT_VERSION,
    ...(dataset ? { dataset: { path: dataset.path, sha256: dataset.sha256 } } : {}),
    simulated: inventory?.simulated ?? false,
  };
  return {
    context,
    async run() {
      const outcome = await runBenchmark(box, {
        runId: request.runId,
        workload,
        server: { port: record.port, model: record.model as string, ...(record.servedModelName ? { servedModelName: record.servedModelName } : {}) },
        clientVersion: context.clientVersion,
        ...(dataset && workload.dataset.kind === 'sharegpt' ? { shareGptPath: dataset.path } : {}),
        localDir: join(request.runsDir, request.runId),
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.onLog ? { onLog: request.onLog } : {}),
        ...(request.onProgress ? { onProgress: request.onProgress } : {}),
      });
      return measuredEntry(outcome, context);
    },
  };
}

async function cachedShareGpt(box: BoxTransport, request: MeasureRequest): Promise<DatasetRecord> {
  const store = new DatasetStore(box);
  if (!request.refreshShareGpt) {
    try {
      return await store.verify(SHAREGPT_FILE);
    } catch (error) {
      if (!(error instanceof ServelabError && error.code === 'NOT_FOUND' && request.shareGptSource)) throw error;
    }
  }
  const source = request.shareGptSource;
  if (!source) throw new ServelabError('NOT_FOUND', `The box has no ${SHAREGPT_FILE} in its dataset cache; fetch or upload it first.`);
  if (source.kind === 'synthetic') return store.synthesizeShareGpt(SHAREGPT_FILE);
  if (source.kind === 'upload') return store.upload(source.localPath, SHAREGPT_FILE, (bytes, total) => request.onDatasetProgress?.({ bytes, total }));
  return store.fetch(SHAREGPT_FILE, source.url, {
    ...(source.sha256 !== undefined ? { sha256: source.sha256 } : {}),
    ...(request.onDatasetProgress ? { onProgress: request.onDatasetProgress } : {}),
  });
}
