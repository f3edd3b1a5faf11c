// The real flag sets of the three engines' CLIs, and how each maps onto the performance model's knobs.
// Sources (see README, "Flags"): vLLM 0.11 vllm/engine/arg_utils.py, vllm/entrypoints/openai/cli_args.py,
// vllm/benchmarks/serve.py + datasets.py; SGLang 0.5.x python/sglang/srt/server_args.py; TensorRT-LLM
// tensorrt_llm/commands/serve.py (click); summarised in the shared engines reference §1.3, §1.6, §2.1, §3.1.

import { versionCompare } from './catalog.mjs';

/** Compact option list: "flag[,alias…]|type[|choice,choice…]". */
function opts(lines) {
  return lines
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [flags, type = 'str', choices] = l.split('|');
      const o = { flags: flags.split(','), type };
      if (choices) o.choices = choices.split(',');
      if (type === 'ilist') Object.assign(o, { type: 'list', itemType: 'int' });
      return o;
    });
}

const VLLM_QUANT = 'awq,deepspeedfp,tpu_int8,fp8,ptpc_fp8,fbgemm_fp8,modelopt,modelopt_fp4,bitblas,gguf,gptq_marlin_24,gptq_marlin,gptq_bitblas,awq_marlin,gptq,compressed-tensors,bitsandbytes,hqq,experts_int8,ipex,quark,moe_wna16,torchao,auto-round,rtn,inc,mxfp4,petit_nvfp4,None';

