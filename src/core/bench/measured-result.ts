import { BENCH_RESULT_SCHEMA_VERSION, BenchResultSchema, importResults, type BenchResult, type ResultProvenance } from '../../shared/results';
import type { ResultEntry } from '../../shared/results/result-entry';
import type { Workload } from '../../shared/bench/workload';
import { measuredTitle } from '../../shared/results/measured-title';
import type { EngineId } from '../../shared/engines';
import type { BenchRunOutcome } from './bench-runner';

/** What produced a measured run, beyond what the client writes into its own result. */
export interface MeasuredRunContext {
  workload: Workload;
  host: string;
  server: {
    engine: EngineId;
    version: string;
    argv: string[];
    /** Environment variable names only: values may be secrets. */
    envNames: string[];
    model: string;
    modelRevision?: string;
  };
  gpu?: { model?: string; count?: number; driver?: string; cuda?: string };
  clientVersion: string;
  dataset?: { name?: string; path?: string; sha256?: string };
  /** The box said it is the simulated GPU box: its numbers are never presented as real. */
  simulated?: boolean;
}

const LOG_TAIL_CHARS = 16 * 1024;

/**
 * The library entry for one run: the client's `--save-result` JSON (or, without it, the printed block) normalized,
 * with the run's full provenance. A run that produced no result becomes a failed entry with its log's tail.
 */
export function measuredEntry(outcome: BenchRunOutcome, ctx: MeasuredRunContext): Omit<ResultEntry, 'id' | 'addedAt'> {
  const provenance = provenanceOf(outcome, ctx);
  const title = measuredTitle({ workload: ctx.workload, engine: ctx.server.engine, version: ctx.server.version, model: ctx.server.model, host: ctx.host });
  const logTail = outcome.log.slice(-LOG_TAIL_CHARS);
  let parsed: BenchResult | undefined;
  let parseError: string | undefined;
  if (outcome.failure === undefined) {
    for (const [text, file] of [
      [outcome.json, `${outcome.runId}/result.json`],
      [outcome.log, `${outcome.runId}/console`],
    ] as const) {
      if (text === undefined) continue;
      const imported = importResults(text, file);
      parsed = imported.records[0];
      if (parsed) break;
      parseError ??= imported.errors[0]?.message;
    }
  }
  if (!parsed) {
    return {
      kind: 'measured',
      status: 'failed',
      title,
      error: outcome.failure ?? `the client finished but its result could not be read: ${parseError ?? 'no result block'}`,
      command: outcome.command,
      logTail,
      result: BenchResultSchema.parse({ schemaVersion: BENCH_RESULT_SCHEMA_VERSION, metrics: {}, extra: {}, provenance }),
    };
  }
  return {
    kind: 'measured',
    status: 'ok',
    title,
    command: outcome.command,
    logTail,
    result: BenchResultSchema.parse({ ...parsed, provenance: { ...parsed.provenance, ...provenance, client: { ...parsed.provenance?.client, ...provenance.client } } }),
  };
}

function provenanceOf(outcome: BenchRunOutcome, ctx: MeasuredRunContext): ResultProvenance {
  const w = ctx.workload;
  const workload: NonNullable<ResultProvenance['workload']> = {
    numPrompts: w.numPrompts,
    requestRate: w.requestRate ?? 'inf',
    ...(w.burstiness !== undefined ? { burstiness: w.burstiness } : {}),
    maxConcurrency: w.maxConcurrency ?? null,
    ...(w.rampUp ? { rampUp: { ...w.rampUp } } : {}),
    ...(w.dataset.kind === 'random' ? { randomInputLen: w.dataset.inputLen, randomOutputLen: w.dataset.outputLen } : {}),
    ...(w.dataset.kind === 'random' && w.dataset.rangeRatio !== undefined ? { randomRangeRatio: w.dataset.rangeRatio } : {}),
    ...(w.dataset.kind === 'sharegpt' ? { sharegptOutputLen: w.dataset.outputLen ?? null } : {}),
  };
  return {
    engine: ctx.server.engine,
    engineVersion: ctx.server.version,
    serverArgv: ctx.server.argv,
    serverEnvNames: ctx.server.envNames,
    model: ctx.server.model,
    ...(ctx.server.modelRevision ? { modelRevision: ctx.server.modelRevision } : {}),
    ...(ctx.gpu ? { gpu: ctx.gpu } : {}),
    host: ctx.host,
    ...(ctx.simulated ? { simulated: true } : {}),
    client: { name: 'vllm bench serve', version: ctx.clientVersion, backend: w.backend },
    dataset: { name: w.dataset.kind, ...ctx.dataset },
    workload,
    timestamps: { startedAt: outcome.startedAt, finishedAt: outcome.finishedAt },
    metadata: { workload: w.id, runId: outcome.runId },
  };
}
