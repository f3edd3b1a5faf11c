import { ANSI, cleanLog, type CleanLine } from './log-lines';
import { ENGINE_NAMES, FAILURE_HINTS, HINT_FLAGS, SIGNATURES, USAGE_BANNER, type Signature, type SignatureContext, type Tier } from './log-signatures';
import { readySignal } from './ready-lines';
import type { EngineId, LogVerdict } from './types';

/**
 * Reads a server log (as pasted by a user, or streamed from a launch) and says what happened: ready; still starting
 * (no failure yet, or the log is cut short); or the root cause of the failure, wherever it sits in the log, and what
 * to change. The rules were built on the development part of a corpus of real logs users pasted in public threads
 * (tests/fixtures/engine-log-corpus) and are measured on its held-out part; the wordings are in log-signatures.ts,
 * the signs of readiness in ready-lines.ts.
 */

export { cleanLog, cleanLogLine, type CleanLine } from './log-lines';
export { HINT_FLAGS } from './log-signatures';

export interface ClassifyOptions {
  engine?: EngineId;
  /** The server process has exited: a log with no failure in it is then not "still starting" but a death of unknown cause. */
  exited?: boolean;
}

const ENGINE_MARKERS: Record<EngineId, RegExp> = {
  vllm: /vLLM API server version|\((?:EngineCore(?:_DP?\d+)?|APIServer|VllmWorker(?:Process)?|Worker(?:_TP\d+)?|RayWorkerWrapper)[^)]*\)|vllm\/(?:v1|entrypoints|engine|model_executor|worker|executor|distributed)\/|\bvllm serve\b|vllm\.entrypoints|Initializing an? (?:V1 )?LLM engine|Avg prompt throughput/,
  sglang: /The server is fired up|sglang\/srt\/|^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: TP\d+[^\]]*)?\] |sglang\.launch_server|launch_server\.py|^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} TP\d+|\bTP\d+\] |sglang::scheduler|Decode batch[.,] #running-req|Prefill batch[.,] #new-seq/,
  trtllm: /\[TRT-LLM\]|\[TensorRT-LLM\]|tensorrt_llm\/|tensorrt_llm::|trtllm-serve|trtllm-build|tensorrtllm_backend|\btensorrt_llm\b/,
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

interface Found {
  latent?: boolean;
  weak?: boolean;
  sig: Signature;
  line: CleanLine;
  /** Position in the cleaned lines. */
  at: number;
  match: RegExpExecArray;
}

// uvicorn's and the engines' shutdown lines: exceptions after them (task cancellation, interrupted workers) are the
// stop, not a cause.
const SHUTDOWN = /Shutting down|Waiting for application shutdown|Application shutdown complete|Finished server process|Received (?:SIGTERM|SIGINT|signal)|KeyboardInterrupt/;
// A request's own failure while the server keeps running: uvicorn's ASGI error, FastAPI/Starlette handlers, the
// engines' per-request error logs (vllm/entrypoints/openai/serving_*.py, sglang tokenizer_manager, Triton's
// per-request error).
const REQUEST_SCOPED = /Exception in ASGI application|starlette|fastapi|serving_(?:chat|completion|engine|responses)\.py|create_(?:chat_)?completion|Error in (?:chat completion|completion) stream|Abort request|TritonModelException|Error when running inference|request id: |BadRequestError|HTTPException|Invalid request/;
// Said only by a server that stopped for good after it had been ready.
// (vllm/entrypoints/launcher.py: "AsyncLLMEngine is already dead, terminating server process", MQEngineDeadError.)
const FATAL_AFTER_READY = /EngineDeadError|LLMEngine is already dead|Engine loop has died|Background loop has errored|Engine core proc .* died|scheduler is dead|Received sigquit|Scheduler hit an exception|exited on signal|Segmentation fault|core dumped|Fatal Python error/;

const MAX_EVIDENCE = 400;

function evidenceOf(text: string): string {
  const t = text.trim();
  return t.length > MAX_EVIDENCE ? `${t.slice(0, MAX_EVIDENCE - 1)}…` : t;
}

