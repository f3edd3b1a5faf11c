// Entry points of the simulated engines: `vllm …`, `python -m vllm.entrypoints.openai.api_server …`,
// `python -m sglang.launch_server …` and `trtllm-serve …`. Each parses its command line with the engine's parser at
// the installed version (engine-args.mjs, from the generated flag tables), applies the engine's own checks where the
// simulation models the feature (vllm-config.mjs), turns the values into performance-model knobs and starts the
// simulated server. The parsing is pure (`…SpecOf`: the server's spec, or a PythonExit/UsageError with the engine's
// text and exit status), so the virtual lab (virtual-lab.mjs) refuses and accepts exactly what the live engines do.

import { readFileSync } from 'node:fs';
import { parseSglang, parseTrtllm, parseVllmServe, PythonExit, trtllmYamlKeys, UsageError, VLLM_TOP_USAGE, vllmRewriteArgv } from './engine-args.mjs';
import { pyRepr } from './pyfmt.mjs';
import { traceback } from './pylog.mjs';
import { runServer } from './server.mjs';
import { loadConfig } from './state.mjs';
import { vllmAttention, vllmSpeculative } from './vllm-config.mjs';
import { versionCompare } from './version.mjs';
import { parseYaml } from './yaml-lite.mjs';

/** vLLM's Optional[Literal] choices take the string 'None' for None. */
const nonNone = (v) => (v === undefined || v === null || v === 'None' ? null : v);

/** Prints what the parser printed and exits with its status (0 for --help, 2 for a refusal, 1 for an exception). */
function exitWith(err) {
  if (err instanceof UsageError || err instanceof PythonExit) {
    (err.code === 0 ? process.stdout : process.stderr).write(err.text);
    process.exit(err.code);
  }
  throw err;
}

const VLLM_SUBCOMMANDS = ['chat', 'complete', 'serve', 'bench', 'collect-env', 'run-batch'];

export async function vllmMain(argv, env) {
  const version = env.version;
  if (argv.length === 0 || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(`usage: ${VLLM_TOP_USAGE}\n\nvLLM CLI (simulated by the Servelab simbox)\n`);
    return;
  }
  if (argv[0] === '-v' || argv[0] === '--version') {
    process.stdout.write(`${version}\n`);
    return;
  }
  const sub = argv[0];
  if (!VLLM_SUBCOMMANDS.includes(sub)) {
    process.stderr.write(`usage: ${VLLM_TOP_USAGE}\nvllm: error: argument subparser: invalid choice: '${sub}' (choose from ${VLLM_SUBCOMMANDS.map((s) => `'${s}'`).join(', ')})\n`);
    process.exit(2);
  }
  let args;
  try {
    args = vllmRewriteArgv(argv, version);
  } catch (err) {
    exitWith(err);
  }
  if (sub === 'bench') {
    const kinds = ['latency', 'serve', 'throughput'];
    if (args[1] !== 'serve') {
      if (!args[1] || args[1].startsWith('-')) {
        process.stderr.write('usage: vllm bench <bench_type> [options]\nvllm bench: error: the following arguments are required: bench_type\n');
      } else if (!kinds.includes(args[1])) {
        process.stderr.write(`usage: vllm bench <bench_type> [options]\nvllm bench: error: argument bench_type: invalid choice: '${args[1]}' (choose from ${kinds.map((k) => `'${k}'`).join(', ')})\n`);
      } else {
        process.stderr.write(`vllm bench ${args[1]}: needs a GPU in this process; the simulated box offers only \`vllm bench serve\`.\n`);
        process.exit(1);
      }
      process.exit(2);
    }
    const { benchServeMain } = await import('./bench-serve.mjs');
    return benchServeMain(args.slice(2), { version });
  }
  if (sub !== 'serve') {
    process.stderr.write(`vllm ${sub}: not part of the simulated box (only serve, bench serve and --version are).\n`);
    process.exit(1);
  }
  return vllmServe(args.slice(1), env, { module: false });
}