export const VLLM_SERVE_OPTIONS = opts(`
--model
--runner|str|auto,draft,generate,pooling
--convert|str|auto,classify,embed,none,reward
--task
--tokenizer
--tokenizer-mode|str|auto,custom,mistral,slow
--trust-remote-code|bool
--dtype|str|auto,bfloat16,float,float16,float32,half
--seed|int
--hf-config-path
--allowed-local-media-path
--allowed-media-domains|list
--revision
--code-revision
--rope-scaling|json
--rope-theta|float
--tokenizer-revision
--max-model-len|human_int
--quantization,-q|str|${VLLM_QUANT}
--enforce-eager|bool
--max-logprobs|int
--logprobs-mode
--disable-sliding-window|bool
--disable-cascade-attn|bool
--skip-tokenizer-init|bool
--enable-prompt-embeds|bool
--served-model-name|list
--config-format
--hf-token|optional
--hf-overrides|json
--pooler-config|json
--override-pooler-config|json
--logits-processor-pattern
--generation-config
--override-generation-config|json
--enable-sleep-mode|bool
--model-impl
--override-attention-dtype
--logits-processors|list
--io-processor-plugin
--load-format
--download-dir
--safetensors-load-strategy
--model-loader-extra-config|json
--ignore-patterns|list
--use-tqdm-on-load|bool
--pt-load-map-location
--reasoning-parser
--guided-decoding-backend
--guided-decoding-disable-fallback
--guided-decoding-disable-any-whitespace
--guided-decoding-disable-additional-properties
--distributed-executor-backend|str|external_launcher,mp,ray,uni,None
--pipeline-parallel-size,-pp|int
--tensor-parallel-size,-tp|int
--decode-context-parallel-size,-dcp|int
--data-parallel-size,-dp|int
--data-parallel-rank,-dpn|int
--data-parallel-start-rank,-dpr|int
--data-parallel-size-local,-dpl|int
--data-parallel-address,-dpa
--data-parallel-rpc-port,-dpp|int
--data-parallel-backend,-dpb
--data-parallel-hybrid-lb|bool
--enable-expert-parallel|bool
--all2all-backend
--enable-dbo|bool
--dbo-decode-token-threshold|int
--dbo-prefill-token-threshold|int
--disable-nccl-for-dp-synchronization|bool
--enable-eplb|bool
--eplb-config|json
--expert-placement-strategy
--num-redundant-experts|int
--eplb-window-size|int
--eplb-step-interval|int
--eplb-log-balancedness|bool
--max-parallel-loading-workers|int
--ray-workers-use-nsight|bool
--disable-custom-all-reduce|bool
--worker-cls
--worker-extension-cls
--enable-multimodal-encoder-data-parallel|true
--block-size|int
--gpu-memory-utilization|float
--kv-cache-memory-bytes|human_int
--swap-space|float
--kv-cache-dtype|str|auto,bfloat16,fp8,fp8_e4m3,fp8_e5m2,fp8_inc
--num-gpu-blocks-override|int
--enable-prefix-caching|bool
--prefix-caching-hash-algo
--cpu-offload-gb|float
--calculate-kv-scales|bool
--kv-sharing-fast-prefill|bool
--mamba-cache-dtype
--mamba-ssm-cache-dtype
--mamba-block-size|int
--limit-mm-per-prompt|json
--enable-mm-embeds|bool
--media-io-kwargs|json
--mm-processor-kwargs|json
--mm-processor-cache-gb|float
--disable-mm-preprocessor-cache|true
--mm-processor-cache-type
--mm-shm-cache-max-object-size-mb|int
--mm-encoder-tp-mode
--interleave-mm-strings|bool
--skip-mm-profiling|bool
--video-pruning-rate|float
--enable-lora|bool
--max-loras|int
--max-lora-rank|int
--lora-extra-vocab-size|int
--lora-dtype
--max-cpu-loras|int
--fully-sharded-loras|bool
--default-mm-loras|json
--show-hidden-metrics-for-version
--otlp-traces-endpoint
--collect-detailed-traces
--max-num-batched-tokens|human_int
--max-num-seqs|int
--max-num-partial-prefills|int
--max-long-partial-prefills|int
--long-prefill-token-threshold|int
--num-lookahead-slots|int
--scheduling-policy|str|fcfs,priority
--enable-chunked-prefill|bool
--disable-chunked-mm-input|bool
--scheduler-cls
--disable-hybrid-kv-cache-manager|bool
--async-scheduling|bool
--cuda-graph-sizes|ilist
--cudagraph-capture-sizes|ilist
--max-cudagraph-capture-size|int
--speculative-config|json
--kv-transfer-config|json
--kv-events-config|json
--compilation-config,-O|str
--additional-config|json
--structured-outputs-config|json
--disable-log-stats|true
--aggregate-engine-logging|true
--enable-log-requests|bool
--disable-log-requests|bool
--host
--port|int
--uds
--uvicorn-log-level|str|critical,debug,error,info,trace,warning
--disable-uvicorn-access-log|bool
--allow-credentials|bool
--allowed-origins|json
--allowed-methods|json
--allowed-headers|json
--api-key|list
--lora-modules|list
--chat-template
--chat-template-content-format|str|auto,openai,string
--trust-request-chat-template|bool
--response-role
--ssl-keyfile
--ssl-certfile
--ssl-ca-certs
--enable-ssl-refresh|bool
--ssl-cert-reqs|int
--root-path
--middleware|append
--return-tokens-as-token-ids|bool
--disable-frontend-multiprocessing|bool
--enable-request-id-headers|bool
--enable-auto-tool-choice|bool
--exclude-tools-when-tool-choice-none|bool
--tool-call-parser
--tool-parser-plugin
--tool-server
--log-config-file
--max-log-len|int
--disable-fastapi-docs|bool
--enable-prompt-tokens-details|bool
--enable-server-load-tracking|bool
--enable-force-include-usage|bool
--enable-tokenizer-info-endpoint|bool
--enable-log-outputs|bool
--h11-max-incomplete-event-size|int
--h11-max-header-count|int
--log-error-stack|bool
--headless|true
--api-server-count,-asc|int
--config
`);

/** `vllm bench serve` (engines.md §1.3). */
export const VLLM_BENCH_OPTIONS = opts(`
--backend|str|vllm,openai,openai-chat,openai-audio,openai-embeddings
--endpoint-type|str|vllm,openai,openai-chat,openai-audio,openai-embeddings
--base-url
--host
--port|int
--endpoint
--header|list
--max-concurrency|int
--model
--served-model-name
--tokenizer
--tokenizer-mode|str|auto,slow,mistral,custom
--trust-remote-code|true
--request-rate|float
--burstiness|float
--ramp-up-strategy|str|linear,exponential
--ramp-up-start-rps|int
--ramp-up-end-rps|int
--num-prompts|int
--seed|int
--ignore-eos|true
--percentile-metrics
--metric-percentiles
--goodput|list
--save-result|true
--save-detailed|true
--append-result|true
--result-dir
--result-filename
--metadata|list
--label
--ready-check-timeout-sec|int
--request-id-prefix
--lora-modules|list
--logprobs|int
--use-beam-search|true
--disable-tqdm|true
--profile|true
--top-p|float
--top-k|int
--min-p|float
--temperature|float
--dataset-name|str|sharegpt,burstgpt,sonnet,random,random-mm,hf,custom,prefix_repetition,spec_bench
--dataset-path
--no-stream|true
--no-oversample|true
--sharegpt-output-len|int
--random-input-len|int
--random-output-len|int
--random-range-ratio|float
--random-prefix-len|int
--random-batch-size|int
--sonnet-input-len|int
--sonnet-output-len|int
--sonnet-prefix-len|int
--custom-output-len|int
--custom-skip-chat-template|true
--hf-subset
--hf-split
--hf-name
--hf-output-len|int
--prefix-repetition-prefix-len|int
--prefix-repetition-suffix-len|int
--prefix-repetition-num-prefixes|int
--prefix-repetition-output-len|int
--spec-bench-output-len|int
--spec-bench-category
--blazedit-min-distance|float
--blazedit-max-distance|float
`);