// NCCL's own INFO lines report probes that may fail harmlessly (`NET/Plugin : dlerror=libnccl-net.so: cannot open …`).
const NCCL_INFO = /\bNCCL INFO\b/;
// The source line of a traceback's last frame that raised with a message: `raise ValueError("No available memory for
// the cache blocks. "`; its message names the error when the paste stops before the exception line. Only the
// message is read, never the code around it.
const RAISE_MESSAGE = /^\s*raise [\w.]+\(\s*f?(["'])(.*)$/;

interface Hit {
  sig: Signature;
  match: RegExpExecArray;
  /** Matched on a line whose level says it is not a failure (a WARNING): a cause only if the server then failed. */
  latent?: boolean;
  /** Matched on a raise statement's message: the exception line itself, if it follows, is the better evidence. */
  weak?: boolean;
}

function match(line: CleanLine): Hit | undefined {
  if (NCCL_INFO.test(line.text)) return undefined;
  const text = line.frame ? RAISE_MESSAGE.exec(line.text)?.[2] : line.text;
  if (text === undefined) return undefined;
  for (const sig of SIGNATURES) {
    if (line.frame && sig.tier !== 'cause') continue;
    const m = sig.re.exec(text);
    if (!m) continue;
    if (sig.ignoreLevels && line.level && sig.ignoreLevels.includes(line.level)) {
      if (line.level === 'WARNING' && sig.id === 'shared-library') return { sig, match: m, latent: true };
      continue;
    }
    return { sig, match: m, ...(line.frame || sig.weak ? { weak: true } : {}) };
  }
  return undefined;
}

/** A weak match gives way to a specific line of the same class just after it (the same traceback). */
function strongest(found: readonly Found[], chosen: Found): Found {
  if (!chosen.weak) return chosen;
  return found.find((f) => !f.weak && !f.latent && f.sig.class === chosen.sig.class && f.sig.tier === chosen.sig.tier && f.at > chosen.at && f.at <= chosen.at + 30) ?? chosen;
}

const ERROR_LEVELS = ['ERROR', 'CRITICAL'];
// A logger record cut right after its level word, as pastes often end: `ERROR 04-09 05`.
const BARE_ERROR_PREFIX = /^(?:ERROR|CRITICAL)\b(?: \d{2}-\d{2}(?: [\d:]*)?)?$/;

/** Whether the failure at `found` belongs to one request of a running server rather than to the server. */
function requestScoped(lines: readonly CleanLine[], found: Found, lastServing: number): boolean {
  // Serving went on after it: whatever it was, the server survived.
  if (lastServing > found.at) return true;
  // Its traceback (the block around it, from the line before its header to its exception line) runs through the
  // request handlers.
  let start = found.at;
  while (start > 0 && found.at - start < 60 && !TRACEBACK.test((lines[start] as CleanLine).text)) start--;
  let end = found.at;
  while (end + 1 < lines.length && end - found.at < 80 && ((lines[end + 1] as CleanLine).frame || TRACEBACK.test((lines[end] as CleanLine).text))) end++;
  for (let i = Math.max(0, start - 2); i <= Math.min(lines.length - 1, end + 1); i++) if (REQUEST_SCOPED.test((lines[i] as CleanLine).text)) return true;
  return false;
}

const TRACEBACK = /^Traceback \(most recent call last\)/;

const TIER_ORDER: readonly Tier[] = ['cause', 'error', 'generic', 'wrapper'];

export function classifyLog(text: string, options: ClassifyOptions = {}): LogVerdict {
  const engine = options.engine ?? detectEngine(text);
  const withEngine = (v: LogVerdict): LogVerdict => (engine ? { ...v, engine } : v);
  const lines = cleanLog(text);
  if (lines.length === 0) {
    return withEngine({ class: 'unknown', evidence: '', hint: 'The log is empty: paste the whole server output, from the launch command on.', line: null });
  }

  const found: Found[] = [];
  let lastStarted = -1;
  let lastServing = -1;
  let usage: CleanLine | undefined;
  let firstFrame: CleanLine | undefined;
  let firstError: CleanLine | undefined;
  const shutdowns: number[] = [];
  // Requests answered with a 5xx show a running server only while nothing says its engine died.
  const engineDied = lines.some((l) => !l.frame && (FATAL_AFTER_READY.test(l.text) || /EngineDeadError|Task finished unexpectedly/.test(l.text)));
  const signalOf = (text: string) => {
    const signal = readySignal(text, engine);
    return signal === 'answered-error' ? (engineDied ? undefined : 'serving') : signal;
  };
  lines.forEach((line, at) => {
    const hit = match(line);
    if (hit) found.push({ ...hit, line, at });
    if (line.frame) {
      firstFrame ??= line;
      return;
    }
    if ((line.level && ERROR_LEVELS.includes(line.level) && !NCCL_INFO.test(line.text)) || BARE_ERROR_PREFIX.test(line.text)) firstError ??= line;
    const ready = signalOf(line.text);
    if (ready === 'started') lastStarted = at;
    if (ready) lastServing = at;
    if (SHUTDOWN.test(line.text)) shutdowns.push(at);
    if (!usage && USAGE_BANNER.test(line.text)) usage = line;
  });
  const firstServing = lines.findIndex((l) => !l.frame && signalOf(l.text) === 'serving');
  // Where the server is known to be up: its last ready line, else the first request it answered.
  const lastReady = lastStarted >= 0 ? lastStarted : firstServing;

  // After the server was ready, only what stopped it counts: a cause, a definite fault or a fatal line, not one
  // request's error and not the exceptions of a shutdown.
  const shutdown = shutdowns.find((at) => at > lastReady) ?? Infinity;
  const fatalAfterReady = lastReady >= 0 && lines.slice(lastReady + 1).some((l) => !l.frame && FATAL_AFTER_READY.test(l.text));
  const relevant = found.filter((f) => {
    if (f.latent) return false;
    if (lastReady < 0) return true;
    if (f.at <= lastReady) return false;
    if (f.sig.tier !== 'cause' && f.at > shutdown) return false;
    if (f.sig.tier === 'generic' && requestScoped(lines, f, lastServing)) return false;
    return f.sig.tier !== 'wrapper' || fatalAfterReady;
  });

  let chosen: Found | undefined;
  for (const tier of TIER_ORDER) {
    chosen = relevant.find((f) => f.sig.tier === tier);
    if (chosen) {
      chosen = strongest(relevant, chosen);
      break;
    }
  }
  // A warning that a library is missing explains a failure that names no cause of its own (vLLM warns when
  // vllm._C cannot load libcuda.so.1, then fails later).
  if (lastReady < 0 && chosen && chosen.sig.tier !== 'cause' && chosen.sig.tier !== 'error') {
    chosen = found.find((f) => f.latent && f.at < (chosen as Found).at) ?? chosen;
  }
  if (chosen) {
    const ctx: SignatureContext = { lines, at: chosen.at, match: chosen.match, afterReady: lastReady >= 0 && chosen.at > lastReady, ...(engine ? { engine } : {}) };
    return withEngine({ class: chosen.sig.class, evidence: evidenceOf(chosen.line.text), hint: chosen.sig.hint(ctx), line: chosen.line.index + 1 });
  }

  if (lastReady >= 0) {
    const ready = lines[lastReady] as CleanLine;
    return withEngine({
      class: 'ready',
      evidence: evidenceOf(ready.text),
      hint: lastStarted >= 0 ? 'The server started and is ready; nothing to change.' : 'The server is answering requests (the log starts after its ready line); nothing to change.',
      line: ready.index + 1,
    });
  }

  if (usage) {
    return withEngine({
      class: 'unknown',
      evidence: evidenceOf(usage.text),
      hint: `${engine ? ENGINE_NAMES[engine] : 'The engine'}'s command line printed its usage, so it refused the command, but the log stops before the "error:" line that says which argument. Paste the end of the output.`,
      line: usage.index + 1,
    });
  }

  // No recognised line, but the server did fail: a traceback, an ERROR line, a shutdown before it was ready.
  const failed: [CleanLine | undefined, string][] = [
    [firstFrame, FAILURE_HINTS.frames],
    [firstError, FAILURE_HINTS.errorLine],
    [lastReady < 0 && shutdowns.length > 0 ? (lines[shutdowns[0] as number] as CleanLine) : undefined, FAILURE_HINTS.stopped],
  ];
  const sign = failed.filter((f): f is [CleanLine, string] => f[0] !== undefined).sort((a, b) => a[0].index - b[0].index)[0];
  if (sign && lastReady < 0) {
    const latent = found.find((f) => f.latent && f.at <= lines.indexOf(sign[0]));
    if (latent) {
      const ctx: SignatureContext = { lines, at: latent.at, match: latent.match, ...(engine ? { engine } : {}) };
      return withEngine({ class: latent.sig.class, evidence: evidenceOf(latent.line.text), hint: latent.sig.hint(ctx), line: latent.line.index + 1 });
    }
    return withEngine({ class: 'unknown', evidence: evidenceOf(sign[0].text), hint: sign[1], line: sign[0].index + 1 });
  }

  const last = lines[lines.length - 1] as CleanLine;
  if (options.exited) {
    return withEngine({
      class: 'unknown',
      evidence: evidenceOf(last.text),
      hint: 'The server process ended before it was ready, and its log shows no failure: it may have been killed (the kernel OOM killer, a signal) or have exited quietly. The box\'s dmesg and the lines before this one say more.',
      line: last.index + 1,
    });
  }
  const warm =
    engine === 'sglang' && lines.some((l) => /Application startup complete/.test(l.text))
      ? ' SGLang has started its HTTP server but not finished warm-up ("The server is fired up and ready to roll!" is missing).'
      : '';
  const flags = engine ? HINT_FLAGS[engine] : undefined;
  return withEngine({
    class: 'starting',
    evidence: evidenceOf(last.text),
    hint: `No failure and no ready line: the server was still starting when the log ends, or the log is cut short.${warm} Wait for the ready line (large models take minutes: loading weights, compiling, capturing CUDA graphs${flags ? ` — ${flags.cudaGraph} bounds the capture` : ''}), or paste the rest of the log.`,
    line: last.index + 1,
  });
}