/** `python -m vllm.entrypoints.openai.api_server …` (the vLLM image's entrypoint): its own parser, `--model` for the model. */
export async function vllmApiServerMain(argv, env) {
  let spec;
  try {
    spec = vllmApiServerSpecOf(argv, { ...env, box: loadConfig() });
  } catch (err) {
    exitWith(err);
  }
  await runServer(spec);
}

export function vllmApiServerSpecOf(argv, env) {
  return vllmServeSpecOf(vllmRewriteArgv(argv, env.version), env, { module: true });
}

async function vllmServe(args, env, { module }) {
  let spec;
  try {
    spec = vllmServeSpecOf(args, { ...env, box: loadConfig() }, { module });
  } catch (err) {
    exitWith(err);
  }
  await runServer(spec);
}

/**
 * The spec of `vllm serve` (args after `serve`, rewritten) or of the API server module; `env.box`: the box's config
 * (its GPU decides the attention backend). Throws PythonExit/UsageError where the engine refuses.
 */
export function vllmServeSpecOf(args, env, { module }) {
  const version = env.version;
  const p = parseVllmServe(args, version, { module });
  const v = p.values;
  // `vllm serve`: the positional tag is the model (vllm/entrypoints/cli/serve.py ServeSubcommand.cmd); the module
  // reads --model only. EngineArgs.model's default otherwise.
  const model = (!module && v.model_tag) || p.get('--model') || 'Qwen/Qwen3-0.6B';
  const nonDefault = {};
  if (!module && v.model_tag) nonDefault.model_tag = v.model_tag;
  for (const [k, val] of Object.entries(v)) if (k !== 'model_tag' && k !== 'model') nonDefault[k] = val;
  nonDefault.model = model;

  const box = env.box;
  const kvCacheDtype = p.get('--kv-cache-dtype') ?? 'auto';
  const attention = vllmAttention(version, { env: env.processEnv, cliBackend: p.get('--attention-backend'), kvCacheDtype, computeCap: box.gpuModel.computeCap });
  if (attention.unsupported) throw new PythonExit(`simbox (SERVELAB-SIMULATED): ${attention.unsupported}.\n`, 1);
  const speculative = attention.error ? { spec: null, error: null } : vllmSpeculative(version, p.get('--speculative-config'), model);
  const comp = p.get('--compilation-config');
  const compilation = comp && typeof comp === 'object' && !Array.isArray(comp) ? comp : {};
  const sizes = p.get('--cudagraph-capture-sizes') ?? p.get('--cuda-graph-sizes') ?? compilation.cudagraph_capture_sizes;
  const cudaGraphMaxBs = p.get('--max-cudagraph-capture-size') ?? compilation.max_cudagraph_capture_size ?? compilation.max_capture_size ?? (sizes ? Math.max(...sizes) : null);
  const served = p.get('--served-model-name');
  const maxModelLen = p.get('--max-model-len');
  return {
    engine: 'vllm',
    version,
    model,
    servedName: served?.[0] ?? model,
    host: p.get('--host') ?? null,
    port: p.get('--port') ?? 8000,
    seed: p.get('--seed') ?? 0,
    nonDefaultArgs: pyRepr(nonDefault),
    processName: 'VLLM::EngineCore',
    accessLog: !p.get('--disable-uvicorn-access-log'),
    apiWarnings: attention.apiWarnings,
    engineLines: attention.engineLines,
    configError: attention.error ?? speculative.error,
    knobs: {
      tp: p.get('--tensor-parallel-size') ?? 1,
      pp: p.get('--pipeline-parallel-size') ?? 1,
      dp: p.get('--data-parallel-size') ?? 1,
      dcp: p.get('--decode-context-parallel-size') ?? 1,
      enableEp: Boolean(p.get('--enable-expert-parallel')),
      // --all2all-backend from 0.11.1; 0.11.0 reads VLLM_ALL2ALL_BACKEND (vllm/envs.py@v0.11.0:1240-1246).
      a2aBackend: nonNone(p.get('--all2all-backend')) ?? (versionCompare(version, '0.11.1') < 0 ? env.processEnv?.VLLM_ALL2ALL_BACKEND ?? null : null),
      quantization: p.get('--quantization') ?? null,
      kvCacheDtype,
      maxModelLen: maxModelLen === -1 ? null : maxModelLen ?? null,
      memFraction: p.get('--gpu-memory-utilization') ?? null,
      maxBatchedTokens: p.get('--max-num-batched-tokens') ?? null,
      maxRunning: p.get('--max-num-seqs') ?? null,
      disableCudaGraph: Boolean(p.get('--enforce-eager')),
      cudaGraphMaxBs,
      attentionBackend: attention.backend,
      asyncScheduling: Boolean(p.get('--async-scheduling')),
      spec: speculative.spec,
    },
  };
}

