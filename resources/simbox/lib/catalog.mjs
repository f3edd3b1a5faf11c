// What the simulated box knows about: GPU models (consistent with the real H200 captures), models it can "serve",
// EAGLE3 draft heads, and the engine versions its simulated package index offers.

import { tableVersions } from './flag-tables.mjs';
import { versionCompare } from './version.mjs';

export { versionCompare };

/** GPU models. H200 values are those of the real captures; H100/A100 follow the same formats with their own specs. */
export const GPU_MODELS = {
  h200: {
    key: 'h200',
    name: 'NVIDIA H200',
    memoryMiB: 143771,
    reservedMiB: 615,
    computeCap: '9.0',
    architecture: 'Hopper',
    powerLimitW: 700,
    idlePowerW: 120.68,
    busyPowerW: 512.4,
    idleTempC: 35,
    maxSmClockMHz: 1980,
    memBandwidthGBs: 4800,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    pciDeviceId: '233510DE',
  },
  h100: {
    key: 'h100',
    name: 'NVIDIA H100 80GB HBM3',
    memoryMiB: 81559,
    reservedMiB: 527,
    computeCap: '9.0',
    architecture: 'Hopper',
    powerLimitW: 700,
    idlePowerW: 71.42,
    busyPowerW: 498.7,
    idleTempC: 33,
    maxSmClockMHz: 1980,
    memBandwidthGBs: 3350,
    bf16Tflops: 989,
    fp8Tflops: 1979,
    pciDeviceId: '233010DE',
  },
  a100: {
    key: 'a100',
    name: 'NVIDIA A100-SXM4-80GB',
    memoryMiB: 81920,
    reservedMiB: 869,
    computeCap: '8.0',
    architecture: 'Ampere',
    powerLimitW: 400,
    idlePowerW: 62.37,
    busyPowerW: 318.9,
    idleTempC: 31,
    maxSmClockMHz: 1410,
    memBandwidthGBs: 2039,
    bf16Tflops: 312,
    fp8Tflops: null,
    pciDeviceId: '20B210DE',
  },
};

/** Accepts `h100`, `H100`, `NVIDIA H100 80GB HBM3`, `a100-sxm4-80gb`… */
export function resolveGpuModel(name) {
  const key = String(name ?? '').toLowerCase();
  if (GPU_MODELS[key]) return GPU_MODELS[key];
  for (const model of Object.values(GPU_MODELS)) {
    if (key.includes(model.key) || model.name.toLowerCase() === key) return model;
  }
  return null;
}

export const DRIVER_VERSION = '580.159.04';
export const CUDA_VERSION = '13.0';

// Dense models: num_hidden_layers (layers), num_attention_heads (qHeads), num_key_value_heads (kvHeads), head_dim,
// hidden_size (hidden), intermediate_size (intermediate), vocab_size and max_position_embeddings (maxLen) of each
// repository's config.json on the Hugging Face Hub (huggingface.co/<id>/blob/main/config.json). The engines check
// tensor parallelism against the heads and, for block-quantised FP8, the MLP width (see parallel.mjs).
const QWEN3 = { arch: 'Qwen3ForCausalLM', vocab: 151936, maxLen: 40960, headDim: 128, kvHeads: 8 };

/**
 * Mixture-of-experts models: the config.json facts above plus `experts` (num_local_experts / num_experts), `perToken`
 * (num_experts_per_tok), `moeIntermediate` (each expert's MLP width: moe_intermediate_size, or intermediate_size for
 * gpt-oss), `expertParams` (all experts of all layers: 3 × hidden × moeIntermediate per expert and layer, plus
 * gpt-oss's biases), `activeParams` (what one token reads: the published count), `slidingLayers` /
 * `slidingWindow` (layers whose KV cache keeps only the last `slidingWindow` tokens) and `expertQuant` (the expert
 * weights' own format when the checkpoint mixes formats).
 */
const GPT_OSS = {
  arch: 'GptOssForCausalLM',
  vocab: 201088,
  maxLen: 131072,
  headDim: 64,
  qHeads: 64,
  kvHeads: 8,
  hidden: 2880,
  intermediate: 2880,
  moeIntermediate: 2880,
  perToken: 4,
  slidingWindow: 128,
  // Experts in MXFP4 (4-bit values, one 8-bit scale per 32: 4.25 bits); attention, router, embeddings and LM head
  // stay BF16 (quantization_config: quant_method mxfp4, modules_to_not_convert).
  expertQuant: 'mxfp4',
  quant: 'mxfp4',
};

const QWEN3_MOE = { arch: 'Qwen3MoeForCausalLM', vocab: 151936, headDim: 128, kvHeads: 4, perToken: 8, experts: 128 };