/** Top-level `vllm` usage, which argparse prints when a subcommand leaves arguments unrecognised. */
export const VLLM_TOP_USAGE = 'usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...';

const SGLANG_ATTENTION = 'triton,torch_native,flex_attention,nsa,cutlass_mla,fa3,fa4,flashinfer,flashmla,trtllm_mla,trtllm_mha,dual_chunk_flash_attn,aiter,wave,intel_amx,ascend';
const SGLANG_QUANT = 'awq,fp8,gptq,marlin,gptq_marlin,awq_marlin,bitsandbytes,gguf,modelopt,modelopt_fp4,petit_nvfp4,w8a8_int8,w8a8_fp8,moe_wna16,qoq,w4afp8,mxfp4';

/** SGLang's `python -m sglang.launch_server` flags; 0.5.5 adds a few choices (engines.md §2.1). */
export function sglangOptions(version) {
  const v055 = versionCompare(version, '0.5.5') >= 0;
  const attention = v055 ? `${SGLANG_ATTENTION},intel_xpu` : SGLANG_ATTENTION;
  const quant = v055 ? `${SGLANG_QUANT},modelopt_fp8,auto-round,compressed-tensors` : SGLANG_QUANT;
  const kvDtype = v055 ? 'auto,fp8_e5m2,fp8_e4m3,bf16,bfloat16,fp4_e2m1' : 'auto,fp8_e5m2,fp8_e4m3';
  return opts(`
--model-path,--model
--tokenizer-path
--tokenizer-mode|str|auto,slow
--tokenizer-worker-num|int
--skip-tokenizer-init|true
--load-format
--model-loader-extra-config
--trust-remote-code|true
--context-length|int
--is-embedding|true
--enable-multimodal|true
--revision
--model-impl
--host
--port|int
--skip-server-warmup|true
--warmups
--nccl-port|int
--dtype|str|auto,half,float16,bfloat16,float,float32
--quantization|str|${quant}
--quantization-param-path
--kv-cache-dtype|str|${kvDtype}
--enable-fp32-lm-head|true
--mem-fraction-static|float
--max-running-requests|int
--max-queued-requests|int
--max-total-tokens|int
--chunked-prefill-size|int
--max-prefill-tokens|int
--schedule-policy|str|lpm,random,fcfs,dfs-weight,lof,priority
--enable-priority-scheduling|true
--schedule-low-priority-values-first|true
--priority-scheduling-preemption-threshold|int
--schedule-conservativeness|float
--page-size|int
--hybrid-kvcache-ratio|float
--swa-full-tokens-ratio|float
--disable-hybrid-swa-memory|true
--device
--tensor-parallel-size,--tp-size|int
--pipeline-parallel-size,--pp-size|int
--pp-max-micro-batch-size|int
--stream-interval|int
--stream-output|true
--random-seed|int
--constrained-json-whitespace-pattern
--watchdog-timeout|float
--dist-timeout|int
--download-dir
--base-gpu-id|int
--gpu-id-step|int
--sleep-on-idle|true
--log-level
--log-level-http
--log-requests|true
--log-requests-level|int
--crash-dump-folder
--show-time-cost|true
--enable-metrics|true
--enable-metrics-for-all-schedulers|true
--bucket-time-to-first-token|list
--bucket-inter-token-latency|list
--bucket-e2e-request-latency|list
--collect-tokens-histogram|true
--decode-log-interval|int
--enable-request-time-stats-logging|true
--kv-events-config
--enable-trace|true
--oltp-traces-endpoint
--api-key
--served-model-name
--weight-version
--chat-template
--completion-template
--file-storage-path
--enable-cache-report|true
--reasoning-parser
--tool-call-parser
--tool-server
--data-parallel-size,--dp-size|int
--load-balance-method
--dist-init-addr,--nccl-init-addr
--nnodes|int
--node-rank|int
--json-model-override-args
--preferred-sampling-params
--enable-lora|true
--max-lora-rank|int
--lora-target-modules|list
--lora-paths|list
--max-loaded-loras|int
--max-loras-per-batch|int
--lora-backend
--attention-backend|str|${attention}
--prefill-attention-backend|str|${attention}
--decode-attention-backend|str|${attention}
--sampling-backend|str|flashinfer,pytorch
--grammar-backend
--mm-attention-backend
--speculative-algorithm|str|EAGLE,EAGLE3,NEXTN,STANDALONE,NGRAM
--speculative-draft-model-path,--speculative-draft-model
--speculative-draft-model-revision
--speculative-draft-load-format
--speculative-num-steps|int
--speculative-eagle-topk|int
--speculative-num-draft-tokens|int
--speculative-accept-threshold-single|float
--speculative-accept-threshold-acc|float
--speculative-token-map
--speculative-attention-mode
--speculative-ngram-min-match-window-size|int
--speculative-ngram-max-match-window-size|int
--speculative-ngram-min-bfs-breadth|int
--speculative-ngram-max-bfs-breadth|int
--speculative-ngram-match-type
--speculative-ngram-branch-length|int
--speculative-ngram-capacity|int
--expert-parallel-size,--ep-size,--ep|int
--moe-a2a-backend
--moe-runner-backend
--flashinfer-mxfp4-moe-precision
--enable-flashinfer-allreduce-fusion|true
--deepep-mode
--ep-num-redundant-experts|int
--ep-dispatch-algorithm
--init-expert-location
--enable-eplb|true
--eplb-algorithm
--eplb-rebalance-num-iterations|int
--eplb-rebalance-layers-per-chunk|int
--eplb-min-rebalancing-utilization-threshold|float
--expert-distribution-recorder-mode
--expert-distribution-recorder-buffer-size|int
--enable-expert-distribution-metrics|true
--deepep-config
--moe-dense-tp-size|int
--enable-hierarchical-cache|true
--hicache-ratio|float
--hicache-size|int
--hicache-write-policy
--hicache-io-backend
--hicache-mem-layout
--hicache-storage-backend
--hicache-storage-prefetch-policy
--hicache-storage-backend-extra-config
--enable-lmcache|true
--enable-double-sparsity|true
--ds-channel-config-path
--ds-heavy-channel-num|int
--ds-heavy-token-num|int
--ds-heavy-channel-type
--ds-sparse-decode-threshold|int
--cpu-offload-gb|int
--offload-group-size|int
--offload-num-in-group|int
--offload-prefetch-step|int
--offload-mode
--disable-radix-cache|true
--cuda-graph-max-bs|int
--cuda-graph-bs|ilist
--disable-cuda-graph|true
--disable-cuda-graph-padding|true
--enable-profile-cuda-graph|true
--enable-cudagraph-gc|true
--enable-nccl-nvls|true
--enable-symm-mem|true
--disable-flashinfer-cutlass-moe-fp4-allgather|true
--enable-tokenizer-batch-encode|true
--disable-outlines-disk-cache|true
--disable-custom-all-reduce|true
--enable-mscclpp|true
--disable-overlap-schedule|true
--enable-mixed-chunk|true
--enable-dp-attention|true
--enable-dp-lm-head|true
--enable-two-batch-overlap|true
--tbo-token-distribution-threshold|float
--enable-torch-compile|true
--enable-piecewise-cuda-graph|true
--torch-compile-max-bs|int
--piecewise-cuda-graph-max-tokens|int
--piecewise-cuda-graph-tokens|ilist
--torchao-config
--enable-nan-detection|true
--enable-p2p-check|true
--triton-attention-reduce-in-fp32|true
--triton-attention-num-kv-splits|int
--triton-attention-split-tile-size|int
--num-continuous-decode-steps|int
--delete-ckpt-after-loading|true
--enable-memory-saver|true
--allow-auto-truncate|true
--enable-custom-logit-processor|true
--flashinfer-mla-disable-ragged|true
--disable-shared-experts-fusion|true
--disable-chunked-prefix-cache|true
--disable-fast-image-processor|true
--keep-mm-feature-on-device|true
--enable-return-hidden-states|true
--scheduler-recv-interval|int
--numa-node|ilist
--debug-tensor-dump-output-folder
--debug-tensor-dump-input-file
--debug-tensor-dump-inject|true
--disaggregation-mode
--disaggregation-transfer-backend
--disaggregation-bootstrap-port|int
--disaggregation-decode-tp|int
--disaggregation-decode-dp|int
--disaggregation-prefill-pp|int
--disaggregation-ib-device
--num-reserved-decode-tokens|int
--custom-weight-loader|list
--weight-loader-disable-mmap|true
--enable-pdmux|true
--sm-group-num|int
--enable-deterministic-inference|true
--config
`).map((o) => (o.flags[0] === '--model-path' ? { ...o, required: true } : o));
}

