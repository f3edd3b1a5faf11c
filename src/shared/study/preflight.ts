import { getAdapter, validateExtraArgs } from '../engines/adapters';
import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import { fileTextOptions } from '../engines/config-files';
import type { Workload } from '../bench/workload';
import type { PlanContext, GpuFacts } from './plan-context';
import { configGpuCount, type StudyDefinition, type Trial } from './study';
import type { Refusal } from './trial-problem';
import { refusalRecord } from './report/problem-words';
import { parallelLayoutLabel } from '../engines/parallelism';
import { knownModel, weightBytes, weightsPerGpu, type WeightPrecision } from './model-facts';
import { layoutRefusal } from './layout-checks';
import { overBudget } from './objective';
import { hostsOf } from './gpu-placement';

/**
 * Checks that need no GPU time: what the engine version cannot express, what the GPU cannot run, what cannot fit,
 * what the server would refuse. Each answers with a refusal's code and facts (trial-problem.ts), worded in the reader's
 * language by report/problem-words.ts, or nothing.
 */

export { BYTES_PER_PARAM, knownModel, type KnownModel, type WeightPrecision } from './model-facts';

/** The weights' precision: the variant's or the study's when declared, else read from the repo name, else the checkpoint's own (bf16 unless known). */
export function weightPrecisionOf(study: StudyDefinition, config: Pick<ServerConfig, 'model' | 'quantization'>): WeightPrecision {
  const variant = study.model.variants.find((v) => v.model === config.model);
  if (variant?.precision) return variant.precision;
  if (config.model === study.model.id && study.model.precision) return study.model.precision;
  const name = config.model.toLowerCase();
  if (/-fp8$/.test(name)) return 'fp8';
  if (/-awq$/.test(name)) return 'awq';
  if (/-int4$/.test(name)) return 'int4';
  if (/-int8$/.test(name)) return 'int8';
  // Online quantization stores the weights in FP8 once loaded.
  if (config.quantization && /fp8/.test(config.quantization)) return 'fp8';
  return knownModel(config.model)?.nativePrecision ?? 'bf16';
}

/** A checkpoint whose GEMMs are FP8 with block scales: declared on its variant, or Qwen's `-FP8` naming. */
export function isBlockScaledFp8(study: StudyDefinition, model: string): boolean {
  const variant = study.model.variants.find((v) => v.model === model);
  if (variant?.fp8BlockScaled !== undefined) return variant.fp8BlockScaled;
  return /-fp8$/i.test(model);
}

function smOf(gpu: GpuFacts): number | null {
  const m = /^(\d+)\.(\d+)$/.exec(gpu.computeCapability ?? '');
  return m ? Number(m[1]) * 10 + Number(m[2]) : null;
}

/** The share of a GPU's memory an engine lets weights take, at its default settings or the configured fraction. */
function usableShare(engine: EngineId, config: ServerConfig): number {
  // TensorRT-LLM's fraction is of the memory left after the weights, so the weights may take nearly all of it.
  if (engine === 'trtllm') return 0.95;
  return config.gpuMemoryFraction ?? (engine === 'vllm' ? 0.9 : 0.85);
}

