// `vllm bench serve` of the simulated box: the real flags, the real console output and --save-result JSON,
// and real HTTP traffic with real concurrency. Times come from the server's virtual-time stamps when it is a
// simulated server (so they are in real-GPU units), else from the wall clock.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { ArrivalError, arrivalSchedule, rampUpArgsError, rpsChangeEvents } from './arrivals.mjs';
import { endWithBox } from './box-watch.mjs';
import { resolveModel, versionCompare } from './catalog.mjs';
import { calculateMetrics, renderResult } from './bench-metrics.mjs';
import { parseVllmBench, UsageError } from './engine-args.mjs';
import { floatRepr, pyFloat, pyJson, pyRepr } from './pyfmt.mjs';
import { traceback } from './pylog.mjs';
import { makeRng } from './rng.mjs';
import { loadConfig } from './state.mjs';
import { countTokens, makeText } from './text.mjs';

/** `vllm bench serve`'s defaults (vLLM 0.11.0), by argparse dest. */
export const DEFAULTS = {
  backend: 'openai',
  endpoint_type: null,
  base_url: null,
  host: '127.0.0.1',
  port: 8000,
  endpoint: '/v1/completions',
  header: null,
  max_concurrency: null,
  model: null,
  served_model_name: null,
  tokenizer: null,
  tokenizer_mode: 'auto',
  trust_remote_code: false,
  request_rate: Infinity,
  burstiness: 1.0,
  ramp_up_strategy: null,
  ramp_up_start_rps: null,
  ramp_up_end_rps: null,
  num_prompts: 1000,
  seed: 0,
  ignore_eos: false,
  percentile_metrics: 'ttft,tpot,itl',
  metric_percentiles: '99',
  goodput: null,
  save_result: false,
  save_detailed: false,
  append_result: false,
  result_dir: null,
  result_filename: null,
  metadata: null,
  label: null,
  ready_check_timeout_sec: 600,
  request_id_prefix: 'benchmark-serving',
  lora_modules: null,
  logprobs: null,
  use_beam_search: false,
  disable_tqdm: false,
  profile: false,
  top_p: null,
  top_k: null,
  min_p: null,
  temperature: null,
  dataset_name: 'random',
  dataset_path: null,
  no_stream: false,
  no_oversample: false,
  sharegpt_output_len: null,
  random_input_len: 1024,
  random_output_len: 128,
  random_range_ratio: 0.0,
  random_prefix_len: 0,
  random_batch_size: 1,
};

const FLOAT_ARGS = new Set(['request_rate', 'burstiness', 'random_range_ratio', 'top_p', 'min_p', 'temperature']);
const SERVE_PY = '/usr/lib/python3/dist-packages/vllm/benchmarks/serve.py';

function die(text, code = 1) {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  process.exit(code);
}

function pyValueError(message, where = 'vllm/benchmarks/serve.py') {
  return traceback([[`/usr/lib/python3/dist-packages/${where}`, 1, 'main', null]], `ValueError: ${message}`);
}

/** Requests for `--dataset-name random` (vLLM v0.11 RandomDataset, vllm/benchmarks/datasets.py); `logLine` prints the client's INFO lines. */
export function randomRequests(args, logLine = log) {
  const rng = makeRng('random-dataset', args.seed);
  const r = args.random_range_ratio;
  const inLo = Math.floor(args.random_input_len * (1 - r));
  const inHi = Math.ceil(args.random_input_len * (1 + r));
  const outLo = Math.max(1, Math.floor(args.random_output_len * (1 - r)));
  const outHi = Math.ceil(args.random_output_len * (1 + r));
  logLine('datasets.py', `Sampling input_len from [${inLo}, ${inHi}] and output_len from [${outLo}, ${outHi}]`);
  const prefix = args.random_prefix_len > 0 ? makeText(args.random_prefix_len, 'prefix', args.seed) : '';
  const out = [];
  for (let i = 0; i < args.num_prompts; i++) {
    const inLen = rng.int(inLo, inHi);
    const outLen = rng.int(outLo, outHi);
    const prompt = prefix + makeText(inLen, 'random', args.seed, i);
    out.push({ prompt, promptLen: countTokens(prompt), outputLen: outLen });
  }
  return out;
}

