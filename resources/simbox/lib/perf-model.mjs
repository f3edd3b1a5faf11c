// The performance model of the simulated box: for an engine/version, a GPU and the server's knobs, how long one
// engine iteration takes for a given batch, how much memory the server holds and how many tokens its KV cache has.
// It is pure (no I/O, no clock): the simulated servers and the calibration tests use the same functions.
// Constants are calibrated so that the relations of the two real reference tuning studies hold (see README, "Calibration").

import { DRAFT_MODELS, isMoe, versionCompare, weightBytes } from './catalog.mjs';
import { parallelLayout } from './parallel.mjs';
import { interconnectOf } from './topology.mjs';

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
 * Mixture-of-experts kernels, calibrated on the GPUStack gpt-oss-120b and Qwen3-235B-A22B H100 studies (README,
 * "Calibration"): `bwEff` / `flopEff`: share of the dense kernels' bandwidth and tensor throughput the grouped expert
 * GEMMs reach; `layerS`: router, top-k and token permutation per MoE layer and step; `epImbalance`: how far the busiest
 * expert-parallel GPU's tokens exceed the mean (times the binomial spread), which the step waits for.
 */
export const MOE_CONSTANTS = {
  bwEff: 1.0,
  flopEff: 0.2,
  layerS: 0.00004,
  epImbalance: 2.0,
  // Popular experts gather on some expert-parallel GPUs: the busiest carries epSkew x sqrt(ep - 1) more than its share
  // at large batches (the Qwen3-235B study: TP4 + EP 5.3% below TP4, FP8 TP8 + EP no faster than BF16 TP8).
  epSkew: 0.1,
  fp8FlopGain: 1.5,
  fp8BwEff: 0.9,
  // TensorRT-LLM's MXFP4 experts on Hopper run at a fraction of the Triton kernels' speed (GPUStack's engine choice
  // for gpt-oss-120b on one H100: TensorRT-LLM 1.0.0 2139 tok/s, vLLM 6095).
  mxfp4EngineEff: { vllm: 1, sglang: 1, trtllm: 0.2 },
  // MXFP4 experts on the GPU take more than in the checkpoint (vLLM's Triton layout): "Model loading took 64.38 GiB"
  // for openai/gpt-oss-120b on one H100 (vllm-project/vllm#33155, v0.14.1), against 60.7 GiB of checkpoint.
  mxfp4Layout: 64.38 / 60.7,
  // Grouped-GEMM workspace and routing buffers per GPU: the MXFP4 (Triton matmul_ogs) path of gpt-oss leaves a single
  // H100 little KV cache (vllm-project/vllm#27508: 1.71 GiB available at --gpu-memory-utilization 0.95).
  mxfp4WorkspaceGiB: { vllm: 2.8, sglang: 2.0 },
  workspaceGiB: 0.5,
  hostSeqShare: 0.1,
  // Routing is not uniform (some experts are popular): a large batch touches the experts `routingSpread` times as
  // many independent tokens would (a few tokens of different sequences route independently).
  routingSpread: 0.5,
  // Pipeline stages idle while micro-batches of unequal length pass (vLLM's batch queue of PP in-flight batches).
  ppEfficiency: 0.88,
};

/**
 * The all-to-all of expert parallelism across ranks, per backend: `bytesPerToken` (hidden-size multiples sent per
 * token and expert copy: dispatch + combine), `latencyS` per call, `mode` 'gather' (every rank receives every token:
 * vLLM's allgather_reducescatter and naive, SGLang's DP-attention gather) or 'a2a' (each token goes to its experts'
 * ranks only: DeepEP, pplx, FlashInfer, Mooncake, mori).
 */
