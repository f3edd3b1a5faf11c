import { getAdapter } from './adapters';
import type { EngineId, LogClass, LogVerdict } from './types';

/**
 * Reads a server log (as pasted by a user, or streamed from a launch) and says what happened: ready, or the root
 * cause of the failure and what to change. Failure strings are the engines' own (engines.md §5 and §1.7/§2.2/§3.3,
 * with the source each comes from); Python's and the CLI parsers' own messages are cited where they are used.
 */

export interface ClassifyOptions {
  engine?: EngineId;
}

/** The flag names hints refer to; a test checks they match the adapters' knob tables. */
export const HINT_FLAGS: Record<EngineId, { memory: string; maxLen: string; running: string; batchTokens: string; tp: string; port: string; cudaGraph: string }> = {
  vllm: {
    memory: '--gpu-memory-utilization',
    maxLen: '--max-model-len',
    running: '--max-num-seqs',
    batchTokens: '--max-num-batched-tokens',
    tp: '--tensor-parallel-size',
    port: '--port',
    cudaGraph: '--cuda-graph-sizes',
  },
  sglang: {
    memory: '--mem-fraction-static',
    maxLen: '--context-length',
    running: '--max-running-requests',
    batchTokens: '--chunked-prefill-size',
    tp: '--tp-size',
    port: '--port',
    cudaGraph: '--cuda-graph-max-bs',
  },
  trtllm: {
    memory: '--kv_cache_free_gpu_memory_fraction',
    maxLen: '--max_seq_len',
    running: '--max_batch_size',
    batchTokens: '--max_num_tokens',
    tp: '--tp_size',
    port: '--port',
    cudaGraph: 'cuda_graph_config.max_batch_size (extra_llm_api_options)',
  },
};

const ENGINE_NAMES: Record<EngineId, string> = { vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' };
const ENGINE_PACKAGES: Record<string, EngineId> = { vllm: 'vllm', sglang: 'sglang', tensorrt_llm: 'trtllm' };

// ---------------------------------------------------------------------------------------------------------------
// Cleaning: what other tools put around the engine's own text.

/** One physical line of the input after cleaning. */
export interface CleanLine {
  /** 0-based index of the input line it came from. */
  index: number;
  text: string;
  /** The log level from the engine's logger prefix, when there was one. */
  level?: string;
  /** A traceback frame (`File "…", line N, in f`) or the source line under it: code, not a message. */
  frame: boolean;
}

// CSI sequences (colours, cursor moves), OSC sequences (titles, links), and the remaining two-byte escapes.
// eslint-disable-next-line no-control-regex -- escape sequences are what this removes
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

const PREFIXES: { re: RegExp; level?: number }[] = [
  // kubectl logs --timestamps / docker logs -t: RFC 3339 with nanoseconds.
  { re: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})? ?/ },
  // kubectl logs --prefix: `[pod/vllm-0/server] `.
  { re: /^\[pod\/[^\]\s]+\] ?/ },
  // journalctl: `Oct 01 12:00:00 gpu-box vllm[1234]: `.
  { re: /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \S+ [\w.@-]+(?:\[\d+\])?: ?/ },
  // docker compose: `service-1  | `.
  { re: /^[A-Za-z0-9][\w.-]*\s+\| ?/ },
  // Ray and vLLM process tags: `(RayWorkerWrapper pid=123)`, `(EngineCore_DP0 pid=4567)`, `(pid=1, ip=10.0.0.2)`.
  { re: /^\([A-Za-z_][\w.-]*(?:=[^\s),]+)?(?:[,\s]+[A-Za-z_][\w.-]*(?:=[^\s),]+)?)*\) ?/ },
  // mpirun --tag-output: `[1,0]<stderr>:`.
  { re: /^\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:\s?/ },
  // vLLM's logger: `INFO 10-01 12:00:00 [api_server.py:1896] `.
  { re: /^(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+\[[^\]]*\]\s?/, level: 1 },
  // SGLang's logger: `[2025-10-01 12:00:00] ` or `[2025-10-01 12:00:00 TP0] `.
  { re: /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?: [^\]]*)?\]\s?/ },
  // TensorRT-LLM's Python logger: `[10/01/2025-12:00:00] [TRT-LLM] [I] `, and its C++ logger: `[TensorRT-LLM][INFO] `.
  { re: /^\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\]\s?/ },
  { re: /^\[TRT-LLM\]\s?/ },
  { re: /^\[([IWEVD])\]\s/, level: 1 },
  { re: /^\[TensorRT-LLM\]\[(INFO|WARNING|ERROR|DEBUG|VERBOSE)\]\s?/, level: 1 },
];
const TRT_LEVELS: Record<string, string> = { I: 'INFO', W: 'WARNING', E: 'ERROR', V: 'DEBUG', D: 'DEBUG' };