/** Base models; `-FP8` / `-AWQ` variants are derived from them (see resolveModel). */
const BASE_MODELS = {
  'Qwen/Qwen3-0.6B': { ...QWEN3, params: 0.6e9, layers: 28, qHeads: 16, hidden: 1024, intermediate: 3072 },
  'Qwen/Qwen3-1.7B': { ...QWEN3, params: 1.7e9, layers: 28, qHeads: 16, hidden: 2048, intermediate: 6144 },
  'Qwen/Qwen3-4B': { ...QWEN3, params: 4.02e9, layers: 36, qHeads: 32, hidden: 2560, intermediate: 9728 },
  'Qwen/Qwen3-8B': { ...QWEN3, params: 8.19e9, layers: 36, qHeads: 32, hidden: 4096, intermediate: 12288 },
  'Qwen/Qwen3-14B': { ...QWEN3, params: 14.77e9, layers: 40, qHeads: 40, hidden: 5120, intermediate: 17408 },
  'Qwen/Qwen3-32B': { ...QWEN3, params: 32.76e9, layers: 64, qHeads: 64, hidden: 5120, intermediate: 25600 },
  'meta-llama/Llama-3.1-8B-Instruct': {
    arch: 'LlamaForCausalLM', vocab: 128256, maxLen: 131072, headDim: 128, kvHeads: 8, params: 8.03e9, layers: 32, qHeads: 32, hidden: 4096, intermediate: 14336, gated: true,
  },
  'meta-llama/Llama-3.1-70B-Instruct': {
    arch: 'LlamaForCausalLM', vocab: 128256, maxLen: 131072, headDim: 128, kvHeads: 8, params: 70.55e9, layers: 80, qHeads: 64, hidden: 8192, intermediate: 28672, gated: true,
  },
  // huggingface.co/openai/gpt-oss-120b config.json (num_hidden_layers 36, num_local_experts 128, experts_per_token 4,
  // layer_types alternating sliding_attention / full_attention, sliding_window 128); the same dimensions are in vLLM's
  // tests/kernels/moe/test_gpt_oss_triton_kernels.py@v0.11.1 ModelConfig. 116.83B parameters, 5.13B active: the gpt-oss
  // model card (OpenAI, August 2025), table 1.
  'openai/gpt-oss-120b': { ...GPT_OSS, layers: 36, slidingLayers: 18, experts: 128, params: 116.83e9, activeParams: 5.13e9, expertParams: 36 * 128 * (3 * 2880 * 2880 + 3 * 2880) },
  // huggingface.co/openai/gpt-oss-20b config.json (num_hidden_layers 24, num_local_experts 32); 20.91B parameters,
  // 3.61B active (model card, table 1).
  'openai/gpt-oss-20b': { ...GPT_OSS, layers: 24, slidingLayers: 12, experts: 32, params: 20.91e9, activeParams: 3.61e9, expertParams: 24 * 32 * (3 * 2880 * 2880 + 3 * 2880) },
  // huggingface.co/Qwen/Qwen3-30B-A3B config.json (hidden_size 2048, num_hidden_layers 48, num_attention_heads 32,
  // num_key_value_heads 4, moe_intermediate_size 768, num_experts 128, num_experts_per_tok 8,
  // max_position_embeddings 40960); 30.5B parameters, 3.3B activated (its model card).
  'Qwen/Qwen3-30B-A3B': { ...QWEN3_MOE, maxLen: 40960, layers: 48, qHeads: 32, hidden: 2048, intermediate: 6144, moeIntermediate: 768, params: 30.5e9, activeParams: 3.3e9, expertParams: 48 * 128 * 3 * 2048 * 768 },
  // huggingface.co/Qwen/Qwen3-235B-A22B-Instruct-2507 config.json (hidden_size 4096, num_hidden_layers 94,
  // num_attention_heads 64, num_key_value_heads 4, moe_intermediate_size 1536, num_experts 128, num_experts_per_tok 8,
  // max_position_embeddings 262144); 235B parameters, 22B activated (its model card).
  'Qwen/Qwen3-235B-A22B-Instruct-2507': { ...QWEN3_MOE, maxLen: 262144, layers: 94, qHeads: 64, hidden: 4096, intermediate: 12288, moeIntermediate: 1536, params: 235e9, activeParams: 22e9, expertParams: 94 * 128 * 3 * 4096 * 1536 },
};