const A2A_BACKENDS = {
  allgather_reducescatter: { mode: 'gather', bytesPerToken: 4, latencyS: 14e-6 },
  naive: { mode: 'gather', bytesPerToken: 6.5, latencyS: 30e-6 },
  none: { mode: 'gather', bytesPerToken: 4, latencyS: 14e-6 },
  deepep_high_throughput: { mode: 'a2a', bytesPerToken: 3, latencyS: 30e-6 },
  deepep_low_latency: { mode: 'a2a', bytesPerToken: 3.6, latencyS: 10e-6 },
  deepep: { mode: 'a2a', bytesPerToken: 3, latencyS: 22e-6 },
  pplx: { mode: 'a2a', bytesPerToken: 3.4, latencyS: 16e-6 },
  flashinfer_all2allv: { mode: 'a2a', bytesPerToken: 4, latencyS: 18e-6 },
  flashinfer: { mode: 'a2a', bytesPerToken: 4, latencyS: 18e-6 },
  mooncake: { mode: 'a2a', bytesPerToken: 4, latencyS: 25e-6 },
  mori: { mode: 'a2a', bytesPerToken: 3.4, latencyS: 16e-6 },
};

/**
 * Normalised server knobs, whatever engine flags they came from (see the engine CLIs):
 * { quantization, kvCacheDtype, cudaGraphMaxBs, disableCudaGraph, attentionBackend, torchCompile, chunkedPrefill,
 *   maxBatchedTokens, maxRunning, maxModelLen, memFraction, tp, pp, dp, dcp, enableEp, epSize, dpAttention, attentionDp,
 *   a2aBackend, spec: {algorithm, draftModel, steps, topk, draftTokens} }
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
    pp: 1,
    dp: 1,
    dcp: 1,
    // vLLM --enable-expert-parallel; SGLang / TensorRT-LLM ep size; SGLang --enable-dp-attention / TensorRT-LLM
    // enable_attention_dp; vLLM --all2all-backend / SGLang --moe-a2a-backend.
    enableEp: false,
    epSize: null,
    dpAttention: false,
    attentionDp: false,
    a2aBackend: null,
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
 * @param {{engine: 'vllm'|'sglang'|'trtllm', version: string, gpu: object, model: object, knobs?: object, freeMiB?: number,
 *   layout?: object, interconnect?: {busGBs: number, latencyS: number}}} input
 *   `freeMiB`: free memory on the least free GPU the server will use (other processes hold the rest); `layout`: the
 *   server's parallel layout (parallel.mjs; from the knobs when absent); `interconnect`: what its GPUs are joined by
 *   (topology.mjs; NVLink when absent). Memory, KV cache and times are per GPU of one rank.
 */
