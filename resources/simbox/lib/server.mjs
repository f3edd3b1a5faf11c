// One simulated inference server for all three engines, parametrised by engine, version and knobs: it prints
// the engine's startup log in order (scaled in time), holds "GPU memory" in the box state while it runs, serves
// the OpenAI-compatible API with tokens paced by the performance model, and fails like the real one.

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { networkInterfaces } from 'node:os';
import { resolveModel } from './catalog.mjs';
import { LiveEngine } from './live-engine.mjs';
import { parallelLayout, sglangRefusal, trtllmRefusal, vllmRefusal } from './parallel.mjs';
import { buildProfile, StartupFailure } from './perf-model.mjs';
import { interconnectOf } from './topology.mjs';
import { cudaOomMessage, makeLogger, traceback } from './pylog.mjs';
import { chatTemplateTokens, countTokens, messagesText, tokenStream } from './text.mjs';
import { loadConfig, MARKER_LINE, memoryInUse, nextLaunch, registerGpuProcess, unregisterGpuProcess, visibleGpus } from './state.mjs';
import { hash32 } from './rng.mjs';
import { hasHfToken } from './hf-token.mjs';
import { endWithBox } from './box-watch.mjs';
import { floatRepr } from './pyfmt.mjs';
import { versionCompare } from './version.mjs';

const atLeast = (version, v) => versionCompare(version, v) >= 0;

