import { buildCommand, type CommandSpec } from './command-builder';
import { classifyLog } from './classify-log';
import { parseFlagList } from './flag-list';
import type { EngineAdapter, FlagTable, InstallSpec, KnobRow } from './types';
import { compareVersions } from './version';
import { healthReadiness, processGroupStop } from './lifecycle-plans';
import { READY_LINE } from './ready-lines';

export const SGLANG_KNOWN_VERSIONS = ['0.5.3.post3', '0.5.5', '0.5.5.post1'];

// engines.md §2.1, python/sglang/srt/server_args.py @85ebeecf0 (0.5.3.post3) and @0c006b880 (0.5.5).
const ATTENTION_0_5_3 = [
  'triton', 'torch_native', 'flex_attention', 'nsa', 'cutlass_mla', 'fa3', 'fa4', 'flashinfer', 'flashmla', 'trtllm_mla',
  'trtllm_mha', 'dual_chunk_flash_attn', 'aiter', 'wave', 'intel_amx', 'ascend',
];
const ATTENTION_0_5_5 = [...ATTENTION_0_5_3, 'intel_xpu'];
const QUANTIZATION_0_5_3 = [
  'awq', 'fp8', 'gptq', 'marlin', 'gptq_marlin', 'awq_marlin', 'bitsandbytes', 'gguf', 'modelopt', 'modelopt_fp4',
  'petit_nvfp4', 'w8a8_int8', 'w8a8_fp8', 'moe_wna16', 'qoq', 'w4afp8', 'mxfp4',
];
const QUANTIZATION_0_5_5 = [...QUANTIZATION_0_5_3, 'modelopt_fp8', 'auto-round', 'compressed-tensors'];
const KV_DTYPES_0_5_3 = ['auto', 'fp8_e5m2', 'fp8_e4m3'];
const KV_DTYPES_0_5_5 = [...KV_DTYPES_0_5_3, 'bf16', 'bfloat16', 'fp4_e2m1'];

/**
 * SGLang `python3 -m sglang.launch_server --model-path MODEL [flags]` (argparse).
 * Source: sgl-project/sglang python/sglang/srt/server_args.py ServerArgs.add_cli_args, via engines.md §2.1.
 */