/** Removes ANSI codes and the prefixes of Ray, docker compose, kubectl, journald, mpirun and the engines' loggers. */
export function cleanLogLine(raw: string): { text: string; level?: string } {
  let text = raw.replace(ANSI, '').replace(CONTROL, '');
  let level: string | undefined;
  for (let round = 0; round < 10; round++) {
    const before = text;
    const trimmed = text.replace(/^\s+(?=[[(\d])/, '');
    for (const prefix of PREFIXES) {
      const m = prefix.re.exec(trimmed);
      if (!m) continue;
      text = trimmed.slice(m[0].length);
      if (prefix.level && m[prefix.level]) level = TRT_LEVELS[m[prefix.level] as string] ?? (m[prefix.level] as string).replace(/^WARN$/, 'WARNING');
      break;
    }
    if (text === before) break;
  }
  text = text.replace(/\s*\[repeated \d+x across cluster\]\s*$/, '').trimEnd();
  return level ? { text, level } : { text };
}

export function cleanLog(text: string): CleanLine[] {
  const lines: CleanLine[] = [];
  const raw = text.split(/\r?\n/);
  let inFrame = false;
  raw.forEach((physical, index) => {
    // A progress bar rewrites its line with \r: each rewrite is a line of its own.
    for (const segment of physical.split('\r')) {
      const { text: cleaned, level } = cleanLogLine(segment);
      if (cleaned.trim() === '') continue;
      const isFrameHeader = /^\s*File "[^"]*", line \d+/.test(cleaned);
      const frame = isFrameHeader || (inFrame && /^\s{4,}\S/.test(cleaned));
      inFrame = isFrameHeader;
      lines.push({ index, text: cleaned, frame, ...(level ? { level } : {}) });
    }
  });
  return lines;
}

// ---------------------------------------------------------------------------------------------------------------
// Signatures.

type Tier =
  /** A cause the user can act on: the verdict's class. */
  | 'cause'
  /** A failure that says its cause is elsewhere in the log. */
  | 'wrapper'
  /** A failure without a class of its own; `generic` ones are any exception line. */
  | 'error'
  | 'generic';

interface Found {
  sig: Signature;
  line: CleanLine;
  /** Position in the cleaned lines. */
  at: number;
  match: RegExpExecArray;
}

interface Context {
  engine?: EngineId;
  lines: CleanLine[];
  found: Found;
}

interface Signature {
  id: string;
  tier: Tier;
  class: LogClass;
  re: RegExp;
  /** Lines at these logger levels are not failures (e.g. a WARNING that a module is optional). */
  ignoreLevels?: readonly string[];
  hint(ctx: Context): string;
}

const QUIET = ['DEBUG', 'INFO'] as const;
const QUIET_OR_WARNING = ['DEBUG', 'INFO', 'WARNING'] as const;

function engineFlags(engine: EngineId | undefined) {
  return engine ? HINT_FLAGS[engine] : undefined;
}

function each(pick: (f: (typeof HINT_FLAGS)[EngineId]) => string): string {
  return (Object.keys(HINT_FLAGS) as EngineId[]).map((e) => `${ENGINE_NAMES[e]} ${pick(HINT_FLAGS[e])}`).join(', ');
}

/** Looks for `re` on the matched line and the few after it (long messages are sometimes wrapped). */
function nearby(ctx: Context, re: RegExp, span = 4): RegExpExecArray | undefined {
  for (let i = ctx.found.at; i < Math.min(ctx.lines.length, ctx.found.at + span + 1); i++) {
    const m = re.exec((ctx.lines[i] as CleanLine).text);
    if (m) return m;
  }
  return undefined;
}

function oomHint(ctx: Context): string {
  const tried = /Tried to allocate ([\d.]+ [KMGT]i?B)/.exec(ctx.found.line.text);
  const what = tried ? `The GPU ran out of memory (it tried to allocate ${tried[1]}).` : 'The GPU ran out of memory.';
  const f = engineFlags(ctx.engine);
  if (ctx.engine === 'vllm' && f) return `${what} Lower ${f.memory} to leave room outside vLLM's reservation, or the load: ${f.running}, ${f.maxLen}; if the weights do not fit one GPU, raise ${f.tp}.`;
  if (ctx.engine === 'sglang' && f) return `${what} Lower ${f.memory} (SGLang's advice for out-of-memory errors), or ${f.cudaGraph} / ${f.running}; if the weights do not fit one GPU, raise ${f.tp}.`;
  if (ctx.engine === 'trtllm' && f) return `${what} Lower ${f.memory}, ${f.running} or ${f.batchTokens}; if the weights do not fit one GPU, raise ${f.tp}.`;
  return `${what} Lower the engine's memory fraction (${each((x) => x.memory)}) or its batch limits, or use more GPUs.`;
}

function floor2(x: number): string {
  return (Math.floor(x * 100) / 100).toFixed(2);
}

// The order matters: on one line the first signature that matches wins, so specific ones come first.
const SIGNATURES: readonly Signature[] = [
  // --- KV cache (vLLM vllm/v1/core/kv_cache_utils.py, engines.md §5)
  {
    id: 'vllm-max-model-len',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /To serve at least one request with the models?'s max seq len \((\d+)\)/,
    hint(ctx) {
      const f = HINT_FLAGS.vllm;
      const wanted = ctx.found.match[1];
      const estimate = nearby(ctx, /estimated maximum model length is (\d+)/);
      if (estimate) {
        return `The KV cache cannot hold one ${wanted}-token request. Lower ${f.maxLen} to ${estimate[1]} (vLLM's estimate for this GPU), or keep ${wanted} with a higher ${f.memory}, more GPUs (${f.tp}) or an fp8 --kv-cache-dtype.`;
      }
      return `The KV cache cannot hold one ${wanted}-token request. Lower ${f.maxLen} (the log ends before vLLM's estimate of what fits), or raise ${f.memory}.`;
    },
  },
  {
    id: 'vllm-no-cache-blocks',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /No available memory for the cache blocks/,
    hint: () => {
      const f = HINT_FLAGS.vllm;
      return `The weights and activations leave no GPU memory for the KV cache. Raise ${f.memory}, spread the model over more GPUs (${f.tp}), or serve a smaller or quantized checkpoint.`;
    },
  },
  // --- GPU memory (PyTorch; vLLM vllm/v1/worker/gpu_worker.py)
  {
    id: 'vllm-free-memory',
    tier: 'cause',
    class: 'oom',
    re: /Free memory on device \((?:([\d.]+)\/([\d.]+) GiB\))?/,
    hint(ctx) {
      const f = HINT_FLAGS.vllm;
      const [, free, total] = ctx.found.match;
      const want = /desired GPU memory utilization \(([\d.]+)/.exec(ctx.found.line.text);
      if (free && total) {
        const fits = floor2(Number(free) / Number(total));
        return `Only ${free} of ${total} GiB was free when vLLM started${want ? `, less than ${f.memory} ${want[1]} asks for` : ''}: another process holds GPU memory. Free the GPU (nvidia-smi shows the process) or lower ${f.memory} to at most ${fits}.`;
      }
      return `Less GPU memory was free than ${f.memory} asks for: another process holds GPU memory. Free the GPU (nvidia-smi shows the process) or lower ${f.memory}.`;
    },
  },
  { id: 'cuda-oom', tier: 'cause', class: 'oom', re: /CUDA out of memory|OutOfMemoryError/, ignoreLevels: QUIET, hint: oomHint },
  { id: 'cuda-error-oom', tier: 'cause', class: 'oom', re: /CUDA error: out of memory/, ignoreLevels: QUIET, hint: oomHint },
  // --- FP8 block-scaled GEMM (TRT-LLM cpp/tensorrt_llm/thop/fp8BlockScalingGemm.cpp)
  {
    id: 'trtllm-fp8-block-gemm',
    tier: 'cause',
    class: 'unsupported-sm-fp8',
    re: /Unsupported SM version for FP8 block scaling GEMM/,
    hint: () =>
      "This GPU's architecture has no FP8 block-scaled GEMM in TensorRT-LLM (A100 is sm80). Retrying fails the same way: serve a BF16 or non-FP8 checkpoint, serve this FP8 checkpoint with vLLM or SGLang, or use an sm90 GPU.",
  },
  // --- Port in use (engines.md §5: SGLang/uvicorn, TRT-LLM commands/serve.py, vLLM socket.bind)
  {
    id: 'sglang-bind',
    tier: 'cause',
    class: 'port-in-use',
    re: /\[Errno 98\] error while attempting to bind on address \('([^']*)', (\d+)\)/,
    hint: (ctx) => portHint(ctx, ctx.found.match[2]),
  },
  {
    id: 'trtllm-bind',
    tier: 'cause',
    class: 'port-in-use',
    re: /Failed to bind socket to (\S+?):(\d+): \[Errno 98\]/,
    hint: (ctx) => portHint(ctx, ctx.found.match[2]),
  },
  { id: 'errno-98', tier: 'cause', class: 'port-in-use', re: /\[Errno 98\]|Address already in use/i, ignoreLevels: QUIET, hint: (ctx) => portHint(ctx, undefined) },
  // --- Hugging Face access (huggingface_hub, engines.md §5)
  {
    id: 'hf-gated',
    tier: 'cause',
    class: 'gated-model',
    re: /GatedRepoError|Cannot access gated repo for url|Access to model \S+ is restricted|is restricted and you are not in the authorized list/,
    hint(ctx) {
      const repo = repoOf(ctx);
      const listed = nearby(ctx, /not in the authorized list/, 6);
      const where = repo ? `${repo} is a gated model` : 'The model is gated';
      if (listed) return `${where} and this token's account is not in its authorized list: request access on ${repo ? `https://huggingface.co/${repo}` : 'the model page'}, then retry.`;
      return `${where}: accept its terms on ${repo ? `https://huggingface.co/${repo}` : 'the model page'} with your account and give the server an HF_TOKEN (as a secret) with access to it.`;
    },
  },
  {
    id: 'hf-not-found',
    tier: 'cause',
    class: 'gated-model',
    re: /RepositoryNotFoundError|Repository Not Found for url/,
    hint(ctx) {
      const repo = repoOf(ctx);
      return `Hugging Face shows no repo ${repo ?? 'with that id'} to this request. Check the model id for typos; a private or gated repo without a token also reads "Repository Not Found", so set HF_TOKEN (as a secret) if it is one.`;
    },
  },
  // --- CLI parsers: argparse (CPython Lib/argparse.py parse_args / _parse_optional) and click (click/exceptions.py NoSuchOption)
  {
    id: 'argparse-unrecognized',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: unrecognized arguments: (.+)$/,
    hint: (ctx) => {
      const name = ctx.engine ? ENGINE_NAMES[ctx.engine] : 'The engine';
      return `${name}${ctx.engine ? ' at this version' : ''} does not know ${ctx.found.match[1]}: remove it or fix its spelling (Servelab checks extra args against the engine's flags before launch).`;
    },
  },
  {
    id: 'argparse-ambiguous',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: ambiguous option: (\S+) could match (.+)$/,
    hint: (ctx) => `${ctx.found.match[1]} is an abbreviation of several flags (${ctx.found.match[2]}): write the full flag name.`,
  },
  {
    id: 'click-no-such-option',
    tier: 'cause',
    class: 'unknown-flag',
    re: /No such option: (\S+?)(?:\.|,)?(?:\s+Did you mean (\S+?)\?)?(?:\s|$)/,
    hint(ctx) {
      const [, flag = '', suggestion] = ctx.found.match;
      if (suggestion) return `${flag} does not exist: use ${suggestion}.`;
      if (ctx.engine === 'trtllm' || (!ctx.engine && flag.includes('-', 2))) {
        return `${flag} does not exist${flag.slice(2).includes('-') ? `: trtllm-serve writes flags with underscores (--${flag.slice(2).replace(/-/g, '_')})` : ''}; see trtllm-serve --help.`;
      }
      return `${flag} does not exist: remove it or fix its spelling.`;
    },
  },
  // --- Missing modules and libraries (CPython importlib "No module named …", the dynamic loader's message)
  {
    id: 'cuda-home',
    tier: 'cause',
    class: 'missing-module',
    re: /CUDA_HOME environment variable is not set/,
    hint: () => 'A kernel build needs the CUDA toolkit: export CUDA_HOME=/usr/local/cuda-<version> (the toolkit matching the driver) in the server environment.',
  },
  {
    id: 'shared-library',
    tier: 'cause',
    class: 'missing-module',
    re: /(lib[\w.+-]*?\.so(?:\.[\d.]+)?): cannot open shared object file/,
    ignoreLevels: QUIET_OR_WARNING,
    hint(ctx) {
      const lib = ctx.found.match[1] as string;
      if (/^libmpi/.test(lib)) return `${lib} is missing: TensorRT-LLM needs MPI, install it with sudo apt-get -y install libopenmpi-dev.`;
      return `The shared library ${lib} is missing: install the system package that provides it, or reinstall the engine in a clean environment.`;
    },
  },
  {
    id: 'no-module',
    tier: 'cause',
    class: 'missing-module',
    re: /(?:ModuleNotFoundError: |^\S*python[\d.]*: (?:Error while finding module specification for '[^']+' \(ModuleNotFoundError: )?)No module named '?([\w.]+)'?/,
    ignoreLevels: QUIET_OR_WARNING,
    hint(ctx) {
      const module = ctx.found.match[1] as string;
      const engine = ENGINE_PACKAGES[module.split('.')[0] as string];
      if (engine) return `${ENGINE_NAMES[engine]} is not installed in the Python environment that ran the server: install it there (servelab installs each engine version in its own environment) and launch from that environment.`;
      return `The Python module ${module} is missing from the engine's environment: install it there (pip install ${module.split('.')[0]}) or reinstall the engine in a fresh environment.`;
    },
  },
  {
    id: 'import-name',
    tier: 'cause',
    class: 'missing-module',
    re: /ImportError: cannot import name '([^']+)' from '([^']+)'/,
    ignoreLevels: QUIET_OR_WARNING,
    hint: (ctx) => `${ctx.found.match[2]} has no ${ctx.found.match[1]}: a dependency has the wrong version. Reinstall the engine in a fresh environment so its pinned versions apply.`,
  },
  {
    id: 'command-not-found',
    tier: 'cause',
    class: 'missing-module',
    re: /(?:^|: )(vllm|trtllm-serve|python3?|sglang): (?:command )?not found/,
    hint: (ctx) => `${ctx.found.match[1]} is not on the PATH the server ran with: launch it from the engine's environment (its bin/) or install the engine.`,
  },
  // --- NCCL and shared memory (NVIDIA/nccl #342, #290, #1589; engines.md §5)
  {
    id: 'nccl-shm',
    tier: 'cause',
    class: 'nccl',
    re: /NCCL WARN (?:Error while creating shared memory segment|Call to posix_fallocate failed)|Error while attaching to shared memory segment/,
    hint: ncclHint,
  },
  { id: 'nccl-system', tier: 'cause', class: 'nccl', re: /ncclSystemError|NCCL error.*unhandled system error/, hint: ncclHint },
  // --- Failures that point elsewhere for their cause
  {
    id: 'vllm-engine-core-failed',
    tier: 'wrapper',
    class: 'unknown',
    re: /Engine core initialization failed\. See root cause above/,
    hint: () => 'vLLM reports that its engine core failed to start; the cause is printed before this line, and this log does not hold a recognised one. Look at the first error above it (or the full log).',
  },
  {
    // vllm/v1/engine/exceptions.py: raised to requests once the engine core process has died.
    id: 'vllm-engine-dead',
    tier: 'wrapper',
    class: 'unknown',
    re: /EngineDeadError: EngineCore encountered an issue/,
    hint: () => "vLLM's engine core died while serving; the cause is printed above this line (a CUDA fault, an assertion). Look at the first error before it.",
  },
  {
    id: 'sglang-warmup-failed',
    tier: 'wrapper',
    class: 'unknown',
    re: /Initialization failed\. warmup error:/,
    hint: () => "SGLang's warm-up request failed, so the server was stopped; the error after \"warmup error:\" and the lines before it say why.",
  },
  // --- Failures without a class of their own
  {
    id: 'trtllm-weight-names',
    tier: 'error',
    class: 'unknown',
    re: /KeyError: '(?:weight|[\w.]*\.qweight)'|assert all\('weight' in weights\[i\]/,
    hint: () =>
      "The checkpoint's tensor names are not what TensorRT-LLM's PyTorch loader expects (AutoAWQ qweight/qzeros layouts and similar fail). Use an unquantized or ModelOpt-quantized checkpoint (nvidia/*-FP8, *-FP4, int4_awq via ModelOpt) instead.",
  },
  {
    id: 'sglang-health-check',
    tier: 'error',
    class: 'unknown',
    re: /Health check failed\. Server couldn't get a response from detokenizer/,
    hint: () => "SGLang's scheduler stopped answering its health check (crashed or hung); an earlier error in the log, or an overloaded GPU, is the cause.",
  },
  {
    id: 'bench-misconfigured',
    tier: 'error',
    class: 'unknown',
    re: /Initial test run failed - Please make sure benchmark arguments are correctly specified|All requests failed\. This is likely due to a misconfiguration|Warmup failed - Please make sure benchmark arguments are correctly specified/,
    hint: () => 'This is the benchmark client failing, not the server: check its --model / --served-model-name, --endpoint and --backend against the running server.',
  },
  {
    id: 'argparse-bad-value',
    tier: 'error',
    class: 'unknown',
    re: /error: argument (\S+?)(?:\/\S+)?: (invalid .+|expected .+)$/,
    hint: (ctx) => `The engine's command line rejected the value of ${ctx.found.match[1]}: ${ctx.found.match[2]}. Fix that value.`,
  },
  {
    id: 'click-bad-value',
    tier: 'error',
    class: 'unknown',
    re: /Error: Invalid value for '([^']+)'/,
    hint: (ctx) => `trtllm-serve rejected the value of ${ctx.found.match[1]}: fix that value (see trtllm-serve --help).`,
  },
  {
    // CUDA's own error strings (cudaGetErrorString), raised by PyTorch as RuntimeError mid-run.
    id: 'cuda-fault',
    tier: 'error',
    class: 'unknown',
    re: /CUDA error: (an illegal memory access was encountered|an illegal instruction was encountered|device-side assert triggered|unspecified launch failure)/,
    hint: (ctx) =>
      `A GPU kernel failed while serving (${ctx.found.match[1]}). This is an engine or driver fault, not a config the engine refused: try the engine's previous or next pinned version, turn off the newest feature in this config (speculative decoding, FP8 KV cache, CUDA graphs), and check nvidia-smi for Xid errors.`,
  },
  {
    id: 'native-crash',
    tier: 'error',
    class: 'unknown',
    re: /Segmentation fault|core dumped|Fatal Python error/,
    hint: () => 'The server process crashed in native code. Check that the driver, CUDA and the engine version fit together; the lines just before the crash say what it was running.',
  },
  {
    id: 'exception',
    tier: 'generic',
    class: 'unknown',
    re: /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)(?::\s|$)/,
    hint: (ctx) => `The server failed with ${(/^[\w.]+/.exec(ctx.found.line.text) ?? [''])[0]}, which Servelab does not recognise; this line and the traceback above it say why.`,
  },
];

