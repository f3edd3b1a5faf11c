// How one server spreads a model over GPUs (tensor, pipeline, data and expert parallelism, DP attention, decode
// context parallelism) and where each engine refuses a layout, with the engine's own exception at its own stage.
//
// GPU count of a server (what CUDA_VISIBLE_DEVICES must offer):
// - vLLM: TP x PP x DP. Each DP rank is an engine core on TP x PP GPUs of its own: EngineCoreProcManager sets the
//   rank's CUDA_VISIBLE_DEVICES to indices [rank x world, (rank + 1) x world) (vllm/v1/engine/utils.py@v0.11.0:
//   160-193 set_device_control_env_var / get_device_indices); world = TP x PP (vllm/config/parallel.py __post_init__).
// - SGLang: TP x PP x DP; with --enable-dp-attention the DP ranks share one TP group, so TP x PP
//   (python/sglang/srt/managers/data_parallel_controller.py@v0.5.5:158-163 chooses launch_dp_attention_schedulers,
//   which starts one TP group at GPU 0 (:348-366); launch_dp_schedulers starts each replica at
//   base_gpu_id += tp_size * pp_size * gpu_id_step (:203-229); gpu_id = base + pp_rank x tp + tp_rank (:415-423)).
//   Up to 0.5.2 the replica stride is tp_size alone (same file @v0.5.2:156).
// - TensorRT-LLM: TP x PP (world_size; enable_attention_dp splits the TP ranks' attention, not the GPUs).
//
// A mixture-of-experts model's experts are split over more GPUs than its attention: vLLM shards them over DP x TP
// (FusedMoEParallelConfig.make, vllm/model_executor/layers/fused_moe/config.py@v0.11.1: "There are actually dp_size *
// tp_size devices"), whole experts per GPU with --enable-expert-parallel (ep_size = dp x tp); SGLang over the TP
// group (ep_size of it whole, moe_tp = tp / ep slicing); TensorRT-LLM over TP (moe_ep_size x moe_tp_size = tp).

import { FP8_BLOCK, isMoe } from './catalog.mjs';
import { versionCompare } from './version.mjs';

const atLeast = (version, v) => versionCompare(version, v) >= 0;

const VLLM_SITE = '/usr/lib/python3/dist-packages/vllm';
const SGLANG_SITE = '/usr/lib/python3/dist-packages/sglang';
const TRT_SITE = '/usr/local/lib/python3.12/dist-packages/tensorrt_llm';

/**
 * The layout of one server. `gpus`: how many GPUs it needs; `ranks`: scheduler ranks (each its own batch and KV
 * cache); `attnTp`: GPUs one rank's attention (and dense weights) is split over; `moeShards`: GPUs the experts are
 * split over; `epSize`: GPUs holding whole experts (1: every GPU holds a slice of every expert); `coupled`: the ranks
 * run their expert layers together, so every rank steps at once (DP attention, vLLM's DP of a MoE model).
 */