export async function sglangLaunchMain(argv, env) {
  let spec;
  try {
    spec = sglangLaunchSpecOf(argv, env);
  } catch (err) {
    exitWith(err);
  }
  await runServer(spec);
}

/** The spec of `python -m sglang.launch_server …`; throws PythonExit/UsageError where SGLang refuses. */
export function sglangLaunchSpecOf(argv, env) {
  const version = env.version;
  const p = parseSglang(argv, version);
  const v = p.values;
  const model = p.get('--model-path');
  let spec = null;
  const algorithmArg = p.get('--speculative-algorithm');
  if (algorithmArg) {
    const algorithm = algorithmArg === 'NEXTN' ? 'EAGLE' : algorithmArg;
    const draft = p.get('--speculative-draft-model-path');
    if (/EAGLE/.test(algorithm) && !draft) {
      throw new PythonExit(traceback([['/usr/lib/python3/dist-packages/sglang/srt/server_args.py', 1120, '_handle_speculative_decoding', null]], 'AssertionError: --speculative-draft-model-path is required for EAGLE/EAGLE3 speculative decoding'), 1);
    }
    spec = { algorithm, draftModel: draft ?? null, steps: p.get('--speculative-num-steps') ?? null, topk: p.get('--speculative-eagle-topk') ?? null, draftTokens: p.get('--speculative-num-draft-tokens') ?? null };
  }
  const host = p.get('--host') ?? '127.0.0.1';
  const port = p.get('--port') ?? 30000;
  const modelDest = p.actions.find((a) => a.optionStrings.includes('--model-path')).dest;
  const shown = {
    model_path: model,
    tokenizer_path: p.get('--tokenizer-path') ?? model,
    host,
    port,
    ...Object.fromEntries(Object.entries(v).filter(([k]) => ![modelDest, 'tokenizer_path', 'host', 'port'].includes(k))),
  };
  const argsRepr = `ServerArgs(${Object.entries(shown)
    .map(([k, x]) => `${k}=${pyRepr(x)}`)
    .join(', ')})`;
  const cudaGraphBs = p.get('--cuda-graph-bs');
  return {
    engine: 'sglang',
    version,
    model,
    servedName: p.get('--served-model-name') ?? model,
    host,
    port,
    seed: p.get('--random-seed') ?? 0,
    nonDefaultArgs: argsRepr,
    processName: 'sglang::scheduler',
    skipWarmup: Boolean(p.get('--skip-server-warmup')),
    knobs: {
      tp: p.get('--tensor-parallel-size') ?? 1,
      pp: p.get('--pipeline-parallel-size') ?? 1,
      dp: p.get('--data-parallel-size') ?? 1,
      epSize: p.get('--expert-parallel-size') ?? null,
      dpAttention: Boolean(p.get('--enable-dp-attention')),
      a2aBackend: p.get('--moe-a2a-backend') ?? null,
      quantization: p.get('--quantization') ?? null,
      kvCacheDtype: p.get('--kv-cache-dtype') ?? 'auto',
      maxModelLen: p.get('--context-length') ?? null,
      memFraction: p.get('--mem-fraction-static') ?? null,
      maxBatchedTokens: p.get('--chunked-prefill-size') ?? null,
      maxRunning: p.get('--max-running-requests') ?? null,
      disableCudaGraph: Boolean(p.get('--disable-cuda-graph')),
      cudaGraphMaxBs: p.get('--cuda-graph-max-bs') ?? (cudaGraphBs ? Math.max(...cudaGraphBs) : null),
      attentionBackend: p.get('--attention-backend') ?? null,
      torchCompile: Boolean(p.get('--enable-torch-compile')),
      spec,
    },
  };
}