/** trtllm-serve's click options (engines.md §3.1; options only in newer versions are left out for 1.2.0rc1). */
export function trtllmOptions(version) {
  const newer = versionCompare(version, '1.2.0rc2') >= 0;
  const list = [
    ['--tokenizer'],
    ['--host'],
    ['--port', 'int'],
    ['--backend', 'str', ['pytorch', 'tensorrt', '_autodeploy', 'trt']],
    ['--log_level', 'str', ['internal_error', 'error', 'warning', 'info', 'verbose', 'debug', 'trace']],
    ['--max_beam_width', 'int'],
    ['--max_batch_size', 'int'],
    ['--max_num_tokens', 'int'],
    ['--max_seq_len', 'int'],
    ['--tensor_parallel_size,--tp_size', 'int'],
    ['--pipeline_parallel_size,--pp_size', 'int'],
    ['--moe_expert_parallel_size,--ep_size', 'int'],
    ['--moe_cluster_parallel_size,--cluster_size', 'int'],
    ['--gpus_per_node', 'int'],
    ['--kv_cache_free_gpu_memory_fraction,--free_gpu_memory_fraction', 'float'],
    ['--num_postprocess_workers', 'int'],
    ['--trust_remote_code', 'flag'],
    ['--revision'],
    ['--extra_llm_api_options,--config'],
    ['--reasoning_parser'],
    ['--tool_parser'],
    ['--metadata_server_config_file'],
    ['--server_role'],
    ['--fail_fast_on_attention_window_too_large', 'flag'],
    ['--otlp_traces_endpoint'],
    ['--enable_chunked_prefill', 'flag'],
    ['--chat_template'],
  ];
  if (newer) list.push(['--context_parallel_size,--cp_size', 'int'], ['--custom_tokenizer'], ['--media_io_kwargs'], ['--disagg_cluster_uri']);
  return list.map(([flags, type = 'str', choices]) => {
    const f = flags.split(',');
    return { flags: f, type, choices, dest: f[0].replace(/^--/, '') };
  });
}