/** One entry per kind of GPU: a box of eight alike is named once. */
function distinctGpus<G extends object>(gpus: readonly G[]): G[] {
  const seen = new Set<string>();
  return gpus.filter((g) => {
    const key = JSON.stringify(g);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The longest request (prompt + output, tokens) a workload sends, or undefined when it cannot be known. */
export function longestRequestTokens(workload: Workload): number | undefined {
  const d = workload.dataset;
  if (d.kind === 'random') {
    const spread = 1 + (d.rangeRatio ?? 0);
    return Math.floor(d.inputLen * spread) + (d.prefixLen ?? 0) + Math.floor(d.outputLen * spread);
  }
  // vLLM's ShareGPT sampler keeps prompts up to 1024 tokens and prompt + output up to 2048.
  if (d.kind === 'sharegpt') return 2048;
  return undefined;
}

function workloadById(study: StudyDefinition, id: string): Workload | undefined {
  return [study.workloads.primary, ...study.workloads.generalisation].find((w) => w.id === id);
}

/** The pre-flight's refusal of a trial as a code and its facts, or null when nothing stands in its way. */
export function preflightRefusal(study: StudyDefinition, trial: Pick<Trial, 'engine' | 'version' | 'config' | 'workloadId'>, ctx: PlanContext): Refusal | null {
  const { engine, version, config } = trial;
  const adapter = getAdapter(engine);

  const built = adapter.buildArgv(config, version, fileTextOptions(study.files));
  if (built.unsupported.length > 0) return { code: 'knobs-unsupported', engine, version, knobs: built.unsupported.map((u) => ({ knob: u.knob, reason: u.reason })) };
  const extra = validateExtraArgs(engine, version, config.extraArgs);
  const extraErrors = extra.issues.filter((i) => i.severity === 'error');
  if (extraErrors.length > 0) return { code: 'extra-args-refused', engine, version, issues: extraErrors.map((i) => i.message) };

  const facts = knownModel(config.model);
  const layout = layoutRefusal(engine, version, config, facts);
  if (layout) return layout;

  // A server's GPUs are on one host: the layout's count must fit on the largest.
  const needed = configGpuCount(study, engine, config);
  const gpus = ctx.gpus;
  if (gpus.length > 0) {
    const most = Math.max(...hostsOf(gpus).map((h) => h.gpus.length));
    if (most < needed) return { code: 'host-too-small', gpusPerTrial: needed, most };
  }
  // On a GPU budget a configuration larger than the budget has no objective: measuring it would only spend GPU time.
  if (overBudget(study, needed)) {
    return { code: 'over-gpu-budget', gpus: needed, budget: study.goal.gpuBudget ?? 0 };
  }

  if (engine === 'trtllm' && isBlockScaledFp8(study, config.model)) {
    const known = gpus.filter((g) => smOf(g) !== null);
    if (known.length > 0 && known.every((g) => (smOf(g) as number) < 89)) {
      return { code: 'fp8-block-scaling-sm', model: config.model, gpus: distinctGpus(known.map((g) => ({ name: g.name, computeCapability: g.computeCapability as string }))) };
    }
  }

  if (facts && gpus.length > 0) {
    const precision = weightPrecisionOf(study, config);
    const perGpu = weightsPerGpu(engine, config, facts, precision);
    const share = usableShare(engine, config);
    const bytesOf = (g: GpuFacts) => g.memoryMiB * 1024 * 1024;
    const fits = gpus.some((g) => perGpu <= bytesOf(g) * share);
    if (!fits) {
      const total = weightBytes(facts, precision);
      return {
        code: 'weights-too-large',
        model: config.model,
        params: facts.params,
        precision,
        bytesPerParam: Math.round(((total.experts + total.rest) / facts.params) * 100) / 100,
        weightsPerGpu: perGpu,
        tp: config.tensorParallelSize ?? 1,
        layout: parallelLayoutLabel(config),
        engine,
        version,
        gpus: distinctGpus(gpus.map((g) => ({ name: g.name, usable: bytesOf(g) * share, total: bytesOf(g) }))),
      };
    }
  }

  const workload = workloadById(study, trial.workloadId);
  const longest = workload ? longestRequestTokens(workload) : undefined;
  const maxLen = config.maxModelLen ?? facts?.maxLen;
  if (workload && longest !== undefined && maxLen !== undefined && longest > maxLen) {
    return { code: 'request-too-long', workloadId: workload.id, longest, maxLen, limit: config.maxModelLen !== undefined ? 'configured' : 'model', model: config.model };
  }
  return null;
}

/** The pre-flight's refusal in English (the words a trial stores as `rejectReason`), or null. */
export function preflight(study: StudyDefinition, trial: Pick<Trial, 'engine' | 'version' | 'config' | 'workloadId'>, ctx: PlanContext): string | null {
  const refusal = preflightRefusal(study, trial, ctx);
  return refusal ? refusalRecord(refusal).rejectReason : null;
}
export { nvlinkWarning, type NvlinkWarning } from './layout-checks';
