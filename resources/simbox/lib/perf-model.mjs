// The performance model of the simulated box: for an engine/version, a GPU and the server's knobs, how long one
// engine iteration takes for a given batch, how much memory the server holds and how many tokens its KV cache has.
// It is pure (no I/O, no clock): the simulated servers and the calibration tests use the same functions.
// Constants are calibrated so that the relations of the two real reference tuning studies hold (see README, "Calibration").

import { DRAFT_MODELS, kvBytesPerToken, versionCompare, weightBytes } from './catalog.mjs';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/**
 * Per-engine behaviour. `bwEff`/`flopEff`: fraction of the GPU's peak memory bandwidth / tensor throughput that
 * the engine's kernels reach; `stepOverheadS` + `perSeqOverheadS`: CPU and launch cost of one iteration;
 * `eagerPenaltyPerLayerS`: extra launch cost per layer when a step runs outside CUDA graphs; `ttftOverheadS`:
 * request handling before the first iteration (tokenisation, chat template, IPC).
 */
export const ENGINE_CONSTANTS = {
  vllm: {
    bwEff: 0.86,
    flopEff: 1.0,
    attnEff: 0.55,
    stepOverheadS: 0.00095,
    perSeqOverheadS: 0.0001,
    eagerPenaltyPerLayerS: 0.00004,
    mixedPenaltyPerLayerS: 0.000012,
    ttftOverheadS: 0.026,
    prefillStepPenaltyS: 0.02,
    perNewRequestS: 0.003,
    fp8BwEff: 0.645,
    awqBwEff: 0.6,
    quantComputePenalty: { fp8_sm80: 1.8, awq: 1.52 },
    longPrefillAttnFactor: 1.0,
  },
  sglang: {
    bwEff: 0.82,
    flopEff: 0.96,
    attnEff: 0.55,
    stepOverheadS: 0.00075,
    perSeqOverheadS: 0.000006,
    eagerPenaltyPerLayerS: 0.00004,
    mixedPenaltyPerLayerS: 0.000012,
    ttftOverheadS: 0.019,
    prefillStepPenaltyS: 0.017,
    perNewRequestS: 0.0005,
    fp8BwEff: 0.645,
    awqBwEff: 0.6,
    quantComputePenalty: { fp8_sm80: 1.8, awq: 1.52 },
    longPrefillAttnFactor: 1.05,
  },
  trtllm: {
    bwEff: 0.86,
    flopEff: 1.12,
    attnEff: 0.5,
    stepOverheadS: 0.0017,
    perSeqOverheadS: 0.0000045,
    eagerPenaltyPerLayerS: 0.00003,
    mixedPenaltyPerLayerS: 0.000008,
    ttftOverheadS: 0.03,
    prefillStepPenaltyS: 0.017,
    perNewRequestS: 0.0006,
    fp8BwEff: 0.645,
    awqBwEff: 0.6,
    quantComputePenalty: { fp8_sm80: 1.8, awq: 1.52 },
    // Chunked context attention re-reads the whole earlier context for every chunk: costly at 32K inputs.
    longPrefillAttnFactor: 1.55,
  },
};

/** Attention-kernel speed factors (time multipliers) by backend name, engine-specific where it matters. */
const ATTENTION_FACTORS = {
  default: 1.0,
  fa3: 1.0,
  flash_attn: 1.0,
  flashinfer: 1.0,
  triton: 1.18,
  triton_attn: 1.18,
  torch_native: 2.4,
  flex_attention: 1.5,
  trtllm_mha: 1.0,
  trtllm: 1.0,
  xformers: 1.25,
};

/**
 * Normalised server knobs, whatever engine flags they came from (see the engine CLIs):
 * { quantization, kvCacheDtype, cudaGraphMaxBs, disableCudaGraph, attentionBackend, torchCompile, chunkedPrefill,
 *   maxBatchedTokens, maxRunning, maxModelLen, memFraction, tp, spec: {algorithm, draftModel, steps, topk, draftTokens} }
 */
export function defaultKnobs() {
  return {
    quantization: null,
    kvCacheDtype: 'auto',
    cudaGraphMaxBs: null,
    disableCudaGraph: false,
    attentionBackend: null,
    torchCompile: false,
    chunkedPrefill: null,
    maxBatchedTokens: null,
    maxRunning: null,
    maxModelLen: null,
    memFraction: null,
    tp: 1,
    spec: null,
    asyncScheduling: false,
  };
}

