// The simulated box in virtual time, without processes, HTTP or the wall clock: a launch command line becomes the
// server the live box would start (engine-cli.mjs's parsing, server.mjs's profile, seeds and start-up request), and
// workloads are measured on it one after another as `vllm bench serve` would (bench-serve.mjs's datasets and result
// document, simulate.mjs's client), so whole studies of seeded runs take seconds.

import { GPU_MODELS, resolveGpuModel, resolveModel } from './catalog.mjs';
import { DEFAULTS, randomRequests, saveResultJson, sharegptRequestsOf } from './bench-serve.mjs';
import { ArrivalError, rpsChangeEvents } from './arrivals.mjs';
import { renderResult } from './bench-metrics.mjs';
import { PythonExit } from './engine-args.mjs';
import { UsageError } from './argparse.mjs';
import { serverSpecOf } from './engine-cli.mjs';
import { StartupFailure } from './perf-model.mjs';
import { pyJson } from './pyfmt.mjs';
import { traceback } from './pylog.mjs';
import { engineSeeds, modelAccessError, oomMessage, placementOf, profileOf, rayPlacementError, SGLANG_WARMUP_REQUEST, vllmStartupError } from './server.mjs';
import { simulateBenchmark, syntheticShareGpt } from './simulate.mjs';
import { chatTemplateTokens, countTokens, messagesText } from './text.mjs';
import { versionCompare } from './version.mjs';
import { createEngine } from './engine-core.mjs';

/** Conversations in the demo lab's ShareGPT file (the product's `synthesizeShareGpt` default). */
const DEMO_SHAREGPT_COUNT = 1000;
const noLog = () => {};

/** The box as loadConfig() describes it, from a GPU type and count. */
export function virtualBox({ gpu = 'h100', count = 1, seed = 0, topology = 'nvlink' } = {}) {
  const gpuModel = resolveGpuModel(gpu) ?? GPU_MODELS.h100;
  return { gpu: gpuModel.key, count, seed, faults: {}, gpuModel, topology: topology === 'pcie' ? 'pcie' : 'nvlink' };
}

/**
 * Starts a virtual server from a launch command line. Returns {ok: false, error, code} where the live engine would
 * refuse or fail to start, else {ok: true, spec, profile, run(workload)}. `launch`: the box's launch counter for
 * this server (its noise seed); `noise: false` gives the calibrated, noise-free engine.
 * @param {{argv: string[], env?: Record<string,string>, version: string, box: ReturnType<typeof virtualBox>,
 *   launch?: number, noise?: boolean, files?: {path: string, content: string}[], clientVersion?: string,
 *   percentileMetrics?: string, metricPercentiles?: string}} opts
 */