export const SGLANG_KNOB_TABLE: readonly KnobRow[] = [
  { knob: 'servedModelName', to: { kind: 'option', flag: '--served-model-name' } },
  { knob: 'host', to: { kind: 'option', flag: '--host' } },
  { knob: 'port', to: { kind: 'option', flag: '--port' } },
  { knob: 'tensorParallelSize', to: { kind: 'option', flag: '--tp-size' } },
  { knob: 'maxModelLen', to: { kind: 'option', flag: '--context-length' } },
  {
    knob: 'gpuMemoryFraction',
    to: { kind: 'option', flag: '--mem-fraction-static' },
    note: 'fraction of GPU memory for weights and the KV cache pool (default: computed); "use a smaller value if you see out-of-memory errors"',
  },
  { knob: 'quantization', until: '0.5.5', to: { kind: 'option', flag: '--quantization' }, choices: QUANTIZATION_0_5_3 },
  { knob: 'quantization', to: { kind: 'option', flag: '--quantization' }, choices: QUANTIZATION_0_5_5 },
  { knob: 'kvCacheDtype', until: '0.5.5', to: { kind: 'option', flag: '--kv-cache-dtype' }, choices: KV_DTYPES_0_5_3 },
  { knob: 'kvCacheDtype', to: { kind: 'option', flag: '--kv-cache-dtype' }, choices: KV_DTYPES_0_5_5 },
  { knob: 'maxRunningRequests', to: { kind: 'option', flag: '--max-running-requests' } },
  // Chunked prefill is on by default (size chosen automatically); -1 turns it off.
  { knob: 'chunkedPrefill', to: { kind: 'switch', off: ['--chunked-prefill-size', '-1'] } },
  {
    knob: 'maxBatchedTokens',
    when: { knob: 'chunkedPrefill', in: [false] },
    to: { kind: 'unsupported', reason: 'SGLang sets the prefill chunk with --chunked-prefill-size, which is -1 when chunked prefill is off' },
  },
  {
    knob: 'maxBatchedTokens',
    to: { kind: 'option', flag: '--chunked-prefill-size' },
    note: 'the largest prefill chunk in tokens',
  },
  { knob: 'cudaGraphMaxBatchSize', to: { kind: 'option', flag: '--cuda-graph-max-bs' } },
  { knob: 'attentionBackend', until: '0.5.5', to: { kind: 'option', flag: '--attention-backend' }, choices: ATTENTION_0_5_3 },
  { knob: 'attentionBackend', to: { kind: 'option', flag: '--attention-backend' }, choices: ATTENTION_0_5_5 },
  { knob: 'torchCompile', to: { kind: 'switch', on: ['--enable-torch-compile'] } },
  {
    // NEXTN is SGLang's MTP spelling and is rewritten to EAGLE internally; STANDALONE runs a plain draft model.
    knob: 'speculative.algorithm',
    to: { kind: 'option', flag: '--speculative-algorithm' },
    values: { eagle: 'EAGLE', eagle3: 'EAGLE3', mtp: 'NEXTN', 'draft-model': 'STANDALONE', ngram: 'NGRAM' },
  },
  { knob: 'speculative.draftModel', to: { kind: 'option', flag: '--speculative-draft-model-path' } },
  { knob: 'speculative.numSteps', to: { kind: 'option', flag: '--speculative-num-steps' } },
  { knob: 'speculative.eagleTopK', to: { kind: 'option', flag: '--speculative-eagle-topk' } },
  { knob: 'speculative.numDraftTokens', to: { kind: 'option', flag: '--speculative-num-draft-tokens' } },
  { knob: 'trustRemoteCode', to: { kind: 'switch', on: ['--trust-remote-code'] } },
];

/**
 * `sglang.launch_server` flags at 0.5.3.post3 / 0.5.5: python/sglang/srt/server_args.py add_cli_args.
 * `--model` is an alias of `--model-path` since sgl-project/sglang#7505 (2025-06-24), added when
 * `--model-loader-extra-config` made the `--model` abbreviation ambiguous; both versions here have it.
 */