const GiB = 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * The performance profile (perf-model.mjs) a spec's server runs with on the box, with `freeMiB` free on each of its
 * GPUs (all of a GPU's memory but the reserve when nothing else runs); throws StartupFailure where the engine's
 * startup fails.
 */
export function profileOf(spec, config, freeMiB = config.gpuModel.memoryMiB - config.gpuModel.reservedMiB, placement = null) {
  const model = resolveModel(spec.model);
  if (spec.engine === 'trtllm' && config.faults?.['fp8-gemm'] && model.quant === 'fp8') throw new StartupFailure('unsupported-sm-fp8', 'Unsupported SM version for FP8 block scaling GEMM');
  return buildProfile({ engine: spec.engine, version: spec.version, gpu: config.gpuModel, model, knobs: spec.knobs, freeMiB, layout: placement?.layout, interconnect: placement?.interconnect });
}

/**
 * Where a spec's server runs on the box: its parallel layout, the GPUs it sees (CUDA_VISIBLE_DEVICES of `env`), the
 * box GPUs it uses and what joins them (topology.mjs), and the engine's refusal of that layout, if any
 * (parallel.mjs). Null layout for a model the catalog does not know (the Hub refuses it first).
 */
export function placementOf(spec, config, env = process.env) {
  const model = resolveModel(spec.model);
  const visible = visibleGpus(config, env);
  if (!model) return { layout: null, visible, gpus: visible.gpus.slice(0, 1), interconnect: null, refusal: null };
  const layout = parallelLayout(spec.engine, spec.version, spec.knobs, model);
  const cuda = env.CUDA_VISIBLE_DEVICES;
  const input = {
    version: spec.version,
    layout,
    model,
    knobs: spec.knobs,
    visible: visible.gpus,
    cudaVisibleSet: cuda !== undefined,
    cudaVisibleValue: cuda,
    attentionBackend: spec.knobs.attentionBackend ? String(spec.knobs.attentionBackend).toLowerCase() : null,
  };
  const refusal = spec.engine === 'vllm' ? vllmRefusal(input) : spec.engine === 'sglang' ? sglangRefusal(input) : trtllmRefusal(input);
  const gpus = visible.gpus.slice(0, layout.gpus);
  return { layout, visible, gpus, interconnect: interconnectOf(config, gpus), refusal };
}

/**
 * The placement group specs vLLM 0.11.0's Ray executor asks for: one GPU per worker, the first bound to this node
 * (vllm/executor/ray_utils.py@v0.11.0:355-372), as Python prints the list.
 */
export function rayPlacementSpecs(world) {
  const ip = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1';
  return `[${Array.from({ length: world }, (_, i) => (i === 0 ? `{'GPU': 1.0, 'node:${ip}': 0.001}` : "{'GPU': 1.0}")).join(', ')}]`;
}

/** vLLM 0.11.0's wait for a placement group Ray cannot fill (_wait_until_pg_ready, ray_utils.py@v0.11.0:218-258). */
export const RAY_PG_WAIT_TIMEOUT = 1800;
export function rayWaitLogTimes() {
  const times = [];
  let elapsed = 0;
  let interval = 10;
  while (elapsed < RAY_PG_WAIT_TIMEOUT) {
    elapsed += interval;
    interval *= 2;
    times.push(elapsed);
  }
  return times;
}

export function rayPlacementError(world) {
  return `ValueError: Cannot provide a placement group of placement_group_specs=${rayPlacementSpecs(world)} within ${RAY_PG_WAIT_TIMEOUT} seconds. See \`ray status\` and \`ray list nodes\` to make sure the cluster has enough resources.`;
}

/** The engine's seeds for the box's `launch`-th server: reproducible from the box's seed, yet each launch drifts and warms up on its own. */
export function engineSeeds(config, spec, launch) {
  return { seed: `${config.seed}:${spec.seed ?? 0}`, noiseSeed: `${config.seed}:launch:${launch}:${spec.seed ?? 0}` };
}

/** The request SGLang's server sends itself before /health turns 200 (python/sglang/srt/entrypoints/http_server.py), unless --skip-server-warmup. */
export const SGLANG_WARMUP_REQUEST = { promptTokens: 6, maxTokens: 8 };

/**
 * @param {{engine: 'vllm'|'sglang'|'trtllm', version: string, model: string, servedName: string, host: string,
 *   port: number, knobs: object, seed?: number, nonDefaultArgs?: string, processName: string,
 *   skipWarmup?: boolean, accessLog?: boolean, logRequests?: boolean}} spec
 */
export async function runServer(spec) {
  const config = loadConfig();
  const scale = config.timeScale;
  const faults = config.faults;
  const pid = process.pid;
  const log = makeLogger(spec.engine, pid);
  const slow = faults['slow-startup'] ? (faults['slow-startup'] === true ? 10 : Number(faults['slow-startup'])) : 1;
  // Virtual seconds; a slow-startup fault stretches every startup phase (and what the log reports of them).
  const wait = (seconds) => sleep(seconds * slow * scale * 1000);
  const die = (code = 1) => {
    unregisterGpuProcess(pid);
    process.exit(code);
  };
  const engineLabel = { vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' }[spec.engine];
  // Its box removed, the server ends at once: nothing of the box is left to write its records into.
  endWithBox((dir) => {
    process.stderr.write(`simbox: ${dir} is gone; this simulated server ends with its box.\n`);
    process.exit(143);
  });

  log.warn('simbox', `${MARKER_LINE}. This ${engineLabel} ${spec.version} server is simulated; its timings come from a performance model (time scale ${scale}).`);

  // --- model and GPUs -----------------------------------------------------------------------------------
  const model = resolveModel(spec.model);
  const hubError = modelAccessError(spec.model, model);
  const placement = placementOf(spec, config, process.env);
  const { visible, layout, refusal } = placement;
  const tp = spec.knobs.tp ?? 1;

  if (spec.engine === 'vllm') {
    log.info('api_server.py', `vLLM API server version ${spec.version}`);
    log.info('utils.py', `non-default args: ${spec.nonDefaultArgs ?? '{}'}`);
    for (const [file, msg] of spec.apiWarnings ?? []) log.warn(file, msg);
  } else if (spec.engine === 'sglang') {
    // ServerArgs.__post_init__ fails or warns before launch_server logs the arguments.
    if (refusal?.where === 'args' && !hubError) {
      log.raw(traceback(refusal.frames, refusal.exception));
      die(1);
    }
    if (layout?.dpAttention) log.warn('server_args.py', `DP attention is enabled. The chunked prefill size is adjusted to ${Math.floor((spec.knobs.maxBatchedTokens ?? (config.gpuModel.memoryMiB >= 120 * 1024 ? 16384 : Number(config.gpuModel.computeCap) >= 9 ? 8192 : 4096)) / layout.dp)} to avoid MoE kernel issues. `);
    if (spec.knobs.a2aBackend === 'deepep') log.warn('server_args.py', `DeepEP MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[${tp}].`);
    if (spec.knobs.a2aBackend === 'mooncake') log.warn('server_args.py', `Mooncake MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[${tp}].`);
    log.info('server_args.py', `server_args=${spec.nonDefaultArgs ?? 'ServerArgs()'}`);
  } else {
    process.stdout.write(`[TensorRT-LLM] TensorRT-LLM version: ${spec.version}\n`);
  }

  // vLLM and TensorRT-LLM bind their socket before loading the model (vllm/entrypoints/launcher.py, tensorrt_llm/serve/openai_server.py).
  let server = null;
  const state = { ready: false, healthy: false, engine: null, profile: null, completed: 0, shuttingDown: false };
  const bindEarly = spec.engine !== 'sglang';
  if (bindEarly) {
    const bound = await bindPort(spec, state, faults);
    if (bound.error) {
      portInUseFailure(spec, log);
      die(1);
    }
    server = bound.server;
  }

  // The engine's own config checks that fail while the API server builds the engine config (vllm-config.mjs).
  const configError = spec.configError ?? null;
  if (configError?.where === 'api' && configError.beforeModel) {
    for (const line of configError.logLines ?? []) log.info(null, line);
    log.raw(traceback(configError.frames, configError.exception), 'api');
    die(1);
  }
  if (hubError) {
    log.raw(hubError, 'api');
    die(1);
  }
  if (configError?.where === 'api') {
    log.raw(traceback(configError.frames, configError.exception), 'api');
    die(1);
  }
  if (visible.invalid !== null || visible.gpus.length === 0) {
    log.raw(traceback([['/usr/lib/python3/dist-packages/torch/cuda/__init__.py', 372, '_lazy_init', 'torch._C._cuda_init()']], 'RuntimeError: No CUDA GPUs are available'), 'engine');
    die(1);
  }
  // The parallel layout, refused where the engine refuses it (parallel.mjs): the API server / main process first.
  if (refusal && (refusal.where === 'api' || refusal.where === 'launch' || refusal.where === 'args')) {
    if (spec.engine === 'vllm') {
      // ModelConfig (built before ParallelConfig and VllmConfig) has logged its lines by then.
      log.info('model.py', `Resolved architecture: ${model.arch}`);
      log.info('model.py', `Using max model len ${spec.knobs.maxModelLen ?? model.maxLen}`);
    }
    await wait(1);
    log.raw(traceback(refusal.frames, refusal.exception), 'api');
    die(1);
  }
  const gpus = placement.gpus;
  const used = memoryInUse(config);
  const freeMiB = Math.min(...gpus.map((g) => config.gpuModel.memoryMiB - config.gpuModel.reservedMiB - used[g]));

  await wait(spec.engine === 'vllm' ? 4 : 3);
  if (refusal) {
    await engineRefusal(spec, log, refusal, layout, wait);
    die(1);
  }
  let profile;
  try {
    profile = profileOf(spec, config, freeMiB, placement);
  } catch (err) {
    if (!(err instanceof StartupFailure)) throw err;
    profile = null;
    await startupFailure(spec, log, err, config, wait);
    die(1);
  }
  state.profile = profile;
  const phases = Object.fromEntries(Object.entries(profile.startup).map(([k, v]) => [k, v * slow]));
  const waitPhase = (seconds) => sleep(seconds * scale * 1000);

  // --- startup log, in the engine's order ---------------------------------------------------------------
  const holdMemory = (miB) =>
    registerGpuProcess({ pid, name: spec.processName, gpus, memoryMiB: Math.round(miB), engine: spec.engine, version: spec.version, model: spec.model, port: spec.port, simulated: true });
  // The OOM fault strikes half-way through loading the weights, as a real one does, whatever the engine.
  const failWithOomWhileLoading = async () => {
    await waitPhase(phases.load / 2);
    holdMemory(profile.weightsGiB * GiB * 0.95);
    oomFailure(spec, log, config, profile);
    die(1);
  };

  if (spec.engine === 'vllm') {
    log.info('model.py', `Resolved architecture: ${model.arch}`);
    log.info('model.py', `Using max model len ${profile.maxModelLen}`);
    log.info('scheduler.py', `Chunked prefill is enabled with max_num_batched_tokens=${profile.maxBatchedTokens}.`);
    await waitPhase(phases.process);
    log.info('core.py', `Initializing a V1 LLM engine (v${spec.version}) with config: model='${spec.model}', speculative_config=${spec.knobs.spec ? `SpeculativeConfig(method='${String(spec.knobs.spec.algorithm).toLowerCase()}', model='${spec.knobs.spec.draftModel}', num_spec_tokens=${spec.knobs.spec.steps ?? profile.spec.steps})` : 'None'}, tokenizer='${spec.model}', dtype=torch.bfloat16, max_seq_len=${profile.maxModelLen}, tensor_parallel_size=${tp}, pipeline_parallel_size=${layout.pp}, data_parallel_size=${layout.dp}, quantization=${profile.quant ?? 'None'}, kv_cache_dtype=${spec.knobs.kvCacheDtype ?? 'auto'}, served_model_name=${spec.servedName}, enable_prefix_caching=True, chunked_prefill_enabled=True`, 'engine');
    log.info('gpu_model_runner.py', `Starting to load model ${spec.model}...`, 'engine');
    // The attention backend is chosen while the model's layers are built (vllm/attention/selector.py).
    for (const [file, msg] of spec.engineLines ?? []) log.info(file, msg, 'engine');
    if (configError?.where === 'engine') {
      await waitPhase(phases.load / 4);
      engineCoreFailure(log, configError);
      die(1);
    }
    if (faults.oom) await failWithOomWhileLoading();
    await waitPhase(phases.load);
    holdMemory(profile.weightsGiB * GiB + 600);
    log.info('default_loader.py', `Loading weights took ${(phases.load * 0.8).toFixed(2)} seconds`, 'engine');
    // "%.4f GiB and" at 0.11.0, "%.4f GiB memory and" from 0.11.1, format_gib (str(round(x, 2))) from 0.14.0
    // (vllm/v1/worker/gpu_model_runner.py at the tags).
    const gib = (x) => floatRepr(Math.round(x * 100) / 100);
    log.info('gpu_model_runner.py', `Model loading took ${atLeast(spec.version, '0.14.0') ? gib(profile.weightsGiB) : profile.weightsGiB.toFixed(4)} GiB${atLeast(spec.version, '0.11.1') ? ' memory' : ''} and ${phases.load.toFixed(6)} seconds`, 'engine');
    if (phases.compile > 0) {
      await waitPhase(phases.compile);
      log.info('backends.py', `Dynamo bytecode transform time: ${(phases.compile * 0.35).toFixed(2)} s`, 'engine');
      log.info('monitor.py', `torch.compile takes ${(phases.compile * 0.8).toFixed(2)} s in total`, 'engine');
    }
    // "%.2f GiB" up to 0.13.0, format_gib from 0.14.0 (vllm/v1/worker/gpu_worker.py).
    log.info('gpu_worker.py', `Available KV cache memory: ${atLeast(spec.version, '0.14.0') ? gib(profile.kvCacheGiB) : profile.kvCacheGiB.toFixed(2)} GiB`, 'engine');
    log.info('kv_cache_utils.py', `GPU KV cache size: ${profile.kvTokens.toLocaleString('en-US')} tokens`, 'engine');
    log.info('kv_cache_utils.py', `Maximum concurrency for ${profile.maxModelLen.toLocaleString('en-US')} tokens per request: ${(profile.kvTokens / profile.maxModelLen).toFixed(2)}x`, 'engine');
    holdMemory(profile.heldMiB);
    await waitPhase(phases.graphs);
    if (phases.graphs > 0) log.info('gpu_model_runner.py', `Graph capturing finished in ${Math.round(phases.graphs)} secs, took ${(0.2 + model.layers * 0.012).toFixed(2)} GiB`, 'engine');
    log.info('core.py', `init engine (profile, create kv cache, warmup model) took ${(phases.compile + phases.graphs + phases.warmup).toFixed(2)} seconds`, 'engine');
    await waitPhase(phases.warmup + phases.spec);
    // "Supported_tasks: %s" at 0.11.0, "Supported tasks: %s" from 0.11.1 (vllm/entrypoints/openai/api_server.py).
    log.info('api_server.py', `${atLeast(spec.version, '0.11.1') ? 'Supported tasks' : 'Supported_tasks'}: ['generate']`);
    log.info('api_server.py', `Starting vLLM API server 0 on http://${spec.host ?? '0.0.0.0'}:${spec.port}`);
    log.info('launcher.py', 'Available routes are:');
    for (const [route, methods] of [['/openapi.json', 'GET, HEAD'], ['/docs', 'GET, HEAD'], ['/health', 'GET'], ['/load', 'GET'], ['/ping', 'POST'], ['/ping', 'GET'], ['/tokenize', 'POST'], ['/detokenize', 'POST'], ['/v1/models', 'GET'], ['/version', 'GET'], ['/v1/chat/completions', 'POST'], ['/v1/completions', 'POST'], ['/metrics', 'GET']]) {
      log.info('launcher.py', `Route: ${route}, Methods: ${methods}`);
    }
    startEngine(spec, state, profile, config, log);
    armFaults(state, faults);
    log.uvicorn(`Started server process [${pid}]`);
    log.uvicorn('Waiting for application startup.');
    state.ready = true;
    state.healthy = true;
    log.uvicorn('Application startup complete.');
  } else if (spec.engine === 'sglang') {
    await waitPhase(phases.process);
    log.info('', `Load weight begin. avail mem=${(freeMiB / 1024).toFixed(2)} GB`, 'engine');
    if (faults.oom) await failWithOomWhileLoading();
    await waitPhase(phases.load);
    holdMemory(profile.weightsGiB * GiB + 900);
    log.info('', sglangLoadWeightEnd(spec.version, model, { elapsed: phases.load, availGB: freeMiB / 1024 - profile.weightsGiB, usageGB: profile.weightsGiB }), 'engine');
    const kvHalf = profile.kvCacheGiB / 2;
    // python/sglang/srt/mem_cache/memory_pool.py: "dtype: …, " from 0.5.13; from 0.5.17 the line is gone from it.
    if (!atLeast(spec.version, '0.5.17')) {
      const dtype = atLeast(spec.version, '0.5.13') ? `dtype: ${sglangKvDtype(spec.knobs.kvCacheDtype)}, ` : '';
      log.info('', `KV Cache is allocated. ${dtype}#tokens: ${profile.kvTokens}, K size: ${kvHalf.toFixed(2)} GB, V size: ${kvHalf.toFixed(2)} GB`, 'engine');
    }
    holdMemory(profile.heldMiB);
    // The "Capture cuda graph begin/end" lines of model_runner.py up to 0.5.13.post1; 0.5.14 logs another form
    // (per role and backend) that the simulation does not reproduce, so it prints none.
    const oldCaptureLines = !atLeast(spec.version, '0.5.14');
    if (phases.graphs > 0) {
      if (oldCaptureLines) log.info('', `Capture cuda graph begin. This can take up to several minutes. avail mem=${((config.gpuModel.memoryMiB - profile.heldMiB) / 1024).toFixed(2)} GB`, 'engine');
      await waitPhase(phases.graphs + phases.compile);
      if (oldCaptureLines) log.info('', `Capture cuda graph end. Time elapsed: ${(phases.graphs + phases.compile).toFixed(2)} s. mem usage=0.88 GB. avail mem=${((config.gpuModel.memoryMiB - profile.heldMiB) / 1024 - 0.88).toFixed(2)} GB.`, 'engine');
    }
    log.info('', `max_total_num_tokens=${profile.kvTokens}, chunked_prefill_size=${profile.chunkedPrefill ? profile.maxBatchedTokens : -1}, max_prefill_tokens=16384, max_running_requests=${profile.maxRunning}, context_len=${profile.maxModelLen}, available_gpu_mem=${((config.gpuModel.memoryMiB - profile.heldMiB) / 1024 - 0.88).toFixed(2)} GB`, 'engine');
    const bound = await bindPort(spec, state, faults);
    if (bound.error) {
      portInUseFailure(spec, log);
      die(1);
    }
    server = bound.server;
    startEngine(spec, state, profile, config, log);
    armFaults(state, faults);
    log.uvicorn(`Started server process [${pid}]`);
    log.uvicorn('Waiting for application startup.');
    log.uvicorn('Application startup complete.');
    log.uvicorn(`Uvicorn running on http://${spec.host}:${spec.port} (Press CTRL+C to quit)`);
    state.ready = true;
    // /health stays 503 until the warm-up request has gone through (python/sglang/srt/entrypoints/http_server.py).
    if (spec.skipWarmup) state.healthy = true;
    else {
      await waitPhase(phases.warmup);
      log.uvicorn(`127.0.0.1:${40000 + (pid % 20000)} - "GET /get_model_info HTTP/1.1" 200 OK`);
      await runInternalRequest(state, SGLANG_WARMUP_REQUEST.promptTokens, SGLANG_WARMUP_REQUEST.maxTokens);
      log.info('', `${sglangBatchPrefix('Prefill', spec.version, 1)}#new-seq: 1, #new-token: 6, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, `, 'engine');
      log.uvicorn(`127.0.0.1:${40001 + (pid % 20000)} - "POST /generate HTTP/1.1" 200 OK`);
      state.healthy = true;
      log.info('', 'The server is fired up and ready to roll!');
    }
  } else {
    log.info('', `Using LLM with PyTorch backend`);
    log.info('', `Set PluginConfig.nccl_plugin to None.`);
    await waitPhase(phases.process);
    if (faults.oom) await failWithOomWhileLoading();
    await waitPhase(phases.load);
    holdMemory(profile.weightsGiB * GiB + 700);
    log.info('', `Loading weights concurrently... done in ${(phases.load * 0.8).toFixed(2)}s`);
    log.info('', `[MemUsageChange] Allocated ${profile.kvCacheGiB.toFixed(2)} GiB for max tokens in paged KV cache (${profile.kvTokens}).`);
    holdMemory(profile.heldMiB);
    await waitPhase(phases.graphs + phases.warmup);
    log.info('', `max_seq_len=${profile.maxModelLen}, max_num_requests=${profile.maxRunning}, max_num_tokens=${profile.maxBatchedTokens}, max_batch_size=${profile.maxRunning}`);
    startEngine(spec, state, profile, config, log);
    armFaults(state, faults);
    log.uvicorn(`Started server process [${pid}]`);
    log.uvicorn('Waiting for application startup.');
    state.ready = true;
    state.healthy = true;
    log.uvicorn('Application startup complete.');
  }

  // --- shutdown -------------------------------------------------------------------------------------------
  const shutdown = () => {
    if (state.shuttingDown) return;
    state.shuttingDown = true;
    log.uvicorn('Shutting down');
    state.engine?.stop();
    server?.closeAllConnections?.();
    server?.close();
    log.uvicorn('Waiting for application shutdown.');
    log.uvicorn('Application shutdown complete.');
    if (spec.engine === 'vllm') log.uvicorn(`Finished server process [${pid}]`);
    unregisterGpuProcess(pid);
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

export function modelAccessError(id, model) {
  const hasToken = hasHfToken(process.env);
  if (!model) {
    if (/^[\w.-]+\/[\w.-]+$/.test(id)) {
      return traceback(
        [['/usr/lib/python3/dist-packages/huggingface_hub/utils/_http.py', 409, 'hf_raise_for_status', 'raise _format(RepositoryNotFoundError, message, response) from e']],
        `huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: Root=1-${randomBytes(4).toString('hex')}-${randomBytes(12).toString('hex')})\n\nRepository Not Found for url: https://huggingface.co/api/models/${id}/revision/main.\nPlease make sure you specified the correct \`repo_id\` and \`repo_type\`.\nIf you are trying to access a private or gated repo, make sure you are authenticated. For more details, see https://huggingface.co/docs/huggingface_hub/authentication`,
      );
    }
    return traceback([['/usr/lib/python3/dist-packages/transformers/utils/hub.py', 511, 'cached_files', null]], `OSError: ${id} is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'`);
  }
  if (model.gated && !hasToken) {
    return traceback(
      [['/usr/lib/python3/dist-packages/huggingface_hub/utils/_http.py', 426, 'hf_raise_for_status', 'raise _format(GatedRepoError, message, response) from e']],
      `huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-${randomBytes(4).toString('hex')}-${randomBytes(12).toString('hex')})\n\nCannot access gated repo for url https://huggingface.co/${id}/resolve/main/config.json.\nAccess to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
    );
  }
  return null;
}

function portInUseFailure(spec, log) {
  const host = spec.host ?? (spec.engine === 'trtllm' ? 'localhost' : '0.0.0.0');
  if (spec.engine === 'vllm') {
    log.raw(
      traceback(
        [
          ['/usr/lib/python3/dist-packages/vllm/entrypoints/openai/api_server.py', 1867, 'create_server_socket', 'sock.bind(addr)'],
        ],
        'OSError: [Errno 98] Address already in use',
      ),
    );
  } else if (spec.engine === 'sglang') {
    log.uvicornError(`[Errno 98] error while attempting to bind on address ('${host}', ${spec.port}): address already in use`);
  } else {
    log.raw(
      traceback(
        [['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/commands/serve.py', 187, 'launch_server', 's.bind((host, port))']],
        `RuntimeError: Failed to bind socket to ${host}:${spec.port}: [Errno 98] Address already in use`,
      ),
    );
  }
}

/**
 * SGLang's batch log prefix: "Prefill batch. " up to 0.5.3.post3, "Prefill batch [N], " at 0.5.4 (N: the forward
 * count), "Prefill batch, " from 0.5.4.post1 (the count only with SGLANG_LOG_FORWARD_ITERS, default off)
 * (python/sglang/srt/managers/scheduler_metrics_mixin.py at the tags).
 */
function sglangBatchPrefix(kind, version, forwardCount) {
  if (!atLeast(version, '0.5.4')) return `${kind} batch. `;
  if (!atLeast(version, '0.5.4.post1')) return `${kind} batch [${forwardCount}], `;
  return `${kind} batch, `;
}

/** The KV pool's torch dtype SGLang logs (memory_pool.py `self.dtype`): the model's, or the fp8 one asked for. */
function sglangKvDtype(kvCacheDtype) {
  return { fp8_e4m3: 'torch.float8_e4m3fn', fp8_e5m2: 'torch.float8_e5m2' }[kvCacheDtype] ?? 'torch.bfloat16';
}

/**
 * SGLang's "Load weight end." (python/sglang/srt/model_executor/model_runner.py): `type, dtype, avail mem, mem usage`
 * up to 0.5.8.post1; `elapsed` first from 0.5.9; from 0.5.10 the checkpoint's quantisation
 * (ModelConfig.get_quantization_config_log_str: quant_method plus bits / quant_algo / fmt of the HF config) instead
 * of the dtype. Qwen's -FP8 checkpoints declare {quant_method: fp8, fmt: e4m3}, the -AWQ ones {quant_method: awq, bits: 4}.
 */
function sglangLoadWeightEnd(version, model, { elapsed, availGB, usageGB }) {
  const tail = `avail mem=${availGB.toFixed(2)} GB, mem usage=${usageGB.toFixed(2)} GB.`;
  if (!atLeast(version, '0.5.9')) return `Load weight end. type=${model.arch}, dtype=torch.bfloat16, ${tail}`;
  if (!atLeast(version, '0.5.10')) return `Load weight end. elapsed=${elapsed.toFixed(2)} s, type=${model.arch}, dtype=torch.bfloat16, ${tail}`;
  // gpt-oss declares {quant_method: mxfp4} (and modules_to_not_convert) only.
  const quant = { fp8: 'quant=fp8, fmt=e4m3, ', awq: 'quant=awq, bits=4, ', mxfp4: 'quant=mxfp4, ' }[model.quant] ?? '';
  return `Load weight end. elapsed=${elapsed.toFixed(2)} s, type=${model.arch}, ${quant}${tail}`;
}

/**
 * An exception raised in vLLM's engine core while it starts: its log lines, then the API server's RuntimeError.
 * `core`: the engine core that failed (EngineCore_DP<rank>).
 */
function engineCoreFailure(log, { frames, exception }, core = 'EngineCore_DP0') {
  const proc = core === 'EngineCore_DP0' ? 'engine' : core;
  log.error('core.py', 'EngineCore failed to start.', proc);
  const tb = traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/core.py', 699, 'run_engine_core', 'engine_core = EngineCoreProc(*args, **kwargs)'], ...frames], exception);
  for (const line of tb.trimEnd().split('\n')) log.error('core.py', line, proc);
  log.raw(traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/utils.py', 893, 'wait_for_engine_startup', 'raise RuntimeError(']], `RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'${core}': 1}`));
}

/**
 * A parallel layout the engine refuses once its workers run (parallel.mjs `where` 'engine' or vLLM 0.11.0's 'ray'):
 * the engine's own failure lines, after the time the real one takes to get there.
 */
async function engineRefusal(spec, log, refusal, layout, wait) {
  if (spec.engine === 'vllm' && refusal.where === 'ray') {
    // ray_utils.py@v0.11.0:336-372 (initialize_ray_cluster) and 218-258 (_wait_until_pg_ready).
    const specs = rayPlacementSpecs(refusal.world);
    log.info('ray_utils.py', 'No current placement group found. Creating a new placement group.', 'engine');
    log.warn('ray_utils.py', 'The number of required GPUs exceeds the total number of available GPUs in the placement group.', 'engine');
    let at = 0;
    for (const t of rayWaitLogTimes()) {
      await wait(t - at);
      at = t;
      log.info('ray_utils.py', `Waiting for creating a placement group of specs for ${t} seconds. specs=${specs}. Check \`ray status\` and \`ray list nodes\` to see if you have enough resources, and make sure the IP addresses used by ray cluster are the same as VLLM_HOST_IP environment variable specified in each node if you are running on a multi-node.`, 'engine');
    }
    engineCoreFailure(log, { frames: [['/usr/lib/python3/dist-packages/vllm/executor/ray_utils.py', 253, '_wait_until_pg_ready', 'raise ValueError(']], exception: rayPlacementError(refusal.world) });
    return;
  }
  // Workers start, set their device, build the model (and, for DCP, the KV cache) before they fail.
  await wait(5 + (layout?.gpus ?? 1) + (refusal.afterKv ? 20 : 0));
  if (spec.engine === 'vllm') {
    engineCoreFailure(log, refusal, refusal.core ?? 'EngineCore_DP0');
  } else if (spec.engine === 'sglang') {
    if (refusal.warning) log.warn('', refusal.warning, 'engine');
    log.error('', `Scheduler hit an exception: ${traceback(refusal.frames, refusal.exception)}`, 'engine');
    log.error('', 'Received sigquit from a child process. It usually means the child failed.');
  } else {
    log.raw(traceback(refusal.frames, refusal.exception));
  }
}

/** The CUDA OOM a server loading `weightsGiB` of weights dies with on the box's GPU. */
export function oomMessage(config, weightsGiB) {
  const totalGiB = config.gpuModel.memoryMiB / 1024 - 0.8;
  return cudaOomMessage({ tryGiB: Math.min(2.5, weightsGiB / 8), totalGiB, freeMiB: 412.06, inUseGiB: totalGiB - 0.4 });
}

function oomFailure(spec, log, config, profile) {
  const msg = oomMessage(config, profile.weightsGiB);
  if (spec.engine === 'vllm') {
    log.error('core.py', 'EngineCore failed to start.');
    const tb = traceback(
      [
        ['/usr/lib/python3/dist-packages/vllm/v1/engine/core.py', 699, 'run_engine_core', 'engine_core = EngineCoreProc(*args, **kwargs)'],
        ['/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_model_runner.py', 2634, 'load_model', 'self.model = model_loader.load_model('],
      ],
      msg,
    );
    for (const line of tb.trimEnd().split('\n')) log.error('core.py', line);
    log.raw(traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/utils.py', 893, 'wait_for_engine_startup', 'raise RuntimeError(']], "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"));
  } else if (spec.engine === 'sglang') {
    log.error('', `Scheduler hit an exception: ${traceback([['/usr/lib/python3/dist-packages/sglang/srt/model_executor/model_runner.py', 744, 'load_model', 'self.model = get_model(']], msg)}`, 'engine');
    log.error('', 'Received sigquit from a child process. It usually means the child failed.');
  } else {
    log.raw(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/model_engine.py', 1124, '_load_model', 'model.load_weights(weights)']], msg));
  }
}

/** The exception vLLM's engine core raises for a startup failure of the performance model; null for an OOM. */
export function vllmStartupError(err) {
  const d = err.details;
  if (err.kind === 'free-memory') {
    return `ValueError: Free memory on device (${d.freeGiB.toFixed(2)}/${d.totalGiB.toFixed(2)} GiB) on startup is less than desired GPU memory utilization (${d.util}, ${d.wantGiB.toFixed(2)} GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.`;
  }
  if (err.kind === 'kv-too-small') {
    return `ValueError: To serve at least one request with the models's max seq len (${d.maxModelLen}), (${d.neededGiB.toFixed(2)} GiB KV cache is needed, which is larger than the available KV cache memory (${d.availableGiB.toFixed(2)} GiB). Based on the available memory, the estimated maximum model length is ${d.estimated}. Try increasing \`gpu_memory_utilization\` or decreasing \`max_model_len\` when initializing the engine.`;
  }
  if (err.kind === 'kv-none') return 'ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.';
  if (err.kind === 'max-model-len') return `pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n  Value error, ${err.message}`;
  return null;
}

async function startupFailure(spec, log, err, config, wait) {
  const d = err.details;
  if (err.kind === 'unsupported-sm-fp8') {
    await wait(8);
    log.error('', `Failed to initialize executor on rank 0: ${err.message} (/src/tensorrt_llm/cpp/tensorrt_llm/thop/fp8BlockScalingGemm.cpp:120)`);
    log.raw(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/custom_ops/torch_custom_ops.py', 497, 'fp8_block_scaling_gemm', 'return torch.ops.trtllm.fp8_block_scaling_gemm_impl(']], `RuntimeError: ${err.message}`));
    return;
  }
  if (err.kind === 'trtllm-awq-weight') {
    await wait(6);
    log.raw(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/modules/linear.py', 312, 'load_weights_fused_qkv_linear', "q_weight = weights[0]['weight']"]], `KeyError: 'weight'`));
    return;
  }
  if (spec.engine === 'vllm') {
    const line = vllmStartupError(err);
    if (line === null) {
      await wait(4);
      oomFailure(spec, log, config, { weightsGiB: (d.inUseGiB ?? 60) * 0.9 });
      return;
    }
    log.error('core.py', 'EngineCore failed to start.');
    for (const l of traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/core.py', 699, 'run_engine_core', 'engine_core = EngineCoreProc(*args, **kwargs)']], line).trimEnd().split('\n')) log.error('core.py', l);
    log.raw(traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/utils.py', 893, 'wait_for_engine_startup', 'raise RuntimeError(']], "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"));
    return;
  }
  await wait(4);
  oomFailure(spec, log, config, { weightsGiB: (d.inUseGiB ?? 60) * 0.9 });
}

/** Binds the port (resetting connections until the server is up, as a bound-but-not-listening socket would). */
function bindPort(spec, state, faults) {
  return new Promise((resolve) => {
    if (faults['busy-port']) return resolve({ error: 'EADDRINUSE' });
    const server = createServer((req, res) => handle(req, res, spec, state));
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket) => {
      if (state.ready) return;
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
    });
    server.once('error', (err) => resolve({ error: err.code ?? String(err) }));
    const host = spec.host === undefined || spec.host === null || spec.host === '' ? '0.0.0.0' : spec.host === 'localhost' ? '127.0.0.1' : spec.host;
    server.listen(spec.port, host, () => resolve({ server }));
  });
}

function startEngine(spec, state, profile, config, log) {
  let lastStats = 0;
  let decodeSteps = 0;
  // SGLang's forward counter (after the warm-up request's prefill), shown in 0.5.4's batch lines.
  let forwardCount = 1;
  let promptTokensWindow = 0;
  let genTokensWindow = 0;
  state.engine = new LiveEngine(profile, {
    timeScale: config.timeScale,
    ...engineSeeds(config, spec, nextLaunch(config)),
    onStep: (step, eng) => {
      for (const e of step.emissions) genTokensWindow += e.tokens;
      if (spec.engine === 'sglang') {
        if (step.prefillSeqs > 0 && spec.logBatches !== false) {
          log.info('', `${sglangBatchPrefix('Prefill', spec.version, ++forwardCount)}#new-seq: ${step.prefillSeqs}, #new-token: ${step.prefillTokens}, #cached-token: 0, token usage: ${(eng.core.kvUsed / profile.kvTokens).toFixed(2)}, #running-req: ${eng.core.running.length}, #queue-req: ${eng.core.waiting.length}, `, 'engine');
        } else if (step.decodeSeqs > 0 && (forwardCount++, ++decodeSteps % 40 === 0)) {
          const dt = step.end - step.start;
          log.info('', `${sglangBatchPrefix('Decode', spec.version, forwardCount)}#running-req: ${step.decodeSeqs}, #token: ${eng.core.kvUsed}, token usage: ${(eng.core.kvUsed / profile.kvTokens).toFixed(2)}, cuda graph: ${step.decodeSeqs <= profile.cudaGraphMaxBs}, gen throughput (token/s): ${(step.decodeSeqs / dt).toFixed(2)}, #queue-req: ${eng.core.waiting.length}, `, 'engine');
        }
      }
      if (spec.engine === 'vllm' && step.end - lastStats >= 10) {
        const span = step.end - lastStats || 10;
        log.info('loggers.py', `Engine 000: Avg prompt throughput: ${(promptTokensWindow / span).toFixed(1)} tokens/s, Avg generation throughput: ${(genTokensWindow / span).toFixed(1)} tokens/s, Running: ${eng.core.running.length} reqs, Waiting: ${eng.core.waiting.length} reqs, GPU KV cache usage: ${((100 * eng.core.kvUsed) / profile.kvTokens).toFixed(1)}%, Prefix cache hit rate: 0.0%`);
        lastStats = step.end;
        promptTokensWindow = 0;
        genTokensWindow = 0;
      }
    },
  });
  state.countPrompt = (n) => {
    promptTokensWindow += n;
  };
}

function runInternalRequest(state, promptTokens, maxTokens) {
  return new Promise((resolve) => {
    state.engine.submit({ promptTokens, maxTokens }, { onTokens: () => {}, onDone: () => resolve() });
  });
}

// --- HTTP ------------------------------------------------------------------------------------------------

function sendJson(res, status, body, extraHeaders = {}) {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-servelab-simulated': '1', ...extraHeaders });
  res.end(data);
}

function errorBody(spec, status, message, type) {
  if (spec.engine === 'sglang') return { object: 'error', message, type, param: null, code: status };
  return { error: { message, type, param: null, code: status } };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req, res, spec, state) {
  const url = new URL(req.url, 'http://x');
  const path = url.pathname;
  const access = (status) => {
    if (spec.accessLog === false) return;
    const line = `${req.socket.remoteAddress?.replace(/^::ffff:/, '')}:${req.socket.remotePort} - "${req.method} ${req.url} HTTP/${req.httpVersion}" ${status} ${status === 200 ? 'OK' : status === 503 ? 'Service Unavailable' : status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : ''}`;
    state.accessLog?.(line);
  };
  state.accessLog ??= (line) => process.stderr.write(`${spec.engine === 'vllm' ? `(APIServer pid=${process.pid}) ` : ''}INFO:     ${line}\n`);
  const served = spec.servedName;
  const profile = state.profile;

  if (req.method === 'GET' && (path === '/health' || path === '/health_generate')) {
    const ok = state.healthy && !state.shuttingDown;
    access(ok ? 200 : 503);
    res.writeHead(ok ? 200 : 503, { 'x-servelab-simulated': '1', 'content-length': 0 });
    return res.end();
  }
  if (req.method === 'GET' && path === '/v1/models') {
    access(200);
    const owned = { vllm: 'vllm', sglang: 'sglang', trtllm: 'tensorrt_llm' }[spec.engine];
    return sendJson(res, 200, {
      object: 'list',
      data: [{ id: served, object: 'model', created: Math.floor(Date.now() / 1000), owned_by: owned, root: spec.model, parent: null, max_model_len: profile.maxModelLen, simulated: true }],
    });
  }
  if (req.method === 'GET' && path === '/version') return sendJson(res, 200, { version: spec.version, simulated: true });
  if (req.method === 'GET' && (path === '/get_model_info' || path === '/get_server_info')) {
    return sendJson(res, 200, { model_path: spec.model, tokenizer_path: spec.model, is_generation: true, max_total_num_tokens: profile.kvTokens, version: spec.version, simulated: true });
  }
  if (req.method === 'GET' && path === '/metrics') {
    const core = state.engine.core;
    const text = `# simulated by the Servelab simbox\nvllm:num_requests_running{model_name="${served}"} ${core.running.length}\nvllm:num_requests_waiting{model_name="${served}"} ${core.waiting.length}\nvllm:kv_cache_usage_perc{model_name="${served}"} ${(core.kvUsed / profile.kvTokens).toFixed(4)}\n`;
    res.writeHead(200, { 'content-type': 'text/plain', 'x-servelab-simulated': '1' });
    return res.end(text);
  }
  const isChat = path === '/v1/chat/completions';
  const isCompletion = path === '/v1/completions';
  const isGenerate = path === '/generate' && spec.engine === 'sglang';
  if (req.method !== 'POST' || !(isChat || isCompletion || isGenerate)) {
    access(404);
    return sendJson(res, 404, { detail: 'Not Found' });
  }

  let body;
  try {
    body = JSON.parse((await readBody(req)) || '{}');
  } catch {
    access(400);
    return sendJson(res, 400, errorBody(spec, 400, 'Invalid JSON body', 'BadRequestError'));
  }
  if (!isGenerate && body.model !== undefined && body.model !== served && body.model !== spec.model) {
    access(404);
    return sendJson(res, 404, errorBody(spec, 404, `The model \`${body.model}\` does not exist.`, 'NotFoundError'));
  }
  let promptTokens;
  if (isChat) {
    if (!Array.isArray(body.messages)) {
      access(400);
      return sendJson(res, 400, errorBody(spec, 400, "[{'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]", 'BadRequestError'));
    }
    promptTokens = countTokens(messagesText(body.messages)) + chatTemplateTokens(body.messages);
  } else {
    const prompt = isGenerate ? body.text ?? body.input_ids : body.prompt;
    promptTokens = Array.isArray(prompt) ? (typeof prompt[0] === 'number' ? prompt.length : countTokens(prompt.join(' '))) : countTokens(prompt ?? '');
    promptTokens = Math.max(1, promptTokens);
  }
  const requested = isGenerate ? body.sampling_params?.max_new_tokens : isChat ? body.max_completion_tokens ?? body.max_tokens : body.max_tokens;
  // Without a limit the simulated model stops at a natural "EOS" length; with one it writes to the limit.
  const naturalLength = 40 + (hash32('eos', promptTokens, JSON.stringify(body).length) % 400);
  const maxTokens = requested ?? (isCompletion ? 16 : naturalLength);
  if (promptTokens + maxTokens > profile.maxModelLen) {
    access(400);
    const msg =
      promptTokens >= profile.maxModelLen
        ? `This model's maximum context length is ${profile.maxModelLen} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`
        : `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${profile.maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${profile.maxModelLen} - ${promptTokens}).`;
    return sendJson(res, 400, errorBody(spec, 400, msg, 'BadRequestError'));
  }
  if (!state.ready || state.shuttingDown) {
    access(503);
    return sendJson(res, 503, errorBody(spec, 503, 'Service Unavailable', 'ServiceUnavailableError'));
  }

  const stream = Boolean(body.stream);
  const includeUsage = Boolean(body.stream_options?.include_usage);
  const created = Math.floor(Date.now() / 1000);
  const id = `${isChat ? 'chatcmpl' : 'cmpl'}-${randomBytes(16).toString('hex')}`;
  const nextWord = tokenStream(id);
  let generated = 0;
  let text = '';
  let closed = false;
  state.countPrompt?.(promptTokens);

  const finish = (vt) => {
    state.completed++;
    const limit = state.crashAfter;
    if (limit && state.completed >= limit) crash(spec, state);
    return vt;
  };

  if (!stream) {
    let first = null;
    const handle = state.engine.submit(
      { promptTokens, maxTokens, ...clientTiming(req) },
      {
        onTokens: (n, vt) => {
          if (first === null) first = vt;
          for (let i = 0; i < n; i++) text += nextWord();
          generated += n;
        },
        onDone: (vt) => {
          finish(vt);
          if (closed) return;
          access(200);
          const timing = { arrival: handle.arrival, first_token: first, finish: vt };
          const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens + generated, completion_tokens: generated };
          const reason = requested !== undefined && generated >= requested ? 'length' : 'stop';
          if (isGenerate) return sendJson(res, 200, { text, meta_info: { prompt_tokens: promptTokens, completion_tokens: generated, finish_reason: { type: reason } }, servelab_simulated_time: timing });
          if (isChat) {
            return sendJson(res, 200, { id, object: 'chat.completion', created, model: served, choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: reason }], usage, servelab_simulated_time: timing });
          }
          return sendJson(res, 200, { id, object: 'text_completion', created, model: served, choices: [{ index: 0, text, logprobs: null, finish_reason: reason, stop_reason: null }], usage, servelab_simulated_time: timing });
        },
      },
    );
    req.on('close', () => {
      if (!res.writableEnded) {
        closed = true;
        state.engine.abort(handle.id);
      }
    });
    return;
  }

  const write = (obj) => {
    if (!closed) res.write(`data: ${JSON.stringify(obj)}\n\n`);
  };
  const handleRef = state.engine.submit(
    { promptTokens, maxTokens, ...clientTiming(req) },
    {
      onTokens: (n, vt, firstChunk) => {
        let piece = '';
        for (let i = 0; i < n; i++) piece += nextWord();
        generated += n;
        const last = generated >= maxTokens;
        const reason = last ? (requested !== undefined ? 'length' : 'stop') : null;
        if (isChat) {
          // vLLM sends the role chunk and the first content chunk together.
          if (firstChunk) write({ id, object: 'chat.completion.chunk', created, model: served, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }], servelab_simulated_time: vt });
          write({ id, object: 'chat.completion.chunk', created, model: served, choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: reason }], servelab_simulated_time: vt });
        } else {
          write({ id, object: 'text_completion', created, model: served, choices: [{ index: 0, text: piece, logprobs: null, finish_reason: reason, stop_reason: null }], usage: null, servelab_simulated_time: vt });
        }
      },
      onDone: (vt) => {
        finish(vt);
        if (closed) return;
        if (includeUsage) {
          const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens + generated, completion_tokens: generated };
          write({ id, object: isChat ? 'chat.completion.chunk' : 'text_completion', created, model: served, choices: [], usage, servelab_simulated_time: vt });
        }
        res.write('data: [DONE]\n\n');
        res.end();
        access(200);
      },
    },
  );
  // The virtual arrival time lets a client compute TTFT/ITL in real-GPU units from the chunks' stamps.
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-servelab-simulated': '1',
    'x-servelab-simulated-arrival': String(handleRef.arrival),
  });
  res.flushHeaders();
  req.on('close', () => {
    if (!res.writableEnded) {
      closed = true;
      state.engine.abort(handleRef.id);
    }
  });
}



