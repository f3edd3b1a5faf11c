/**
 * Server logs as users paste them: wrapped by docker, Kubernetes, journald, Ray, MPI, Triton, CloudWatch or a JSON
 * logger, sometimes with their line breaks lost. This module turns such text into the engine's own lines, each with
 * its logger level and its place in the input, so the classifier reads the same words whatever carried them.
 * The wrappers are the ones seen in the real corpus (tests/fixtures/engine-log-corpus).
 */

/** One line of the engine's own output, after cleaning. */
export interface CleanLine {
  /** 0-based index of the input line it came from. */
  index: number;
  text: string;
  /** The log level from a logger prefix, when there was one (INFO, WARNING, ERROR, DEBUG, CRITICAL). */
  level?: string;
  /** A traceback frame (`File "…", line N, in f`), the source line under it, or a C++ stack frame: code, not a message. */
  frame: boolean;
}

// CSI sequences (colours, cursor moves), OSC sequences (titles, links), and the remaining two-byte escapes.
// eslint-disable-next-line no-control-regex -- escape sequences are what this removes
export const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

const LEVEL_WORD: Record<string, string> = {
  I: 'INFO', W: 'WARNING', E: 'ERROR', F: 'CRITICAL', V: 'DEBUG', D: 'DEBUG',
  INFO: 'INFO', WARN: 'WARNING', WARNING: 'WARNING', ERROR: 'ERROR', DEBUG: 'DEBUG', CRITICAL: 'CRITICAL', FATAL: 'CRITICAL', TRACE: 'DEBUG',
  VERBOSE: 'DEBUG', INTERNAL_ERROR: 'ERROR',
};

interface Prefix {
  re: RegExp;
  /** The capture group holding the level word, if the prefix carries one. */
  level?: number;
}

// Tried in order, again and again, until none matches: wrappers nest (docker → Ray → vLLM's logger).
const PREFIXES: readonly Prefix[] = [
  // A markdown quote of a pasted log.
  { re: /^> ?/ },
  // CloudWatch / journald exports and other wrappers sometimes leave a table bar: `  | `.
  { re: /^\|\s+(?=\S)/ },
  // kubectl logs --timestamps / docker logs -t / Buildkite: RFC 3339, optionally bracketed, optionally with a level
  // (Rust tracing, as dynamo prints: `2025-11-05T01:56:54.292138Z ERROR scheduler.run: …`).
  { re: /^\[?\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?(?:\s+(INFO|WARN|WARNING|ERROR|DEBUG|TRACE)\b)?\s?/, level: 1 },
  // kubectl logs --prefix: `[pod/vllm-0/server] `.
  { re: /^\[pod\/[^\]\s]+\] ?/ },
  // journald: `Oct 01 12:00:00 gpu-box vllm[1234]: ` (the month in the system's language).
  { re: /^\p{L}{3,4}\.? [ \d]\d \d{2}:\d{2}:\d{2} \S+ [\w.@-]+(?:\[\d+\])?: ?/u },
  // stern / kubetail: `<pod> <container> ` or `<container> ` before the engine's own line.
  { re: /^[a-z0-9][a-z0-9.-]*(?: [a-z0-9][a-z0-9.-]*)? +(?=(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} |Traceback \(|\s+File "|\([A-Za-z_][\w:.-]* (?:pid|rank)=)/ },
  // docker compose: `service-1  | `.
  { re: /^[A-Za-z0-9][\w.-]*\s+\| ?/ },
  // Python logging with a date, as KServe and TorchServe print it:
  // `2024-07-01 07:28:04.488 1 kserve ERROR [__main__.py:<module>():254] `, `2024-11-18T16:43:45,499 [INFO ] W-9000-model_1.0-stdout MODEL_LOG - `.
  { re: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[.,]\d+ \d+ \S+ (INFO|WARNING|ERROR|DEBUG|CRITICAL) \[[^\]]*\] ?/, level: 1 },
  { re: /^\[(INFO|WARN|ERROR|DEBUG) ?\] \S+ MODEL_LOG - /, level: 1 },
  // Ray and vLLM process tags: `(RayWorkerWrapper pid=123)`, `(EngineCore_DP0 pid=4567)`, `(pid=1, ip=10.0.0.2)`,
  // `(VllmWorker rank=5 pid=3073)`, `(ServeReplica:app:Deployment pid=1, ip=10.0.0.1)`.
  { re: /^\([A-Za-z_][\w.:-]*(?:=[^\s),]+)?(?:[,\s]+[A-Za-z_][\w.-]*(?:=[^\s),]+)?)*\) ?/ },
  // torch.distributed rank tags: `[rank0]: `, `[rank0]:[W… ProcessGroupNCCL.cpp:…] `.
  { re: /^\[rank\d+\]: ?/ },
  // mpirun --tag-output: `[1,0]<stderr>:`.
  { re: /^\[\d+,\d+\]<(?:stdout|stderr|stddiag)>:\s?/ },
  // vLLM's logger: `INFO 10-01 12:00:00 [api_server.py:1896] `, older `INFO 10-01 12:00:00 api_server.py:206] `.
  { re: /^(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d{2}-\d{2}\s+\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+(?:\[[^\]]*\]|[\w./-]+:\d+\])\s?/, level: 1 },
  // glog, as Triton's server and TensorRT-LLM's backend print it: `I1025 08:16:46.669634 85102 http_server.cc:3558] `.
  { re: /^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] ?/, level: 1 },
  // SGLang's logger: `[2025-10-01 12:00:00] `, `[2025-10-01 12:00:00 TP0] `, older `[04:40:55 TP0] `, `[gpu_id=0] `.
  { re: /^\[(?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?: [^\]]*)?\]\s?/ },
  { re: /^\[gpu_id=\d+\]\s?/ },
  // TensorRT-LLM's Python logger: `[10/01/2025-12:00:00] [TRT-LLM] [I] `, `[TRT-LLM] [RANK 0] [E] `; its C++ logger:
  // `[TensorRT-LLM][INFO] `.
  { re: /^\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\]\s?/ },
  { re: /^\[TRT-LLM\]\s?/ },
  { re: /^\[RANK \d+\]\s?/ },
  { re: /^\[([IWEVD])\]\s/, level: 1 },
  { re: /^\[TensorRT-LLM\]\[(INFO|WARNING|ERROR|DEBUG|VERBOSE|INTERNAL_ERROR)\]\s?/, level: 1 },
  // Python's default logging format: `ERROR:root:`, `WARNING:sglang.srt.server:`.
  { re: /^(INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.]+:/, level: 1 },
];