export function parallelLayout(engine, version, knobs, model) {
  const tp = knobs.tp ?? 1;
  const pp = knobs.pp ?? 1;
  const dp = knobs.dp ?? 1;
  const moe = isMoe(model);
  if (engine === 'vllm') {
    const ep = Boolean(knobs.enableEp) && moe && tp * dp > 1;
    return {
      engine, tp, pp, dp, dcp: knobs.dcp ?? 1, world: tp * pp, gpus: tp * pp * dp,
      ranks: dp, attnTp: tp, moeShards: moe ? tp * dp : tp, epSize: ep ? tp * dp : 1, coupled: moe && dp > 1,
      dpAttention: moe && dp > 1, enableEpAsked: Boolean(knobs.enableEp),
      // The all-to-all kernels run only with DP and EP together (FusedMoEParallelConfig.use_all2all_kernels).
      a2a: ep && dp > 1 ? knobs.a2aBackend ?? 'allgather_reducescatter' : null,
    };
  }
  if (engine === 'sglang') {
    // dp_size 1 switches DP attention off (ServerArgs._handle_data_parallelism, from 0.5.2).
    const dpAttention = Boolean(knobs.dpAttention) && dp > 1;
    // DeepEP and Mooncake set ep_size = tp_size (ServerArgs._handle_a2a_moe@v0.5.5).
    const epSize = ['deepep', 'mooncake'].includes(knobs.a2aBackend) ? tp : knobs.epSize ?? 1;
    const gpus = dpAttention ? tp * pp : atLeast(version, '0.5.3') ? tp * pp * dp : (dp - 1) * tp + tp * pp;
    return {
      engine, tp, pp, dp, dcp: 1, world: tp * pp, gpus,
      ranks: dp, attnTp: dpAttention ? Math.max(1, Math.floor(tp / dp)) : tp, moeShards: tp, epSize: moe ? epSize : 1,
      coupled: moe && dpAttention, dpAttention, a2a: moe && epSize > 1 ? knobs.a2aBackend ?? 'none' : null,
    };
  }
  const epSize = knobs.epSize ?? 1;
  const adp = Boolean(knobs.attentionDp) && tp > 1;
  return {
    engine, tp, pp, dp: 1, dcp: 1, world: tp * pp, gpus: tp * pp,
    ranks: adp ? tp : 1, attnTp: adp ? 1 : tp, moeShards: tp, epSize: moe ? epSize : 1, coupled: moe && adp,
    dpAttention: adp, a2a: null,
  };
}

/** The box GPUs (indices) a server with `layout` runs on, from the ones it sees. */
export function serverGpus(layout, visible) {
  return visible.slice(0, layout.gpus);
}

// --- refusals -------------------------------------------------------------------------------------------------

/**
 * A pydantic ValidationError as pydantic-core 2.11 prints one raised in a config dataclass's __post_init__ or
 * validator (a ValueError is "Value error, …", an AssertionError "Assertion failed, …"); the input is the
 * constructor's ArgsKwargs, cut to its first 25 and last 24 characters. Form of the real capture in
 * ai-dynamo/dynamo#4934 (vLLM 0.12.0's ParallelConfig).
 */
function pydanticError(cls, kind, message, argsTail) {
  const head = `ArgsKwargs((), {'${cls === 'ParallelConfig' ? 'pipeline_parallel_size' : 'model_config'}`.slice(0, 25);
  const type = kind === 'assert' ? 'assertion_error' : 'value_error';
  return `pydantic_core._pydantic_core.ValidationError: 1 validation error for ${cls}\n  ${kind === 'assert' ? 'Assertion failed' : 'Value error'}, ${message} [type=${type}, input_value=${head}...${argsTail.slice(-24)}, input_type=ArgsKwargs]\n    For further information visit https://errors.pydantic.dev/2.11/v/${type}`;
}

/** The last keyword argument create_engine_config passes to VllmConfig(...) at each release, as its repr ends. */
function vllmConfigArgsTail(version) {
  if (!atLeast(version, '0.12.0')) return "'additional_config': {}})";
  if (!atLeast(version, '0.16.0')) return "'optimization_level': <OptimizationLevel.O2: 2>})";
  return "'weight_transfer_config': None})";
}

const PARALLEL_ARGS_TAIL = "'_api_process_rank': 0})";

/** Frames of vLLM's API server down to create_engine_config (vllm/engine/arg_utils.py, v0.11.x line numbers). */
const VLLM_CONFIG_FRAMES = [
  [`${VLLM_SITE}/entrypoints/openai/api_server.py`, 1920, 'run_server_worker', 'async with build_async_engine_client('],
  [`${VLLM_SITE}/entrypoints/openai/api_server.py`, 183, 'build_async_engine_client_from_engine_args', 'vllm_config = engine_args.create_engine_config(usage_context=usage_context)'],
];

/** Heads of the attention implementation of each vLLM backend (vllm/v1/attention/backends/*.py). */
const VLLM_ATTENTION_IMPL = { flash_attn: 'FlashAttentionImpl', flashinfer: 'FlashInferImpl', triton_attn: 'TritonAttentionImpl', flex_attention: 'FlexAttentionImpl' };

