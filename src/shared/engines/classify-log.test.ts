import { describe, expect, it } from 'vitest';
import { classifyLog, cleanLog, cleanLogLine, detectEngine } from './classify-log';

const OOM = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.';
const READY = 'INFO:     Application startup complete.';

describe('cleanLogLine', () => {
  it.each([
    ['\x1b[36m(RayWorkerWrapper pid=123)\x1b[0m INFO 10-01 12:00:00 [gpu_worker.py:104] hello', 'hello', 'INFO'],
    ['(EngineCore_DP0 pid=4567) ERROR 10-01 12:00:00 [core.py:708] hello', 'hello', 'ERROR'],
    ['(pid=1, ip=10.0.0.2) hello [repeated 3x across cluster]', 'hello', undefined],
    ['2025-10-01T12:00:00.123456789Z hello', 'hello', undefined],
    ['vllm-1  | 2025-10-01T12:00:00Z (APIServer pid=1) WARNING 10-01 12:00:00 [x.py:1] hello', 'hello', 'WARNING'],
    ['[2025-10-01 12:00:00 TP0] hello', 'hello', undefined],
    ['[10/01/2025-12:00:00] [TRT-LLM] [W] hello', 'hello', 'WARNING'],
    ['[1,0]<stderr>:[TensorRT-LLM][ERROR] hello', 'hello', 'ERROR'],
    ['\x1b]0;title\x07\x1b[1;31mhello\x1b[0m', 'hello', undefined],
    ['[pod/vllm-0/server] 2025-10-01T12:00:00Z hello', 'hello', undefined],
    ['Oct  1 12:00:00 gpu-box vllm[1234]: (APIServer pid=1234) INFO 10-01 12:00:00 [x.py:1] hello', 'hello', 'INFO'],
  ])('%j → %j', (raw, text, level) => {
    const cleaned = cleanLogLine(raw);
    expect(cleaned.text).toBe(text);
    expect(cleaned.level).toBe(level);
  });

  it('keeps the indentation that marks traceback source lines', () => {
    const lines = cleanLog('(APIServer pid=1) Traceback (most recent call last):\n(APIServer pid=1)   File "x.py", line 3, in f\n(APIServer pid=1)     raise _format(GatedRepoError, m, r) from e\n');
    expect(lines.map((l) => l.frame)).toEqual([false, true, true]);
  });

  it('splits progress-bar rewrites (\\r) and CRLF line ends, keeping the input line numbers', () => {
    const lines = cleanLog('Loading: 10%\rLoading: 100%\r\nnext\r\n');
    expect(lines.map((l) => [l.index, l.text])).toEqual([
      [0, 'Loading: 10%'],
      [0, 'Loading: 100%'],
      [1, 'next'],
    ]);
  });
});