/** Removes ANSI codes and the prefixes of the tools that carried the line. */
export function cleanLogLine(raw: string): { text: string; level?: string } {
  let text = raw.replace(ANSI, '').replace(CONTROL, '');
  let level: string | undefined;
  for (let round = 0; round < 12; round++) {
    const before = text;
    const trimmed = text.replace(/^\s+(?=[[(\d>|A-Z])/, '');
    for (const prefix of PREFIXES) {
      const m = prefix.re.exec(trimmed);
      if (!m) continue;
      text = trimmed.slice(m[0].length);
      const word = prefix.level ? m[prefix.level] : undefined;
      if (word) level = LEVEL_WORD[word] ?? word;
      break;
    }
    if (text === before) break;
  }
  text = text.replace(/\s*\[repeated \d+x across cluster\]\s*$/, '').trimEnd();
  return level ? { text, level } : { text };
}

// A docker json-file log (`{"log":"…","stream":"stderr",…}`) or a JSON logger (`{"message": "…"}`): the text is the
// string value. Several records can share a physical line when a paste lost its line breaks.
const JSON_RECORD = /\{"(?:log|message|msg)":"((?:[^"\\]|\\.)*)"/g;
// A CloudWatch CSV export: `1756144012376,"<message>"`, with ESC written `#033` and CR `#015`.
const CLOUDWATCH = /^\d{13},"?(.*?)"?$/;

function unwrapRecord(physical: string): string[] {
  if (physical.includes('{"log":"') || physical.includes('{"message":"') || physical.includes('{"msg":"')) {
    const out: string[] = [];
    for (const m of physical.matchAll(JSON_RECORD)) {
      try {
        out.push(...(JSON.parse(`"${m[1]}"`) as string).split('\n'));
      } catch {
        out.push(m[1] as string);
      }
    }
    if (out.length > 0) return out;
  }
  const cw = CLOUDWATCH.exec(physical);
  if (cw) return [(cw[1] as string).replace(/""/g, '"').replace(/#033/g, '\x1b').replace(/#015/g, '')];
  return [physical];
}

// A paste that lost its line breaks holds several logger records on one line: split before each record prefix after
// the first (vLLM's `ERROR 11-04 18:02:56 [x.py:1] `, NCCL's `host:pid:tid [0] NCCL INFO `).
const RECORD_START = /\s(?=(?:\([A-Za-z_][\w.:-]*(?:[ ,][^)]*)?\)\s)?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2}\b)|\s(?=[\w.-]+:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN)\b)/g;

function splitRecords(line: string): string[] {
  const starts = [...line.matchAll(RECORD_START)].length;
  return starts === 0 ? [line] : line.split(RECORD_START);
}

const FRAME_HEADER = /^\s*File "[^"]*", line \d+/;
// C++ stack frames (TensorRT-LLM, PyTorch's c10): `3       0x7f5fe690947e tensorrt_llm::…`, `frame #44: …`.
// (GitHub turns `#44` into a link when an issue is rendered, so pastes carry `frame [#44](…)`.)
const NATIVE_FRAME = /^\s*(?:\d+\s+0x[0-9a-f]+\s|frame \[?#\d+)/;
// The caret lines CPython 3.11+ prints under a frame's source line.
const CARETS = /^\s*[~^]+\s*$/;

/** The cleaned lines of a log, with input line numbers, logger levels and traceback frames marked. */
export function cleanLog(text: string): CleanLine[] {
  const lines: CleanLine[] = [];
  const raw = text.split(/\r?\n/);
  let inFrame = false;
  raw.forEach((physical, index) => {
    for (const record of unwrapRecord(physical)) {
      for (const joined of splitRecords(record)) {
        // A progress bar rewrites its line with \r: each rewrite is a line of its own.
        for (const segment of joined.split('\r')) {
          const { text: cleaned, level } = cleanLogLine(segment);
          if (cleaned.trim() === '' || CARETS.test(cleaned)) continue;
          const isFrameHeader = FRAME_HEADER.test(cleaned);
          const frame = isFrameHeader || NATIVE_FRAME.test(cleaned) || (inFrame && /^\s{4,}\S/.test(cleaned));
          // Only the line right after a frame header is its source line.
          inFrame = isFrameHeader;
          lines.push({ index, text: cleaned, frame, ...(level ? { level } : {}) });
        }
      }
    }
  });
  return lines;
}