/** Thrown by buildProfile when the configuration cannot start; `kind` says which real failure it imitates. */
export class StartupFailure extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.kind = kind;
    this.details = details;
  }
}

/**
 * Everything the simulated server needs about one configuration.
 * @param {{engine: 'vllm'|'sglang'|'trtllm', version: string, gpu: object, model: object, knobs?: object, freeMiB?: number}} input
 *   `freeMiB`: free memory on the least free GPU the server will use (other processes hold the rest).
 */
export function buildProfile(input) {
  const { engine, version, gpu, model } = input;
  const knobs = { ...defaultKnobs(), ...(input.knobs ?? {}) };
  const c = ENGINE_CONSTANTS[engine];
  if (!c) throw new Error(`unknown engine ${engine}`);
  const tp = Math.max(1, knobs.tp ?? 1);
  const sm = Number(gpu.computeCap);

  const quant = effectiveQuant(model, knobs.quantization);
  if (engine === 'trtllm' && model.quant === 'fp8' && sm < 8.9) {
    throw new StartupFailure('unsupported-sm-fp8', 'Unsupported SM version for FP8 block scaling GEMM');
  }
  if (engine === 'trtllm' && model.quant === 'awq') {
    throw new StartupFailure('trtllm-awq-weight', "'weight'");
  }
  if (quant === 'fp8' && sm < 8.0) throw new StartupFailure('unsupported-sm-fp8', 'FP8 needs compute capability 8.0 or newer');

  const totalBytes = gpu.memoryMiB * MiB;
  const freeBytes = (input.freeMiB ?? gpu.memoryMiB - gpu.reservedMiB) * MiB;
  const weights = weightBytes(model, quant) / tp;
  const kvElem = knobs.kvCacheDtype && /fp8/.test(knobs.kvCacheDtype) ? 1 : 2;
  const kvPerToken = kvBytesPerToken(model, kvElem) / tp;
  // Peak activations of the profiling forward pass grow with the batched-token budget.
  const activationBudgetTokens = knobs.maxBatchedTokens && knobs.maxBatchedTokens > 0 ? knobs.maxBatchedTokens : engine === 'trtllm' ? 8192 : 4096;
  const activationBytes = 0.3 * GiB + activationBudgetTokens * model.hidden * 12;
  const graphBytes = knobs.disableCudaGraph ? 0 : 0.2 * GiB + (model.layers / 36) * 0.12 * GiB;
  const maxModelLen = knobs.maxModelLen ?? model.maxLen;
  if (knobs.maxModelLen && knobs.maxModelLen > model.maxLen && engine === 'vllm') {
    throw new StartupFailure('max-model-len', `User-specified max_model_len (${knobs.maxModelLen}) is greater than the derived max_model_len (max_position_embeddings=${model.maxLen} or model_max_length=None in model's config.json).`);
  }

  // How each engine sizes its memory pool (engines.md §1.6, §2.1, §3.1).
  let budgetBytes;
  let memFraction;
  if (engine === 'vllm') {
    memFraction = knobs.memFraction ?? 0.9;
    budgetBytes = memFraction * totalBytes;
    if (freeBytes < budgetBytes) {
      throw new StartupFailure('free-memory', 'free memory below utilization', {
        freeGiB: freeBytes / GiB,
        totalGiB: totalBytes / GiB,
        util: memFraction,
        wantGiB: budgetBytes / GiB,
      });
    }
  } else if (engine === 'sglang') {
    memFraction = knobs.memFraction ?? sglangDefaultMemFraction(gpu, tp);
    budgetBytes = memFraction * totalBytes;
    if (freeBytes < budgetBytes + 1.5 * GiB) {
      throw new StartupFailure('oom', 'not enough memory', { wantGiB: budgetBytes / GiB, freeGiB: freeBytes / GiB, totalGiB: totalBytes / GiB });
    }
  } else {
    memFraction = knobs.memFraction ?? 0.9;
    budgetBytes = null;
  }

  if (weights + activationBytes > (budgetBytes ?? freeBytes)) {
    throw new StartupFailure('oom', 'weights do not fit', {
      tryAllocateGiB: Math.min(weights, 2.5 * GiB) / GiB,
      totalGiB: totalBytes / GiB,
      freeGiB: Math.max(0, freeBytes - (budgetBytes ?? freeBytes) + 0.4 * GiB) / GiB,
      inUseGiB: Math.min(weights + activationBytes, freeBytes) / GiB,
    });
  }

  let kvBytes;
  // TensorRT-LLM sizes its KV pool from what is free after the weights and its runtime buffers, which are
  // sized for max_num_tokens and max_batch_size rather than measured.
  if (engine === 'trtllm') kvBytes = memFraction * (freeBytes - weights - activationBytes * 3.2 - graphBytes - 3.6 * GiB);
  // vLLM also keeps the torch.compile/CUDA-graph pools and the sampler's logits buffers for max_num_seqs.
  else kvBytes = budgetBytes - weights - activationBytes - graphBytes - (engine === 'vllm' ? 1.4 * GiB : 0);
  // Speculative decoding keeps the draft head and its own KV cache.
  const spec = resolveSpec(engine, knobs.spec, model);
  if (spec) kvBytes -= spec.draftParams * 2 / tp + 0.06 * kvBytes;
  if (kvBytes <= 0) throw new StartupFailure('kv-none', 'No available memory for the cache blocks.', { availableGiB: kvBytes / GiB });
  const kvTokens = Math.floor(kvBytes / kvPerToken / 16) * 16;
  if (engine === 'vllm' && kvTokens < maxModelLen) {
    const estimated = Math.floor(kvTokens / 16) * 16;
    throw new StartupFailure('kv-too-small', 'KV cache too small for max_model_len', {
      maxModelLen,
      neededGiB: (maxModelLen * kvPerToken) / GiB,
      availableGiB: kvBytes / GiB,
      estimated,
    });
  }

  const heldBytes = engine === 'trtllm' ? weights + activationBytes + graphBytes + kvBytes + 0.5 * GiB : budgetBytes + (engine === 'sglang' ? 1.1 * GiB : 0.45 * GiB);

  // Scheduler limits and their engine defaults.
  const bigGpu = gpu.memoryMiB >= 70 * 1024 && !/a100/i.test(gpu.name);
  let maxBatchedTokens;
  let chunked;
  let maxRunning;
  if (engine === 'vllm') {
    chunked = true; // V1 forces chunked prefill for generative models
    maxBatchedTokens = knobs.maxBatchedTokens ?? (bigGpu ? 8192 : 2048);
    maxRunning = knobs.maxRunning ?? (bigGpu ? 1024 : 256);
  } else if (engine === 'sglang') {
    const size = knobs.maxBatchedTokens ?? (gpu.memoryMiB >= 120 * 1024 ? 16384 : sm >= 9 ? 8192 : 4096);
    chunked = size !== -1;
    maxBatchedTokens = chunked ? size : 16384;
    maxRunning = knobs.maxRunning ?? (sm >= 9 ? 4096 : 2048);
  } else {
    chunked = Boolean(knobs.chunkedPrefill);
    maxBatchedTokens = knobs.maxBatchedTokens ?? 8192;
    maxRunning = knobs.maxRunning ?? 2048;
  }
  maxRunning = Math.min(maxRunning, Math.max(1, Math.floor(kvTokens / 32)));

  const cudaGraphMaxBs = knobs.disableCudaGraph ? 0 : knobs.cudaGraphMaxBs ?? defaultCudaGraphMaxBs(engine, gpu, maxRunning);

  const attention = (knobs.attentionBackend ?? 'default').toLowerCase();
  const attentionFactor = ATTENTION_FACTORS[attention] ?? 1.1;

  const peakFlops = (quant === 'fp8' && gpu.fp8Tflops ? gpu.fp8Tflops : gpu.bf16Tflops) * 1e12;
  // Large GEMMs reach ~78% of peak on A100 and ~62% on H100/H200 (their peak is harder to feed); engines scale that.
  const archFlopEff = gpu.architecture === 'Ampere' ? 0.78 : 0.62;
  const flops = peakFlops * archFlopEff * c.flopEff;
  const attnFlops = gpu.bf16Tflops * 1e12 * c.attnEff;
  const bw = gpu.memBandwidthGBs * 1e9;
  const quantBwEff = quant === 'fp8' ? c.fp8BwEff / c.bwEff : quant === 'awq' ? c.awqBwEff / c.bwEff : 1;
  const computePenalty = quant === 'fp8' && !gpu.fp8Tflops ? c.quantComputePenalty.fp8_sm80 : quant === 'awq' ? c.quantComputePenalty.awq : 1;
  const activeParams = model.params / tp;
  const weightTime = weights / (bw * c.bwEff * quantBwEff);
  const kvReadPerToken = kvPerToken / (bw * c.bwEff);
  const dAttn = (model.qHeads * model.headDim) / tp;
  const commPerStep = tp > 1 ? model.layers * 2 * 9e-6 : 0;
  const commPerToken = tp > 1 ? (model.layers * 2 * model.hidden * 2) / 300e9 : 0;
  const compileGain = knobs.torchCompile ? 1.002 : 1;
  const overlap = engine !== 'vllm' || Boolean(knobs.asyncScheduling);

  /**
   * Seconds for one engine iteration.
   * @param {{decodeSeqs: number, decodeTokens: number, decodeCtx: number, prefill: {tokens: number, start: number}[]}} b
   *   decodeSeqs: sequences decoding; decodeTokens: query tokens they carry (1 each, or the verified draft tree);
   *   decodeCtx: sum of their context lengths; prefill: chunks scheduled this step with their start positions.
   */
  function stepTime(b) {
    const prefillTokens = b.prefill.reduce((s, p) => s + p.tokens, 0);
    const tokens = b.decodeTokens + prefillTokens;
    const batch = b.decodeSeqs + b.prefill.length;
    const computeTime = (2 * activeParams * tokens * computePenalty) / flops;
    let attn = b.decodeCtx * kvReadPerToken * attentionFactor * (b.decodeTokens > b.decodeSeqs ? 1 + 0.04 * (b.decodeTokens / Math.max(1, b.decodeSeqs)) : 1);
    for (const p of b.prefill) {
      const longFactor = p.start + p.tokens > 8192 ? c.longPrefillAttnFactor : 1;
      attn += ((4 * model.layers * dAttn * p.tokens * (p.start + p.tokens / 2)) / attnFlops) * attentionFactor * longFactor;
    }
    const graphed = prefillTokens === 0 && batch <= cudaGraphMaxBs;
    let gpuTime = Math.max(weightTime, computeTime) * compileGain + attn + commPerStep + commPerToken * tokens;
    if (!graphed) gpuTime += (prefillTokens > 0 ? c.mixedPenaltyPerLayerS : c.eagerPenaltyPerLayerS) * model.layers;
    // Verifying a draft tree: tree attention masks and rejection sampling per verified token.
    if (b.decodeTokens > b.decodeSeqs) gpuTime += 2.5e-5 * b.decodeTokens;
    let hostTime = c.perSeqOverheadS * batch;
    // Admitting new prompts costs the engine loop input processing (seen as ITL spikes).
    const admitted = b.prefill.filter((x) => x.start === 0).length;
    if (admitted > 0) hostTime += c.prefillStepPenaltyS + c.perNewRequestS * admitted;
    // With an overlap scheduler (SGLang, TensorRT-LLM, vLLM --async-scheduling) host-side work hides behind long
    // GPU iterations and only what does not fit shows; vLLM's default loop runs it in series. Launch/sync always shows.
    const visibleHost = overlap ? Math.max(hostTime - 0.5 * gpuTime, 0.25 * hostTime) : hostTime;
    return c.stepOverheadS + gpuTime + visibleHost;
  }

  /** Extra seconds one speculative iteration spends drafting, on top of the verify pass (stepTime with the tree). */
  function draftTime(seqs) {
    if (!spec) return 0;
    const perDraftStep = 0.00045 + (spec.draftParams * 2) / (bw * c.bwEff) + seqs * spec.topk * 2.2e-6 + (spec.topk - 1) * 0.00006;
    return spec.steps * perDraftStep + 0.0002 * spec.topk;
  }

  return {
    engine,
    version,
    gpu,
    model,
    knobs,
    quant,
    tp,
    weightsGiB: weights / GiB,
    kvCacheGiB: kvBytes / GiB,
    kvTokens,
    kvBytesPerToken: kvPerToken,
    heldMiB: Math.round(heldBytes / MiB),
    memFraction,
    maxModelLen,
    maxBatchedTokens,
    chunkedPrefill: chunked,
    // vLLM and TensorRT-LLM put prefill chunks and decodes into one iteration; SGLang runs prefill batches apart.
    mixedBatches: engine !== 'sglang',
    // SGLang reserves room for future output tokens before admitting a request.
    admissionReserveRatio: engine === 'sglang' ? 0.7 : engine === 'trtllm' ? 0.8 : 0,
    maxRunning,
    cudaGraphMaxBs,
    attentionBackend: attention,
    spec,
    stepTime,
    draftTime,
    ttftOverheadS: c.ttftOverheadS,
    // FlashInfer JIT-compiles kernels the first time a new batch shape prefills: one long stall (stage 4 of the reference latency study).
    firstPrefillStallS: engine === 'sglang' && attention === 'flashinfer' ? 5.45 : 0,
    startup: startupPhases(engine, model, weights, knobs, spec),
  };
}