const TRT_SUBCOMMANDS = ['serve', 'grpc', 'disaggregated', 'disaggregated_mpi_worker', 'mm_embedding_serve'];

/**
 * The attention backends TensorRT-LLM resolves by name (tensorrt_llm/_torch/attention_backend/utils.py@00dbe288:10-24,
 * case-sensitive; FLASHINFER* when flashinfer imports, as in the simulated environment); any other name silently
 * gets TrtllmAttention (VALIDATION.md §3.2).
 */
const TRT_ATTENTION = { VANILLA: 'vanilla', TRTLLM: 'trtllm', FLASHINFER: 'flashinfer', FLASHINFER_STAR_ATTENTION: 'flashinfer' };

export async function trtllmServeMain(argv, env) {
  let spec;
  try {
    spec = trtllmServeSpecOf(argv, env);
  } catch (err) {
    exitWith(err);
  }
  await runServer(spec);
}

/**
 * The spec of `trtllm-serve …`; throws PythonExit/UsageError where TensorRT-LLM refuses. `env.readFile` reads the
 * extra options file (the box's file by default).
 */
export function trtllmServeSpecOf(argv, env) {
  const version = env.version;
  let args = argv;
  if (args[0] && TRT_SUBCOMMANDS.includes(args[0])) {
    if (args[0] !== 'serve') throw new PythonExit(`trtllm-serve ${args[0]}: not part of the simulated box (only serve is).\n`, 1);
    args = args.slice(1);
  }
  const p = parseTrtllm(args, version);
  const v = p.values;
  const knobs = {
    tp: p.get('--tp_size') ?? 1,
    pp: p.get('--pp_size') ?? 1,
    epSize: p.get('--ep_size') ?? null,
    maxModelLen: p.get('--max_seq_len') ?? null,
    maxBatchedTokens: p.get('--max_num_tokens') ?? null,
    maxRunning: p.get('--max_batch_size') ?? null,
    memFraction: p.get('--kv_cache_free_gpu_memory_fraction') ?? null,
    chunkedPrefill: Boolean(p.get('--enable_chunked_prefill')),
  };
  const extraPath = p.get('--extra_llm_api_options');
  if (extraPath) {
    let extra;
    try {
      extra = parseYaml((env.readFile ?? ((path) => readFileSync(path, 'utf8')))(extraPath)) ?? {};
    } catch (err) {
      throw new PythonExit(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py', 420, 'serve', "with open(extra_llm_api_options, 'r') as f:"]], err.code === 'ENOENT' ? `FileNotFoundError: [Errno 2] No such file or directory: '${extraPath}'` : `yaml.scanner.ScannerError: ${err.message}`), 1);
    }
    const keys = trtllmYamlKeys(version);
    const unknown = Object.keys(extra).filter((k) => !keys.has(k));
    if (unknown.length > 0) {
      throw new PythonExit(
        traceback(
          [['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/llmapi/llm_utils.py', 912, 'update_llm_args_with_extra_dict', 'llm_args = TorchLlmArgs(**llm_args_dict)']],
          `pydantic_core._pydantic_core.ValidationError: ${unknown.length} validation error${unknown.length > 1 ? 's' : ''} for TorchLlmArgs\n${unknown.map((k) => `${k}\n  Extra inputs are not permitted [type=extra_forbidden, input_value=${pyRepr(extra[k])}, input_type=${typeof extra[k] === 'number' ? 'int' : typeof extra[k] === 'object' ? 'dict' : 'str'}]\n    For further information visit https://errors.pydantic.dev/2.11/v/extra_forbidden`).join('\n')}`,
        ),
        1,
      );
    }
    // The YAML's LLM arguments override the command line's (update_llm_args_with_extra_dict).
    if (Number.isInteger(extra.tensor_parallel_size)) knobs.tp = extra.tensor_parallel_size;
    if (Number.isInteger(extra.pipeline_parallel_size)) knobs.pp = extra.pipeline_parallel_size;
    if (Number.isInteger(extra.moe_expert_parallel_size)) knobs.epSize = extra.moe_expert_parallel_size;
    if (extra.enable_attention_dp !== undefined) knobs.attentionDp = extra.enable_attention_dp === true;
    if (extra.cuda_graph_config === null) knobs.disableCudaGraph = true;
    if (extra.cuda_graph_config?.max_batch_size) knobs.cudaGraphMaxBs = extra.cuda_graph_config.max_batch_size;
    if (extra.cuda_graph_config?.batch_sizes) knobs.cudaGraphMaxBs = Math.max(...extra.cuda_graph_config.batch_sizes);
    if (extra.kv_cache_config?.dtype) knobs.kvCacheDtype = extra.kv_cache_config.dtype;
    if (extra.kv_cache_config?.free_gpu_memory_fraction) knobs.memFraction = extra.kv_cache_config.free_gpu_memory_fraction;
    if (extra.enable_chunked_prefill !== undefined) knobs.chunkedPrefill = Boolean(extra.enable_chunked_prefill);
    if (extra.max_num_tokens) knobs.maxBatchedTokens = extra.max_num_tokens;
    if (extra.max_batch_size) knobs.maxRunning = extra.max_batch_size;
    if (extra.max_seq_len) knobs.maxModelLen = extra.max_seq_len;
    if (extra.attn_backend !== undefined) knobs.attentionBackend = TRT_ATTENTION[String(extra.attn_backend)] ?? 'trtllm';
    if (extra.torch_compile_config) knobs.torchCompile = true;
    const sc = extra.speculative_config;
    if (sc && /eagle/i.test(sc.decoding_type ?? '')) {
      if (!sc.speculative_model_dir) {
        throw new PythonExit(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/llmapi/llm_args.py', 640, 'validate_eagle_config', null]], 'ValueError: Draft model must be provided for EAGLE'), 1);
      }
      const n = sc.max_draft_len ?? 3;
      knobs.spec = { algorithm: 'EAGLE3', draftModel: sc.speculative_model_dir, steps: n, topk: 1, draftTokens: n + 1 };
    }
  }
  return {
    engine: 'trtllm',
    version,
    model: v.model,
    servedName: v.model,
    host: p.get('--host') ?? 'localhost',
    port: p.get('--port') ?? 8000,
    seed: 0,
    processName: env.python ?? 'python3',
    knobs,
  };
}

/**
 * The server spec a launch command line starts on the box (`vllm serve …`, `python3 -m sglang.launch_server …`,
 * `python3 -m vllm.entrypoints.openai.api_server …`, `trtllm-serve …`), or the engine's refusal as a
 * PythonExit/UsageError (`text`, `code`). `env`: {version, processEnv, box: loadConfig()'s shape, readFile?}.
 */
export function serverSpecOf(argv, env) {
  const [program, ...rest] = argv;
  const name = String(program ?? '').split('/').pop();
  if (name === 'vllm') {
    if (rest[0] !== 'serve') throw new PythonExit(`vllm ${rest[0] ?? ''}: not a server command\n`, 2);
    return vllmServeSpecOf(vllmRewriteArgv(rest, env.version).slice(1), env, { module: false });
  }
  if (name === 'trtllm-serve') return trtllmServeSpecOf(rest, { ...env, python: 'python3' });
  if (/^python3?$/.test(name) && rest[0] === '-m') {
    const [, mod, ...args] = rest;
    if (mod === 'sglang.launch_server') return sglangLaunchSpecOf(args, env);
    if (mod === 'vllm.entrypoints.openai.api_server') return vllmApiServerSpecOf(args, env);
    if (mod === 'tensorrt_llm.commands.serve') return trtllmServeSpecOf(args, { ...env, python: program });
  }
  throw new PythonExit(`${program}: not an engine server command of the simulated box\n`, 127);
}