/**
 * The first refusal of a vLLM server, in the order vLLM meets them. `visible`: GPUs the process sees;
 * `cudaVisibleSet`: whether CUDA_VISIBLE_DEVICES is set. Returns null, or {where, frames, exception, …}: `where`
 * 'api' (the API server raises while building the config: exit 1 before any engine core), 'ray' (0.11.0 waits for a
 * Ray placement group, then the engine core fails), 'launch' (the API server fails starting the DP engine cores),
 * 'engine' (an engine core fails while it loads the model; `core`: which).
 */
export function vllmRefusal({ version, layout, model, visible, cudaVisibleSet, cudaVisibleValue, attentionBackend }) {
  const { tp, pp, dp, dcp } = layout;
  // arg_utils.py create_engine_config: a bare assert up to 0.15.1 (@v0.11.0:1184-1188, @v0.15.1:1397-1400).
  if (tp % dcp !== 0 && !atLeast(version, '0.16.0')) {
    return { where: 'api', frames: [...VLLM_CONFIG_FRAMES, [`${VLLM_SITE}/engine/arg_utils.py`, 1184, 'create_engine_config', 'assert self.tensor_parallel_size % self.decode_context_parallel_size \\']], exception: `AssertionError: tp_size=${tp} must be divisible bydcp_size=${dcp}.` };
  }
  // ParallelConfig.__post_init__ (vllm/config/parallel.py): with fewer GPUs than TP x PP, 0.11.0 falls back to Ray
  // (a dependency of vllm's CUDA wheel, requirements/cuda.txt), which waits for a placement group; 0.11.1-0.12.0
  // raise "Tensor parallel size ... cannot be larger …" (@v0.11.1:562-570), 0.13.0 on "World size … is larger …"
  // (@v0.13.0:559-570, @v0.17.1:727-738).
  const world = tp * pp;
  if (world > visible.length) {
    if (!atLeast(version, '0.11.1')) return { where: 'ray', world, visible: visible.length };
    const message = atLeast(version, '0.13.0')
      ? `World size (${world}) is larger than the number of available GPUs (${visible.length}) in this node. If this is intentional and you are using:\n- ray, set '--distributed-executor-backend ray'.\n- multiprocessing, set '--nnodes' appropriately.`
      : `Tensor parallel size (${world}) cannot be larger than the number of available GPUs (${visible.length}).`;
    return { where: 'api', frames: [...VLLM_CONFIG_FRAMES, [`${VLLM_SITE}/engine/arg_utils.py`, 1316, 'create_engine_config', 'parallel_config = ParallelConfig(']], exception: pydanticError('ParallelConfig', 'value', message, PARALLEL_ARGS_TAIL) };
  }
  // From 0.16.0 the DCP check is a ParallelConfig model validator (@v0.16.0:305-356).
  if (tp % dcp !== 0) {
    return { where: 'api', frames: [...VLLM_CONFIG_FRAMES, [`${VLLM_SITE}/engine/arg_utils.py`, 1316, 'create_engine_config', 'parallel_config = ParallelConfig(']], exception: pydanticError('ParallelConfig', 'value', `tp_size=${tp} must be divisible bydcp_size=${dcp}.`, PARALLEL_ARGS_TAIL) };
  }
  // VllmConfig.__post_init__ -> ModelConfig.verify_with_parallel_config (vllm/config/model.py@v0.11.0:1035-1062,
  // @v0.11.1:1141-1190, @v0.17.1:1045-1094).
  const vllmConfigError = (kind, message) => ({ where: 'api', frames: [...VLLM_CONFIG_FRAMES, [`${VLLM_SITE}/engine/arg_utils.py`, 1431, 'create_engine_config', 'config = VllmConfig(']], exception: pydanticError('VllmConfig', kind, message, vllmConfigArgsTail(version)) });
  if (model.qHeads % tp !== 0) return vllmConfigError('value', `Total number of attention heads (${model.qHeads}) must be divisible by tensor parallel size (${tp}).`);
  if (layout.enableEpAsked && !isMoe(model)) return vllmConfigError('value', 'Number of experts in the model must be greater than 0 when expert parallelism is enabled.');
  if (dcp > 1 && atLeast(version, '0.11.1')) {
    const kv = model.kvHeads;
    if (!(tp > kv)) return vllmConfigError('assert', `tensor parallel size ${tp} must be greater than total num kv heads ${kv} when enable decode context parallel for GQA/MQA`);
    const maxDcp = Math.floor(tp / kv);
    if (dcp > maxDcp) return vllmConfigError('assert', `decode context parallel size must less than or equal to (tensor parallel size ${tp} // total num kv heads ${kv}) = ${maxDcp}, but got ${dcp}`);
    const qPerKv = Math.floor(model.qHeads / kv);
    if (qPerKv % dcp !== 0) return vllmConfigError('assert', `Total number of q per kv attn heads (${qPerKv}) must be divisible by dcp world size when enable decode context parallel for GQA (${dcp}).`);
  }
  // Starting the DP engine cores: each rank's devices [rank x world, (rank + 1) x world) of CUDA_VISIBLE_DEVICES
  // (vllm/v1/engine/utils.py@v0.11.0:173-192 get_device_indices; @v0.17.1:193-222).
  if (dp > 1 && dp * world > visible.length) {
    const rank = Math.floor(visible.length / world);
    if (cudaVisibleSet) {
      return {
        where: 'launch',
        frames: [
          [`${VLLM_SITE}/v1/engine/utils.py`, 127, '__init__', 'with set_device_control_env_var('],
          [`${VLLM_SITE}/v1/engine/utils.py`, 168, 'set_device_control_env_var', 'value = get_device_indices(evar, local_dp_rank, world_size)'],
          [`${VLLM_SITE}/v1/engine/utils.py`, 186, 'get_device_indices', 'raise Exception(f"Error setting {device_control_env_var}: "'],
        ],
        exception: `Exception: Error setting CUDA_VISIBLE_DEVICES: local range: [${rank * world}, ${(rank + 1) * world}) base value: "${cudaVisibleValue}"`,
      };
    }
    // Unset: the rank is given indices the box does not have, and its CUDA sees no GPU.
    return { where: 'engine', core: `EngineCore_DP${rank}`, frames: [['/usr/lib/python3/dist-packages/torch/cuda/__init__.py', 372, '_lazy_init', 'torch._C._cuda_init()']], exception: 'RuntimeError: No CUDA GPUs are available' };
  }
  const fp8 = fp8BlockRefusal(layout, model);
  if (fp8) return { where: 'engine', core: 'EngineCore_DP0', frames: [[`${VLLM_SITE}/model_executor/layers/quantization/${fp8.file}`, fp8.line, fp8.func, 'raise ValueError(']], exception: `ValueError: ${fp8.message}` };
  // 0.11.0: no non-MLA backend returns the softmax LSE DCP needs (gpu_model_runner.py@v0.11.0:4001-4011); from
  // 0.11.1 FLASH_ATTN and FLASHINFER do (can_return_lse_for_decode), TRITON_ATTN and FLEX_ATTENTION do not.
  if (dcp > 1) {
    const backend = attentionBackend && attentionBackend !== 'default' ? attentionBackend : 'flash_attn';
    if (!atLeast(version, '0.11.1') || !['flash_attn', 'flashinfer'].includes(backend)) {
      const impl = VLLM_ATTENTION_IMPL[backend] ?? 'FlashAttentionImpl';
      return { where: 'engine', core: 'EngineCore_DP0', afterKv: true, frames: [[`${VLLM_SITE}/v1/worker/gpu_model_runner.py`, 4007, 'initialize_kv_cache', 'assert layer.impl.need_to_return_lse_for_decode, (']], exception: `AssertionError: DCP requires attention impls to return the softmax lse for decode, but the impl ${impl} does not return the softmax lse for decode.` };
    }
  }
  return null;
}