function portHint(ctx: Context, port: string | undefined): string {
  const flag = engineFlags(ctx.engine)?.port ?? '--port';
  if (port) return `Port ${port} is already taken on the box: stop what holds it (ss -ltnp 'sport = :${port}' shows the process) or launch with another ${flag}.`;
  return `The server's port is already taken on the box: stop what holds it (ss -ltnp shows the process) or launch with another ${flag}.`;
}

function ncclHint(): string {
  return 'NCCL could not set up shared memory between the GPU processes. In docker, run with --ipc=host or a larger --shm-size (the default 64 MB is too small for tensor parallelism); as a workaround set NCCL_SHM_DISABLE=1, and NCCL_DEBUG=INFO shows more detail.';
}

function repoOf(ctx: Context): string | undefined {
  const url = nearby(ctx, /https:\/\/huggingface\.co\/(?:api\/models\/)?([\w.-]+\/[\w.-]+?)(?:\/(?:resolve|revision|tree)\/|\.?\s|\.?$)/, 8);
  if (url) return url[1];
  const named = nearby(ctx, /Access to model (\S+?) is restricted/, 8);
  return named?.[1];
}

// ---------------------------------------------------------------------------------------------------------------
// Readiness and the engine.

// The ready lines are the adapters' own (`readiness.readyLogPatterns`, what a launch waits for). vLLM's and
// TensorRT-LLM's is uvicorn's "Application startup complete.", which SGLang also prints, but before its warm-up.
function printsReadyLine(engine: EngineId, text: string): boolean {
  return getAdapter(engine).readiness.readyLogPatterns.some((pattern) => pattern.test(text));
}

