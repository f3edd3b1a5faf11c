import { buildCommand, type CommandSpec } from './command-builder';
import { classifyLog } from './classify-log';
import { parseFlagList } from './flag-list';
import type { EngineAdapter, FlagTable, InstallSpec, KnobRow } from './types';
import { healthReadiness, processGroupStop } from './lifecycle-plans';
import { READY_LINE } from './ready-lines';

export const VLLM_KNOWN_VERSIONS = ['0.11.0'];

// engines.md §1.6, from vllm/model_executor/layers/quantization/__init__.py @f4e4088c9.
const QUANTIZATION = [
  'awq', 'deepspeedfp', 'tpu_int8', 'fp8', 'ptpc_fp8', 'fbgemm_fp8', 'modelopt', 'modelopt_fp4', 'bitblas', 'gguf',
  'gptq_marlin_24', 'gptq_marlin', 'gptq_bitblas', 'awq_marlin', 'gptq', 'compressed-tensors', 'bitsandbytes', 'hqq',
  'experts_int8', 'ipex', 'quark', 'moe_wna16', 'torchao', 'auto-round', 'rtn', 'inc', 'mxfp4', 'petit_nvfp4',
];
// engines.md §1.6 (vllm/config/cache.py CacheDType).
const KV_CACHE_DTYPES = ['auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc'];
// vllm/attention/backends/registry.py `_Backend` (late-2025 source), the members that run on NVIDIA GPUs;
// selected through the VLLM_ATTENTION_BACKEND environment variable (vllm/envs.py), since 0.11 has no CLI flag for it.
const ATTENTION_BACKENDS = [
  'FLASH_ATTN', 'TRITON_ATTN', 'XFORMERS', 'TORCH_SDPA', 'FLASHINFER', 'FLASHINFER_MLA', 'TRITON_MLA', 'CUTLASS_MLA',
  'FLASHMLA', 'FLASH_ATTN_MLA', 'FLEX_ATTENTION',
];

/**
 * vLLM `vllm serve MODEL [flags]` (positional model, argparse with `-` in names).
 * Sources: engines.md §1.6; vllm-project/vllm vllm/engine/arg_utils.py, vllm/config/{cache,scheduler,compilation,speculative}.py,
 * vllm/entrypoints/openai/cli_args.py (near v0.11.0, @f4e4088c9 per engines.md §0).
 */
