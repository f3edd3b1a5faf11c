// Each fault of the simulated box fails like a real box does, and leaves no "GPU memory" behind.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { parseComputeApps } from '../../src/core/inventory/nvidia-smi';
import { envWith, freePort, get, makeBox, type Box } from './helpers';

const APPS = ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits'];
let box: Box;
let vllm: string;
let sglang: string;
let trt: string;

beforeAll(() => {
  box = makeBox({ gpu: 'h100', timeScale: 0.001 });
  vllm = envWith(box, 'vllm', 'vllm==0.11.0');
  sglang = envWith(box, 'sglang', 'sglang[all]==0.5.3.post3');
  trt = envWith(box, 'trt', 'tensorrt_llm==1.2.0rc1');
}, 60_000);
afterAll(() => box?.cleanup());

const noGpuProcess = () => expect(parseComputeApps(box.run('nvidia-smi', APPS).stdout)).toEqual([]);

describe('faults', () => {
  it('OOM at startup (switched on in the box state), then memory released', async () => {
    expect(box.run('simbox', ['fault', 'oom', 'on']).code).toBe(0);
    const r = box.run(join(vllm, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(await freePort())]);
    expect(box.run('simbox', ['fault', 'oom', 'off']).code).toBe(0);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate');
    expect(r.stderr).toContain("RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}");
    noGpuProcess();
  });

  it('OOM for one process through the environment (SGLang)', async () => {
    const r = box.run(join(sglang, 'python3'), ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', String(await freePort())], { env: { SERVELAB_SIMBOX_FAULTS: 'oom' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate');
    noGpuProcess();
  });

  it('FP8 block-scaled GEMM fails for TensorRT-LLM on sm 8.0 (automatically) and when forced; AWQ checkpoints fail to load', async () => {
    const a100 = box.run(join(trt, 'trtllm-serve'), ['Qwen/Qwen3-32B-FP8', '--port', String(await freePort())], { env: { SERVELAB_SIMBOX_GPU: 'a100' } });
    expect(a100.code).toBe(1);
    expect(a100.stderr).toContain('RuntimeError: Unsupported SM version for FP8 block scaling GEMM');
    const forced = box.run(join(trt, 'trtllm-serve'), ['Qwen/Qwen3-8B-FP8', '--port', String(await freePort())], { env: { SERVELAB_SIMBOX_FAULTS: 'fp8-gemm' } });
    expect(forced.stderr).toContain('RuntimeError: Unsupported SM version for FP8 block scaling GEMM');
    const awq = box.run(join(trt, 'trtllm-serve'), ['Qwen/Qwen3-32B-AWQ', '--port', String(await freePort())], { env: { SERVELAB_SIMBOX_GPU: 'a100' } });
    expect(awq.stderr).toContain("KeyError: 'weight'");
    noGpuProcess();
  });

  it('slow startup takes several times longer to become ready (and its log says so)', async () => {
    const startup = async (faults?: string) => {
      const port = await freePort();
      const s = box.start(join(vllm, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { env: faults ? { SERVELAB_SIMBOX_FAULTS: faults } : {} });
      await s.waitFor('vLLM API server version');
      const t0 = Date.now();
      await s.waitFor('Application startup complete.');
      const wallMs = Date.now() - t0;
      s.child.kill('SIGTERM');
      await s.exited;
      const loading = Number(/Model loading took [\d.]+ GiB and ([\d.]+) seconds/.exec(s.output())?.[1]);
      const init = Number(/init engine \(profile, create kv cache, warmup model\) took ([\d.]+) seconds/.exec(s.output())?.[1]);
      return { wallMs, loading, init };
    };
    const normal = await startup();
    const slow = await startup('slow-startup=10');
    expect(slow.loading).toBeCloseTo(normal.loading * 10, 3);
    expect(slow.init).toBeCloseTo(normal.init * 10, 1);
    expect(slow.wallMs).toBeGreaterThan(normal.wallMs);
  });

  it('crash mid-benchmark: the server dies after N requests, the client reports fewer successes', async () => {
    const port = await freePort();
    const s = box.start(join(vllm, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { env: { SERVELAB_SIMBOX_FAULTS: 'crash-after=6' } });
    await s.waitFor('Application startup complete.');
    const r = box.run(join(vllm, 'vllm'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--port', String(port), '--dataset-name', 'random', '--random-input-len', '64', '--random-output-len', '32', '--num-prompts', '20', '--max-concurrency', '4', '--ready-check-timeout-sec', '0']);
    expect(await s.exited).toBe(1);
    expect(s.output()).toContain('RuntimeError: CUDA error: an illegal memory access was encountered');
    expect(s.output()).toContain('EngineDeadError');
    expect(r.code).toBe(0);
    const ok = Number(/Successful requests:\s+(\d+)/.exec(r.stdout)?.[1]);
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThan(20);
    noGpuProcess();
  });

  it('busy port: the fault and a really occupied port give each engine its real message', async () => {
    const faulted = box.run(join(vllm, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(await freePort())], { env: { SERVELAB_SIMBOX_FAULTS: 'busy-port' } });
    expect(faulted.code).toBe(1);
    expect(faulted.stderr).toContain('OSError: [Errno 98] Address already in use');
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const sg = box.run(join(sglang, 'python3'), ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--port', String(port)]);
      expect(sg.code).toBe(1);
      expect(sg.stderr).toContain(`ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', ${port}): address already in use`);
      const t = box.run(join(trt, 'trtllm-serve'), ['Qwen/Qwen3-8B', '--port', String(port)]);
      expect(t.code).toBe(1);
      expect(t.stderr).toContain(`RuntimeError: Failed to bind socket to localhost:${port}: [Errno 98] Address already in use`);
    } finally {
      holder.close();
    }
    noGpuProcess();
  });

  it('a stray process holds GPU memory: nvidia-smi lists it and vLLM cannot get its share', async () => {
    expect(box.run('simbox', ['fault', 'stray', 'on', '40000']).code).toBe(0);
    try {
      const apps = parseComputeApps(box.run('nvidia-smi', APPS).stdout);
      expect(apps).toEqual([expect.objectContaining({ processName: 'python3', usedMemoryMiB: 40000 })]);
      expect(box.run('nvidia-smi', []).stdout).toMatch(/python3 +40000MiB \|/);
      const r = box.run(join(vllm, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(await freePort())]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ValueError: Free memory on device \([\d.]+\/[\d.]+ GiB\) on startup is less than desired GPU memory utilization \(0\.9, [\d.]+ GiB\)\. Decrease GPU memory utilization or reduce GPU memory used by other processes\./);
      // Killing the stray (as the product would) releases its memory.
      process.kill(apps[0]!.pid, 'SIGKILL');
      await new Promise((r2) => setTimeout(r2, 100));
      noGpuProcess();
    } finally {
      box.run('simbox', ['fault', 'stray', 'off']);
    }
    expect(box.run('simbox', ['status']).stdout).toContain('processes: none');
  });

  it('a gated model without a token fails like huggingface_hub', async () => {
    const r = box.run(join(vllm, 'vllm'), ['serve', 'meta-llama/Llama-3.1-8B-Instruct', '--port', String(await freePort())]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('GatedRepoError: 401 Client Error.');
    expect(r.stderr).toContain('Access to model meta-llama/Llama-3.1-8B-Instruct is restricted.');
    const port = await freePort();
    const ok = box.start(join(vllm, 'vllm'), ['serve', 'meta-llama/Llama-3.1-8B-Instruct', '--port', String(port)], { env: { HF_TOKEN: 'hf_test' } });
    await ok.waitFor('Application startup complete.');
    expect((await get(port, '/health')).status).toBe(200);
    ok.child.kill('SIGTERM');
    await ok.exited;
  });
});