function uvicornStarted(text: string): boolean {
  return printsReadyLine('vllm', text) || printsReadyLine('trtllm', text);
}

const ENGINE_MARKERS: Record<EngineId, RegExp> = {
  vllm: /vLLM API server version|\((?:EngineCore_DP\d+|APIServer|VllmWorker)[^)]*\)|vllm\/(?:v1|entrypoints|engine)\/|\bvllm serve\b/,
  sglang: /The server is fired up|sglang\/srt\/|sglang\.launch_server|^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} TP\d+\]/,
  trtllm: /\[TRT-LLM\]|\[TensorRT-LLM\]|tensorrt_llm\/|trtllm-serve/,
};

/** The engine whose markers appear on the most lines of the raw log, if one clearly does. */
export function detectEngine(text: string): EngineId | undefined {
  const counts: Record<EngineId, number> = { vllm: 0, sglang: 0, trtllm: 0 };
  for (const line of text.split(/\r?\n/)) {
    const bare = line.replace(ANSI, '');
    for (const engine of Object.keys(ENGINE_MARKERS) as EngineId[]) if (ENGINE_MARKERS[engine].test(bare)) counts[engine]++;
  }
  const ranked = (Object.entries(counts) as [EngineId, number][]).sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked;
  if (!first || first[1] === 0 || (second && second[1] === first[1])) return undefined;
  return first[0];
}