/** Which quantised checkpoints exist for which base models. */
const VARIANTS = {
  'Qwen/Qwen3-0.6B': ['FP8'],
  'Qwen/Qwen3-1.7B': ['FP8'],
  'Qwen/Qwen3-4B': ['FP8', 'AWQ'],
  'Qwen/Qwen3-8B': ['FP8', 'AWQ'],
  'Qwen/Qwen3-14B': ['FP8', 'AWQ'],
  'Qwen/Qwen3-32B': ['FP8', 'AWQ'],
  // Block-quantised FP8 (weight_block_size [128, 128]) like the dense ones.
  'Qwen/Qwen3-30B-A3B': ['FP8'],
  'Qwen/Qwen3-235B-A22B-Instruct-2507': ['FP8'],
};

/** Block size of Qwen's -FP8 checkpoints (quantization_config.weight_block_size). */
export const FP8_BLOCK = [128, 128];

/** EAGLE3 draft heads and how often their guesses are accepted (first position). */
export const DRAFT_MODELS = {
  'Tengyunw/qwen3_8b_eagle3': { target: 'Qwen/Qwen3-8B', acceptance: 0.72, params: 0.4e9 },
  'AngelSlim/Qwen3-8B_eagle3': { target: 'Qwen/Qwen3-8B', acceptance: 0.68, params: 0.4e9 },
};

/**
 * A model by HF id (or a local path whose last component matches one). Returns null for unknown ids.
 * `quant` is the checkpoint's own quantisation: null (BF16), 'fp8' (block-scaled FP8, as Qwen's -FP8 repos), 'awq',
 * or 'mxfp4' (gpt-oss: MXFP4 experts, the rest BF16).
 */
export function resolveModel(id) {
  if (typeof id !== 'string' || id === '') return null;
  const direct = lookup(id);
  if (direct) return direct;
  // A local directory named like the repo (e.g. ~/models/Qwen3-8B) serves the same checkpoint.
  const tail = id.replace(/\/+$/, '').split('/').pop();
  for (const known of allModelIds()) {
    if (known.split('/').pop().toLowerCase() === tail.toLowerCase()) return { ...lookup(known), id };
  }
  return null;
}

function lookup(id) {
  const base = BASE_MODELS[id];
  if (base) return { id, baseId: id, quant: null, ...base };
  const m = /^(.*)-(FP8|AWQ)$/.exec(id);
  if (m && BASE_MODELS[m[1]] && VARIANTS[m[1]]?.includes(m[2])) {
    return { id, baseId: m[1], quant: m[2].toLowerCase(), ...BASE_MODELS[m[1]] };
  }
  return null;
}

export function allModelIds() {
  const ids = [];
  for (const id of Object.keys(BASE_MODELS)) {
    ids.push(id);
    for (const v of VARIANTS[id] ?? []) ids.push(`${id}-${v}`);
  }
  return ids;
}

/** Whether a model routes each token through a few of many experts. */
export function isMoe(model) {
  return Boolean(model?.experts);
}

/** Layers that keep the whole context in their KV cache (sliding-window layers keep only their window). */
export function fullAttentionLayers(model) {
  return model.layers - (model.slidingLayers ?? 0);
}

/**
 * Bytes of KV cache per token (K and V, all layers) at the given element size. Sliding-window layers hold a fixed
 * window per sequence, not a share per token, so only the full-attention layers count (vLLM's hybrid KV cache
 * manager, SGLang's SWA pool).
 */
export function kvBytesPerToken(model, elementBytes = 2) {
  return fullAttentionLayers(model) * model.kvHeads * model.headDim * 2 * elementBytes;
}

/** Bytes per parameter of each format as stored on the GPU (FP8 with its block scales; AWQ 4-bit with scales). */
const BYTES_PER_PARAM = { fp8: 1.02, awq: 0.53, mxfp4: 4.25 / 8 };

/**
 * Bytes the weights take on the GPU for the checkpoint's (or the forced) quantisation. `part`: 'all', 'experts'
 * (the routed experts of a mixture-of-experts model) or 'dense' (everything else).
 */
export function weightBytes(model, quant = model.quant, part = 'all') {
  if (isMoe(model)) {
    const expertFormat = model.expertQuant ?? quant;
    // Block-scaled FP8 experts carry one scale per 128 x 128 block: negligible next to the dense FP8 layers' 2%.
    const experts = model.expertParams * (expertFormat === 'fp8' ? 1.0 : BYTES_PER_PARAM[expertFormat] ?? 2);
    const embedParams = model.vocab * model.hidden * 2; // embeddings and LM head (untied) stay in 16 bits
    const rest = Math.max(0, model.params - model.expertParams - embedParams);
    const dense = embedParams * 2 + rest * (quant === 'fp8' ? BYTES_PER_PARAM.fp8 : 2);
    return part === 'experts' ? experts : part === 'dense' ? dense : experts + dense;
  }
  if (part === 'experts') return 0;
  const embed = model.vocab * model.hidden * 2; // embeddings and LM head stay in 16 bits in FP8/AWQ checkpoints
  const body = Math.max(0, model.params - embed);
  if (quant === 'fp8') return body * 1.02 + embed * 2;
  if (quant === 'awq') return body * 0.53 + embed * 2;
  return model.params * 2;
}