export const VLLM_KNOB_TABLE: readonly KnobRow[] = [
  { knob: 'servedModelName', to: { kind: 'option', flag: '--served-model-name' } },
  { knob: 'host', to: { kind: 'option', flag: '--host' } },
  { knob: 'port', to: { kind: 'option', flag: '--port' } },
  { knob: 'tensorParallelSize', to: { kind: 'option', flag: '--tensor-parallel-size' } },
  { knob: 'maxModelLen', to: { kind: 'option', flag: '--max-model-len' } },
  {
    knob: 'gpuMemoryFraction',
    to: { kind: 'option', flag: '--gpu-memory-utilization' },
    note: 'fraction of the whole GPU for weights, activations and KV cache (default 0.9); startup fails if less is free',
  },
  { knob: 'quantization', to: { kind: 'option', flag: '--quantization' }, choices: QUANTIZATION },
  { knob: 'kvCacheDtype', to: { kind: 'option', flag: '--kv-cache-dtype' }, choices: KV_CACHE_DTYPES },
  { knob: 'maxRunningRequests', to: { kind: 'option', flag: '--max-num-seqs' } },
  {
    knob: 'chunkedPrefill',
    when: { knob: 'chunkedPrefill', in: [false] },
    to: { kind: 'unsupported', reason: "vLLM's V1 engine forces chunked prefill on for generative models (arg_utils.py _set_default_args)" },
  },
  { knob: 'chunkedPrefill', to: { kind: 'switch', on: ['--enable-chunked-prefill'] } },
  { knob: 'maxBatchedTokens', to: { kind: 'option', flag: '--max-num-batched-tokens' } },
  {
    // One value N captures [1, 2, 4] + range(8, N + 1, 8) (SchedulerConfig.cuda_graph_sizes docstring).
    knob: 'cudaGraphMaxBatchSize',
    until: '0.12.0',
    to: { kind: 'option', flag: '--cuda-graph-sizes' },
  },
  {
    // Later arg_utils.py deprecates --cuda-graph-sizes (a plain capture list) in favour of this flag.
    knob: 'cudaGraphMaxBatchSize',
    since: '0.12.0',
    to: { kind: 'option', flag: '--max-cudagraph-capture-size' },
  },
  { knob: 'attentionBackend', to: { kind: 'env', name: 'VLLM_ATTENTION_BACKEND' }, choices: ATTENTION_BACKENDS },
  {
    // -O<level>: 0 = no compilation, 3 = piecewise torch.compile (the V1 default), engines.md §1.6.
    knob: 'torchCompile',
    until: '0.13.0',
    to: { kind: 'switch', on: ['-O3'], off: ['-O0'] },
  },
  {
    knob: 'torchCompile',
    since: '0.13.0',
    to: { kind: 'unsupported', reason: 'after v0.12.0, -O0..-O3 are optimization levels with other meanings (vLLM #26847); not mapped yet' },
  },
  {
    knob: 'speculative.algorithm',
    to: { kind: 'json', flag: '--speculative-config', key: 'method' },
    values: { eagle: 'eagle', eagle3: 'eagle3', mtp: 'mtp', ngram: 'ngram', 'draft-model': 'draft_model' },
  },
  { knob: 'speculative.draftModel', to: { kind: 'json', flag: '--speculative-config', key: 'model' } },
  {
    knob: 'speculative.numSteps',
    to: { kind: 'json', flag: '--speculative-config', key: 'num_speculative_tokens' },
    note: 'tokens the drafter proposes per step, one chain',
  },
  {
    knob: 'speculative.eagleTopK',
    to: { kind: 'unsupported', reason: "vLLM's --speculative-config drafts one chain of num_speculative_tokens; it has no top-k key (engines.md §1.6)" },
  },
  {
    knob: 'speculative.numDraftTokens',
    to: { kind: 'unsupported', reason: "vLLM's --speculative-config has no draft-token-count key; the count is num_speculative_tokens (set it with numSteps)" },
  },
  { knob: 'trustRemoteCode', to: { kind: 'switch', on: ['--trust-remote-code'] } },
];

/**
 * `vllm serve` flags at 0.11: vllm/engine/arg_utils.py add_cli_args (engine), vllm/entrypoints/openai/cli_args.py
 * (frontend), vllm/entrypoints/cli/serve.py (subcommand). Bool fields of the config dataclasses are BooleanOptionalAction.
 */