/** Top-level keys TensorRT-LLM's LLM args accept in the extra-options YAML (strict schema: others are an error). */
export const TRTLLM_YAML_KEYS = new Set(
  `model tokenizer tokenizer_mode skip_tokenizer_init trust_remote_code tensor_parallel_size dtype revision tokenizer_revision
pipeline_parallel_size context_parallel_size gpus_per_node moe_cluster_parallel_size moe_tensor_parallel_size moe_expert_parallel_size
enable_attention_dp cp_config load_format enable_lora lora_config kv_cache_config enable_chunked_prefill guided_decoding_backend
batched_logits_processor iter_stats_max_iterations request_stats_max_iterations peft_cache_config scheduler_config
cache_transceiver_config speculative_config max_batch_size max_input_len max_seq_len max_beam_width max_num_tokens
gather_generation_logits num_postprocess_workers postprocess_tokenizer_dir reasoning_parser decoding_config backend
return_perf_metrics orchestrator_type build_config cuda_graph_config attn_backend moe_config disable_overlap_scheduler
torch_compile_config enable_autotuner enable_iter_perf_stats enable_iter_req_stats print_iter_log stream_interval
enable_layerwise_nvtx_marker checkpoint_loader checkpoint_format kv_connector_config mm_encoder_only
garbage_collection_gen0_threshold force_dynamic_quantization allreduce_strategy enable_min_latency sampler_type
use_torch_sampling sparse_attention_config batch_wait_timeout_ms batch_wait_timeout_iters batch_wait_max_tokens_ratio
enable_sleep otlp_traces_endpoint fail_fast_on_attention_window_too_large`.split(/\s+/),
);

/** vLLM's -O / --compilation-config value: a level (3), dotted keys (-O.cudagraph_mode=FULL) or JSON. */
export function parseCompilationConfig(values) {
  const raw = values.compilation_config;
  if (raw === undefined) return {};
  if (/^\d+$/.test(raw)) return { level: Number(raw) };
  if (raw.startsWith('.')) {
    const m = /^\.([\w.]+)=(.*)$/.exec(raw);
    if (!m) return {};
    let v = m[2];
    try {
      v = JSON.parse(v);
    } catch {
      // plain string value
    }
    return { [m[1]]: v };
  }
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}