/** Timing hints a simulated client may send (see LiveEngine.submit); other clients are timed by the wall clock. */
function clientTiming(req) {
  const sent = Number(req.headers['x-servelab-virtual-send']);
  return {
    sentAt: Number.isFinite(sent) && req.headers['x-servelab-virtual-send'] !== undefined ? sent : null,
    followUp: req.headers['x-servelab-closed-loop'] === '1',
    wave: Number(req.headers['x-servelab-wave']) || 0,
  };
}

function crash(spec, state) {
  if (state.crashed) return;
  state.crashed = true;
  const log = makeLogger(spec.engine, process.pid);
  const msg = 'RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.';
  if (spec.engine === 'vllm') {
    log.error('core.py', 'EngineCore encountered a fatal error.');
    for (const l of traceback([['/usr/lib/python3/dist-packages/vllm/v1/engine/core.py', 711, 'run_engine_core', 'engine_core.run_busy_loop()']], msg).trimEnd().split('\n')) log.error('core.py', l);
    log.error('async_llm.py', 'AsyncLLM output_handler failed.', 'api');
    log.raw('vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.');
  } else if (spec.engine === 'sglang') {
    log.error('', `Scheduler hit an exception: ${traceback([['/usr/lib/python3/dist-packages/sglang/srt/managers/scheduler.py', 2601, 'run_scheduler_process', 'scheduler.event_loop_overlap()']], msg)}`, 'engine');
    log.error('', 'Received sigquit from a child process. It usually means the child failed.');
  } else {
    log.raw(traceback([['/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor.py', 1450, '_executor_loop', 'batch_outputs = self._forward_step(scheduled_batch)']], msg));
  }
  unregisterGpuProcess(process.pid);
  // Like a dying engine: in-flight streams are cut, the process exits non-zero.
  setImmediate(() => process.exit(1));
}

/** Reads the crash-after fault once the server is up. */
export function armFaults(state, faults) {
  if (faults['crash-after']) state.crashAfter = faults['crash-after'] === true ? 20 : Number(faults['crash-after']);
}