const VLLM_FLAGS = parseFlagList(`
  -h,--help!
  # ModelConfig
  --model
  --runner
  --convert
  --task
  --tokenizer
  --tokenizer-mode
  --trust-remote-code~
  --dtype
  --seed
  --hf-config-path
  --allowed-local-media-path
  --revision
  --code-revision
  --rope-scaling.
  --rope-theta
  --tokenizer-revision
  --max-model-len
  --quantization,-q
  --enforce-eager~
  --max-logprobs
  --logprobs-mode
  --disable-sliding-window~
  --disable-cascade-attn~
  --skip-tokenizer-init~
  --enable-prompt-embeds~
  --served-model-name+
  --config-format
  --hf-token?
  --hf-overrides.
  --pooler-config.
  --override-pooler-config.
  --logits-processor-pattern
  --generation-config
  --override-generation-config.
  --enable-sleep-mode~
  --model-impl
  --override-attention-dtype
  --logits-processors+
  --io-processor-plugin
  # LoadConfig
  --load-format
  --download-dir
  --safetensors-load-strategy
  --model-loader-extra-config.
  --ignore-patterns+
  --use-tqdm-on-load~
  --pt-load-map-location
  # StructuredOutputsConfig and its deprecated guided-decoding spellings
  --reasoning-parser
  --guided-decoding-backend
  --guided-decoding-disable-fallback
  --guided-decoding-disable-any-whitespace
  --guided-decoding-disable-additional-properties
  # ParallelConfig
  --distributed-executor-backend
  --pipeline-parallel-size,-pp
  --tensor-parallel-size,-tp
  --decode-context-parallel-size,-dcp
  --data-parallel-size,-dp
  --data-parallel-rank,-dpn
  --data-parallel-start-rank,-dpr
  --data-parallel-size-local,-dpl
  --data-parallel-address,-dpa
  --data-parallel-rpc-port,-dpp
  --data-parallel-backend,-dpb
  --data-parallel-hybrid-lb~
  --enable-expert-parallel~
  --all2all-backend
  --enable-dbo~
  --dbo-decode-token-threshold
  --dbo-prefill-token-threshold
  --disable-nccl-for-dp-synchronization~
  --enable-eplb~
  --eplb-config.
  --expert-placement-strategy
  --num-redundant-experts
  --eplb-window-size
  --eplb-step-interval
  --eplb-log-balancedness~
  --max-parallel-loading-workers
  --ray-workers-use-nsight~
  --disable-custom-all-reduce~
  --worker-cls
  --worker-extension-cls
  --enable-multimodal-encoder-data-parallel!
  # CacheConfig
  --block-size
  --gpu-memory-utilization
  --kv-cache-memory-bytes
  --swap-space
  --kv-cache-dtype
  --num-gpu-blocks-override
  --enable-prefix-caching~
  --prefix-caching-hash-algo
  --cpu-offload-gb
  --calculate-kv-scales~
  --kv-sharing-fast-prefill~
  --mamba-cache-dtype
  --mamba-ssm-cache-dtype
  --mamba-block-size
  # MultiModalConfig
  --limit-mm-per-prompt.
  --enable-mm-embeds~
  --media-io-kwargs.
  --mm-processor-kwargs.
  --mm-processor-cache-gb
  --disable-mm-preprocessor-cache!
  --mm-processor-cache-type
  --mm-shm-cache-max-object-size-mb
  --mm-encoder-tp-mode
  --interleave-mm-strings~
  --skip-mm-profiling~
  --video-pruning-rate
  # LoRAConfig
  --enable-lora~
  --max-loras
  --max-lora-rank
  --lora-extra-vocab-size
  --lora-dtype
  --max-cpu-loras
  --fully-sharded-loras~
  --default-mm-loras.
  # ObservabilityConfig
  --show-hidden-metrics-for-version
  --otlp-traces-endpoint
  --collect-detailed-traces
  # SchedulerConfig
  --max-num-batched-tokens
  --max-num-seqs
  --max-num-partial-prefills
  --max-long-partial-prefills
  --long-prefill-token-threshold
  --num-lookahead-slots
  --scheduling-policy
  --enable-chunked-prefill~
  --disable-chunked-mm-input~
  --scheduler-cls
  --disable-hybrid-kv-cache-manager~
  --async-scheduling~
  --cuda-graph-sizes+
  # VllmConfig
  --speculative-config.
  --kv-transfer-config.
  --kv-events-config.
  --compilation-config,-O.
  --additional-config.
  --structured-outputs-config.
  --disable-log-stats!
  --aggregate-engine-logging!
  # AsyncEngineArgs
  --enable-log-requests~
  --disable-log-requests!
  # FrontendArgs
  --host
  --port
  --uds
  --uvicorn-log-level
  --disable-uvicorn-access-log~
  --allow-credentials~
  --allowed-origins
  --allowed-methods
  --allowed-headers
  --api-key+
  --lora-modules+
  --chat-template
  --chat-template-content-format
  --trust-request-chat-template~
  --response-role
  --ssl-keyfile
  --ssl-certfile
  --ssl-ca-certs
  --enable-ssl-refresh~
  --ssl-cert-reqs
  --root-path
  --middleware
  --return-tokens-as-token-ids~
  --disable-frontend-multiprocessing~
  --enable-request-id-headers~
  --enable-auto-tool-choice~
  --exclude-tools-when-tool-choice-none~
  --tool-call-parser
  --tool-parser-plugin
  --tool-server
  --log-config-file
  --max-log-len
  --disable-fastapi-docs~
  --enable-prompt-tokens-details~
  --enable-server-load-tracking~
  --enable-force-include-usage~
  --enable-tokenizer-info-endpoint~
  --enable-log-outputs~
  --h11-max-incomplete-event-size
  --h11-max-header-count
  --log-error-stack~
  # vllm serve
  --headless!
  --api-server-count,-asc
  --config
`).concat(
  parseFlagList(
    `
  --cudagraph-capture-sizes+
  --max-cudagraph-capture-size
  --allowed-media-domains+
  --mm-encoder-attn-backend
`,
    { unconfirmed: "in vLLM's arg_utils.py soon after v0.11.0; not confirmed in 0.11.0 itself" },
  ),
);