/**
 * Block-quantised FP8 checkpoints need every TP slice to be whole blocks: the MLP's gate/up slices
 * (vllm/model_executor/layers/quantization/utils/fp8_utils.py@v0.11.0:751-782 validate_fp8_block_shape, the same
 * message in python/sglang/srt/layers/quantization/fp8.py@v0.5.5:275) and the experts' slices (Fp8MoEMethod.
 * create_weights, vllm fp8.py@v0.11.0:505-519, sglang fp8.py@v0.5.5:557-571). Null when the layout fits.
 */
export function fp8BlockRefusal(layout, model) {
  if (model.quant !== 'fp8') return null;
  const [blockN] = FP8_BLOCK;
  // The first layer's MLP is built after its attention; a dense MLP is split over the attention's TP group.
  if (!isMoe(model)) {
    const part = model.intermediate / layout.attnTp;
    if (layout.attnTp > 1 && part % blockN !== 0) return { file: 'utils/fp8_utils.py', line: 778, func: 'validate_fp8_block_shape', message: `Weight output_partition_size = ${part} is not divisible by weight quantization block_n = ${blockN}.` };
    return null;
  }
  const moeTp = layout.moeShards / layout.epSize;
  const part = model.moeIntermediate / moeTp;
  if (part % blockN !== 0) return { file: 'fp8.py', line: 509, func: 'create_weights', message: `The output_size of gate's and up's weight = ${part} is not divisible by weight quantization block_n = ${blockN}.` };
  return null;
}

