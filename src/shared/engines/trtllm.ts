import { buildCommand, type CommandSpec } from './command-builder';
import { classifyLog } from './classify-log';
import { TRTLLM_ATTENTION_BACKENDS } from './engine-validation';
import { engineVersions, flagTableAt } from './flag-tables';
import type { EngineAdapter, InstallSpec, KnobRow } from './types';
import { healthReadiness, processGroupStop } from './lifecycle-plans';
import { READY_LINE } from './ready-lines';

/** The releases TensorRT-LLM's flag tables cover (resources/engine-flags/trtllm.json). */
export const TRTLLM_KNOWN_VERSIONS = engineVersions('trtllm');

// tensorrt_llm/llmapi/llm_args.py (KvCacheConfig.dtype: "auto", or e.g. fp8 on the PyTorch backend).
const KV_CACHE_DTYPES = ['auto', 'fp8'];

/**
 * TensorRT-LLM `trtllm-serve MODEL [flags]` (click, underscores in names; `--flag=value`, as the reference studies write it).
 * CLI flags: tensorrt_llm/commands/serve.py (late-2025). Options without a CLI flag go in the
 * --extra_llm_api_options YAML: tensorrt_llm/llmapi/llm_args.py. That YAML replaces whole
 * sections the flags set (llm_utils.update_llm_args_with_extra_dict), hence `yamlTwin` on the memory fraction.
 */
export const TRTLLM_KNOB_TABLE: readonly KnobRow[] = [
  {
    knob: 'servedModelName',
    to: { kind: 'unsupported', reason: 'trtllm-serve has no served-model-name option; /v1/models reports the MODEL argument (commands/serve.py)' },
  },
  { knob: 'host', to: { kind: 'option', flag: '--host' } },
  { knob: 'port', to: { kind: 'option', flag: '--port' } },
  { knob: 'tensorParallelSize', to: { kind: 'option', flag: '--tp_size' } },
  // Parallelism: serve.py get_llm_args passes --pp_size and --ep_size as pipeline_parallel_size and
  // moe_expert_parallel_size; mapping.py lays out tp × pp (× cp) ranks, the MoE groups inside the TP group.
  { knob: 'pipelineParallelSize', to: { kind: 'option', flag: '--pp_size' } },
  {
    // llm_args.py enable_attention_dp: attention runs data-parallel over every rank of the TP group.
    knob: 'dataParallelSize',
    when: { knob: 'dpAttention', in: [true] },
    to: {
      kind: 'sized-switch',
      on: [],
      of: ['tensorParallelSize'],
      reason: "TensorRT-LLM's attention DP (enable_attention_dp) spans the whole tensor-parallel group, so its data-parallel size is the TP size",
    },
  },
  {
    knob: 'dataParallelSize',
    to: {
      kind: 'sized-switch',
      on: [],
      of: [],
      reason: 'trtllm-serve has no data-parallel option: one server is one TP × PP group (commands/serve.py get_llm_args); use dpAttention for attention data parallelism, or run several servers',
    },
  },
  { knob: 'expertParallelSize', to: { kind: 'option', flag: '--ep_size' } },
  { knob: 'dpAttention', to: { kind: 'yaml-switch', path: ['enable_attention_dp'], on: true } },
  {
    knob: 'decodeContextParallelSize',
    to: {
      kind: 'unsupported',
      reason: 'TensorRT-LLM has no decode context parallelism inside the TP group: its context_parallel_size adds ranks (mapping.py: world_size = tp_size × pp_size × cp_size) and trtllm-serve has no flag for it',
    },
  },
  {
    knob: 'moeAllToAllBackend',
    to: {
      kind: 'unsupported',
      reason: 'TensorRT-LLM chooses the MoE all-to-all itself (by attention DP and the GPUs); only the TRTLLM_FORCE_ALLTOALL_METHOD environment variable forces one, and its names are not tabled for this version: set it in env',
    },
  },
  { knob: 'maxModelLen', to: { kind: 'option', flag: '--max_seq_len' } },
  {
    knob: 'gpuMemoryFraction',
    to: { kind: 'option', flag: '--kv_cache_free_gpu_memory_fraction', yamlTwin: ['kv_cache_config', 'free_gpu_memory_fraction'] },
    note: 'fraction of the memory still free after weights and buffers that the KV cache takes (default 0.9)',
  },
  {
    knob: 'quantization',
    to: { kind: 'unsupported', reason: 'trtllm-serve has no quantization flag: it serves the checkpoint as quantized (use a ModelOpt checkpoint such as nvidia/*-FP8)' },
  },
  { knob: 'kvCacheDtype', to: { kind: 'yaml', path: ['kv_cache_config', 'dtype'] }, choices: KV_CACHE_DTYPES },
  { knob: 'maxRunningRequests', to: { kind: 'option', flag: '--max_batch_size' } },
  { knob: 'chunkedPrefill', to: { kind: 'switch', on: ['--enable_chunked_prefill'] } },
  { knob: 'maxBatchedTokens', to: { kind: 'option', flag: '--max_num_tokens' } },
  { knob: 'cudaGraphMaxBatchSize', to: { kind: 'yaml', path: ['cuda_graph_config', 'max_batch_size'] } },
  { knob: 'attentionBackend', to: { kind: 'yaml', path: ['attn_backend'] }, choices: TRTLLM_ATTENTION_BACKENDS },
  {
    // llm_args.py: torch_compile_enabled = torch_compile_config is not None, so an empty section turns it on.
    knob: 'torchCompile',
    to: { kind: 'yaml-switch', path: ['torch_compile_config'], on: {} },
  },
  {
    knob: 'speculative.algorithm',
    when: { knob: 'speculative.algorithm', in: ['eagle'] },
    to: { kind: 'unsupported', reason: "TensorRT-LLM's PyTorch backend runs its Eagle decoding type as EAGLE3 (llm_args.py EagleDecodingConfig.spec_dec_mode); use eagle3 with an EAGLE3 draft" },
  },
  {
    knob: 'speculative.algorithm',
    to: { kind: 'yaml', path: ['speculative_config', 'decoding_type'] },
    values: { eagle3: 'Eagle', mtp: 'MTP', ngram: 'NGram', 'draft-model': 'DraftTarget' },
  },
  { knob: 'speculative.draftModel', to: { kind: 'yaml', path: ['speculative_config', 'speculative_model_dir'] } },
  {
    knob: 'speculative.numSteps',
    when: { knob: 'speculative.algorithm', in: ['mtp'] },
    to: { kind: 'yaml', path: ['speculative_config', 'num_nextn_predict_layers'] },
  },
  {
    knob: 'speculative.numSteps',
    to: { kind: 'yaml', path: ['speculative_config', 'max_draft_len'] },
    note: 'drafter layers; on the default linear tree also the number of draft tokens',
  },
  {
    knob: 'speculative.eagleTopK',
    to: { kind: 'unsupported', reason: "TensorRT-LLM's Eagle drafts a linear chain unless a draft tree is configured (eagle_choices, or use_dynamic_tree with dynamic_tree_max_topK), which llm_args.py marks as under development" },
  },
  {
    knob: 'speculative.numDraftTokens',
    to: { kind: 'unsupported', reason: 'on the linear tree TensorRT-LLM sets max_total_draft_tokens = max_draft_len (llm_args.py); set numSteps' },
  },
  { knob: 'trustRemoteCode', to: { kind: 'switch', on: ['--trust_remote_code'] } },
];


