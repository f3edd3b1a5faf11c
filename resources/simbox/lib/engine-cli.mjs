// Entry points of the simulated engines: `vllm …`, `python -m sglang.launch_server …` and `trtllm-serve …`.
// Each parses its real flag set, turns the flags into performance-model knobs and starts the simulated server.

import { readFileSync } from 'node:fs';
import { parseArgs, parseClick, UsageError } from './argparse.mjs';
import { versionCompare } from './catalog.mjs';
import { parseCompilationConfig, sglangOptions, trtllmOptions, TRTLLM_YAML_KEYS, VLLM_SERVE_OPTIONS, VLLM_TOP_USAGE } from './engine-flags.mjs';
import { pyRepr } from './pyfmt.mjs';
import { traceback } from './pylog.mjs';
import { runServer } from './server.mjs';
import { parseYaml } from './yaml-lite.mjs';

function usageExit(err) {
  if (err instanceof UsageError) {
    (err.code === 0 ? process.stdout : process.stderr).write(err.text);
    process.exit(err.code);
  }
  throw err;
}

/** vLLM's --config YAML: its keys become flags placed before the command line ones (which win). */
function expandVllmConfig(argv) {
  const i = argv.findIndex((a) => a === '--config' || a.startsWith('--config='));
  if (i < 0) return argv;
  const path = argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  let data;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch {
    process.stderr.write(`${traceback([['vllm/utils/__init__.py', 1, 'load_config_file', null]], `FileNotFoundError: [Errno 2] No such file or directory: '${path}'`)}`);
    process.exit(1);
  }
  const extra = [];
  for (const [k, v] of Object.entries(data ?? {})) {
    const flag = `--${k.replace(/_/g, '-')}`;
    if (v === true) extra.push(flag);
    else if (v === false) continue;
    else if (Array.isArray(v)) extra.push(flag, ...v.map(String));
    else extra.push(flag, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const rest = argv.filter((_, j) => j !== i && !(j === i + 1 && !argv[i].includes('=')));
  const pos = rest[0] && !rest[0].startsWith('-') ? [rest.shift()] : [];
  return [...pos, ...extra, ...rest];
}

export async function vllmMain(argv, env) {
  const version = env.version;
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(`${VLLM_TOP_USAGE}\n\nvLLM CLI (simulated by the Servelab simbox)\n`);
    return;
  }
  if (argv[0] === '-v' || argv[0] === '--version') {
    process.stdout.write(`${version}\n`);
    return;
  }
  const sub = argv[0];
  const subs = ['chat', 'complete', 'serve', 'bench', 'collect-env', 'run-batch'];
  if (!subs.includes(sub)) {
    process.stderr.write(`${VLLM_TOP_USAGE}\nvllm: error: argument subparser: invalid choice: '${sub}' (choose from ${subs.map((s) => `'${s}'`).join(', ')})\n`);
    process.exit(2);
  }
  if (sub === 'bench') {
    const kinds = ['latency', 'serve', 'throughput'];
    if (argv[1] !== 'serve') {
      if (!argv[1] || argv[1].startsWith('-')) {
        process.stderr.write('usage: vllm bench [-h] {latency,serve,throughput} ...\nvllm bench: error: the following arguments are required: bench_type\n');
      } else if (!kinds.includes(argv[1])) {
        process.stderr.write(`usage: vllm bench [-h] {latency,serve,throughput} ...\nvllm bench: error: argument bench_type: invalid choice: '${argv[1]}' (choose from ${kinds.map((k) => `'${k}'`).join(', ')})\n`);
      } else {
        process.stderr.write(`vllm bench ${argv[1]}: needs a GPU in this process; the simulated box offers only \`vllm bench serve\`.\n`);
        process.exit(1);
      }
      process.exit(2);
    }
    const { benchServeMain } = await import('./bench-serve.mjs');
    return benchServeMain(argv.slice(2), { version });
  }
  if (sub !== 'serve') {
    process.stderr.write(`vllm ${sub}: not part of the simulated box (only serve, bench serve and --version are).\n`);
    process.exit(1);
  }
  let parsed;
  try {
    parsed = parseArgs(
      {
        prog: 'vllm serve',
        usage: 'usage: vllm serve [model_tag] [options]',
        options: VLLM_SERVE_OPTIONS.filter((o) => versionCompare(version, '0.12.0') >= 0 || o.flags[0] !== '--attention-backend'),
        positionals: [{ name: 'model_tag', nargs: '?' }],
        underscores: true,
        extrasProg: 'vllm',
        extrasUsage: VLLM_TOP_USAGE,
      },
      expandVllmConfig(argv.slice(1)),
    );
  } catch (err) {
    usageExit(err);
  }
  const v = parsed.values;
  const model = v.model_tag ?? v.model ?? 'Qwen/Qwen3-0.6B';
  const nonDefault = {};
  if (v.model_tag) nonDefault.model_tag = v.model_tag;
  for (const [k, val] of Object.entries(v)) if (k !== 'model_tag' && k !== 'model') nonDefault[k] = val;
  nonDefault.model = model;
  const comp = parseCompilationConfig(v);
  const sizes = v.cudagraph_capture_sizes ?? v.cuda_graph_sizes ?? comp.cudagraph_capture_sizes;
  const cudaGraphMaxBs = v.max_cudagraph_capture_size ?? comp.max_cudagraph_capture_size ?? comp.max_capture_size ?? (sizes ? Math.max(...sizes) : null);
  let spec = null;
  if (v.speculative_config) {
    const sc = v.speculative_config;
    const n = sc.num_speculative_tokens ?? 3;
    spec = { algorithm: String(sc.method ?? 'eagle').toUpperCase(), draftModel: sc.model ?? null, steps: n, topk: 1, draftTokens: n + 1 };
  }
  const attention = env.processEnv.VLLM_ATTENTION_BACKEND ? env.processEnv.VLLM_ATTENTION_BACKEND.toLowerCase() : null;
  await runServer({
    engine: 'vllm',
    version,
    model,
    servedName: v.served_model_name?.[0] ?? model,
    host: v.host ?? null,
    port: v.port ?? 8000,
    seed: v.seed ?? 0,
    nonDefaultArgs: pyRepr(nonDefault),
    processName: 'VLLM::EngineCore',
    accessLog: !v.disable_uvicorn_access_log,
    knobs: {
      tp: v.tensor_parallel_size ?? 1,
      pp: v.pipeline_parallel_size ?? 1,
      quantization: v.quantization ?? null,
      kvCacheDtype: v.kv_cache_dtype ?? 'auto',
      maxModelLen: v.max_model_len ?? null,
      memFraction: v.gpu_memory_utilization ?? null,
      maxBatchedTokens: v.max_num_batched_tokens ?? null,
      maxRunning: v.max_num_seqs ?? null,
      disableCudaGraph: Boolean(v.enforce_eager),
      cudaGraphMaxBs,
      attentionBackend: attention,
      asyncScheduling: Boolean(v.async_scheduling),
      spec,
    },
  });
}

export async function sglangLaunchMain(argv, env) {
  const version = env.version;
  let parsed;
  try {
    parsed = parseArgs({ prog: 'launch_server.py', options: sglangOptions(version) }, argv);
  } catch (err) {
    usageExit(err);
  }
  const v = parsed.values;
  const model = v.model_path;
  let spec = null;
  if (v.speculative_algorithm) {
    const algorithm = v.speculative_algorithm === 'NEXTN' ? 'EAGLE' : v.speculative_algorithm;
    if (/EAGLE/.test(algorithm) && !v.speculative_draft_model_path) {
      process.stderr.write(traceback([['/usr/lib/python3/dist-packages/sglang/srt/server_args.py', 1120, '_handle_speculative_decoding', null]], 'AssertionError: --speculative-draft-model-path is required for EAGLE/EAGLE3 speculative decoding'));
      process.exit(1);
    }
    spec = { algorithm, draftModel: v.speculative_draft_model_path ?? null, steps: v.speculative_num_steps ?? null, topk: v.speculative_eagle_topk ?? null, draftTokens: v.speculative_num_draft_tokens ?? null };
  }
  const shown = {
    model_path: model,
    tokenizer_path: v.tokenizer_path ?? model,
    host: v.host ?? '127.0.0.1',
    port: v.port ?? 30000,
    ...Object.fromEntries(Object.entries(v).filter(([k]) => !['model_path', 'tokenizer_path', 'host', 'port'].includes(k))),
  };
  const argsRepr = `ServerArgs(${Object.entries(shown)
    .map(([k, x]) => `${k}=${pyRepr(x)}`)
    .join(', ')})`;
  await runServer({
    engine: 'sglang',
    version,
    model,
    servedName: v.served_model_name ?? model,
    host: v.host ?? '127.0.0.1',
    port: v.port ?? 30000,
    seed: v.random_seed ?? 0,
    nonDefaultArgs: argsRepr,
    processName: 'sglang::scheduler',
    skipWarmup: Boolean(v.skip_server_warmup),
    knobs: {
      tp: v.tensor_parallel_size ?? 1,
      pp: v.pipeline_parallel_size ?? 1,
      quantization: v.quantization ?? null,
      kvCacheDtype: v.kv_cache_dtype ?? 'auto',
      maxModelLen: v.context_length ?? null,
      memFraction: v.mem_fraction_static ?? null,
      maxBatchedTokens: v.chunked_prefill_size ?? null,
      maxRunning: v.max_running_requests ?? null,
      disableCudaGraph: Boolean(v.disable_cuda_graph),
      cudaGraphMaxBs: v.cuda_graph_max_bs ?? (v.cuda_graph_bs ? Math.max(...v.cuda_graph_bs) : null),
      attentionBackend: v.attention_backend ?? null,
      torchCompile: Boolean(v.enable_torch_compile),
      spec,
    },
  });
}

const TRT_SUBCOMMANDS = ['serve', 'grpc', 'disaggregated', 'disaggregated_mpi_worker', 'mm_embedding_serve'];

export async function trtllmServeMain(argv, env) {
  const version = env.version;
  let args = argv;
  if (args[0] && TRT_SUBCOMMANDS.includes(args[0])) {
    if (args[0] !== 'serve') {
      process.stderr.write(`trtllm-serve ${args[0]}: not part of the simulated box (only serve is).\n`);
      process.exit(1);
    }
    args = args.slice(1);
  }
  let parsed;
  try {
    parsed = parseClick({ path: 'trtllm-serve serve', usageTail: '[OPTIONS] MODEL', options: trtllmOptions(version), arguments: ['model'] }, args);
  } catch (err) {
    usageExit(err);
  }
  const v = parsed.values;
  const knobs = {
    tp: v.tensor_parallel_size ?? 1,
    pp: v.pipeline_parallel_size ?? 1,
    maxModelLen: v.max_seq_len ?? null,
    maxBatchedTokens: v.max_num_tokens ?? null,
    maxRunning: v.max_batch_size ?? null,
    memFraction: v.kv_cache_free_gpu_memory_fraction ?? null,
    chunkedPrefill: Boolean(v.enable_chunked_prefill),
  };
  if (v.extra_llm_api_options) {
    let extra;
    try {
      extra = parseYaml(readFileSync(v.extra_llm_api_options, 'utf8')) ?? {};
    } catch (err) {
      process.stderr.write(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py', 420, 'serve', "with open(extra_llm_api_options, 'r') as f:"]], err.code === 'ENOENT' ? `FileNotFoundError: [Errno 2] No such file or directory: '${v.extra_llm_api_options}'` : `yaml.scanner.ScannerError: ${err.message}`));
      process.exit(1);
    }
    const unknown = Object.keys(extra).filter((k) => !TRTLLM_YAML_KEYS.has(k));
    if (unknown.length > 0) {
      process.stderr.write(
        traceback(
          [['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/llmapi/llm_utils.py', 912, 'update_llm_args_with_extra_dict', 'llm_args = TorchLlmArgs(**llm_args_dict)']],
          `pydantic_core._pydantic_core.ValidationError: ${unknown.length} validation error${unknown.length > 1 ? 's' : ''} for TorchLlmArgs\n${unknown.map((k) => `${k}\n  Extra inputs are not permitted [type=extra_forbidden, input_value=${pyRepr(extra[k])}, input_type=${typeof extra[k] === 'number' ? 'int' : typeof extra[k] === 'object' ? 'dict' : 'str'}]\n    For further information visit https://errors.pydantic.dev/2.11/v/extra_forbidden`).join('\n')}`,
        ),
      );
      process.exit(1);
    }
    if (extra.cuda_graph_config === null) knobs.disableCudaGraph = true;
    if (extra.cuda_graph_config?.max_batch_size) knobs.cudaGraphMaxBs = extra.cuda_graph_config.max_batch_size;
    if (extra.cuda_graph_config?.batch_sizes) knobs.cudaGraphMaxBs = Math.max(...extra.cuda_graph_config.batch_sizes);
    if (extra.kv_cache_config?.dtype) knobs.kvCacheDtype = extra.kv_cache_config.dtype;
    if (extra.kv_cache_config?.free_gpu_memory_fraction) knobs.memFraction = extra.kv_cache_config.free_gpu_memory_fraction;
    if (extra.enable_chunked_prefill !== undefined) knobs.chunkedPrefill = Boolean(extra.enable_chunked_prefill);
    if (extra.max_num_tokens) knobs.maxBatchedTokens = extra.max_num_tokens;
    if (extra.max_batch_size) knobs.maxRunning = extra.max_batch_size;
    if (extra.max_seq_len) knobs.maxModelLen = extra.max_seq_len;
    if (extra.attn_backend) knobs.attentionBackend = String(extra.attn_backend).toLowerCase();
    if (extra.torch_compile_config) knobs.torchCompile = true;
    const sc = extra.speculative_config;
    if (sc && /eagle/i.test(sc.decoding_type ?? '')) {
      if (!sc.speculative_model_dir) {
        process.stderr.write(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/llmapi/llm_args.py', 640, 'validate_eagle_config', null]], 'ValueError: Draft model must be provided for EAGLE'));
        process.exit(1);
      }
      const n = sc.max_draft_len ?? 3;
      knobs.spec = { algorithm: 'EAGLE3', draftModel: sc.speculative_model_dir, steps: n, topk: 1, draftTokens: n + 1 };
    }
  }
  await runServer({
    engine: 'trtllm',
    version,
    model: v.model,
    servedName: v.model,
    host: v.host ?? 'localhost',
    port: v.port ?? 8000,
    seed: 0,
    processName: env.python ?? 'python3',
    knobs,
  });
}