/**
 * Every release an engine's flag tables cover, plus older ones the index also offers, oldest first. Read when asked
 * (a getter below), so the box's other commands (nvidia-smi, simbox, docker) do not need the tables.
 */
function withTabled(older, tableId) {
  return [...new Set([...older, ...tableVersions(tableId)])].sort(versionCompare);
}

/** Versions on the simulated package index (pip / uv), oldest first: at least every release the flag tables cover. */
export const PACKAGE_INDEX = {
  vllm: {
    display: 'vllm',
    get versions() {
      return withTabled(['0.9.2', '0.10.0', '0.10.1', '0.10.1.1', '0.10.2'], 'vllm');
    },
    wheel: (v) => `vllm-${v}-cp38-abi3-manylinux1_x86_64.whl`,
    sizeMB: 438.2,
    deps: [['torch', '2.8.0'], ['torchaudio', '2.8.0'], ['torchvision', '0.23.0'], ['xformers', '0.0.32.post1'], ['transformers', '4.57.1'], ['triton', '3.4.0'], ['flashinfer-python', '0.3.1'], ['fastapi', '0.118.0'], ['uvicorn', '0.37.0'], ['numpy', '2.2.6']],
    extras: [],
    module: 'vllm',
    entryPoints: ['vllm'],
  },
  sglang: {
    display: 'sglang',
    get versions() {
      return withTabled([], 'sglang');
    },
    wheel: (v) => `sglang-${v}-py3-none-any.whl`,
    sizeMB: 2.9,
    deps: [['torch', '2.8.0'], ['sgl-kernel', '0.3.15'], ['flashinfer_python', '0.4.0'], ['transformers', '4.57.1'], ['fastapi', '0.118.0'], ['uvicorn', '0.37.0'], ['numpy', '2.2.6'], ['orjson', '3.11.3']],
    // 0.5.5 dropped the `all` extra (SGLang's python/pyproject.toml).
    extras: (v) => (versionCompare(v, '0.5.5') < 0 ? ['all', 'test', 'decord', 'cu130', 'cu130_all', 'blackwell', 'all_aarch64', 'dev'] : ['checkpoint-engine', 'diffusion', 'test', 'dev', 'tracing']),
    module: 'sglang',
    entryPoints: [],
  },
  tensorrt_llm: {
    display: 'tensorrt_llm',
    // 1.2.0rc1 is the tabled release (its parser is also what the other 1.x releases get, see flag-tables.mjs).
    get versions() {
      return withTabled(['0.21.0', '1.0.0', '1.1.0', '1.2.0rc0', '1.2.0rc2', '1.2.0rc3', '1.2.0rc4', '1.2.0rc5', '1.2.0rc6'], 'trtllm');
    },
    wheel: (v) => `tensorrt_llm-${v}-cp312-cp312-linux_x86_64.whl`,
    sizeMB: 1843.6,
    // click 8.1.3: the release whose messages the simulated trtllm-serve prints (trtllm.json records 8.1.3 and 8.4.0).
    deps: [['torch', '2.8.0'], ['tensorrt', '10.13.2.6'], ['transformers', '4.56.0'], ['mpi4py', '4.1.0'], ['click', '8.1.3'], ['fastapi', '0.118.0'], ['uvicorn', '0.37.0'], ['numpy', '1.26.4']],
    extras: [],
    module: 'tensorrt_llm',
    entryPoints: ['trtllm-serve'],
  },
  pip: { display: 'pip', versions: ['23.3.2', '24.0', '24.3.1', '25.2'], wheel: (v) => `pip-${v}-py3-none-any.whl`, sizeMB: 1.8, deps: [], extras: [], module: 'pip', entryPoints: [] },
  setuptools: { display: 'setuptools', versions: ['69.5.1', '75.8.0', '80.9.0'], wheel: (v) => `setuptools-${v}-py3-none-any.whl`, sizeMB: 1.2, deps: [], extras: [], module: 'setuptools', entryPoints: [] },
};

/** PEP 503 name normalisation: `TensorRT-LLM`, `tensorrt_llm` and `tensorrt-llm` are one project. */
export function normalizePackageName(name) {
  return String(name).toLowerCase().replace(/[-_.]+/g, '_');
}

export function indexEntry(name) {
  return PACKAGE_INDEX[normalizePackageName(name)] ?? null;
}