function isReadyLine(text: string, engine: EngineId | undefined): boolean {
  if (printsReadyLine('sglang', text)) return true;
  // SGLang prints "Application startup complete." before its warm-up, so only vLLM and TensorRT-LLM are ready then.
  return engine !== 'sglang' && uvicornStarted(text);
}

// Lines that show a server still answering: uvicorn's access log and vLLM's periodic throughput line.
const SERVING = /"(?:GET|POST|PUT|DELETE) \/[^"]* HTTP\/[\d.]+" \d{3}|Avg prompt throughput:/;
// uvicorn's shutdown lines: exceptions after them (task cancellation, interrupted workers) are the stop, not a cause.
const SHUTDOWN = /Shutting down|Waiting for application shutdown|Application shutdown complete|Finished server process/;

// ---------------------------------------------------------------------------------------------------------------

const MAX_EVIDENCE = 400;

function evidenceOf(text: string): string {
  const t = text.trim();
  return t.length > MAX_EVIDENCE ? `${t.slice(0, MAX_EVIDENCE - 1)}…` : t;
}

export function classifyLog(text: string, options: ClassifyOptions = {}): LogVerdict {
  const engine = options.engine ?? detectEngine(text);
  const withEngine = (v: LogVerdict): LogVerdict => (engine ? { ...v, engine } : v);
  const lines = cleanLog(text);
  if (lines.length === 0) {
    return withEngine({ class: 'unknown', evidence: '', hint: 'The log is empty: paste the whole server output, from the launch command on.', line: null });
  }

  const found: Found[] = [];
  let lastReady = -1;
  let lastServing = -1;
  const shutdowns: number[] = [];
  lines.forEach((line, at) => {
    if (line.frame) return;
    if (isReadyLine(line.text, engine)) lastReady = at;
    if (SERVING.test(line.text)) lastServing = at;
    if (SHUTDOWN.test(line.text)) shutdowns.push(at);
    for (const sig of SIGNATURES) {
      if (sig.ignoreLevels && line.level && sig.ignoreLevels.includes(line.level)) continue;
      const match = sig.re.exec(line.text);
      if (match) {
        found.push({ sig, line, at, match });
        break;
      }
    }
  });

  // A failure before the last ready line did not stop the server; one after it did (unless it kept serving after a
  // generic exception, which is then a request's error, not the server's).
  const shutdown = shutdowns.find((at) => at > lastReady) ?? Infinity;
  const relevant = found.filter(
    (f) =>
      f.at > lastReady &&
      (f.sig.tier === 'cause' || f.at < shutdown) &&
      !(lastReady >= 0 && f.sig.tier === 'generic' && lastServing > f.at),
  );
  const pick = (tier: Tier) => relevant.find((f) => f.sig.tier === tier);
  const chosen = pick('cause') ?? pick('error') ?? pick('generic') ?? pick('wrapper');

  if (chosen) {
    const ctx: Context = { lines, found: chosen, ...(engine ? { engine } : {}) };
    return withEngine({ class: chosen.sig.class, evidence: evidenceOf(chosen.line.text), hint: chosen.sig.hint(ctx), line: chosen.line.index + 1 });
  }

  if (lastReady >= 0) {
    const ready = lines[lastReady] as CleanLine;
    return withEngine({
      class: 'ready',
      evidence: evidenceOf(ready.text),
      hint: 'The server started and is ready; nothing to change.',
      line: ready.index + 1,
    });
  }

  const last = lines[lines.length - 1] as CleanLine;
  const warm =
    engine === 'sglang' && lines.some((l) => uvicornStarted(l.text))
      ? ' SGLang has started its HTTP server but not finished warm-up ("The server is fired up and ready to roll!" is missing).'
      : '';
  return withEngine({
    class: 'unknown',
    evidence: evidenceOf(last.text),
    hint: `No failure and no ready line: the server was still starting when the log ends, or the log is cut short.${warm} Wait for the ready line, or paste the rest of the log.`,
    line: last.index + 1,
  });
}