function effectiveQuant(model, flag) {
  if (model.quant) return model.quant;
  if (!flag || flag === 'None') return null;
  if (/fp8/.test(flag)) return 'fp8';
  if (/awq|gptq|int4|w4/.test(flag)) return 'awq';
  return null;
}

function sglangDefaultMemFraction(gpu, tp) {
  // SGLang sizes the static pool from GPU memory; larger GPUs keep a smaller fraction back.
  const gib = gpu.memoryMiB / 1024;
  if (gib > 120) return tp >= 4 ? 0.85 : 0.86;
  if (gib > 60) return tp >= 4 ? 0.86 : 0.852;
  return 0.8;
}

function defaultCudaGraphMaxBs(engine, gpu, maxRunning) {
  if (engine === 'vllm') return Math.min(512, maxRunning);
  if (engine === 'sglang') return gpu.memoryMiB >= 70 * 1024 ? 256 : 160;
  return 128;
}

/**
 * Speculative decoding parameters normalised across engines, with the expected number of tokens each
 * iteration yields. Acceptance at tree depth d with b candidates per level: 1 - (1 - a·0.9^(d-1))^(b^0.5).
 */
export function resolveSpec(engine, spec, model) {
  if (!spec || !spec.algorithm) return null;
  const algorithm = String(spec.algorithm).toUpperCase();
  if (!/EAGLE/.test(algorithm)) return { algorithm, steps: 1, topk: 1, draftTokens: 2, acceptance: 0.35, draftParams: 0, expectedAccept: 1.3, depthAcceptance: [0.3] };
  const draft = DRAFT_MODELS[spec.draftModel] ?? null;
  let acceptance = draft ? draft.acceptance : 0.5;
  if (algorithm === 'EAGLE') acceptance *= 0.85;
  if (draft && model && draft.target !== model.baseId) acceptance *= 0.3;
  // Engine defaults when the user leaves the tree unspecified (SGLang chooses a small chain).
  const steps = spec.steps ?? (engine === 'sglang' ? 3 : engine === 'vllm' ? 3 : 3);
  const topk = spec.topk ?? 1;
  const draftTokens = spec.draftTokens ?? (topk === 1 ? steps + 1 : Math.min(steps * topk + 1, 64));
  const perLevel = Math.max(1, Math.min(topk, (draftTokens - 1) / steps));
  const width = Math.pow(perLevel, 0.5);
  const depthAcceptance = [];
  let expected = 1;
  let chain = 1;
  for (let d = 1; d <= steps; d++) {
    const a = acceptance * Math.pow(0.9, d - 1);
    const q = 1 - Math.pow(1 - a, width);
    depthAcceptance.push(q);
    chain *= q;
    expected += chain;
  }
  return { algorithm, draftModel: spec.draftModel ?? null, steps, topk, draftTokens, acceptance, draftParams: draft?.params ?? 0.4e9, expectedAccept: expected, depthAcceptance };
}

/** Seconds of each startup phase, for the log lines and readiness timing (real-GPU units). */
function startupPhases(engine, model, weights, knobs, spec) {
  const weightsGiB = weights / GiB;
  const load = 2.5 + weightsGiB * 0.22;
  const compile = engine === 'vllm' ? (knobs.disableCudaGraph ? 0 : 14 + model.layers * 0.12) : knobs.torchCompile ? 45 + model.layers * 0.8 : 0;
  const graphs = knobs.disableCudaGraph ? 0 : engine === 'sglang' ? 9 + model.layers * 0.08 : engine === 'vllm' ? 6 + model.layers * 0.05 : 11;
  const warmup = engine === 'sglang' ? 1.2 : engine === 'trtllm' ? 18 + model.layers * 0.25 : 2.5;
  const process = engine === 'vllm' ? 9 : engine === 'sglang' ? 11 : 14;
  return { process, load, compile, graphs, warmup, spec: spec ? 4 : 0 };
}

/** Total seconds from launch to ready, in real-GPU units. */
export function startupSeconds(profile) {
  const s = profile.startup;
  return s.process + s.load + s.compile + s.graphs + s.warmup + s.spec;
}

export { versionCompare };
