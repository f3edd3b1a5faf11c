// The reference studies' exact commands (Study A on H100, Study B on A100) are accepted by the simulated CLIs, become ready,
// and stop cleanly; the study's benchmark command runs against the recommended SGLang server.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { envWith, freePort, get, makeBox, type Box } from './helpers';

const READY = { vllm: 'Application startup complete.', sglang: 'The server is fired up and ready to roll!', trtllm: 'Application startup complete.' };
type Engine = keyof typeof READY;

/** Starts a command (with `--port P` or `--port=P` appended), waits until ready, checks /health, stops it. */
async function launch(box: Box, bin: string, engine: Engine, argv: string[], check?: (port: number, out: string) => Promise<void>) {
  const port = await freePort();
  const [cmd, ...args] = argv;
  const server = box.start(cmd === 'python3' ? join(bin, 'python3') : join(bin, cmd!), [...args, '--port', String(port)], { pathPrefix: bin });
  await server.waitFor(READY[engine]);
  expect(server.output()).toContain('SERVELAB-SIMULATED');
  expect((await get(port, '/health')).status).toBe(200);
  if (check) await check(port, server.output());
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(box.run('nvidia-smi', []).stdout).toContain('No running processes found');
}

describe('Study A commands (Qwen3-8B on an H100 box)', () => {
  let box: Box;
  const bins: Record<Engine, string> = { vllm: '', sglang: '', trtllm: '' };
  beforeAll(() => {
    box = makeBox({ gpu: 'h100', timeScale: 0.0005 });
    bins.vllm = envWith(box, 'vllm', 'vllm==0.11.0');
    bins.sglang = envWith(box, 'sglang', 'sglang[all]==0.5.3.post3');
    bins.trtllm = envWith(box, 'trt', 'tensorrt_llm==1.2.0rc1');
  }, 60_000);
  afterAll(() => box?.cleanup());

  it('stage 1 defaults: vllm serve, python3 -m sglang.launch_server, trtllm-serve', async () => {
    await launch(box, bins.vllm, 'vllm', ['vllm', 'serve', 'Qwen/Qwen3-8B']);
    await launch(box, bins.sglang, 'sglang', ['python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B']);
    await launch(box, bins.trtllm, 'trtllm', ['trtllm-serve', 'Qwen/Qwen3-8B']);
  });

  it('SGLang answers /v1/models before warm-up while /health is 503, then 200', async () => {
    const port = await freePort();
    const server = box.start(join(bins.sglang, 'python3'), ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', String(port)], {
      pathPrefix: bins.sglang,
      env: { SERVELAB_SIMBOX_FAULTS: 'slow-startup=60' },
    });
    await server.waitFor(`Uvicorn running on http://127.0.0.1:${port}`);
    expect((await get(port, '/health')).status).toBe(503);
    expect((await get(port, '/v1/models')).status).toBe(200);
    await server.waitFor(READY.sglang);
    expect((await get(port, '/health')).status).toBe(200);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  it('stages 2–6 on SGLang: CUDA graph bs, FP8, attention backends, EAGLE3, torch.compile', async () => {
    const sg = (...extra: string[]) => ['python3', '-m', 'sglang.launch_server', ...extra];
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B', '--cuda-graph-max-bs', '8'));
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B-FP8'));
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B-FP8', '--attention-backend', 'triton'));
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B-FP8', '--attention-backend', 'flashinfer'));
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B-FP8', '--speculative-algorithm', 'EAGLE3', '--speculative-draft-model-path', 'AngelSlim/Qwen3-8B_eagle3', '--speculative-num-steps', '2', '--speculative-eagle-topk', '1', '--speculative-num-draft-tokens', '4'));
    await launch(box, bins.sglang, 'sglang', sg('--model-path', 'Qwen/Qwen3-8B-FP8', '--enable-torch-compile'));
  });

  it('the recommended command serves the study benchmark (ShareGPT, 100 prompts, concurrency 4)', async () => {
    const dataset = join(box.home, 'ShareGPT_V3_unfiltered_cleaned_split.json');
    expect(box.run('simbox', ['make-sharegpt', dataset, '--count', '300']).code).toBe(0);
    const recommended = ['python3', '-m', 'sglang.launch_server', '--model', 'Qwen/Qwen3-8B-FP8', '--speculative-algorithm', 'EAGLE3', '--speculative-draft-model-path', 'Tengyunw/qwen3_8b_eagle3', '--speculative-num-steps', '4', '--speculative-eagle-topk', '4', '--speculative-num-draft-tokens', '16'];
    await launch(box, bins.sglang, 'sglang', recommended, async (port) => {
      const study = ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--backend', 'openai-chat', '--endpoint', '/v1/chat/completions', '--dataset-name', 'sharegpt', '--dataset-path', dataset, '--num-prompts', '100', '--max-concurrency', '4'];
      // The served name is the FP8 checkpoint; the client's tokenizer is the base model's, as in the study.
      const r = box.run(join(bins.vllm, 'vllm'), [...study, '--served-model-name', 'Qwen/Qwen3-8B-FP8', '--port', String(port), '--percentile-metrics', 'ttft,tpot,itl,e2el']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Successful requests:                     100');
      const value = (label: string) => Number(new RegExp(`${label.replace(/[()]/g, '\\$&')}\\s+(\\S+)`).exec(r.stdout)?.[1]);
      // Speculative decoding quirks the report must explain: peak below mean output throughput, ITL above TPOT.
      expect(value('Peak output token throughput (tok/s):')).toBeLessThan(value('Output token throughput (tok/s):'));
      expect(value('Mean ITL (ms):')).toBeGreaterThan(value('Mean TPOT (ms):'));
      expect(value('Mean E2EL (ms):')).toBeLessThan(1400);
    });
  });
});

describe('Study B commands (Qwen3-32B on an A100 box)', () => {
  let box: Box;
  const bins: Record<Engine, string> = { vllm: '', sglang: '', trtllm: '' };
  beforeAll(() => {
    box = makeBox({ gpu: 'a100', timeScale: 0.0005 });
    bins.vllm = envWith(box, 'vllm', 'vllm==0.11.0');
    bins.sglang = envWith(box, 'sglang', 'sglang==0.5.5.post1');
    bins.trtllm = envWith(box, 'trt', 'tensorrt_llm==1.2.0rc1');
  }, 60_000);
  afterAll(() => box?.cleanup());

  it('engine selection and the recommendation start on sm 8.0', async () => {
    await launch(box, bins.vllm, 'vllm', ['vllm', 'serve', 'Qwen/Qwen3-32B', '--max-model-len', '32768']);
    await launch(box, bins.sglang, 'sglang', ['python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-32B']);
    await launch(box, bins.trtllm, 'trtllm', ['trtllm-serve', 'Qwen/Qwen3-32B', '--max_seq_len=40960', '--enable_chunked_prefill']);
    await launch(box, bins.trtllm, 'trtllm', ['trtllm-serve', 'Qwen/Qwen3-32B', '--max_seq_len=40960', '--enable_chunked_prefill', '--max_num_tokens', '16384']);
    await launch(box, bins.vllm, 'vllm', ['vllm', 'serve', 'Qwen/Qwen3-32B-FP8', '--max-model-len', '32768']);
  });

  it('vLLM without --max-model-len fails with the KV-cache message and its suggested length', async () => {
    const r = box.run(join(bins.vllm, 'vllm'), ['serve', 'Qwen/Qwen3-32B', '--port', String(await freePort())]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ValueError: To serve at least one request with the models's max seq len \(40960\), \([\d.]+ GiB KV cache is needed, which is larger than the available KV cache memory \([\d.]+ GiB\)\. Based on the available memory, the estimated maximum model length is (\d+)\./);
    expect(r.stderr).toContain('RuntimeError: Engine core initialization failed. See root cause above.');
  });

  it('TensorRT-LLM rejects an unknown option like click (exit 2)', () => {
    const r = box.run(join(bins.trtllm, 'trtllm-serve'), ['Qwen/Qwen3-32B', '--max_seq_lenn=40960']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: trtllm-serve serve [OPTIONS] MODEL\nTry 'trtllm-serve serve --help' for help.\n\nError: No such option: --max_seq_lenn");
  });
});