/** Requests for `--dataset-name sharegpt` (vLLM's ShareGPTDataset, vllm/benchmarks/datasets.py). */
function sharegptRequests(args) {
  if (!args.dataset_path) die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/datasets.py', 114, 'load_data', null]], 'ValueError: dataset_path must be provided for loading data.'));
  if (!existsSync(args.dataset_path)) {
    die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/datasets.py', 433, 'load_data', 'with open(self.dataset_path, encoding="utf-8") as f:']], `FileNotFoundError: [Errno 2] No such file or directory: '${args.dataset_path}'`));
  }
  let data;
  try {
    data = JSON.parse(readFileSync(args.dataset_path, 'utf8'));
  } catch (err) {
    die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/datasets.py', 434, 'load_data', 'self.data = json.load(f)']], `json.decoder.JSONDecodeError: ${err.message}`));
  }
  if (!Array.isArray(data)) die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/datasets.py', 436, 'load_data', null]], "TypeError: list indices must be integers or slices, not str"));
  const out = sharegptRequestsOf(data, args);
  if (out.length === 0) die(pyValueError('No valid ShareGPT conversations (each needs two turns of at least 4 tokens).', 'vllm/benchmarks/datasets.py'));
  return out;
}

/** The requests of a parsed ShareGPT file (vLLM's ShareGPTDataset: shuffled by the seed, filtered, oversampled); empty when none is valid. */
export function sharegptRequestsOf(data, args, logLine = log) {
  const entries = data.map((e) => e?.conversations ?? e?.conversation).filter((c) => Array.isArray(c) && c.length >= 2);
  const rng = makeRng('sharegpt-shuffle', args.seed);
  rng.shuffle(entries);
  const out = [];
  for (const conv of entries) {
    if (out.length >= args.num_prompts) break;
    const prompt = String(conv[0].value ?? '');
    const completion = String(conv[1].value ?? '');
    const promptLen = countTokens(prompt);
    const outputLen = args.sharegpt_output_len ?? countTokens(completion);
    if (promptLen < 4 || (args.sharegpt_output_len === null && outputLen < 4) || promptLen > 1024 || promptLen + outputLen > 2048) continue;
    out.push({ prompt, promptLen, outputLen });
  }
  if (out.length === 0) return out;
  if (out.length < args.num_prompts && !args.no_oversample) {
    const extra = makeRng('oversample', args.seed);
    const base = out.length;
    while (out.length < args.num_prompts) out.push(out[extra.int(0, base - 1)]);
    logLine('datasets.py', `Oversampled requests to reach ${args.num_prompts} total samples.`);
  }
  return out;
}

function log(file, msg) {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  process.stdout.write(`INFO ${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} [${file}] ${msg}\n`);
}

