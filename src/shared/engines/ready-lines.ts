import type { EngineId } from './types';

/**
 * What each engine prints once it answers requests. A launch waits for the engine's ready line (and its health
 * endpoint); the log classifier also takes the other signs of a serving server, since a pasted log often starts
 * after the ready line or ends before it.
 */

/** The line a launch of this engine waits for (the adapters' `readiness`). */
export const READY_LINE: Readonly<Record<EngineId, RegExp>> = {
  // uvicorn's startup event; vLLM hands uvicorn a pre-bound socket, so "Uvicorn running on" is never printed
  // (vllm/entrypoints/launcher.py serve_http).
  vllm: /Application startup complete\./,
  // Printed after the warm-up request succeeded (python/sglang/srt/entrypoints/http_server.py _wait_and_warmup).
  // SGLang's own "Application startup complete." comes before the warm-up, when the server does not answer yet.
  sglang: /The server is fired up and ready to roll!/,
  // trtllm-serve runs uvicorn on its OpenAI server (tensorrt_llm/serve/openai_server.py).
  trtllm: /Application startup complete\./,
};

/** Other lines that only a started server prints, per engine, for logs read after the fact. */
const STARTED: Readonly<Record<EngineId, readonly RegExp[]>> = {
  // Older vLLM ran uvicorn itself, which announces the address it serves (uvicorn/server.py _log_started_message).
  vllm: [READY_LINE.vllm, /Uvicorn running on (?:https?|unix):/],
  sglang: [READY_LINE.sglang],
  // Triton's server with the TensorRT-LLM backend (triton-inference-server/server src/http_server.cc, grpc_server.cc).
  trtllm: [READY_LINE.trtllm, /Uvicorn running on (?:https?|unix):/, /Started (?:HTTPService|GRPCInferenceService) at /],
};

// uvicorn's access log line (uvicorn/protocols/http/*: `%s - "%s %s HTTP/%s" %d`), answered by the server: any
// status, a 500 too, is an answer from a running server (a request's own failure).
const ACCESS = /(?:^|\s)(\S+?):\d+ - "(GET|POST|PUT|DELETE) (\/[^ "]*) HTTP\/[\d.]+" (\d{3})|"(GET|POST|PUT|DELETE) (\/[^ "]*) HTTP\/[\d.]+" (\d{3})/;
const LOOPBACK = /^(?:127\.0\.0\.1|localhost|::1|\[::1\])$/;
// SGLang's warm-up asks the server itself, from the loopback, before it is ready (http_server.py _wait_and_warmup:
// GET /get_model_info, POST /generate or /encode), so those answers do not show readiness.
const SGLANG_WARMUP_PATHS = /^\/(?:get_model_info|generate|encode|get_server_info)\b/;
// vLLM's periodic stats line, printed while the engine runs (vllm/v1/metrics/loggers.py, older vllm/engine/metrics.py).
const VLLM_STATS = /Avg prompt throughput: [\d.]+ tokens\/s, Avg generation throughput/;
// SGLang's scheduler logs decode batches only while serving (python/sglang/srt/managers/scheduler.py log_decode_stats).
const SGLANG_DECODE = /Decode batch[.,] #running-req: \d+/;

/** Whether this cleaned line shows the server started (its ready line), serving (traffic it answered) or answering with server errors. */
export function readySignal(text: string, engine: EngineId | undefined): 'started' | 'serving' | 'answered-error' | undefined {
  const engines = engine ? [engine] : (Object.keys(STARTED) as EngineId[]).filter((e) => e !== 'sglang');
  if (engines.some((e) => STARTED[e].some((re) => re.test(text)))) return 'started';
  if (!engine && STARTED.sglang.some((re) => re.test(text))) return 'started';
  const access = ACCESS.exec(text);
  if (access) {
    const client = access[1];
    const path = access[3] ?? access[6] ?? '';
    if (engine === 'sglang' && SGLANG_WARMUP_PATHS.test(path) && (client === undefined || LOOPBACK.test(client))) return undefined;
    // A 5xx is an answer too, but also what a server whose engine died gives every request.
    return (access[4] ?? access[7] ?? '').startsWith('5') ? 'answered-error' : 'serving';
  }
  if (engine !== 'sglang' && engine !== 'trtllm' && VLLM_STATS.test(text)) return 'serving';
  if (engine !== 'vllm' && engine !== 'trtllm' && SGLANG_DECODE.test(text)) return 'serving';
  return undefined;
}