describe('classifyLog', () => {
  it('reports the first cause, not the wrapper or the last traceback line', () => {
    const log = ['loading', OOM, 'CUDA error: out of memory', "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}", 'KeyError: x'].join('\n');
    expect(classifyLog(log, { engine: 'vllm' })).toMatchObject({ class: 'oom', line: 2 });
  });

  it('prefers a cause to a generic exception that came first (chained exceptions)', () => {
    const log = ['requests.exceptions.HTTPError: 401 Client Error', 'huggingface_hub.errors.GatedRepoError: 401 Client Error.'].join('\n');
    expect(classifyLog(log)).toMatchObject({ class: 'gated-model', line: 2 });
  });

  it('treats a failure after the ready line as the verdict, and one before it as recovered', () => {
    expect(classifyLog([READY, OOM].join('\n'), { engine: 'vllm' })).toMatchObject({ class: 'oom', line: 2 });
    expect(classifyLog(['CUDA error: out of memory', READY].join('\n'), { engine: 'vllm' })).toMatchObject({ class: 'ready', line: 2 });
  });

  it('does not take SGLang’s pre-warm-up "Application startup complete." for ready', () => {
    const log = ['[2025-10-01 12:00:31] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)', `[2025-10-01 12:00:31] ${READY}`].join('\n');
    expect(classifyLog(log, { engine: 'sglang' }).class).toBe('starting');
    expect(classifyLog(log, { engine: 'vllm' }).class).toBe('ready');
  });

  it('keeps a server that went on serving after a request’s exception ready', () => {
    const log = [READY, 'ValueError: prompt too long', 'INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK'].join('\n');
    expect(classifyLog(log, { engine: 'vllm' }).class).toBe('ready');
    expect(classifyLog([READY, 'ValueError: prompt too long'].join('\n'), { engine: 'vllm' }).class).toBe('unknown');
  });

  it('names a CUDA fault after the ready line as the cause, though in-flight requests were answered after it', () => {
    const vllm = [
      READY,
      '(EngineCore_DP0 pid=7) ERROR 12-01 22:09:54 [core.py] EngineCore encountered a fatal error.',
      '(EngineCore_DP0 pid=7) ERROR 12-01 22:09:54 [core.py] RuntimeError: CUDA error: an illegal memory access was encountered',
      '(APIServer pid=7) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.',
      '(APIServer pid=7) INFO:     127.0.0.1:40636 - "POST /v1/completions HTTP/1.1" 200 OK',
    ].join('\n');
    expect(classifyLog(vllm, { engine: 'vllm' })).toMatchObject({ class: 'unknown', line: 3, evidence: 'RuntimeError: CUDA error: an illegal memory access was encountered' });
    expect(classifyLog(vllm, { engine: 'vllm' }).hint).toMatch(/GPU kernel failed while serving \(an illegal memory access was encountered\)/);
    // Without the root cause, the wrapper still says the engine died.
    const wrapperOnly = [READY, '(APIServer pid=7) vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.'].join('\n');
    expect(classifyLog(wrapperOnly, { engine: 'vllm' }).hint).toMatch(/engine core died while serving/);
  });

  it('ignores informational and warning lines that only mention a failure string', () => {
    const log = ["(APIServer pid=1) WARNING 10-01 12:00:00 [x.py:1] ModuleNotFoundError: No module named 'flash_attn'", '(APIServer pid=1) INFO 10-01 12:00:00 [x.py:1] retry after CUDA out of memory'].join('\n');
    expect(classifyLog(log, { engine: 'vllm' }).class).toBe('unknown');
  });

  it('never takes a traceback source line as evidence', () => {
    const log = ['Traceback (most recent call last):', '  File "_http.py", line 426, in hf_raise_for_status', '    raise _format(GatedRepoError, message, response) from e'].join('\n');
    expect(classifyLog(log).class).toBe('unknown');
  });

  it('reads the numbers of vLLM’s KV-cache and free-memory messages into the hint', () => {
    const kv =
      "ValueError: To serve at least one request with the models's max seq len (40960), (6.25 GiB KV cache is needed, which is larger than the available KV cache memory (4.12 GiB). Based on the available memory, the estimated maximum model length is 26992. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.";
    expect(classifyLog(kv).hint).toContain('Lower --max-model-len to 26992');
    const busy = 'ValueError: Free memory on device (40.00/80.00 GiB) on startup is less than desired GPU memory utilization (0.9, 72.00 GiB).';
    expect(classifyLog(busy).hint).toContain('--gpu-memory-utilization to at most 0.50');
  });

  it('names the engine’s own flags in hints, and all three when the engine is unknown', () => {
    expect(classifyLog(OOM, { engine: 'trtllm' }).hint).toContain('--kv_cache_free_gpu_memory_fraction');
    expect(classifyLog(OOM).hint).toMatch(/vLLM --gpu-memory-utilization, SGLang --mem-fraction-static, TensorRT-LLM --kv_cache_free_gpu_memory_fraction/);
  });

  it('caps long evidence', () => {
    const verdict = classifyLog(`${OOM} ${'x'.repeat(1000)}`);
    expect(verdict.evidence.length).toBe(400);
    expect(verdict.evidence.endsWith('…')).toBe(true);
  });

  it('says the log is empty, or still starting', () => {
    expect(classifyLog('\n\n')).toMatchObject({ class: 'unknown', line: null, evidence: '' });
    expect(classifyLog('Starting to load model Qwen/Qwen3-8B...')).toMatchObject({ class: 'starting', line: 1, hint: expect.stringMatching(/still starting/) });
  });
});

describe('detectEngine', () => {
  it('recognises each engine from its own lines, and none from too little', () => {
    expect(detectEngine('(APIServer pid=1) INFO 10-01 12:00:00 [api_server.py:1] vLLM API server version 0.11.0')).toBe('vllm');
    expect(detectEngine('[2025-10-01 12:00:00 TP0] Load weight begin.')).toBe('sglang');
    expect(detectEngine('[10/01/2025-12:00:00] [TRT-LLM] [I] Starting TensorRT-LLM init.')).toBe('trtllm');
    expect(detectEngine(READY)).toBeUndefined();
  });
});
