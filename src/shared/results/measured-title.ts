import { describeWorkload, type Workload } from '../bench/workload';
import type { ResultProvenance } from './bench-result';

/** What a measured run's library title is made of. */
export interface MeasuredTitleParts {
  workload: Workload;
  engine: string;
  version: string;
  model: string;
  host: string;
}

/**
 * A measured run's title as stored, in English: "ShareGPT, 100 prompts, concurrency 4 · vllm 0.11.0 · Qwen/Qwen3-8B on
 * Demo lab". The app words it again in its own language while the stored title is still exactly this.
 */
export function measuredTitle(p: MeasuredTitleParts): string {
  return `${describeWorkload(p.workload)} · ${p.engine} ${p.version} · ${p.model} on ${p.host}`;
}

/**
 * The workload a measured run's provenance records, as the workload it ran (`measured-result.ts` writes one from the
 * other); null when the provenance lacks a field the description needs.
 */
export function workloadOfProvenance(p: ResultProvenance): Workload | null {
  const w = p.workload;
  const path = p.dataset?.path;
  if (!w || w.numPrompts === undefined || w.requestRate === 'trace') return null;
  const dataset: Workload['dataset'] | null =
    p.dataset?.name === 'sharegpt'
      ? { kind: 'sharegpt' }
      : p.dataset?.name === 'random' && w.randomInputLen !== undefined && w.randomOutputLen !== undefined
        ? { kind: 'random', inputLen: w.randomInputLen, outputLen: w.randomOutputLen }
        : p.dataset?.name === 'custom' && path !== undefined
          ? { kind: 'custom', path }
          : null;
  if (!dataset) return null;
  const ramp = w.rampUp;
  return {
    id: 'recorded',
    dataset,
    numPrompts: w.numPrompts,
    ...(typeof w.maxConcurrency === 'number' ? { maxConcurrency: w.maxConcurrency } : {}),
    ...(typeof w.requestRate === 'number' ? { requestRate: w.requestRate } : {}),
    ...(w.burstiness !== undefined ? { burstiness: w.burstiness } : {}),
    ...(ramp && ramp.startRps !== null && ramp.endRps !== null ? { rampUp: { strategy: ramp.strategy as NonNullable<Workload['rampUp']>['strategy'], startRps: ramp.startRps, endRps: ramp.endRps } } : {}),
    backend: 'openai-chat',
  };
}