const SGLANG_FLAGS = parseFlagList(`
  -h,--help!
  --model-path,--model
  --tokenizer-path
  --tokenizer-mode
  --tokenizer-worker-num
  --skip-tokenizer-init!
  --load-format
  --model-loader-extra-config
  --trust-remote-code!
  --context-length
  --is-embedding!
  --enable-multimodal!
  --revision
  --model-impl
  --host
  --port
  --skip-server-warmup!
  --warmups
  --nccl-port
  --dtype
  --quantization
  --quantization-param-path
  --kv-cache-dtype
  --enable-fp32-lm-head!
  --mem-fraction-static
  --max-running-requests
  --max-queued-requests
  --max-total-tokens
  --chunked-prefill-size
  --max-prefill-tokens
  --schedule-policy
  --enable-priority-scheduling!
  --schedule-low-priority-values-first!
  --priority-scheduling-preemption-threshold
  --schedule-conservativeness
  --page-size
  --hybrid-kvcache-ratio
  --swa-full-tokens-ratio
  --disable-hybrid-swa-memory!
  --device
  --tensor-parallel-size,--tp-size
  --pipeline-parallel-size,--pp-size
  --pp-max-micro-batch-size
  --stream-interval
  --stream-output!
  --random-seed
  --constrained-json-whitespace-pattern
  --watchdog-timeout
  --dist-timeout
  --download-dir
  --base-gpu-id
  --gpu-id-step
  --sleep-on-idle!
  --log-level
  --log-level-http
  --log-requests!
  --log-requests-level
  --crash-dump-folder
  --show-time-cost!
  --enable-metrics!
  --enable-metrics-for-all-schedulers!
  --bucket-time-to-first-token+
  --bucket-inter-token-latency+
  --bucket-e2e-request-latency+
  --collect-tokens-histogram!
  --decode-log-interval
  --enable-request-time-stats-logging!
  --kv-events-config
  --enable-trace!
  --oltp-traces-endpoint
  --api-key
  --served-model-name
  --weight-version
  --chat-template
  --completion-template
  --file-storage-path
  --enable-cache-report!
  --reasoning-parser
  --tool-call-parser
  --tool-server
  --data-parallel-size,--dp-size
  --load-balance-method
  --dist-init-addr,--nccl-init-addr
  --nnodes
  --node-rank
  --json-model-override-args
  --preferred-sampling-params
  --enable-lora!
  --max-lora-rank
  --lora-target-modules+
  --lora-paths+
  --max-loaded-loras
  --max-loras-per-batch
  --lora-backend
  --attention-backend
  --prefill-attention-backend
  --decode-attention-backend
  --sampling-backend
  --grammar-backend
  --mm-attention-backend
  --speculative-algorithm
  --speculative-draft-model-path,--speculative-draft-model
  --speculative-draft-model-revision
  --speculative-draft-load-format
  --speculative-num-steps
  --speculative-eagle-topk
  --speculative-num-draft-tokens
  --speculative-accept-threshold-single
  --speculative-accept-threshold-acc
  --speculative-token-map
  --speculative-attention-mode
  --speculative-ngram-min-match-window-size
  --speculative-ngram-max-match-window-size
  --speculative-ngram-min-bfs-breadth
  --speculative-ngram-max-bfs-breadth
  --speculative-ngram-match-type
  --speculative-ngram-branch-length
  --speculative-ngram-capacity
  --expert-parallel-size,--ep-size,--ep
  --moe-a2a-backend
  --moe-runner-backend
  --flashinfer-mxfp4-moe-precision
  --enable-flashinfer-allreduce-fusion!
  --deepep-mode
  --ep-num-redundant-experts
  --ep-dispatch-algorithm
  --init-expert-location
  --enable-eplb!
  --eplb-algorithm
  --eplb-rebalance-num-iterations
  --eplb-rebalance-layers-per-chunk
  --eplb-min-rebalancing-utilization-threshold
  --expert-distribution-recorder-mode
  --expert-distribution-recorder-buffer-size
  --enable-expert-distribution-metrics!
  --deepep-config
  --moe-dense-tp-size
  --enable-hierarchical-cache!
  --hicache-ratio
  --hicache-size
  --hicache-write-policy
  --hicache-io-backend
  --hicache-mem-layout
  --hicache-storage-backend
  --hicache-storage-prefetch-policy
  --hicache-storage-backend-extra-config
  --enable-lmcache!
  --enable-double-sparsity!
  --ds-channel-config-path
  --ds-heavy-channel-num
  --ds-heavy-token-num
  --ds-heavy-channel-type
  --ds-sparse-decode-threshold
  --cpu-offload-gb
  --offload-group-size
  --offload-num-in-group
  --offload-prefetch-step
  --offload-mode
  --disable-radix-cache!
  --cuda-graph-max-bs
  --cuda-graph-bs+
  --disable-cuda-graph!
  --disable-cuda-graph-padding!
  --enable-profile-cuda-graph!
  --enable-cudagraph-gc!
  --enable-nccl-nvls!
  --enable-symm-mem!
  --disable-flashinfer-cutlass-moe-fp4-allgather!
  --enable-tokenizer-batch-encode!
  --disable-outlines-disk-cache!
  --disable-custom-all-reduce!
  --enable-mscclpp!
  --disable-overlap-schedule!
  --enable-mixed-chunk!
  --enable-dp-attention!
  --enable-dp-lm-head!
  --enable-two-batch-overlap!
  --tbo-token-distribution-threshold
  --enable-torch-compile!
  --enable-piecewise-cuda-graph!
  --torch-compile-max-bs
  --piecewise-cuda-graph-max-tokens
  --piecewise-cuda-graph-tokens+
  --torchao-config
  --enable-nan-detection!
  --enable-p2p-check!
  --triton-attention-reduce-in-fp32!
  --triton-attention-num-kv-splits
  --triton-attention-split-tile-size
  --num-continuous-decode-steps
  --delete-ckpt-after-loading!
  --enable-memory-saver!
  --allow-auto-truncate!
  --enable-custom-logit-processor!
  --flashinfer-mla-disable-ragged!
  --disable-shared-experts-fusion!
  --disable-chunked-prefix-cache!
  --disable-fast-image-processor!
  --keep-mm-feature-on-device!
  --enable-return-hidden-states!
  --scheduler-recv-interval
  --numa-node+
  --debug-tensor-dump-output-folder
  --debug-tensor-dump-input-file
  --debug-tensor-dump-inject!
  --disaggregation-mode
  --disaggregation-transfer-backend
  --disaggregation-bootstrap-port
  --disaggregation-decode-tp
  --disaggregation-decode-dp
  --disaggregation-prefill-pp
  --disaggregation-ib-device
  --num-reserved-decode-tokens
  --custom-weight-loader+
  --weight-loader-disable-mmap!
  --enable-pdmux!
  --sm-group-num
  --enable-deterministic-inference!
  --config
`);

