import type { CleanLine } from './log-lines';
import type { EngineId, LogClass } from './types';

/**
 * The failures a server log can show, each with the words the engines (or Python, CUDA, NCCL, Hugging Face and the
 * CLI parsers) really print and where those words come from, and what to change. The wordings were read from the
 * engines' source and checked against the real logs of tests/fixtures/engine-log-corpus.
 */

export type Tier =
  /** A cause the user can act on: the verdict's class. */
  | 'cause'
  /** A failure that names no cause and says the cause is elsewhere in the log. */
  | 'wrapper'
  /** A failure without a class of its own, but a definite one (a CUDA fault, a crash). */
  | 'error'
  /** Any exception or fatal log line: the server failed, for a reason the line may not say. */
  | 'generic';

export interface SignatureContext {
  engine?: EngineId;
  lines: readonly CleanLine[];
  /** Position of the matched line in `lines`. */
  at: number;
  match: RegExpExecArray;
  /** The server had been ready before this line. */
  afterReady?: boolean;
}

export interface Signature {
  id: string;
  tier: Tier;
  class: LogClass;
  re: RegExp;
  /** Lines at these logger levels are not failures (e.g. a WARNING that an optional module is missing). */
  ignoreLevels?: readonly string[];
  /** A general wording (an HTTP 401) that a more specific line of the same class just after it explains better. */
  weak?: boolean;
  hint(ctx: SignatureContext): string;
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

export const ENGINE_NAMES: Record<EngineId, string> = { vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' };
const ENGINE_PACKAGES: Record<string, EngineId> = { vllm: 'vllm', sglang: 'sglang', tensorrt_llm: 'trtllm' };

const QUIET = ['DEBUG', 'INFO'] as const;
const QUIET_OR_WARNING = ['DEBUG', 'INFO', 'WARNING'] as const;

function each(pick: (f: (typeof HINT_FLAGS)[EngineId]) => string): string {
  return (Object.keys(HINT_FLAGS) as EngineId[]).map((e) => `${ENGINE_NAMES[e]} ${pick(HINT_FLAGS[e])}`).join(', ');
}

/** Looks for `re` on the matched line and the few after it (long messages are often wrapped or continued). */
function nearby(ctx: SignatureContext, re: RegExp, span = 4): RegExpExecArray | undefined {
  for (let i = ctx.at; i < Math.min(ctx.lines.length, ctx.at + span + 1); i++) {
    const m = re.exec((ctx.lines[i] as CleanLine).text);
    if (m) return m;
  }
  return undefined;
}

function oomHint(ctx: SignatureContext): string {
  const tried = /Tried to allocate ([\d.]+ [KMGT]i?B)/.exec((ctx.lines[ctx.at] as CleanLine).text);
  const what = tried ? `The GPU ran out of memory (it tried to allocate ${tried[1]}).` : 'The GPU ran out of memory.';
  const f = ctx.engine ? HINT_FLAGS[ctx.engine] : undefined;
  if (ctx.engine === 'vllm' && f) return `${what} Lower ${f.memory} to leave room outside vLLM's reservation, or the load: ${f.running}, ${f.maxLen}; if the weights do not fit one GPU, raise ${f.tp}.`;
  if (ctx.engine === 'sglang' && f) return `${what} Lower ${f.memory} (SGLang's advice for out-of-memory errors), or ${f.cudaGraph} / ${f.running}; if the weights do not fit one GPU, raise ${f.tp}.`;
  if (ctx.engine === 'trtllm' && f) return `${what} Lower ${f.memory}, ${f.running} or ${f.batchTokens}; if the weights do not fit one GPU, raise ${f.tp}.`;
  return `${what} Lower the engine's memory fraction (${each((x) => x.memory)}) or its batch limits, or use more GPUs.`;
}

function kvHint(ctx: SignatureContext): string {
  const f = ctx.engine ? HINT_FLAGS[ctx.engine] : undefined;
  if (!f) return `The KV cache is too small for what is asked: lower the maximum length or raise the memory fraction (${each((x) => `${x.maxLen} / ${x.memory}`)}), or use more GPUs.`;
  return `The KV cache cannot hold what is asked: lower ${f.maxLen} or ${f.running}, or raise ${f.memory}; more GPUs (${f.tp}) or an FP8 KV cache also make room.`;
}

function floor2(x: number): string {
  return (Math.floor(x * 100) / 100).toFixed(2);
}

function portHint(ctx: SignatureContext, port: string | undefined): string {
  const flag = ctx.engine ? HINT_FLAGS[ctx.engine].port : '--port';
  if (port) return `Port ${port} is already taken on the box: stop what holds it (ss -ltnp 'sport = :${port}' shows the process) or launch with another ${flag}.`;
  return `A port the server needs is already taken on the box: stop what holds it (ss -ltnp shows the process) or launch with another ${flag}; a previous server that did not exit is the usual holder.`;
}

function ncclHint(ctx: SignatureContext): string {
  const text = (ctx.lines[ctx.at] as CleanLine).text;
  if (/shared memory|posix_fallocate|\/dev\/shm/i.test(text)) {
    return 'NCCL could not set up shared memory between the GPU processes. In docker, run with --ipc=host or a larger --shm-size (the default 64 MB is too small for tensor parallelism); as a workaround set NCCL_SHM_DISABLE=1.';
  }
  if (/socket|Connect to|connection|No route to host|timed? ?out|Watchdog/i.test(text)) {
    return 'NCCL could not reach the other GPU processes over the network: check that every node can reach the others on the interface NCCL picked (NCCL_SOCKET_IFNAME), that no firewall blocks it, and that all ranks started; NCCL_DEBUG=INFO shows the details.';
  }
  if (/peer access|P2P/i.test(text)) {
    return 'The GPUs cannot reach each other directly (peer access): set NCCL_P2P_DISABLE=1, or use GPUs on one NVLink/PCIe switch (nvidia-smi topo -m shows the topology).';
  }
  return 'NCCL failed between the GPU processes. Run with NCCL_DEBUG=INFO to see why; in docker use --ipc=host; on PCIe boxes NCCL_P2P_DISABLE=1 often helps; check that the driver and the NCCL the engine ships fit together.';
}

function repoOf(ctx: SignatureContext): string | undefined {
  const url = nearby(ctx, /https:\/\/huggingface\.co\/(?:api\/models\/)?([\w.-]+\/[\w.-]+?)(?:\/(?:resolve|revision|tree)\/|\.?\s|\.?$)/, 8);
  if (url) return url[1];
  const named = nearby(ctx, /(?:Access to model|repository for|specified: ') ?([\w.-]+\/[\w.-]+?)'?(?: is restricted| contains|\.|'|$)/, 8);
  return named?.[1];
}

function gatedHint(ctx: SignatureContext): string {
  const repo = repoOf(ctx);
  if (nearby(ctx, /not in the authorized list/, 6)) {
    return `${repo ? `${repo} is a gated model` : 'The model is gated'} and this token's account is not in its authorized list: request access on ${repo ? `https://huggingface.co/${repo}` : 'the model page'}, then retry.`;
  }
  const where = repo ? `${repo} is a gated model` : 'The model is gated';
  return `${where}: accept its terms on ${repo ? `https://huggingface.co/${repo}` : 'the model page'} with your account and give the server an HF_TOKEN (as a secret) with access to it.`;
}

function missingHint(module: string): string {
  const engine = ENGINE_PACKAGES[module.split('.')[0] as string];
  if (engine) return `${ENGINE_NAMES[engine]} is not installed (or broken) in the Python environment that ran the server: install it there (Servelab installs each engine version in its own environment) and launch from that environment.`;
  return `The Python module ${module} is missing from the engine's environment: install it there (pip install ${module.split('.')[0]}) or reinstall the engine in a fresh environment so its pinned dependencies apply.`;
}

// The order matters: on one line the first signature that matches wins, so specific ones come first.
export const SIGNATURES: readonly Signature[] = [
  // --- KV cache too small (vLLM vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory; older
  // vllm/worker/worker.py raise_if_cache_size_invalid and vllm/executor/gpu_executor.py; SGLang
  // python/sglang/srt/model_executor/model_runner.py and managers/scheduler.py; TensorRT-LLM
  // cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp)
  {
    id: 'vllm-max-model-len',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /To serve at least one request with the models?'s max seq len \((\d+)\)|The model's max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache/,
    hint(ctx) {
      const f = HINT_FLAGS.vllm;
      const wanted = ctx.match[1] ?? ctx.match[2];
      const estimate = nearby(ctx, /estimated maximum model length is (\d+)|stored in KV cache \((\d+)\)/);
      if (estimate) {
        return `The KV cache cannot hold one ${wanted}-token request. Lower ${f.maxLen} to ${estimate[1] ?? estimate[2]} (vLLM's estimate for this GPU), or keep ${wanted} with a higher ${f.memory}, more GPUs (${f.tp}) or an fp8 --kv-cache-dtype.`;
      }
      return `The KV cache cannot hold one ${wanted}-token request. Lower ${f.maxLen} (the log ends before vLLM's estimate of what fits), or raise ${f.memory}.`;
    },
  },
  {
    id: 'vllm-no-cache-blocks',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /No available memory for the cache blocks|# GPU blocks: 0\b|num_gpu_blocks is: 0\b|GPU KV cache size: 0 tokens|Insufficient memory for the KV cache|KV cache is needed, which is larger than the available KV cache memory/,
    hint: () => {
      const f = HINT_FLAGS.vllm;
      return `The weights and activations leave no GPU memory for the KV cache. Raise ${f.memory}, lower ${f.maxLen}, spread the model over more GPUs (${f.tp}), or serve a smaller or quantized checkpoint.`;
    },
  },
  {
    id: 'sglang-kv-pool',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /Not enough memory\. Please try to increase --mem-fraction-static|Decode out of memory happened|(?:Prefill|Decode) out of memory\. Try to lower your batch size|RuntimeError: Decode out of memory|No space left for only one request|max_total_num_tokens=\d+ is smaller than|The input \(\d+ tokens\) is longer than the KV cache/,
    hint: kvHint,
  },
  {
    id: 'trtllm-kv-tokens',
    tier: 'cause',
    class: 'kv-cache-too-small',
    re: /maxTokensInPagedKvCache|Assertion failed: maxTo(?:kens)?$|max(?:_| )?tokens in paged KV cache .*(?:smaller|less) than|Not enough (?:GPU )?memory (?:to allocate|for) (?:the )?KV cache/i,
    ignoreLevels: QUIET,
    hint: kvHint,
  },
  // --- GPU memory (PyTorch's allocator; vLLM vllm/v1/worker/gpu_worker.py; TensorRT-LLM
  // tensorrt_llm/_torch/pyexecutor/py_executor_creator.py and cpp/tensorrt_llm/runtime/tllmBuffers.h)
  {
    id: 'vllm-free-memory',
    tier: 'cause',
    class: 'oom',
    re: /Free memory on device(?: \S+)? \((?:([\d.]+)\/([\d.]+) GiB\))?/,
    hint(ctx) {
      const f = HINT_FLAGS.vllm;
      const [, free, total] = ctx.match;
      const want = /desired GPU memory utilization \(([\d.]+)/.exec((ctx.lines[ctx.at] as CleanLine).text);
      if (free && total) {
        const fits = floor2(Number(free) / Number(total));
        return `Only ${free} of ${total} GiB was free when vLLM started${want ? `, less than ${f.memory} ${want[1]} asks for` : ''}: another process holds GPU memory. Free the GPU (nvidia-smi shows the process) or lower ${f.memory} to at most ${fits}.`;
      }
      return `Less GPU memory was free than ${f.memory} asks for: another process holds GPU memory. Free the GPU (nvidia-smi shows the process) or lower ${f.memory}.`;
    },
  },
  {
    id: 'cuda-oom',
    tier: 'cause',
    class: 'oom',
    // PyTorch's allocator, the CUDA runtime and driver, cuBLAS: the GPU had no memory left for an allocation.
    re: /CUDA out of memory|OutOfMemoryError|CUDA (?:driver )?error: out of memory|Cuda failure '?out of memory|cudaErrorMemoryAllocation|CUBLAS_STATUS_ALLOC_FAILED|\b(?:CUDA|GPU|device)\b[^\n]*\bout of memory\b/,
    ignoreLevels: QUIET,
    hint: oomHint,
  },
  {
    id: 'trtllm-oom',
    tier: 'cause',
    class: 'oom',
    re: /Executor creation failed due to insufficient GPU memory|Error Code 2: OutOfMemory|\bout of memory \([^)]*(?:tllmBuffers|cudaMemPool|bufferManager)[^)]*\)|cudaMallocAsync[^\n]*out of memory|Requested memory size is larger than the available/,
    hint: oomHint,
  },
  // --- FP8 on a GPU architecture without it (TensorRT-LLM cpp/tensorrt_llm/thop/fp8BlockScalingGemm.cpp and
  // kernels; vLLM vllm/config/__init__.py capability check and csrc/quantization/cutlass_w8a8/scaled_mm_entry.cu
  // "No compiled cutlass_scaled_mm for …"; PyTorch's _scaled_mm capability check; Triton's fp8e4nv check in
  // triton/language/semantic.py)
  {
    id: 'trtllm-fp8-block-gemm',
    tier: 'cause',
    class: 'unsupported-sm-fp8',
    re: /Unsupported SM version for FP8 block scaling GEMM|Unsupported SM version for fp8|fp8 blockscale gemm only support Hopper|FP8 (?:block scal\w+ )?(?:GEMM|MoE)[^\n]*(?:only|not) support(?:ed)? (?:on )?(?:Hopper|SM ?\d+|this (?:GPU|architecture))/i,
    hint: () =>
      "This GPU's architecture has no FP8 block-scaled GEMM (A100 is sm80; TensorRT-LLM needs sm89/sm90). Retrying fails the same way: serve a BF16 or non-FP8 checkpoint, serve this FP8 checkpoint with an engine that has a fallback for the GPU, or use an sm89+ GPU.",
  },
  {
    id: 'fp8-capability',
    tier: 'cause',
    class: 'unsupported-sm-fp8',
    re: /quantization method [\w-]*fp8[\w-]* is not supported for the current GPU|_scaled_mm (?:is )?only supported on (?:CUDA )?devices with compute capability|No compiled cutlass_scaled_mm for (?:a compute capability less than|CUDA device capability)|not implemented for 'Float8_e4m3fn(?:uz)?'|fp8_blockwise_scaled_mm[^\n]*(?:sm_?90|Hopper|not supported)|FP8 (?:quantization|KV cache|kernels?|GEMMs?) (?:is |are )?(?:only )?supported on|(?:Float8|FP8|fp8e4m3fn)[^\n]*requires? (?:a GPU with )?(?:compute capability|SM) ?(?:>=? ?)?(?:8\.9|89|9\.0|90)|fp8e4nv (?:data type )?(?:is )?not supported|type fp8e4nv not supported in this architecture|FP8 (?:is )?(?:only )?supported (?:only )?on (?:GPUs with )?(?:compute capability|SM) ?(?:>=? ?)?(?:8\.9|89|9\.0|90)/i,
    hint: () =>
      "This GPU's compute capability is below what FP8 needs (sm89/sm90; an A100 is sm80, an RTX 30xx sm86). Serve a BF16/FP16 or an INT8/INT4 (AWQ, GPTQ) checkpoint instead, or use an sm89+ GPU (L4, L40S, H100).",
  },
  {
    // Any other way a kernel says FP8 needs a newer GPU: an FP8 word, an architecture word and a refusal on one line.
    id: 'fp8-arch-generic',
    tier: 'cause',
    class: 'unsupported-sm-fp8',
    re: /^(?=.*(?:fp8|float8|e4m3|e5m2))(?=.*(?:capabilit|\bSM ?\d{2,3}\b|\bsm_?\d{2,3}\b|\barch\b|architecture|Hopper|\bAda\b))(?=.*(?:not supported|unsupported|only supports?|requires?|[Mm]inimum|not compiled))/i,
    ignoreLevels: QUIET_OR_WARNING,
    hint: () =>
      "This GPU's compute capability is below what FP8 needs (sm89/sm90; an A100 is sm80, an RTX 30xx sm86). Serve a BF16/FP16 or an INT8/INT4 (AWQ, GPTQ) checkpoint instead, or use an sm89+ GPU (L4, L40S, H100).",
  },
  // --- Port in use (vLLM socket.bind; SGLang/uvicorn; TensorRT-LLM commands/serve.py; torch's TCPStore; ZeroMQ)
  {
    id: 'uvicorn-bind',
    tier: 'cause',
    class: 'port-in-use',
    re: /\[Errno (?:98|48)\] error while attempting to bind on address \('([^']*)', (\d+)\)/,
    hint: (ctx) => portHint(ctx, ctx.match[2]),
  },
  {
    id: 'trtllm-bind',
    tier: 'cause',
    class: 'port-in-use',
    re: /Failed to bind socket to (\S+?):(\d+): \[Errno 98\]/,
    hint: (ctx) => portHint(ctx, ctx.match[2]),
  },
  {
    id: 'errno-addrinuse',
    tier: 'cause',
    class: 'port-in-use',
    re: /\[Errno (?:98|48)\]|Address already in use|EADDRINUSE|address already in use/i,
    ignoreLevels: QUIET,
    hint: (ctx) => portHint(ctx, /port[ =:](\d{2,5})\b|:(\d{4,5})\b/.exec((ctx.lines[ctx.at] as CleanLine).text)?.slice(1).find(Boolean)),
  },
  // --- Hugging Face refused the model (huggingface_hub errors; transformers' OSError in utils/hub.py cached_file;
  // vLLM vllm/transformers_utils/config.py "Invalid repository ID or local directory")
  {
    id: 'hf-gated',
    tier: 'cause',
    class: 'gated-model',
    re: /GatedRepoError|Cannot access gated repo|You are trying to access a gated repo|Access to model \S+ is restricted|is restricted and you are not in the authorized list|Please log in to access it|You must have access to it and be authenticated|Please enable access to public gated repositories|Make sure to have access to it at https:\/\/huggingface\.co|Invalid credentials in Authorization header|Invalid user token/,
    hint: gatedHint,
  },
  {
    // requests' own error for the same refusal, printed first in huggingface_hub's chained traceback.
    id: 'hf-http-refused',
    tier: 'cause',
    class: 'gated-model',
    weak: true,
    // (Rust HTTP clients, as dynamo's hub downloader, word it "HTTP status client error (401 Unauthorized) for url (https://huggingface.co/…".)
    re: /40[13] Client Error[^\n]*huggingface\.co|HfHubHTTPError: 40[13]|40[13] Forbidden: [^\n]*(?:gated|huggingface)|\(40[13] (?:Unauthorized|Forbidden)\)[^\n]*huggingface\.co/,
    hint: gatedHint,
  },
  {
    id: 'hf-not-found',
    tier: 'cause',
    class: 'gated-model',
    re: /RepositoryNotFoundError|Repository Not Found for url|is not a local folder and is not a valid model identifier|Invalid repository ID or local directory specified|We couldn't connect to 'https:\/\/huggingface\.co' to load/,
    hint(ctx) {
      const repo = repoOf(ctx);
      return `Hugging Face shows no repo ${repo ?? 'with that id'} to this request. Check the model id for typos (a local path must exist on the box); a private or gated repo without a token also reads "Repository Not Found", so set HF_TOKEN (as a secret) if it is one.`;
    },
  },
  // --- CLI parsers: argparse (CPython Lib/argparse.py parse_args / _parse_optional / _check_value) and click
  // (click/exceptions.py NoSuchOption, BadParameter)
  {
    id: 'argparse-unrecognized',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: unrecognized arguments: ?(.*)$/,
    hint: (ctx) => {
      const name = ctx.engine ? ENGINE_NAMES[ctx.engine] : 'The engine';
      return `${name}${ctx.engine ? ' at this version' : ''} does not know ${ctx.match[1] || 'an argument on its command line'}: remove it or fix its spelling (Servelab checks extra arguments against the engine version's flags before launch).`;
    },
  },
  {
    id: 'argparse-ambiguous',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: ambiguous option: (\S+) could match (.+)$/,
    hint: (ctx) => `${ctx.match[1]} is an abbreviation of several flags (${ctx.match[2]}): write the full flag name.`,
  },
  {
    id: 'argparse-bad-value',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: argument (\S+?)(?:\/\S+)?: (invalid .+|expected .+)$/,
    hint: (ctx) => `The engine's command line refused the value of ${ctx.match[1]}: ${ctx.match[2]}. Fix that value (its choices are the engine version's).`,
  },
  {
    // vllm/entrypoints/cli/serve.py: the model goes positionally (or in --config), not as --model.
    id: 'vllm-model-option',
    tier: 'cause',
    class: 'unknown-flag',
    re: /you should provide the model as a positional argument or in a config file instead of via the `--model` option/,
    hint: () => 'vllm serve takes the model as its first argument: write `vllm serve MODEL`, not `--model MODEL`.',
  },
  {
    id: 'click-extra-argument',
    tier: 'cause',
    class: 'unknown-flag',
    re: /Error: Got unexpected extra arguments? \(([^)]*)\)/,
    hint: (ctx) => `trtllm-serve takes one positional argument (the model); ${ctx.match[1]} is extra: remove it or make it a flag's value.`,
  },
  {
    id: 'argparse-required',
    tier: 'cause',
    class: 'unknown-flag',
    re: /error: the following arguments are required: (.+)$/,
    hint: (ctx) => `The engine's command line needs ${ctx.match[1]}: add it.`,
  },
  {
    // Any other refusal of argparse's: `prog: error: message` (Lib/argparse.py ArgumentParser.error).
    id: 'argparse-error',
    tier: 'cause',
    class: 'unknown-flag',
    re: /^(?:[\w.-]+(?: [\w-]+)?): error: (?!$)(.+)$/,
    hint: (ctx) => `The engine's command line refused the command: ${ctx.match[1]}. Fix the flag or value it names.`,
  },
  {
    id: 'click-no-such-option',
    tier: 'cause',
    class: 'unknown-flag',
    re: /No such option:? '?(-[^\s'.]+)'?\.?(?:\s+(?:Did you mean (\S+?)\?|\(Possible options: ([^)]+)\)))?/,
    hint(ctx) {
      const [, flag = '', suggestion, options] = ctx.match;
      if (suggestion) return `${flag} does not exist: use ${suggestion}.`;
      if (options) return `${flag} does not exist; close options are ${options}.`;
      if (ctx.engine === 'trtllm' || (!ctx.engine && flag.slice(2).includes('-'))) {
        return `${flag} does not exist${flag.slice(2).includes('-') ? `: trtllm-serve writes flags with underscores (--${flag.slice(2).replace(/-/g, '_')})` : ''}; see trtllm-serve --help.`;
      }
      return `${flag} does not exist: remove it or fix its spelling.`;
    },
  },
  {
    id: 'click-bad-value',
    tier: 'cause',
    class: 'unknown-flag',
    re: /Error: Invalid value for '([^']+)'/,
    hint: (ctx) => `trtllm-serve refused the value of ${ctx.match[1]}: fix that value (see trtllm-serve --help).`,
  },
  // --- Something to install is missing (CPython importlib, the dynamic loader, Windows' loader, the shell)
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
      const lib = ctx.match[1] as string;
      if (/^libmpi/.test(lib)) return `${lib} is missing: TensorRT-LLM needs MPI, install it with sudo apt-get -y install libopenmpi-dev.`;
      if (/^libcuda\.so/.test(lib)) return `${lib} is missing: the NVIDIA driver is not visible to the server (in docker, run with --gpus all and the NVIDIA container toolkit).`;
      if (/^libcu(?:dart|blas|dnn)/.test(lib)) return `${lib} is missing: the CUDA runtime the engine was built for is not installed where it runs; install the engine's CUDA build that matches the box, or its CUDA libraries.`;
      if (/^libpython/.test(lib)) return `${lib} is missing: the engine was built for a Python with a shared library; install that Python's libpython (e.g. libpython3-dev) or use the engine's own Python.`;
      return `The shared library ${lib} is missing: install the system package that provides it, or reinstall the engine in a clean environment.`;
    },
  },
  {
    id: 'undefined-symbol',
    tier: 'cause',
    class: 'missing-module',
    re: /ImportError: \S+\.so[^:]*: undefined symbol|DLL load failed while importing (\w+)/,
    ignoreLevels: QUIET_OR_WARNING,
    hint: () => 'A compiled extension does not fit the installed torch/CUDA (an undefined symbol or a DLL that does not load): reinstall the engine in a fresh environment so the versions it was built against are installed together.',
  },
  {
    id: 'no-module',
    tier: 'cause',
    class: 'missing-module',
    // Not SGLang's model registry skipping an optional model ("Ignore import error when loading …", models/registry.py).
    re: /^(?!.*Ignore import error when loading)(?:.*?)(?:ModuleNotFoundError: |(?:^|\s)(?:\S*python[\d.]*: )?(?:Error while finding module specification for '[^']+' \(ModuleNotFoundError: )?)No module named '?([\w.]+)'?/,
    ignoreLevels: QUIET_OR_WARNING,
    hint: (ctx) => missingHint(ctx.match[1] as string),
  },
  {
    id: 'import-name',
    tier: 'cause',
    class: 'missing-module',
    re: /ImportError: cannot import name '([^']+)'(?: from '([^']+)')?/,
    ignoreLevels: QUIET_OR_WARNING,
    hint: (ctx) => `${ctx.match[2] ?? 'A dependency'} has no ${ctx.match[1]}: a dependency has the wrong version. Reinstall the engine in a fresh environment so its pinned versions apply.`,
  },
  {
    id: 'not-installed',
    tier: 'cause',
    class: 'missing-module',
    re: /ImportError: (\S+) is not installed\. Please install it|(?:requires|needs) the (\S+) (?:package|library)(?:, which| but it) (?:is not|was not found)/,
    ignoreLevels: QUIET_OR_WARNING,
    hint: (ctx) => missingHint((ctx.match[1] ?? ctx.match[2]) as string),
  },
  {
    id: 'command-not-found',
    tier: 'cause',
    class: 'missing-module',
    re: /(?:^|: )(vllm|trtllm-serve|trtllm-build|mpirun|python3?|sglang|tritonserver): (?:command )?not found/,
    hint: (ctx) => `${ctx.match[1]} is not on the PATH the server ran with: launch it from the engine's environment (its bin/) or install the engine.`,
  },
  // --- NCCL (NVIDIA/nccl error strings; vLLM vllm/distributed/device_communicators/pynccl_wrapper.py NCCL_CHECK;
  // torch ProcessGroupNCCL; TensorRT-LLM cpp/tensorrt_llm/common/opUtils.h NCCLCHECK)
  {
    id: 'nccl-error',
    tier: 'cause',
    class: 'nccl',
    re: /NCCL error[:,]? |ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError|ncclInvalidUsage|DistBackendError: NCCL|Failed, NCCL error|NCCL communicator was aborted|ProcessGroupNCCL's watchdog got stuck|Watchdog caught collective operation timeout/,
    ignoreLevels: QUIET,
    hint: ncclHint,
  },
  {
    id: 'nccl-warn',
    tier: 'cause',
    class: 'nccl',
    // NCCL's own WARN lines that end the communicator's setup (shared memory, sockets, bootstrap).
    re: /NCCL WARN (?:Error while creating shared memory segment|Call to posix_fallocate failed|socket\w*Connect|Connect to \S+ failed|bootstrap|Net : Connect|Cuda failure|NET\/Socket : )|Error while attaching to shared memory segment/,
    hint: ncclHint,
  },
  {
    id: 'p2p',
    tier: 'cause',
    class: 'nccl',
    // Not the custom all-reduce's set-up check, which falls back to NCCL ("Setup Custom allreduce failed with CUDART
    // error …", SGLang's custom_all_reduce.py warns and goes on); its kernel failing later ("Failed: Cuda error
    // …custom_all_reduce.cuh") is fatal.
    re: /^(?!.*(?:Setup Custom allreduce failed|Custom allreduce is disabled)).*(?:peer access is not supported between these two devices|cudaErrorPeerAccessUnsupported)/,
    hint: ncclHint,
  },
  // --- Failures that point elsewhere for their cause
  {
    id: 'vllm-engine-core-failed',
    tier: 'wrapper',
    class: 'unknown',
    re: /Engine core initialization failed\. See root cause above|EngineCore failed to start|Worker failed with error|Exception in worker \S+ while processing method/,
    hint: () => "vLLM reports that its engine core failed to start; the cause is printed before this line, and this log does not hold a recognised one. Look at the first error above it (or paste the full log).",
  },
  {
    // vllm/v1/engine/exceptions.py: raised to requests once the engine core process has died.
    id: 'vllm-engine-dead',
    tier: 'wrapper',
    class: 'unknown',
    // vllm/v1/engine/exceptions.py EngineDeadError; older vllm/engine/multiprocessing MQEngineDeadError and
    // vllm/entrypoints/launcher.py "MQLLMEngine is already dead, terminating server process".
    re: /EngineDeadError|LLMEngine is already dead|Engine loop has died|Background loop has errored already|Task finished unexpectedly|Engine process failed to start/,
    hint: () => "vLLM's engine core died while serving; the cause is printed above this line (a CUDA fault, an assertion). Look at the first error before it.",
  },
  {
    id: 'sglang-warmup-failed',
    tier: 'wrapper',
    class: 'unknown',
    re: /Initialization failed\. warmup error:/,
    hint: () => "SGLang's warm-up request failed, so the server was stopped; the error after \"warmup error:\" and the lines before it say why.",
  },
  {
    id: 'sglang-scheduler',
    tier: 'wrapper',
    class: 'unknown',
    re: /Scheduler hit an exception|Rank \d+ scheduler is dead|Exception in ModelTpServer|Received sigquit from a child process|Child process unexpectedly failed/,
    hint: () => "SGLang's scheduler failed; the error that follows (or the traceback before it) says why, and this log does not hold a recognised cause.",
  },
  {
    id: 'trtllm-executor',
    tier: 'wrapper',
    class: 'unknown',
    re: /Failed to initialize executor on rank \d+|Executor creation failed|mpirun (?:noticed that process rank \d+|detected that one or more processes exited)|Primary job\s+terminated normally, but \d+ process returned/,
    hint: () => "TensorRT-LLM's executor (or one of its MPI ranks) failed; the cause is the error printed with it or before it.",
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
    id: 'unsupported-architecture',
    tier: 'error',
    class: 'unknown',
    re: /Model architectures? \[?'?[\w', ]*'?\]? (?:are|is) not supported|Unsupported (?:model )?architecture|has no vLLM implementation/,
    hint: () => "This engine version has no implementation of the model's architecture: use an engine or version that supports it (the model card lists them), or trust_remote_code only where the engine allows custom models.",
  },
  {
    id: 'quantization-capability',
    tier: 'error',
    class: 'unknown',
    re: /The quantization method (\S+) is not supported for the current GPU/,
    hint: (ctx) => `This GPU's compute capability is below what ${ctx.match[1]} quantization needs in this engine: serve an unquantized or differently quantized checkpoint, or use a newer GPU.`,
  },
  {
    id: 'sglang-memory-leak',
    tier: 'error',
    class: 'unknown',
    re: /(?:KV cache pool|token_to_kv_pool|req_to_token_pool) (?:memory )?leak detected/i,
    hint: () => "SGLang's scheduler found KV-cache memory it could not account for (an engine bug, often with radix cache or speculative decoding): try --disable-radix-cache, or another pinned version.",
  },
  {
    id: 'trust-remote-code',
    tier: 'error',
    class: 'unknown',
    re: /requires you to execute the configuration file in that repo|contains custom code which must be executed|set the option `?trust_remote_code=True`?/,
    hint: () => "The model's repository holds its own code, which runs only when allowed: turn on Trust remote code for this configuration (it runs the repository's Python on the box), or use a model the engine supports natively.",
  },
  {
    id: 'driver-too-old',
    tier: 'error',
    class: 'unknown',
    re: /The NVIDIA driver on your system is too old|CUDA driver version is insufficient for CUDA runtime version|cudaErrorInsufficientDriver|forward compatibility was attempted on non supported HW/,
    hint: () => "The box's NVIDIA driver is older than the CUDA this engine version was built for: upgrade the driver, or install an engine build for the box's CUDA (nvidia-smi shows the driver's CUDA version).",
  },
  {
    id: 'no-kernel-image',
    tier: 'error',
    class: 'unknown',
    re: /no kernel image is available for execution on the device|cudaErrorNoKernelImageForDevice|not compiled for (?:this|the current) (?:GPU|architecture)/,
    hint: () => "The engine's CUDA kernels were not built for this GPU's architecture: install a build that includes it (newer GPUs need a newer engine/torch; older ones may be dropped), or build the engine from source for this GPU.",
  },
  {
    id: 'disk-full',
    tier: 'error',
    class: 'unknown',
    re: /No space left on device|\[Errno 28\]/,
    hint: () => 'The box ran out of disk (model weights, the HF cache, compile caches): free space or point HF_HOME at a larger disk, then retry.',
  },
  {
    // CUDA's own error strings (cudaGetErrorString), raised by PyTorch as RuntimeError.
    id: 'cuda-fault',
    tier: 'error',
    class: 'unknown',
    re: /CUDA error: (an illegal memory access was encountered|an illegal instruction was encountered|device-side assert triggered|unspecified launch failure|operation not permitted when stream is capturing|misaligned address|invalid argument|invalid device ordinal)|cudaErrorIllegalAddress|CUDA runtime error in/,
    hint: (ctx) =>
      `A GPU kernel failed${ctx.afterReady ? ' while serving' : ''} (${ctx.match[1] ?? 'a CUDA runtime error'}). This is an engine or driver fault, not a config the engine refused: try the engine's previous or next pinned version, turn off the newest feature in this config (speculative decoding, FP8 KV cache, CUDA graphs), and check nvidia-smi for Xid errors.`,
  },
  {
    id: 'cuda-graph-capture',
    tier: 'error',
    class: 'unknown',
    re: /Capture cuda graph failed|cudaErrorStreamCaptureUnsupported|CUDA graph capture failed/,
    hint: (ctx) => `Capturing CUDA graphs failed: run without them once to see the underlying error (${ctx.engine === 'sglang' ? '--disable-cuda-graph' : ctx.engine === 'vllm' ? '--enforce-eager' : 'disable CUDA graphs'}), then lower the captured batch size (${ctx.engine ? HINT_FLAGS[ctx.engine].cudaGraph : 'the CUDA-graph batch size'}).`,
  },
  {
    id: 'native-crash',
    tier: 'error',
    class: 'unknown',
    re: /Segmentation fault|core dumped|Fatal Python error|exited on signal (?:9|11)|terminate called after throwing/,
    hint: () => 'The server process crashed in native code (or was killed). Check that the driver, CUDA and the engine version fit together, and the host memory (a killed process is often the kernel OOM killer); the lines just before the crash say what it was running.',
  },
  {
    id: 'bench-misconfigured',
    tier: 'error',
    class: 'unknown',
    re: /Initial test run failed - Please make sure benchmark arguments are correctly specified|All requests failed\. This is likely due to a misconfiguration|Warmup failed - Please make sure benchmark arguments are correctly specified/,
    hint: () => 'This is the benchmark client failing, not the server: check its --model / --served-model-name, --endpoint and --backend against the running server.',
  },
  {
    id: 'health-check',
    tier: 'error',
    class: 'unknown',
    re: /Health check failed\. Server couldn't get a response from detokenizer/,
    hint: () => "SGLang's scheduler stopped answering its health check (crashed or hung); an earlier error in the log, or an overloaded GPU, is the cause.",
  },
  {
    id: 'cpp-assertion',
    tier: 'generic',
    class: 'unknown',
    re: /\[TensorRT-LLM\]\[ERROR\]|what\(\): |Assertion failed|UNAVAILABLE: Internal/,
    hint: () => 'TensorRT-LLM failed with the error on this line, which Servelab does not recognise; the lines around it say what it was doing.',
  },
  {
    id: 'exception',
    tier: 'generic',
    class: 'unknown',
    re: /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)(?::\s|$)|^Traceback \(most recent call last\):|Failed to start model server/,
    hint: (ctx) => {
      const name = /^[\w.]+(?:Error|Exception)/.exec((ctx.lines[ctx.at] as CleanLine).text)?.[0];
      return name
        ? `The server failed with ${name}, which Servelab does not recognise; this line and the traceback above it say why.`
        : "The server failed: the log shows a traceback but not the error at its end (the paste stops before it). Paste the rest of the log to see the cause.";
    },
  },
];

/**
 * Signs that something failed without saying what: a traceback's frames (the paste starts inside it), an ERROR or
 * CRITICAL logger line, an argparse usage dump. They decide only when nothing more specific is in the log.
 */
export const FAILURE_HINTS = {
  frames: "The server failed: the log shows a traceback but not the error at its end (the paste stops before it, or starts after it). Paste the rest of the log to see the cause.",
  errorLine: 'The server logged an error and the log holds no recognised cause: the lines around it (or the rest of the log) say why.',
  stopped: 'The server shut down before it was ready, and the log holds no recognised cause: the lines before the shutdown say why.',
} as const;

/** Lines that say the engine's CLI printed its usage: an argparse refusal follows (or was cut off). */
export const USAGE_BANNER = /^usage: (?:vllm|api_server\.py|launch_server\.py|trtllm-serve|trtllm-build|python3? -m [\w.]+|[\w.-]+\.py) \[-h\]|^\s*(?:\[-{1,2}[\w-]+(?: [A-Z][A-Z0-9_]*| \{[^}]*\})?(?: \.\.\.)?\]\s*)+$/;