const FILE_FLAGS: EngineAdapter['fileFlags'] = {
  chatTemplate: { unsupported: 'trtllm-serve has no chat template option (tensorrt_llm/commands/serve.py of the tabled release); it applies the tokenizer\'s own template' },
  // The same flag as the typed options' file: the typed options are written into a copy of the user's YAML.
  optionsFile: { flag: '--extra_llm_api_options' },
};

const SPEC: CommandSpec = {
  engine: 'trtllm',
  displayName: 'TensorRT-LLM',
  command: ['trtllm-serve'],
  valueStyle: 'equals',
  optionsFile: { flag: '--extra_llm_api_options', fileName: 'extra_llm_api_options.yaml' },
  knobTable: TRTLLM_KNOB_TABLE,
  flagTable: (version) => flagTableAt('trtllm', version),
  fileFlags: FILE_FLAGS,
};

/** TensorRT-LLM's install guide (pip from PyPI, NVIDIA's index for release candidates). */
function installSpec(version: string): InstallSpec {
  return {
    pipSpecs: [`tensorrt_llm==${version}`],
    // Release candidates may only be on NVIDIA's index: the wheel comes from there alone, its dependencies from the
    // box's own index (never both merged). --pre lets pip pick release candidates.
    vendorIndex: { url: 'https://pypi.nvidia.com', specs: [`tensorrt_llm==${version}`] },
    pipArgs: ['--pre'],
    python: '3.12',
    pythonRequires: '3.10 or 3.12',
    verifyImport: 'import tensorrt_llm; print(tensorrt_llm.__version__)',
    dockerImage: `nvcr.io/nvidia/tensorrt-llm/release:${version}`,
    systemPackages: ['libopenmpi-dev'],
    notes: [
      'MPI is required: sudo apt-get -y install libopenmpi-dev before pip.',
      'The docker image is the recommended install: docker run --ipc host --gpus all --ulimit memlock=-1 --ulimit stack=67108864 …',
      'CUDA for 1.2.0rc1 is not verified; the wheel of that era is most likely CUDA 12.9 / torch 2.8.',
    ],
  };
}

export const trtllmAdapter: EngineAdapter = {
  id: 'trtllm',
  displayName: 'TensorRT-LLM',
  knownVersions: TRTLLM_KNOWN_VERSIONS,
  defaultVersion: '1.2.0rc1',
  knobTable: TRTLLM_KNOB_TABLE,
  fileFlags: FILE_FLAGS,
  flagTable: (version) => flagTableAt('trtllm', version),
  installSpec,
  buildArgv: (config, version, options) => buildCommand(SPEC, config, version, options),
  // tensorrt_llm/serve/openai_server.py.
  readiness: healthReadiness(READY_LINE.trtllm, [
    'The socket is bound first (a busy port fails at once), then the model loads for minutes: probes are refused until uvicorn runs.',
    '--host defaults to localhost: pass --host 0.0.0.0 to probe from outside the box or container.',
    '/health_generate runs a real 1-token generation, for a deeper check.',
  ]),
  classifyLog: (text, options) => classifyLog(text, { ...options, engine: 'trtllm' }),
  // serve.py's SIGTERM handler gives its child 10 s to exit, then kills it and waits 10 s more.
  stopSignals: processGroupStop(['With TP > 1 the ranks are MPI processes; signal the group, then check the port and nvidia-smi.']),
};