const SGLANG_FLAG_TABLE: FlagTable = { parser: 'argparse', flags: SGLANG_FLAGS };

const SPEC: CommandSpec = {
  engine: 'sglang',
  displayName: 'SGLang',
  command: ['python3', '-m', 'sglang.launch_server'],
  modelFlag: '--model-path',
  valueStyle: 'separate',
  knobTable: SGLANG_KNOB_TABLE,
  flagTable: () => SGLANG_FLAG_TABLE,
};

/** engines.md §4.2 (docs/get_started/install.md, python/pyproject.toml, .github/workflows/release-docker.yml). */
function installSpec(version: string): InstallSpec {
  // 0.5.3.post3 has an `all` extra; 0.5.5 dropped it (pip would only warn that the extra is missing).
  const hasAllExtra = compareVersions(version, '0.5.5') < 0;
  return {
    pipSpecs: [hasAllExtra ? `sglang[all]==${version}` : `sglang==${version}`],
    extraIndexUrls: [],
    pythonRequires: '>=3.10',
    verifyImport: 'import sglang; print(sglang.__version__)',
    dockerImage: `lmsysorg/sglang:v${version}`,
    notes: [
      'On "OSError: CUDA_HOME environment variable is not set", export CUDA_HOME=/usr/local/cuda-<ver>.',
      'FlashInfer (the default attention backend) needs sm75+; elsewhere use --attention-backend triton --sampling-backend pytorch.',
      'The docker image has no server entrypoint: run python3 -m sglang.launch_server … in it; docs use --shm-size 32g --ipc=host.',
    ],
  };
}

export const sglangAdapter: EngineAdapter = {
  id: 'sglang',
  displayName: 'SGLang',
  knownVersions: SGLANG_KNOWN_VERSIONS,
  knobTable: SGLANG_KNOB_TABLE,
  flagTable: () => SGLANG_FLAG_TABLE,
  installSpec,
  buildArgv: (config, version, options) => buildCommand(SPEC, config, version, options),
  // engines.md §2.2 (python/sglang/srt/entrypoints/http_server.py).
  readiness: healthReadiness(READY_LINE.sglang, [
    '/health is 503 until warm-up has run; /v1/models and /get_model_info answer earlier, so they are not readiness.',
    '"Uvicorn running on" and "Application startup complete." are printed before warm-up: not readiness either.',
    'After warm-up /health runs a 1-token generation; a 503 later with "Health check failed" means the scheduler stopped answering.',
  ]),
  classifyLog: (text, options) => classifyLog(text, { ...options, engine: 'sglang' }),
  stopSignals: processGroupStop(['launch_server starts scheduler and detokenizer processes per TP rank; signal the group, then check the port and nvidia-smi.']),
};