/** A tqdm-like bar on stderr (10-character bar when not on a terminal), updated at most every 0.1 s. */
function progressBar(total, disabled, clock) {
  let last = 0;
  const fmtTime = (s) => {
    if (!Number.isFinite(s)) return '?';
    s = Math.round(s);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = s % 60;
    return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(ss).padStart(2, '0')}` : `${String(m).padStart(2, '0')}:${String(ss).padStart(2, '0')}`;
  };
  const render = (n) => {
    const elapsed = clock();
    const frac = total > 0 ? n / total : 1;
    const width = 10;
    const full = Math.floor(frac * width);
    const partials = ' ▏▎▍▌▋▊▉';
    let bar = '█'.repeat(full);
    if (full < width) bar += partials[Math.floor((frac * width - full) * 8)] + ' '.repeat(width - full - 1);
    const rate = elapsed > 0 ? n / elapsed : 0;
    const rateText = n === 0 || rate === 0 ? '?it/s' : rate >= 1 ? `${rate.toFixed(2).padStart(5)}it/s` : `${(1 / rate).toFixed(2).padStart(5)}s/it`;
    const remaining = rate > 0 ? (total - n) / rate : Infinity;
    return `${String(Math.round(frac * 100)).padStart(3)}%|${bar}| ${n}/${total} [${fmtTime(elapsed)}<${fmtTime(remaining)}, ${rateText}]`;
  };
  return {
    update(n, force = false) {
      if (disabled) return;
      const now = performance.now();
      if (!force && now - last < 100) return;
      last = now;
      process.stderr.write(`\r${render(n)}`);
    },
    close(n) {
      if (disabled) return;
      process.stderr.write(`\r${render(n)}\n`);
    },
  };
}

/** One streamed request, as vLLM's endpoint_request_func does it; times in virtual seconds when stamped. */
function sendRequest(ctx, req, index, timing = {}) {
  const { args, url, backend, agent } = ctx;
  const isChat = backend === 'openai-chat';
  const body = isChat
    ? { model: args.served_model_name ?? args.model, messages: [{ role: 'user', content: req.prompt }], temperature: args.temperature ?? 0.0, max_completion_tokens: req.outputLen, stream: !args.no_stream, stream_options: { include_usage: true } }
    : { model: args.served_model_name ?? args.model, prompt: req.prompt, temperature: args.temperature ?? 0.0, repetition_penalty: 1.0, max_tokens: req.outputLen, logprobs: args.logprobs, stream: !args.no_stream, stream_options: { include_usage: true } };
  if (args.ignore_eos) body.ignore_eos = true;
  for (const k of ['top_p', 'top_k', 'min_p']) if (args[k] !== null) body[k] = args[k];
  const data = JSON.stringify(body);
  const headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-request-id': `${args.request_id_prefix}${index}` };
  if (process.env.OPENAI_API_KEY) headers.authorization = `Bearer ${process.env.OPENAI_API_KEY}`;
  // Closed-loop timing for a simulated server: when (in its virtual time) this request is really sent, and
  // whether another request will follow this one's completion.
  if (timing.sentAt !== undefined && timing.sentAt !== null) headers['x-servelab-virtual-send'] = String(timing.sentAt);
  if (timing.followUp) headers['x-servelab-closed-loop'] = '1';
  if (timing.wave) headers['x-servelab-wave'] = String(timing.wave);
  for (const h of args.header ?? []) {
    const i = h.indexOf('=');
    if (i > 0) headers[h.slice(0, i)] = h.slice(i + 1);
  }
  const output = { success: false, promptLen: req.promptLen, outputTokens: null, ttft: 0, itl: [], latency: 0, startTime: 0, generatedText: '', error: '' };
  return new Promise((resolve) => {
    const wallStart = performance.now();
    const mod = url.protocol === 'https:' ? https : http;
    const r = mod.request(url, { method: 'POST', headers, agent }, (res) => {
      if (res.statusCode !== 200) {
        output.error = res.statusMessage ?? '';
        res.resume();
        res.on('end', () => resolve(output));
        return;
      }
      const arrivalHeader = res.headers['x-servelab-simulated-arrival'];
      const stamped = arrivalHeader !== undefined;
      output.stamped = stamped;
      const st = stamped ? Number(arrivalHeader) : wallStart / 1000;
      output.startTime = st;
      let buffer = '';
      let mostRecent = st;
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let idx;
        while ((idx = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, idx).trim();
          buffer = buffer.slice(idx + 2);
          if (!event) continue;
          const payload = event.replace(/^data: /, '');
          if (payload === '[DONE]') continue;
          let d;
          try {
            d = JSON.parse(payload);
          } catch {
            continue;
          }
          const timestamp = stamped && typeof d.servelab_simulated_time === 'number' ? d.servelab_simulated_time : performance.now() / 1000;
          if (Array.isArray(d.choices) && d.choices.length > 0) {
            const c = d.choices[0];
            const text = isChat ? c.delta?.content : c.text;
            if (first) {
              output.ttft = timestamp - st;
              first = false;
            } else output.itl.push(timestamp - mostRecent);
            output.generatedText += text ?? '';
            mostRecent = timestamp;
          } else if (d.usage) {
            output.outputTokens = d.usage.completion_tokens;
            if (isChat) mostRecent = Math.max(mostRecent, timestamp);
          }
        }
      });
      res.on('end', () => {
        if (first) {
          output.error = 'Never received a valid chunk to calculate TTFT.This response will be marked as failed!';
        } else if (!res.complete) {
          output.error = traceback([['/usr/lib/python3/dist-packages/aiohttp/streams.py', 347, '_wait', 'await waiter']], "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed: <TransferEncodingError: 400, message='Not enough data for satisfy transfer length header.'>");
        } else {
          output.success = true;
          output.latency = mostRecent - st;
        }
        resolve(output);
      });
      res.on('error', () => {
        output.error ||= traceback([['/usr/lib/python3/dist-packages/aiohttp/streams.py', 347, '_wait', 'await waiter']], 'aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed');
        resolve(output);
      });
    });
    r.on('error', (err) => {
      if (output.success || output.error) return resolve(output);
      const host = url.hostname;
      const port = url.port || (url.protocol === 'https:' ? 443 : 80);
      output.error =
        err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' || err.code === 'EPIPE'
          ? traceback([['/usr/lib/python3/dist-packages/aiohttp/connector.py', 1268, '_wrap_create_connection', 'raise client_error(req.connection_key, exc) from exc']], `aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host ${host}:${port} ssl:default [Connect call failed ('${host}', ${port})]`)
          : traceback([['/usr/lib/python3/dist-packages/aiohttp/client.py', 770, '_request', null]], `aiohttp.client_exceptions.ClientOSError: ${err.message}`);
      resolve(output);
    });
    r.end(data);
  });
}

/** GET <base>/v1/models: the first entry's id and root, or the RuntimeError get_first_model_from_server raises. */
function firstServerModel(base) {
  const url = `${base}/v1/models`;
  const failed = (e) => ({ error: `RuntimeError: Failed to fetch models from server at ${url}. Check that:\n1. The server is running\n2. The server URL is correct\nError: ${e}` });
  return new Promise((resolve) => {
    let target;
    try {
      target = new URL(url);
    } catch {
      return resolve(failed(`Invalid URL: ${url}`));
    }
    const req = (target.protocol === 'https:' ? https : http).get(target, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve(failed(`${res.statusCode}, message='${res.statusMessage ?? ''}', url='${url}'`));
        try {
          const data = JSON.parse(body);
          if (Array.isArray(data.data) && data.data.length > 0) return resolve({ id: data.data[0].id, root: data.data[0].root });
          resolve({ error: `ValueError: No models found on the server at ${base}. Make sure the server is running and has models loaded.` });
        } catch (err) {
          resolve(failed(err.message));
        }
      });
    });
    req.on('error', () => resolve(failed(`Cannot connect to host ${target.host} ssl:default [Connect call failed ('${target.hostname}', ${target.port || 80})]`)));
  });
}

/** The `--save-result` document: the run's settings, `--metadata`, then the result dict (per-request arrays with --save-detailed). */
export function saveResultJson(args, result, { date, backend, tokenizerId }) {
  const json = { date, endpoint_type: backend, backend, label: args.label, model_id: args.model, tokenizer_id: tokenizerId, num_prompts: args.num_prompts };
  for (const item of args.metadata ?? []) {
    const i = item.indexOf('=');
    json[item.slice(0, i)] = item.slice(i + 1);
  }
  json.request_rate = args.request_rate === Infinity ? 'inf' : pyFloat(args.request_rate);
  json.burstiness = pyFloat(args.burstiness);
  json.max_concurrency = args.max_concurrency;
  if (args.ramp_up_strategy !== null && args.ramp_up_strategy !== undefined) {
    json.ramp_up_strategy = args.ramp_up_strategy;
    json.ramp_up_start_rps = args.ramp_up_start_rps;
    json.ramp_up_end_rps = args.ramp_up_end_rps;
  }
  Object.assign(json, result);
  if (!args.save_detailed) for (const k of ['input_lens', 'output_lens', 'ttfts', 'itls', 'generated_texts', 'errors']) delete json[k];
  return json;
}

/** `vllm bench serve`; `argv` has been through FlexibleArgumentParser's rewriting (engine-args.mjs). */
export async function benchServeMain(argv, { version }) {
  endWithBox((dir) => {
    process.stderr.write(`simbox: ${dir} is gone; this simulated benchmark client ends with its box.\n`);
    process.exit(143);
  });
  let parsed;
  try {
    parsed = parseVllmBench(argv, version);
  } catch (err) {
    if (err instanceof UsageError) die(err.text, err.code);
    throw err;
  }
  const args = { ...DEFAULTS, ...parsed.values };
  if (args.endpoint_type) {
    process.stderr.write("'--endpoint-type' is deprecated and will be removed in v0.11.0. Please use '--backend' instead.\n");
    args.backend = args.endpoint_type;
  }
  const config = loadConfig();
  const scale = config.timeScale;

  const ns = { subparser: 'bench', bench_type: 'serve', ...args };
  process.stdout.write(`Namespace(${Object.entries(ns).map(([k, v]) => `${k}=${FLOAT_ARGS.has(k) && typeof v === 'number' ? floatRepr(v) : pyRepr(v)}`).join(', ')})\n`);
  // main_async checks the ramp-up arguments right after seeding (vllm/benchmarks/serve.py@v0.11.0:1172-1190).
  const rampError = rampUpArgsError(args);
  if (rampError) die(traceback([[SERVE_PY, 1175, 'main_async', 'raise ValueError(']], `ValueError: ${rampError}`));

  // From 0.14.0 --model may be left out: the first model of the server's /v1/models is used
  // (vllm/benchmarks/serve.py@v0.14.0:62-86, :1556-1563).
  if (args.model === null) {
    const base = args.base_url ?? `http://${args.host}:${args.port}`;
    process.stdout.write('Model not specified, fetching first model from server...\n');
    const first = await firstServerModel(base);
    if (first.error) die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/serve.py', 80, 'get_first_model_from_server', 'raise RuntimeError(']], first.error));
    process.stdout.write(`First model name: ${first.id}, first model id: ${first.root}\n`);
    args.served_model_name ??= first.id;
    args.model = first.root;
  }

  // The tokenizer is loaded on the client (vllm/benchmarks/serve.py), so an unknown or gated model fails here.
  const tokenizerId = args.tokenizer ?? args.model;
  const known = resolveModel(tokenizerId);
  if (!known && !existsSync(tokenizerId)) {
    die(traceback([['/usr/lib/python3/dist-packages/transformers/utils/hub.py', 511, 'cached_files', null]], `OSError: ${tokenizerId} is not a local folder and is not a valid model identifier listed on 'https://huggingface.co/models'\nIf this is a private repository, make sure to pass a token having permission to this repo either by logging in with \`hf auth login\` or by passing \`token=<your_token>\``));
  }
  if (known?.gated && !process.env.HF_TOKEN && !process.env.HUGGING_FACE_HUB_TOKEN) {
    die(traceback([['/usr/lib/python3/dist-packages/huggingface_hub/utils/_http.py', 426, 'hf_raise_for_status', null]], `huggingface_hub.errors.GatedRepoError: 401 Client Error.\n\nCannot access gated repo for url https://huggingface.co/${tokenizerId}/resolve/main/tokenizer_config.json.\nAccess to model ${tokenizerId} is restricted. You must have access to it and be authenticated to access it. Please log in.`));
  }

  const selectedMetrics = args.percentile_metrics.split(',').map((s) => s.trim()).filter(Boolean);
  for (const m of selectedMetrics) if (!['ttft', 'tpot', 'itl', 'e2el'].includes(m)) die(pyValueError(`Invalid metric name: ${m}. Valid metrics are ttft, tpot, itl, e2el.`));
  const percentiles = args.metric_percentiles.split(',').map((s) => Number(s.trim()));
  let goodput = null;
  if (args.goodput) {
    goodput = {};
    for (const item of args.goodput) {
      const [k, v] = item.split(':');
      if (!['ttft', 'tpot', 'e2el'].includes(k)) die(pyValueError(`Invalid metric name found, ${k}: ${v}. The service level objective name should be one of ttft, tpot, e2el.`));
      goodput[k] = Number(v);
    }
  }

  let requests;
  if (args.dataset_name === 'random') {
    if (args.dataset_path) die(pyValueError("Cannot use 'random' dataset with --dataset-path. Please specify the appropriate --dataset-name (e.g., 'sharegpt', 'custom', 'sonnet') for your dataset file."));
    requests = randomRequests(args);
  } else if (args.dataset_name === 'sharegpt') {
    requests = sharegptRequests(args);
  } else {
    die(`vllm bench serve: the simulated box generates only the 'random' and 'sharegpt' datasets (got '${args.dataset_name}').`);
  }

  const backend = args.backend;
  const base = args.base_url ?? `http://${args.host}:${args.port}`;
  let url;
  try {
    url = new URL(`${base}${args.endpoint}`);
  } catch {
    die(pyValueError(`Invalid URL: ${base}${args.endpoint}`));
  }
  if (backend === 'openai-chat' && !url.pathname.endsWith('chat/completions')) {
    die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/lib/endpoint_request_func.py', 330, 'async_request_openai_chat_completions', null]], "ValueError: OpenAI Chat Completions API URL must end with 'chat/completions'."));
  }
  if ((backend === 'openai' || backend === 'vllm') && !/(completions|profile)$/.test(url.pathname)) {
    die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/lib/endpoint_request_func.py', 230, 'async_request_openai_completions', null]], "AssertionError: OpenAI Completions API URL must end with 'completions' or 'profile'."));
  }
  if (!['openai', 'vllm', 'openai-chat'].includes(backend)) die(`vllm bench serve: the simulated box drives the openai, vllm and openai-chat backends (got '${backend}').`);

  const agent = new (url.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: args.max_concurrency ?? 1024 });
  const ctx = { args, url, backend, agent };

  // Initial test run / ready check (vllm/benchmarks/serve.py): retried every 5 s until the timeout.
  process.stdout.write('Starting initial single prompt test run...\n');
  // Where the main run starts on a simulated server's virtual clock: the end of the test request.
  let virtualStart = null;
  if (args.ready_check_timeout_sec > 0) {
    process.stdout.write(`Waiting for endpoint to become up in ${args.ready_check_timeout_sec} seconds\n`);
    const deadline = performance.now() + args.ready_check_timeout_sec * scale * 1000;
    let test;
    for (;;) {
      test = await sendRequest(ctx, requests[0], 'test');
      if (test.success) break;
      const left = deadline - performance.now();
      if (left <= 0) break;
      await new Promise((r) => setTimeout(r, Math.min(5 * scale * 1000, left)));
    }
    process.stderr.write(` |${test.success ? '██████████' : '          '}| 00:00 elapsed, ${test.success ? '09:59' : '00:00'} remaining\n`);
    if (!test.success) {
      die(traceback([['/usr/lib/python3/dist-packages/vllm/benchmarks/serve.py', 600, 'benchmark', 'raise ValueError(']], `ValueError: Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: ${test.error}`));
    }
    if (test.stamped) virtualStart = test.startTime + test.latency;
    process.stdout.write('Initial test run completed. Starting main benchmark run...\n');
  } else {
    process.stdout.write('Skipping endpoint ready check.\n');
  }
  // benchmark() before its first request (vllm/benchmarks/serve.py@v0.11.0:574-585).
  if (args.ramp_up_strategy !== null) {
    process.stdout.write(`Traffic ramp-up strategy: ${args.ramp_up_strategy}.\n`);
    process.stdout.write(`Will increase RPS from ${args.ramp_up_start_rps} to ${args.ramp_up_end_rps} RPS over the duration of the benchmark.\n`);
  } else {
    process.stdout.write(`Traffic request rate: ${args.request_rate === Infinity ? 'inf' : floatRepr(args.request_rate)}\n`);
  }
  process.stdout.write(`Burstiness factor: ${floatRepr(args.burstiness)} (${args.burstiness === 1 ? 'Poisson process' : 'Gamma distribution'})\n`);
  process.stdout.write(`Maximum request concurrency: ${args.max_concurrency ?? 'None'}\n`);

  // Main run: the client's arrival schedule (arrivals.mjs; virtual seconds, slept in scaled wall time) and a semaphore.
  const total = requests.length;
  let schedule;
  try {
    schedule = arrivalSchedule(args, total, { version, seed: args.seed });
  } catch (err) {
    if (!(err instanceof ArrivalError)) throw err;
    die(traceback([[SERVE_PY, 618, 'benchmark', 'async for request, current_request_rate in get_request('], [SERVE_PY, 175, err.where, null]], err.text));
  }
  const paced = schedule.delays.some((d) => d > 0);
  const sentAt = new Array(total);
  const wallStart = performance.now();
  let firstStamp = Infinity;
  let lastStamp = -Infinity;
  // Elapsed time in real-GPU units: from the server's stamps when it is simulated, else scaled wall time.
  const bar = progressBar(total, args.disable_tqdm, () => (lastStamp > firstStamp ? lastStamp - firstStamp : (performance.now() - wallStart) / 1000 / scale));
  bar.update(0, true);
  const outputs = new Array(total);
  let done = 0;
  let slots = args.max_concurrency ?? Infinity;
  const waiters = [];
  // A slot handed over by a finished request carries that request's completion time (virtual) to the next one.
  const acquire = () => (slots > 0 ? (slots--, Promise.resolve(null)) : new Promise((r) => waiters.push(r)));
  const release = (freedAt) => {
    const w = waiters.shift();
    if (w) w(freedAt);
    else slots++;
  };
  const closedLoop = args.max_concurrency !== null && !paced;
  const tasks = [];
  for (let i = 0; i < total; i++) {
    const wait = wallStart + schedule.delays[i] * scale * 1000 - performance.now();
    if (schedule.delays[i] > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
    sentAt[i] = new Date();
    const req = requests[i];
    tasks.push(
      (async () => {
        const freedAt = await acquire();
        let freed = null;
        try {
          // Which completion hands its slot on is not known in advance: announce a follow-up while any request is unsent.
          const hints = closedLoop ? { sentAt: freedAt, followUp: i + 1 < total } : {};
          // A paced request tells a simulated server when (in its virtual time) the schedule sent it, or the slot
          // freed for it: an idle server's clock would otherwise lose its wall-time grace periods between requests.
          if (paced && virtualStart !== null) hints.sentAt = Math.max(virtualStart + schedule.delays[i], freedAt ?? -Infinity);
          if (freedAt === null && !paced) hints.wave = Math.min(total, args.max_concurrency ?? total);
          outputs[i] = await sendRequest(ctx, req, i, hints);
          const o = outputs[i];
          if (o.stamped && o.success) {
            freed = o.startTime + o.latency;
            lastStamp = Math.max(lastStamp, freed);
            firstStamp = Math.min(firstStamp, o.startTime);
          }
        } finally {
          release(freed);
          done++;
          bar.update(done);
        }
      })(),
    );
  }
  await Promise.all(tasks);
  bar.close(done);
  agent.destroy();

  const ok = outputs.filter((o) => o.success);
  const stamped = outputs.some((o) => o.stamped);
  let durationS;
  if (ok.length > 0) {
    const start = Math.min(...outputs.filter((o) => o.success).map((o) => o.startTime));
    const end = Math.max(...ok.map((o) => o.startTime + o.latency));
    durationS = end - start;
  } else {
    durationS = (performance.now() - wallStart) / 1000 / (stamped ? scale : 1);
  }
  if (ok.length === 0) process.stderr.write('UserWarning: All requests failed. This is likely due to a misconfiguration on the benchmark arguments.\n');
  process.stdout.write('tip: install termplotlib and gnuplot to plot the metrics\n');
  const metrics = calculateMetrics(outputs, durationS, { selectedPercentiles: percentiles, goodput });
  const run = {
    version,
    maxConcurrency: args.max_concurrency,
    requestRate: args.request_rate,
    durationS,
    selectedMetrics,
    goodput: Boolean(goodput),
    failedLine: versionCompare(version, '0.11.1') >= 0,
    lowercaseTotal: versionCompare(version, '0.12.0') > 0,
    rpsChangeEvents: rpsChangeEvents(args, schedule.rates, (i) => isoformat(i < 0 ? new Date(wallStart + performance.timeOrigin) : sentAt[i])),
  };
  const { text, result } = renderResult(metrics, outputs, run);
  process.stdout.write(text);

  if (args.save_result || args.append_result) {
    const d = new Date();
    const p = (n) => String(n).padStart(2, '0');
    const dt = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
    for (const item of args.metadata ?? []) if (item.indexOf('=') < 0) die(pyValueError('Invalid metadata format. Please use KEY=VALUE format.'));
    const json = saveResultJson(args, result, { date: dt, backend, tokenizerId });
    const rate = args.request_rate === Infinity ? 'inf' : floatRepr(args.request_rate);
    const concurrency = args.max_concurrency !== null ? `-concurrency${args.max_concurrency}` : '';
    const label = args.label ?? backend;
    const model = args.model.split('/').pop();
    // vllm/benchmarks/serve.py@v0.11.0:1340-1343
    let name =
      args.result_filename ??
      (args.ramp_up_strategy !== null
        ? `${label}-ramp-up-${args.ramp_up_strategy}-${args.ramp_up_start_rps}qps-${args.ramp_up_end_rps}qps${concurrency}-${model}-${dt}.json`
        : `${label}-${rate}qps${concurrency}-${model}-${dt}.json`);
    if (args.result_dir) {
      mkdirSync(args.result_dir, { recursive: true });
      name = join(args.result_dir, name);
    }
    const textJson = pyJson(json);
    if (args.append_result) {
      const nonEmpty = existsSync(name) && statSync(name).size > 0;
      appendFileSync(name, `${nonEmpty ? '\n' : ''}${textJson}`);
    } else writeFileSync(name, textJson);
  }
}

/** Python's datetime.isoformat() of a naive local time: microseconds unless zero. */
function isoformat(d) {
  const p = (n, w = 2) => String(n).padStart(w, '0');
  const base = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  return d.getMilliseconds() === 0 ? base : `${base}.${p(d.getMilliseconds() * 1000, 6)}`;
}