export function buildProfile(input) {
  const { engine, version, gpu, model } = input;
  const knobs = { ...defaultKnobs(), ...(input.knobs ?? {}) };
  const c = ENGINE_CONSTANTS[engine];
  if (!c) throw new Error(`unknown engine ${engine}`);
  const layout = input.layout ?? parallelLayout(engine, version, knobs, model);
  // tp: the GPUs one rank's attention and dense weights are split over; pp: pipeline stages.
  const tp = Math.max(1, layout.attnTp);
  const pp = Math.max(1, layout.pp);
  const moe = isMoe(model);
  const link = input.interconnect ?? interconnectOf({ gpuModel: gpu, topology: 'nvlink', count: 8 }, Array.from({ length: layout.gpus }, (_, i) => i));
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
  // One GPU's share: dense weights over the attention's TP group, experts over their GPUs, layers over the stages.
  const denseWeights = moe ? weightBytes(model, quant, 'dense') / tp / pp : weightBytes(model, quant) / tp / pp;
  // vLLM and SGLang run MXFP4 experts on Hopper with the same Triton kernels (vLLM's mxfp4.py "Using Triton backend";
  // SGLang's "enabling triton_kernels MOE kernel", server_args.py@v0.5.5:988), hence the same layout.
  const tritonMxfp4 = engine !== 'trtllm' && model.expertQuant === 'mxfp4';
  const expertWeights = moe ? (weightBytes(model, quant, 'experts') * (tritonMxfp4 ? MOE_CONSTANTS.mxfp4Layout : 1)) / layout.moeShards / pp : 0;
  const weights = denseWeights + expertWeights;
  const kvElem = knobs.kvCacheDtype && /fp8/.test(knobs.kvCacheDtype) ? 1 : 2;
  // KV heads are replicated when TP exceeds them; decode context parallelism spreads the tokens over dcp GPUs.
  const kvHeadsPerGpu = Math.max(1, model.kvHeads / tp);
  // Sliding-window layers keep their window per sequence, whatever its length, unless the engine gives them a full
  // KV cache: SGLang up to 0.5.7 disables its hybrid SWA memory for GptOssForCausalLM (ServerArgs
  // _handle_model_specific_adjustments, python/sglang/srt/server_args.py@v0.5.5:997; from 0.5.8 only with the
  // trtllm_mha backend, @v0.5.8:1278-1286).
  const hybridSwa = !(engine === 'sglang' && model.arch === 'GptOssForCausalLM' && versionCompare(version, '0.5.8') < 0);
  const slidingLayers = hybridSwa ? (model.slidingLayers ?? 0) / pp : 0;
  const kvPerToken = ((model.layers / pp - slidingLayers) * kvHeadsPerGpu * model.headDim * 2 * kvElem) / layout.dcp;
  const kvPerSeqTokens = slidingLayers > 0 ? Math.ceil(((slidingLayers * kvHeadsPerGpu * model.headDim * 2 * kvElem) / layout.dcp) * (model.slidingWindow + 16) / kvPerToken) : 0;
  // Peak activations of the profiling forward pass grow with the batched-token budget.
  const activationBudgetTokens = knobs.maxBatchedTokens && knobs.maxBatchedTokens > 0 ? knobs.maxBatchedTokens : engine === 'trtllm' ? 8192 : 4096;
  // A mixture-of-experts layer also keeps its routed tokens' intermediate activations (k copies of each token, gate and
  // up halves, in and out) and the grouped GEMMs' workspace.
  const moeActivation = moe ? activationBudgetTokens * model.perToken * ((2 * model.moeIntermediate) / Math.max(1, layout.moeShards / layout.epSize)) * 2 * 3 + (tritonMxfp4 ? MOE_CONSTANTS.mxfp4WorkspaceGiB[engine] : MOE_CONSTANTS.workspaceGiB) * GiB : 0;
  const activationBytes = 0.3 * GiB + activationBudgetTokens * model.hidden * 12 + moeActivation;
  const stageLayers = model.layers / pp;
  const graphBytes = knobs.disableCudaGraph ? 0 : 0.2 * GiB + (stageLayers / 36) * 0.12 * GiB;
  const maxModelLen = knobs.maxModelLen ?? model.maxLen;
  if (knobs.maxModelLen && knobs.maxModelLen > model.maxLen && engine === 'vllm') {
    throw new StartupFailure('max-model-len', `User-specified max_model_len (${knobs.maxModelLen}) is greater than the derived max_model_len (max_position_embeddings=${model.maxLen} or model_max_length=None in model's config.json).`);
  }

  // How each engine sizes its memory pool (vllm/engine/arg_utils.py, python/sglang/srt/server_args.py, tensorrt_llm/llmapi/llm_args.py).
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
    memFraction = knobs.memFraction ?? sglangDefaultMemFraction(gpu, layout.tp);
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
    // With DP attention each rank prefills its share of the chunk (ServerArgs._handle_data_parallelism).
    maxBatchedTokens = chunked ? (layout.dpAttention ? Math.floor(size / layout.dp) : size) : 16384;
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
  // Per GPU of one stage: what every step reads and computes besides the experts.
  // (A mixture-of-experts model's LM head runs on the sampled positions only; the dense models' calibration counts it
  // with every token.)
  const lmHeadParams = moe ? (model.vocab * model.hidden) / tp / pp : 0;
  const activeParams = moe ? (model.activeParams - (model.expertParams * model.perToken) / model.experts) / tp / pp - lmHeadParams : model.params / tp / pp;
  const weightTime = denseWeights / (bw * c.bwEff * quantBwEff);
  const kvReadPerToken = kvPerToken / (bw * c.bwEff);
  const slidingReadPerSeq = slidingLayers > 0 ? (kvPerSeqTokens * kvPerToken) / (bw * c.bwEff) : 0;
  const dAttn = (model.qHeads * model.headDim) / tp;
  const compileGain = knobs.torchCompile ? 1.002 : 1;
  const overlap = engine !== 'vllm' || Boolean(knobs.asyncScheduling);
  // vLLM's --async-scheduling schedules step n+1 while step n runs on the GPU: all of the host work can hide.
  const asyncVllm = engine === 'vllm' && Boolean(knobs.asyncScheduling);
  // Per-sequence host work (input preparation, sampling, detokenising), in sequences' worth of perSeqOverheadS. The
  // A100 reference study's host pays it in full up to its 256-sequence batches; the H100 studies' hosts, where vLLM's
  // async scheduling gains only 3.8% at batches of hundreds (GPUStack gpt-oss-120b, README "Calibration"), pay it
  // in full for 16 sequences (the largest batch of the H100 reference study) and a tenth for each one beyond.
  const hopperHost = gpu.architecture !== 'Ampere';
  const hostSeqs = (batch) => (hopperHost ? (batch <= 16 ? batch : 16 + MOE_CONSTANTS.hostSeqShare * (batch - 16)) : batch <= 256 ? batch : 256 + 0.1 * (batch - 256));
  const allReduce = (bytes, n) => (n > 1 ? link.latencyS + ((2 * (n - 1)) / n) * bytes / (link.busGBs * 1e9) : 0);

  // Experts: a step reads every expert one of its tokens routes to (uniform routing: 1 - (1 - k/E)^tokens of them)
  // and computes k experts per token, split over the expert GPUs; with expert parallelism the busiest GPU gets more
  // than its share of tokens (binomial spread), and the step waits for it.
  const m = MOE_CONSTANTS;
  const expertParamsPerGpu = moe ? (model.expertParams / layout.moeShards / pp) : 0;
  const mxfp4Eff = model.expertQuant === 'mxfp4' ? m.mxfp4EngineEff[engine] : 1;
  const moeBw = bw * c.bwEff * m.bwEff * mxfp4Eff * (quant === 'fp8' && !model.expertQuant ? m.fp8BwEff : 1);
  // Block-scaled FP8 experts gain less than FP8's double tensor throughput in the fused-MoE kernels (scales applied per
  // 128-wide block).
  const moeFlops = gpu.bf16Tflops * 1e12 * archFlopEff * m.flopEff * mxfp4Eff * (quant === 'fp8' && gpu.fp8Tflops ? m.fp8FlopGain : 1);
  const a2a = layout.coupled ? A2A_BACKENDS[layout.a2a ?? 'allgather_reducescatter'] ?? A2A_BACKENDS.allgather_reducescatter : null;
  function expertTime(moeTokens, ownTokens) {
    if (!moe || moeTokens <= 0) return moe ? m.layerS * stageLayers : 0;
    const independent = moeTokens * (m.routingSpread + (1 - m.routingSpread) * (32 / (32 + moeTokens)));
    const touched = 1 - Math.pow(1 - model.perToken / model.experts, independent);
    const ep = layout.epSize;
    const spread = ep > 1 ? 1 + m.epSkew * Math.sqrt(ep - 1) + m.epImbalance * Math.sqrt((ep - 1) / (moeTokens * model.perToken)) : 1;
    const read = (expertWeights * touched * (1 + (spread - 1) * (1 - touched))) / moeBw;
    const compute = (2 * moeTokens * model.perToken * (expertParamsPerGpu / model.experts) * spread * computePenalty) / moeFlops;
    let t = Math.max(read, compute) * compileGain + m.layerS * stageLayers;
    // Ranks that run their experts together exchange tokens in every MoE layer (layout.a2a's backend).
    if (a2a) {
      const n = layout.moeShards;
      const sent = a2a.mode === 'gather' ? moeTokens : ownTokens * model.perToken;
      t += stageLayers * (2 * a2a.latencyS + ((n - 1) / n) * (sent * model.hidden * a2a.bytesPerToken) / (link.busGBs * 1e9));
    }
    return t;
  }

  /** GPU seconds of one stage for a batch; `moeTokens`: tokens the coupled ranks route through the experts together. */
  function gpuStageTime(b, moeTokens) {
    const prefillTokens = b.prefill.reduce((s, p) => s + p.tokens, 0);
    const tokens = b.decodeTokens + prefillTokens;
    const batch = b.decodeSeqs + b.prefill.length;
    const computeTime = (2 * (moe ? activeParams * tokens + lmHeadParams * batch : activeParams * tokens) * computePenalty) / flops;
    let attn = b.decodeCtx * kvReadPerToken * attentionFactor * (b.decodeTokens > b.decodeSeqs ? 1 + 0.04 * (b.decodeTokens / Math.max(1, b.decodeSeqs)) : 1);
    for (const p of b.prefill) {
      const longFactor = p.start + p.tokens > 8192 ? c.longPrefillAttnFactor : 1;
      if (slidingLayers === 0 && pp === 1) attn += ((4 * model.layers * dAttn * p.tokens * (p.start + p.tokens / 2)) / attnFlops) * attentionFactor * longFactor;
      else {
        const mid = p.start + p.tokens / 2;
        const layerCtx = (stageLayers - slidingLayers) * mid + slidingLayers * Math.min(mid, model.slidingWindow ?? mid);
        attn += ((4 * layerCtx * dAttn * p.tokens) / attnFlops) * attentionFactor * longFactor;
      }
    }
    if (slidingReadPerSeq > 0) attn += b.decodeSeqs * slidingReadPerSeq * attentionFactor;
    const graphed = prefillTokens === 0 && batch <= cudaGraphMaxBs;
    let gpuTime = Math.max(weightTime, computeTime) * compileGain + attn;
    if (moe) gpuTime += expertTime(moeTokens ?? tokens, tokens);
    // Tensor parallelism: two all-reduces of the hidden states per layer (after attention, after the MLP).
    if (tp > 1) gpuTime += stageLayers * 2 * allReduce(tokens * model.hidden * 2, tp);
    // Decode context parallelism: each decode's partial attention and its softmax LSE are gathered per layer.
    if (layout.dcp > 1 && b.decodeSeqs > 0) gpuTime += stageLayers * allReduce(b.decodeSeqs * dAttn * 2, layout.dcp);
    if (!graphed) gpuTime += (prefillTokens > 0 ? c.mixedPenaltyPerLayerS : c.eagerPenaltyPerLayerS) * stageLayers;
    // Verifying a draft tree: tree attention masks and rejection sampling per verified token.
    if (b.decodeTokens > b.decodeSeqs) gpuTime += 2.5e-5 * b.decodeTokens;
    return gpuTime;
  }

  /**
   * Seconds for one engine iteration (every running sequence advances once).
   * @param {{decodeSeqs: number, decodeTokens: number, decodeCtx: number, prefill: {tokens: number, start: number}[]}} b
   *   decodeSeqs: sequences decoding; decodeTokens: query tokens they carry (1 each, or the verified draft tree);
   *   decodeCtx: sum of their context lengths; prefill: chunks scheduled this step with their start positions.
   * @param {number} [moeTokens] tokens all coupled ranks send through the experts this step (default: this batch's).
   */
  function stepTime(b, moeTokens) {
    const prefillTokens = b.prefill.reduce((s, p) => s + p.tokens, 0);
    const batch = b.decodeSeqs + b.prefill.length;
    let gpuTime;
    let overhead;
    if (pp === 1) {
      gpuTime = gpuStageTime(b, moeTokens);
      overhead = c.stepOverheadS;
    } else {
      // Pipeline: the batch runs as pp micro-batches, each through every stage; a stage holds one micro-batch at a
      // time, so a step lasts pp stage times of one micro-batch (the pipeline is full when there are pp of them,
      // and a lone micro-batch still crosses every stage), plus the hidden states sent to the next stage.
      const part = { decodeSeqs: b.decodeSeqs / pp, decodeTokens: b.decodeTokens / pp, decodeCtx: b.decodeCtx / pp, prefill: b.prefill.map((x) => ({ tokens: x.tokens / pp, start: x.start })) };
      const partTokens = (b.decodeTokens + prefillTokens) / pp;
      const send = link.latencyS + (partTokens * model.hidden * 2) / (link.busGBs * 1e9);
      gpuTime = (pp * (gpuStageTime(part, moeTokens === undefined ? undefined : moeTokens / pp) + send)) / MOE_CONSTANTS.ppEfficiency;
      overhead = pp * c.stepOverheadS;
    }
    let hostTime = c.perSeqOverheadS * hostSeqs(batch);
    // Admitting new prompts costs the engine loop input processing (seen as ITL spikes).
    const admitted = b.prefill.filter((x) => x.start === 0).length;
    if (admitted > 0) hostTime += c.prefillStepPenaltyS + c.perNewRequestS * admitted;
    // With an overlap scheduler (SGLang, TensorRT-LLM, vLLM --async-scheduling) host-side work hides behind long
    // GPU iterations and only what does not fit shows; vLLM's default loop runs it in series. Launch/sync always shows.
    const visibleHost = overlap ? Math.max(hostTime - (asyncVllm ? 1 : 0.5) * gpuTime, 0.25 * hostTime) : hostTime;
    return overhead + gpuTime + visibleHost;
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
    layout,
    interconnect: link,
    // Scheduler ranks behind the endpoint (engine-core.mjs's DpEngine runs one scheduler each).
    ranks: layout.ranks,
    weightsGiB: weights / GiB,
    kvCacheGiB: kvBytes / GiB,
    kvTokens,
    kvBytesPerToken: kvPerToken,
    // KV cache a sequence holds whatever its length (the sliding-window layers' window), in tokens of kvPerToken.
    kvPerSeqTokens,
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
    startup: startupPhases(engine, model, weights, knobs, spec, layout),
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
function startupPhases(engine, model, weights, knobs, spec, layout) {
  const weightsGiB = weights / GiB;
  const load = 2.5 + weightsGiB * 0.22;
  const compile = engine === 'vllm' ? (knobs.disableCudaGraph ? 0 : 14 + model.layers * 0.12) : knobs.torchCompile ? 45 + model.layers * 0.8 : 0;
  const graphs = knobs.disableCudaGraph ? 0 : engine === 'sglang' ? 9 + model.layers * 0.08 : engine === 'vllm' ? 6 + model.layers * 0.05 : 11;
  const warmup = engine === 'sglang' ? 1.2 : engine === 'trtllm' ? 18 + model.layers * 0.25 : 2.5;
  // Several GPUs: one worker process per GPU and NCCL's communicators to set up.
  const multi = layout.gpus > 1 ? 5 + layout.gpus : 0;
  const process = (engine === 'vllm' ? 9 : engine === 'sglang' ? 11 : 14) + multi;
  return { process, load, compile, graphs, warmup, spec: spec ? 4 : 0 };
}

/** Total seconds from launch to ready, in real-GPU units. */
export function startupSeconds(profile) {
  const s = profile.startup;
  return s.process + s.load + s.compile + s.graphs + s.warmup + s.spec;
}

export { versionCompare };