export function launchVirtual(opts) {
  const box = opts.box;
  const files = new Map((opts.files ?? []).map((f) => [f.path, f.content]));
  const readFile = (path) => {
    if (!files.has(path)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return files.get(path);
  };
  let spec;
  try {
    spec = serverSpecOf(opts.argv, { version: opts.version, processEnv: { ...(opts.env ?? {}) }, box, readFile });
  } catch (err) {
    if (err instanceof PythonExit || err instanceof UsageError) return { ok: false, error: err.text, code: err.code };
    throw err;
  }
  const placement = placementOf(spec, box, { ...(opts.env ?? {}) });
  const refused = startRefusal(spec, box, placement);
  if (refused) return { ok: false, error: refused, code: 1 };
  let profile;
  try {
    profile = profileOf(spec, box, undefined, placement);
  } catch (err) {
    if (!(err instanceof StartupFailure)) throw err;
    return { ok: false, error: startupError(spec, box, err), code: 1 };
  }
  const seeds = engineSeeds(box, spec, opts.launch ?? 0);
  const engine = createEngine(profile, { seed: seeds.seed, noiseSeed: opts.noise === false ? null : seeds.noiseSeed });
  let now = 0;
  // SGLang's own warm-up request, before /health says ready.
  if (spec.engine === 'sglang' && !spec.skipWarmup) {
    now = simulateBenchmark({ profile, requests: [{ input: SGLANG_WARMUP_REQUEST.promptTokens, output: SGLANG_WARMUP_REQUEST.maxTokens }], engine, startAt: now }).endAt;
  }
  const client = {
    version: opts.clientVersion ?? '0.11.0',
    percentileMetrics: opts.percentileMetrics ?? DEFAULTS.percentile_metrics,
    metricPercentiles: opts.metricPercentiles ?? DEFAULTS.metric_percentiles,
  };
  return {
    ok: true,
    spec,
    profile,
    /** Measures a workload (the product's Workload) on this server, continuing its virtual time. */
    run(workload) {
      const out = benchRun(engine, now, spec, profile, workload, client);
      now = out.endAt;
      return out.result;
    },
  };
}

/**
 * A trial on one virtual server: the launch, then each workload in order. {ok: false, error} for a launch the engine
 * refuses; else {ok: true, runs: [{ok, metrics, json, seconds} | {ok: false, error, seconds}]}.
 */
export function runVirtualTrial({ workloads, ...launch }) {
  const server = launchVirtual(launch);
  if (!server.ok) return server;
  return { ok: true, runs: workloads.map((w) => server.run(w)) };
}

/**
 * What stops the live server before it serves (server.mjs runServer's checks, in its order): the engine's config
 * checks, the Hub, the GPUs it sees, and the engine's refusal of its parallel layout (the exception it ends with).
 */
function startRefusal(spec, box, placement) {
  const configError = spec.configError ?? null;
  if (configError?.where === 'api' && configError.beforeModel) return traceback(configError.frames, configError.exception);
  const hubError = modelAccessError(spec.model, resolveModel(spec.model));
  if (hubError) return hubError;
  if (configError) return traceback(configError.frames, configError.exception);
  if (placement.visible.invalid !== null || placement.visible.gpus.length === 0) return 'RuntimeError: No CUDA GPUs are available';
  const refusal = placement.refusal;
  if (refusal?.where === 'ray') return rayPlacementError(refusal.world);
  if (refusal) return traceback(refusal.frames, refusal.exception);
  return null;
}

/** The exception the live server's log ends with for a startup failure of the model (server.mjs startupFailure). */
function startupError(spec, box, err) {
  if (err.kind === 'unsupported-sm-fp8') return `RuntimeError: ${err.message}`;
  if (err.kind === 'trtllm-awq-weight') return "KeyError: 'weight'";
  return (spec.engine === 'vllm' ? vllmStartupError(err) : null) ?? oomMessage(box, (err.details?.inUseGiB ?? 60) * 0.9);
}

/** The client's arguments for a workload, as buildBenchServeArgv's flags set them. */
function clientArgs(workload, client) {
  const d = workload.dataset;
  return {
    ...DEFAULTS,
    backend: workload.backend ?? 'openai-chat',
    num_prompts: workload.numPrompts,
    max_concurrency: workload.maxConcurrency ?? null,
    request_rate: workload.requestRate ?? Infinity,
    burstiness: workload.burstiness === 'inf' ? Infinity : (workload.burstiness ?? 1),
    ramp_up_strategy: workload.rampUp?.strategy ?? null,
    ramp_up_start_rps: workload.rampUp?.startRps ?? null,
    ramp_up_end_rps: workload.rampUp?.endRps ?? null,
    seed: workload.seed ?? 0,
    ignore_eos: workload.ignoreEos === true,
    percentile_metrics: client.percentileMetrics,
    metric_percentiles: client.metricPercentiles,
    dataset_name: d.kind,
    ...(d.kind === 'random'
      ? { random_input_len: d.inputLen, random_output_len: d.outputLen, random_range_ratio: d.rangeRatio ?? 0, random_prefix_len: d.prefixLen ?? 0 }
      : { sharegpt_output_len: d.outputLen ?? null }),
  };
}

// Generated prompts are the same for the same arguments: made once per process (a study sends each workload often).
const generated = new Map();
let demoShareGpt = null;

function clientRequests(workload, args) {
  const d = workload.dataset;
  const key = JSON.stringify([d, args.num_prompts, args.seed, args.backend]);
  const known = generated.get(key);
  if (known) return known;
  let reqs;
  if (d.kind === 'random') reqs = randomRequests(args, noLog);
  else if (d.kind === 'sharegpt' && d.path === undefined) reqs = sharegptRequestsOf((demoShareGpt ??= syntheticShareGpt(DEMO_SHAREGPT_COUNT, 0)), args, noLog);
  else throw new Error(`the virtual lab generates only random and the demo lab's ShareGPT workloads (got ${d.kind}${d.path ? ` at ${d.path}` : ''})`);
  const chat = args.backend === 'openai-chat';
  const out = reqs.map((r) => {
    const messages = [{ role: 'user', content: r.prompt }];
    const input = chat ? countTokens(messagesText(messages)) + chatTemplateTokens(messages) : Math.max(1, countTokens(r.prompt));
    return { input, output: r.outputLen, promptLen: r.promptLen };
  });
  generated.set(key, out);
  return out;
}

/**
 * The requests `vllm bench serve` sends for a workload to a server with `profile`: {input (the server's prompt
 * tokens), output, promptLen (the client's count), refused?}.
 */
export function workloadRequests(workload, profile) {
  return requestsOf(workload, clientArgs(workload, { percentileMetrics: DEFAULTS.percentile_metrics, metricPercentiles: DEFAULTS.metric_percentiles }), profile);
}

function requestsOf(workload, args, profile) {
  // The server's context check (server.mjs handle): a longer request gets a 400 at once.
  return clientRequests(workload, args).map((r) => (r.input + r.output > profile.maxModelLen ? { ...r, refused: 'Bad Request' } : r));
}

function benchRun(engine, startAt, spec, profile, workload, client) {
  const args = clientArgs(workload, client);
  const requests = requestsOf(workload, args, profile);
  const chat = args.backend === 'openai-chat';
  // The client's initial single-prompt test run, then the measured run on the same server.
  const test = simulateBenchmark({ profile, requests: requests.slice(0, 1), maxConcurrency: 1, seed: args.seed, chat, engine, startAt });
  if (requests[0]?.refused) {
    // The client retries its test request until the ready-check timeout, then gives up.
    const endAt = test.endAt + args.ready_check_timeout_sec;
    return {
      endAt,
      result: { ok: false, error: 'ValueError: Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: Bad Request', seconds: endAt - startAt },
    };
  }
  const percentiles = args.metric_percentiles.split(',').map((s) => Number(s.trim()));
  const rampUp = args.ramp_up_strategy ? { strategy: args.ramp_up_strategy, startRps: args.ramp_up_start_rps, endRps: args.ramp_up_end_rps } : undefined;
  let sim;
  try {
    sim = simulateBenchmark({
      profile,
      requests,
      maxConcurrency: args.max_concurrency,
      requestRate: args.request_rate,
      burstiness: args.burstiness,
      rampUp,
      version: client.version,
      seed: args.seed,
      chat,
      engine,
      startAt: test.endAt,
      percentiles,
    });
  } catch (err) {
    if (!(err instanceof ArrivalError)) throw err;
    return { endAt: test.endAt, result: { ok: false, error: err.text, seconds: test.endAt - startAt } };
  }
  const run = {
    version: client.version,
    maxConcurrency: args.max_concurrency,
    requestRate: args.request_rate,
    durationS: sim.durationS,
    selectedMetrics: args.percentile_metrics.split(',').map((s) => s.trim()).filter(Boolean),
    goodput: false,
    failedLine: versionCompare(client.version, '0.11.1') >= 0,
    lowercaseTotal: versionCompare(client.version, '0.12.0') > 0,
    rpsChangeEvents: rpsChangeEvents(args, sim.rates, () => '1970-01-01T00:00:00'),
  };
  const { result } = renderResult(sim.metrics, sim.outputs, run);
  const json = pyJson(saveResultJson({ ...args, model: spec.model }, result, { date: '19700101-000000', backend: args.backend, tokenizerId: spec.model }));
  return { endAt: sim.endAt, result: { ok: true, metrics: JSON.parse(json.replace(/\bNaN\b|-?Infinity\b/g, 'null')), json, seconds: sim.endAt - startAt } };
}
