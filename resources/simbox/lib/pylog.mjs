// Log line and traceback shapes of the real engines (vLLM's logger, SGLang's, TensorRT-LLM's, uvicorn's).

const pad = (n, w = 2) => String(n).padStart(w, '0');

export function makeLogger(engine, pid, out = process.stdout, err = process.stderr) {
  const now = () => new Date();
  const vllmTime = (d) => `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const sglTime = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const trtTime = (d) => `${pad(d.getMonth() + 1)}/${pad(d.getDate())}/${d.getFullYear()}-${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  const write = (stream, line) => stream.write(`${line}\n`);

  if (engine === 'vllm') {
    // `proc`: 'api', 'engine' (EngineCore_DP0) or a data-parallel rank's core by name (EngineCore_DP1, …).
    const prefix = (proc) => (proc === 'engine' ? `(EngineCore_DP0 pid=${pid}) ` : proc.startsWith('EngineCore_') ? `(${proc} pid=${pid}) ` : `(APIServer pid=${pid}) `);
    return {
      info: (file, msg, proc = 'api') => write(out, `${prefix(proc)}INFO ${vllmTime(now())} [${file}] ${msg}`),
      warn: (file, msg, proc = 'api') => write(out, `${prefix(proc)}WARNING ${vllmTime(now())} [${file}] ${msg}`),
      error: (file, msg, proc = 'engine') => write(err, `${prefix(proc)}ERROR ${vllmTime(now())} [${file}] ${msg}`),
      raw: (text, proc = 'api') => {
        for (const line of text.replace(/\n$/, '').split('\n')) write(err, `${prefix(proc)}${line}`);
      },
      uvicorn: (msg) => write(err, `${prefix('api')}INFO:     ${msg}`),
      uvicornError: (msg) => write(err, `${prefix('api')}ERROR:    ${msg}`),
    };
  }
  if (engine === 'sglang') {
    return {
      info: (_file, msg, proc = 'api') => write(out, proc === 'engine' ? `[${sglTime(now())} TP0] ${msg}` : `[${sglTime(now())}] ${msg}`),
      warn: (_file, msg, proc = 'api') => write(out, proc === 'engine' ? `[${sglTime(now())} TP0] WARNING: ${msg}` : `[${sglTime(now())}] WARNING: ${msg}`),
      error: (_file, msg, proc = 'api') => write(err, proc === 'engine' ? `[${sglTime(now())} TP0] ${msg}` : `[${sglTime(now())}] ${msg}`),
      raw: (text) => err.write(text.endsWith('\n') ? text : `${text}\n`),
      uvicorn: (msg) => write(err, `[${sglTime(now())}] INFO:     ${msg}`),
      uvicornError: (msg) => write(err, `[${sglTime(now())}] ERROR:    ${msg}`),
    };
  }
  return {
    info: (_file, msg) => write(out, `[${trtTime(now())}] [TRT-LLM] [I] ${msg}`),
    warn: (_file, msg) => write(out, `[${trtTime(now())}] [TRT-LLM] [W] ${msg}`),
    error: (_file, msg) => write(err, `[${trtTime(now())}] [TRT-LLM] [E] ${msg}`),
    raw: (text) => err.write(text.endsWith('\n') ? text : `${text}\n`),
    uvicorn: (msg) => write(err, `INFO:     ${msg}`),
    uvicornError: (msg) => write(err, `ERROR:    ${msg}`),
  };
}

/** A Python traceback: frames are [file, line, function, source]. */
export function traceback(frames, exceptionLine) {
  const lines = ['Traceback (most recent call last):'];
  for (const [file, line, fn, src] of frames) {
    lines.push(`  File "${file}", line ${line}, in ${fn}`);
    if (src) lines.push(`    ${src}`);
  }
  lines.push(exceptionLine);
  return `${lines.join('\n')}\n`;
}

/** torch's CUDA OOM message (`torch.OutOfMemoryError: CUDA out of memory.`, in PyTorch's full wording). */
export function cudaOomMessage({ tryGiB, gpu = 0, totalGiB, freeMiB, inUseGiB }) {
  return (
    `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${tryGiB.toFixed(2)} GiB. GPU ${gpu} has a total capacity of ${totalGiB.toFixed(2)} GiB ` +
    `of which ${freeMiB.toFixed(2)} MiB is free. Including non-PyTorch memory, this process has ${inUseGiB.toFixed(2)} GiB memory in use. ` +
    `Of the allocated memory ${(inUseGiB - 0.62).toFixed(2)} GiB is allocated by PyTorch, and 153.08 MiB is reserved by PyTorch but unallocated. ` +
    'If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  ' +
    'See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)'
  );
}