/**
 * The first refusal of an SGLang server. `where`: 'args' (ServerArgs.__post_init__ in launch_server, before any log
 * line), 'launch' (the main process, starting the schedulers), 'engine' (a scheduler process: "Scheduler hit an
 * exception").
 */
export function sglangRefusal({ version, layout, knobs, model, visible, cudaVisibleValue }) {
  const { tp, dp } = layout;
  const argsFrames = [
    [`${SGLANG_SITE}/launch_server.py`, 11, '<module>', 'server_args = prepare_server_args(sys.argv[1:])'],
    [`${SGLANG_SITE}/srt/server_args.py`, 3734, 'prepare_server_args', 'return ServerArgs.from_cli_args(raw_args)'],
    ['<string>', 271, '__init__', null],
  ];
  if (knobs.dpAttention) {
    // Up to 0.5.1.post3 DP attention asks for dp_size > 1 (server_args.py@v0.5.0rc0:540-545); then both versions
    // assert tp_size % dp_size == 0 without a message (@v0.5.5:1379-1381, @v0.5.18:6682-6684).
    if (dp === 1 && !atLeast(version, '0.5.2')) return { where: 'args', frames: [...argsFrames, [`${SGLANG_SITE}/srt/server_args.py`, 542, '__post_init__', 'assert (']], exception: 'AssertionError: Please set a dp-size > 1. You can use 1 < dp-size <= tp-size ' };
    if (dp > 1 && tp % dp !== 0) return { where: 'args', frames: [...argsFrames, [`${SGLANG_SITE}/srt/server_args.py`, 1381, '_handle_data_parallelism', 'assert self.tp_size % self.dp_size == 0']], exception: 'AssertionError' };
  }
  // moe_ep_rank = tp_rank // (tp_size // ep_size) while the schedulers start (entrypoints/engine.py@v0.5.5:817,
  // data_parallel_controller.py@v0.5.5:424).
  const epAsked = ['deepep', 'mooncake'].includes(knobs.a2aBackend) ? tp : knobs.epSize ?? 1;
  if (epAsked > tp) return { where: 'launch', frames: [[`${SGLANG_SITE}/srt/entrypoints/engine.py`, 817, '_launch_subprocesses', 'moe_ep_rank = tp_rank // (server_args.tp_size // server_args.ep_size)']], exception: 'ZeroDivisionError: integer division or modulo by zero' };
  // A scheduler on a GPU the process cannot see: ModelRunner.init_torch_distributed logs its context and re-raises
  // torch's error (model_executor/model_runner.py@v0.5.5:568-577).
  if (layout.gpus > visible.length) {
    const gpuId = visible.length;
    const tpRank = gpuId % tp;
    return {
      where: 'engine',
      warning: `Context: self.device='cuda' self.gpu_id=${gpuId} os.environ.get('CUDA_VISIBLE_DEVICES')=${cudaVisibleValue === undefined ? 'None' : `'${cudaVisibleValue}'`} self.tp_rank=${tpRank} self.tp_size=${tp}`,
      frames: [[`${SGLANG_SITE}/srt/model_executor/model_runner.py`, 572, 'init_torch_distributed', 'torch.get_device_module(self.device).set_device(self.gpu_id)'], ['/usr/lib/python3/dist-packages/torch/cuda/__init__.py', 567, 'set_device', 'torch._C._cuda_setDevice(device)']],
      exception: 'torch.AcceleratorError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n',
    };
  }
  // The attention's heads over its TP group (get_attention_tp_size: tp / dp with DP attention): a bare assert in
  // each model's attention (models/qwen3.py@v0.5.5:72, qwen3_moe.py:291, gpt_oss.py:218, llama.py:129).
  const modelFile = { Qwen3ForCausalLM: ['qwen3.py', 72], Qwen3MoeForCausalLM: ['qwen3_moe.py', 291], GptOssForCausalLM: ['gpt_oss.py', 218], LlamaForCausalLM: ['llama.py', 129] }[model.arch] ?? ['llama.py', 129];
  if (model.qHeads % layout.attnTp !== 0) return { where: 'engine', frames: [[`${SGLANG_SITE}/srt/models/${modelFile[0]}`, modelFile[1], '__init__', 'assert self.total_num_heads % attn_tp_size == 0']], exception: 'AssertionError' };
  // Experts over the EP group: fused_moe_triton/layer.py@v0.5.5:169 (gpt-oss: models/gpt_oss.py@v0.5.5:774).
  if (isMoe(model) && model.experts % layout.epSize !== 0) return { where: 'engine', frames: [[`${SGLANG_SITE}/srt/layers/moe/fused_moe_triton/layer.py`, 169, '__init__', 'assert num_experts % self.moe_ep_size == 0']], exception: 'AssertionError' };
  const fp8 = fp8BlockRefusal({ ...layout, moeShards: tp }, model);
  if (fp8) return { where: 'engine', frames: [[`${SGLANG_SITE}/srt/layers/quantization/fp8.py`, fp8.func === 'create_weights' ? 567 : 275, fp8.func, 'raise ValueError(']], exception: `ValueError: ${fp8.message}` };
  return null;
}