const VLLM_FLAG_TABLE: FlagTable = { parser: 'vllm-argparse', flags: VLLM_FLAGS };

const SPEC: CommandSpec = {
  engine: 'vllm',
  displayName: 'vLLM',
  command: ['vllm', 'serve'],
  valueStyle: 'separate',
  knobTable: VLLM_KNOB_TABLE,
  flagTable: () => VLLM_FLAG_TABLE,
};

/** engines.md §4.1 (docs/getting_started/installation/gpu.md, docker/Dockerfile @f4e4088c9). */
function installSpec(version: string): InstallSpec {
  return {
    pipSpecs: [`vllm==${version}`],
    // The PyPI wheel is built for CUDA 12.8; pip needs the matching torch index, uv picks it with --torch-backend=auto.
    extraIndexUrls: ['https://download.pytorch.org/whl/cu128'],
    uvArgs: ['--torch-backend=auto'],
    python: '3.12',
    pythonRequires: '>=3.9,<3.14',
    verifyImport: 'import vllm; print(vllm.__version__)',
    dockerImage: `vllm/vllm-openai:v${version}`,
    notes: [
      'Install into a fresh environment: vLLM pins torch (2.8.0 for 0.11.0).',
      'The docker image runs python3 -m vllm.entrypoints.openai.api_server: pass --model MODEL, not a positional model.',
      'The driver must support CUDA 12.8 (R570+).',
    ],
  };
}

export const vllmAdapter: EngineAdapter = {
  id: 'vllm',
  displayName: 'vLLM',
  knownVersions: VLLM_KNOWN_VERSIONS,
  knobTable: VLLM_KNOB_TABLE,
  flagTable: () => VLLM_FLAG_TABLE,
  installSpec,
  buildArgv: (config, version, options) => buildCommand(SPEC, config, version, options),
  // engines.md §1.7 (vllm/entrypoints/openai/api_server.py, launcher.py).
  readiness: healthReadiness(READY_LINE.vllm, [
    'The port is bound before the model loads, so an open port is not readiness: early probes are refused.',
    '/health answers 503 after the engine died (EngineDeadError); check the process is alive too.',
    'vLLM never prints "Uvicorn running on"; it hands uvicorn a pre-bound socket.',
    'SO_REUSEPORT lets a second vLLM of the same user bind the same port silently: check the port is free before launch.',
  ]),
  classifyLog: (text, options) => classifyLog(text, { ...options, engine: 'vllm' }),
  stopSignals: processGroupStop(['The API server, the EngineCore process and the TP workers share the process group; signal the group, then check the port and nvidia-smi.']),
};