/**
 * The first refusal of a TensorRT-LLM server. The mapping check (tensorrt_llm/mapping.py, index copy @05ebebb2:
 * "tp_size must equal to moe_tp_size * moe_ep_size * moe_cluster_size"), the GPU count (tensorrt_llm/llmapi/llm.py,
 * index copies @00966934 and of late 2025: "Only N GPUs are available, but M are required."), the heads over TP in
 * the workers (tensorrt_llm/_torch/modules/attention.py, index copy @00547a25: assert self.num_heads %
 * (tp_size * cp_size) == 0; attention DP makes the attention's tp_size 1). These copies are the search index's, not
 * the 1.2.0rc1 tag (see scripts/flag-tables/README.md).
 */
export function trtllmRefusal({ layout, model, visible }) {
  const { tp } = layout;
  if (isMoe(model) || layout.epSize > 1) {
    const ep = layout.epSize;
    const moeTp = Math.floor(tp / ep);
    if (moeTp * ep !== tp) {
      return { where: 'args', frames: [[`${TRT_SITE}/mapping.py`, 168, '__init__', 'raise ValueError(']], exception: `ValueError: tp_size must equal to moe_tp_size * moe_ep_size * moe_cluster_size, but got ${tp} != ${moeTp} * ${ep} * 1` };
    }
  }
  if (layout.gpus > 1 && visible.length < layout.gpus) {
    return { where: 'args', frames: [[`${TRT_SITE}/llmapi/llm.py`, 148, '__init__', 'raise RuntimeError(']], exception: `RuntimeError: Only ${visible.length} GPUs are available, but ${layout.gpus} are required.` };
  }
  if (model.qHeads % layout.attnTp !== 0) return { where: 'engine', frames: [[`${TRT_SITE}/_torch/modules/attention.py`, 239, '__init__', 'assert self.num_heads % (tp_size * cp_size) == 0']], exception: 'AssertionError' };
  return null;
}
