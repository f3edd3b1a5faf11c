// Parallel serving on the simulated box: each engine's parallel flags become the server's layout (GPU count, ranks,
// expert split), layouts the engine refuses fail with the engine's own exception at its own stage (messages from the
// engines' source, cited in resources/simbox/lib/parallel.mjs), and a server holds its share of the weights on each of
// its GPUs, the ones CUDA_VISIBLE_DEVICES gives it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseComputeApps, parseGpuQueryCsv } from '../../src/core/inventory/nvidia-smi';
import { launchVirtual, virtualBox, type VirtualServer } from '../../resources/simbox/lib/virtual-lab.mjs';
import { envWith, freePort, makeBox, type Box } from './helpers';

const BOX8 = virtualBox({ gpu: 'h100', count: 8 });
const OSS = 'openai/gpt-oss-120b';
const QWEN_FP8 = 'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8';

function launch(argv: string[], version: string, env: Record<string, string> = {}, files: { path: string; content: string }[] = []): VirtualServer {
  return launchVirtual({ argv, version, box: BOX8, env, files });
}
function layoutOf(argv: string[], version: string, env: Record<string, string> = {}, files: { path: string; content: string }[] = []) {
  const server = launch(argv, version, env, files);
  if (!server.ok) throw new Error(server.error);
  return server.profile.layout;
}
function refusal(argv: string[], version: string, env: Record<string, string> = {}): { error: string; code: number } {
  const server = launch(argv, version, env);
  if (server.ok) throw new Error(`${argv.join(' ')} started`);
  return server;
}
const vllm = (...args: string[]) => ['vllm', 'serve', ...args];
const sglang = (...args: string[]) => ['python3', '-m', 'sglang.launch_server', ...args];
const trtllm = (...args: string[]) => ['trtllm-serve', ...args];

describe('flags to layout', () => {
  it('vLLM: TP x PP x DP GPUs, one engine core per DP rank, experts over DP x TP (whole with expert parallelism)', () => {
    expect(layoutOf(vllm(OSS, '-tp', '2', '-pp', '2', '-dp', '2'), '0.11.0')).toMatchObject({ tp: 2, pp: 2, dp: 2, gpus: 8, ranks: 2, moeShards: 4, epSize: 1, coupled: true });
    expect(layoutOf(vllm(OSS, '--tensor-parallel-size', '4', '--enable-expert-parallel'), '0.11.0')).toMatchObject({ gpus: 4, ranks: 1, epSize: 4, a2a: null });
    // -ep is an alias from 0.14.0; --all2all-backend from 0.11.1, used with DP and EP together.
    expect(layoutOf(vllm(OSS, '-dp', '4', '-ep'), '0.14.0')).toMatchObject({ gpus: 4, ranks: 4, epSize: 4, a2a: 'allgather_reducescatter' });
    expect(layoutOf(vllm(OSS, '-dp', '2', '-tp', '2', '--enable-expert-parallel', '--all2all-backend', 'deepep_low_latency'), '0.11.1')).toMatchObject({ gpus: 4, epSize: 4, a2a: 'deepep_low_latency' });
    expect(layoutOf(vllm('Qwen/Qwen3-235B-A22B-Instruct-2507', '-tp', '8', '-dcp', '2'), '0.11.1')).toMatchObject({ gpus: 8, dcp: 2 });
    // A dense model's DP ranks are independent replicas.
    expect(layoutOf(vllm('Qwen/Qwen3-8B', '-dp', '4'), '0.11.0')).toMatchObject({ gpus: 4, ranks: 4, coupled: false });
  });

  it('vLLM 0.11.0 has no --all2all-backend (its parser refuses it)', () => {
    const r = refusal(vllm(OSS, '--all2all-backend', 'naive'), '0.11.0');
    expect(r.code).toBe(2);
    expect(r.error).toContain('vllm: error: unrecognized arguments: --all2all-backend naive');
  });

  it('SGLang: TP x PP x DP GPUs, but DP attention shares the TP group (TP x PP); ep-size of the TP group; DeepEP sets it to TP', () => {
    expect(layoutOf(sglang('--model-path', OSS, '--tp-size', '4', '--dp-size', '2'), '0.5.5')).toMatchObject({ gpus: 8, ranks: 2, attnTp: 4, coupled: false, dpAttention: false });
    expect(layoutOf(sglang('--model-path', OSS, '--tp-size', '4', '--dp-size', '2', '--enable-dp-attention'), '0.5.5')).toMatchObject({ gpus: 4, ranks: 2, attnTp: 2, moeShards: 4, coupled: true, dpAttention: true });
    expect(layoutOf(sglang('--model-path', OSS, '--tp', '4', '--ep-size', '4'), '0.5.14')).toMatchObject({ gpus: 4, epSize: 4 });
    expect(layoutOf(sglang('--model-path', OSS, '--tp-size', '4', '--moe-a2a-backend', 'deepep'), '0.5.5')).toMatchObject({ epSize: 4, a2a: 'deepep' });
    expect(layoutOf(sglang('--model-path', OSS, '--tp-size', '2', '--pp-size', '2'), '0.5.5')).toMatchObject({ gpus: 4, pp: 2 });
  });

  it('TensorRT-LLM: TP x PP GPUs; --ep_size; enable_attention_dp and the parallel sizes of the extra options YAML', () => {
    expect(layoutOf(trtllm(OSS, '--tp_size', '4', '--pp_size', '2'), '1.2.0rc1')).toMatchObject({ gpus: 8, ranks: 1 });
    expect(layoutOf(trtllm(OSS, '--tp_size', '4', '--ep_size', '4'), '1.2.0rc1')).toMatchObject({ gpus: 4, epSize: 4 });
    const yaml = [{ path: '/tmp/extra.yaml', content: 'enable_attention_dp: true\ntensor_parallel_size: 8\n' }];
    expect(layoutOf(trtllm(OSS, '--tp_size', '4', '--extra_llm_api_options', '/tmp/extra.yaml'), '1.2.0rc1', {}, yaml)).toMatchObject({ gpus: 8, ranks: 8, attnTp: 1, coupled: true, dpAttention: true });
  });
});

describe('layouts the engines refuse, with their own exceptions', () => {
  it('vLLM: attention heads not divisible by TP (VllmConfig), expert parallelism of a dense model', () => {
    const r = refusal(vllm(OSS, '-tp', '3'), '0.11.0');
    expect(r.code).toBe(1);
    expect(r.error).toContain('pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig\n  Value error, Total number of attention heads (64) must be divisible by tensor parallel size (3). [type=value_error');
    expect(refusal(vllm('Qwen/Qwen3-8B', '-tp', '2', '--enable-expert-parallel'), '0.11.0').error).toContain('Value error, Number of experts in the model must be greater than 0 when expert parallelism is enabled.');
  });

  it('vLLM: TP x PP above the visible GPUs, in each release\'s words (0.11.0 waits for a Ray placement group)', () => {
    const env = { CUDA_VISIBLE_DEVICES: '0,1' };
    expect(refusal(vllm(OSS, '-tp', '4'), '0.11.0', env).error).toMatch(/^ValueError: Cannot provide a placement group of placement_group_specs=\[\{'GPU': 1\.0, 'node:[\d.]+': 0\.001\}, \{'GPU': 1\.0\}, \{'GPU': 1\.0\}, \{'GPU': 1\.0\}\] within 1800 seconds\. See `ray status` and `ray list nodes` to make sure the cluster has enough resources\.$/);
    expect(refusal(vllm(OSS, '-tp', '4'), '0.11.1', env).error).toContain('1 validation error for ParallelConfig\n  Value error, Tensor parallel size (4) cannot be larger than the number of available GPUs (2). [type=value_error, input_value=ArgsKwargs((), {\'pipeline...\'_api_process_rank\': 0}), input_type=ArgsKwargs]');
    expect(refusal(vllm(OSS, '-tp', '2', '-pp', '2'), '0.13.0', env).error).toContain("Value error, World size (4) is larger than the number of available GPUs (2) in this node. If this is intentional and you are using:\n- ray, set '--distributed-executor-backend ray'.\n- multiprocessing, set '--nnodes' appropriately.");
  });

  it('vLLM: DP ranks beyond CUDA_VISIBLE_DEVICES fail while the engine cores start', () => {
    const r = refusal(vllm(OSS, '-tp', '2', '-dp', '2'), '0.11.0', { CUDA_VISIBLE_DEVICES: '0,1,2' });
    expect(r.error).toContain('Exception: Error setting CUDA_VISIBLE_DEVICES: local range: [2, 4) base value: "0,1,2"');
  });

  it('vLLM: decode context parallelism: TP % DCP (an assert up to 0.15.1, ParallelConfig from 0.16.0), GQA limits from 0.11.1, no LSE at 0.11.0', () => {
    expect(refusal(vllm(OSS, '-tp', '4', '-dcp', '3'), '0.11.1').error).toContain('AssertionError: tp_size=4 must be divisible bydcp_size=3.');
    expect(refusal(vllm(OSS, '-tp', '4', '-dcp', '3'), '0.16.0').error).toContain('1 validation error for ParallelConfig\n  Value error, tp_size=4 must be divisible bydcp_size=3.');
    expect(refusal(vllm(OSS, '-tp', '4', '-dcp', '2'), '0.11.1').error).toContain('Assertion failed, tensor parallel size 4 must be greater than total num kv heads 8 when enable decode context parallel for GQA/MQA [type=assertion_error');
    expect(refusal(vllm('Qwen/Qwen3-235B-A22B-Instruct-2507', '-tp', '8', '-dcp', '4'), '0.11.1').error).toContain('decode context parallel size must less than or equal to (tensor parallel size 8 // total num kv heads 4) = 2, but got 4');
    expect(refusal(vllm(OSS, '-tp', '4', '-dcp', '2'), '0.11.0').error).toContain('AssertionError: DCP requires attention impls to return the softmax lse for decode, but the impl FlashAttentionImpl does not return the softmax lse for decode.');
  });

  it('vLLM and SGLang: FP8 block-quantised slices that are not whole blocks', () => {
    expect(refusal(vllm(QWEN_FP8, '-tp', '8'), '0.11.0').error).toContain("ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128.");
    expect(refusal(vllm('Qwen/Qwen3-30B-A3B-FP8', '-tp', '2', '-dp', '2'), '0.11.0').error).toContain("weight = 192 is not divisible by weight quantization block_n = 128.");
    expect(refusal(vllm('Qwen/Qwen3-4B-FP8', '-tp', '8'), '0.11.0').error).toContain('ValueError: Weight output_partition_size = 1216 is not divisible by weight quantization block_n = 128.');
    expect(refusal(sglang('--model-path', QWEN_FP8, '--tp-size', '8'), '0.5.5').error).toContain("weight = 192 is not divisible by weight quantization block_n = 128.");
    expect(launch(sglang('--model-path', QWEN_FP8, '--tp-size', '8', '--ep-size', '8'), '0.5.5').ok).toBe(true);
  });

  it('SGLang: DP attention needs TP % DP == 0 (a bare assert), and dp-size > 1 up to 0.5.1.post3', () => {
    const r = refusal(sglang('--model-path', OSS, '--tp-size', '4', '--dp-size', '3', '--enable-dp-attention'), '0.5.5');
    expect(r.code).toBe(1);
    expect(r.error).toMatch(/assert self\.tp_size % self\.dp_size == 0\nAssertionError\n$/);
    expect(refusal(sglang('--model-path', OSS, '--tp-size', '4', '--enable-dp-attention'), '0.5.1').error).toContain('AssertionError: Please set a dp-size > 1. You can use 1 < dp-size <= tp-size ');
    expect(launch(sglang('--model-path', OSS, '--tp-size', '4', '--enable-dp-attention'), '0.5.2').ok).toBe(true);
  });

  it('SGLang: ep-size above tp-size, GPUs beyond the visible ones, heads not divisible by the attention TP size', () => {
    expect(refusal(sglang('--model-path', OSS, '--tp-size', '2', '--ep-size', '4'), '0.5.5').error).toContain('ZeroDivisionError: integer division or modulo by zero');
    expect(refusal(sglang('--model-path', OSS, '--tp-size', '4', '--dp-size', '2'), '0.5.5', { CUDA_VISIBLE_DEVICES: '0,1,2,3' }).error).toContain('torch.AcceleratorError: CUDA error: invalid device ordinal');
    expect(refusal(sglang('--model-path', OSS, '--tp-size', '6'), '0.5.5').error).toMatch(/assert self\.total_num_heads % attn_tp_size == 0\nAssertionError\n$/);
  });

  it('TensorRT-LLM: ep_size not dividing tp_size (Mapping), fewer GPUs than TP x PP, heads over TP', () => {
    expect(refusal(trtllm(OSS, '--tp_size', '4', '--ep_size', '3'), '1.2.0rc1').error).toContain('ValueError: tp_size must equal to moe_tp_size * moe_ep_size * moe_cluster_size, but got 4 != 1 * 3 * 1');
    expect(refusal(trtllm(OSS, '--tp_size', '2', '--pp_size', '2'), '1.2.0rc1', { CUDA_VISIBLE_DEVICES: '0,1' }).error).toContain('RuntimeError: Only 2 GPUs are available, but 4 are required.');
    expect(refusal(trtllm(OSS, '--tp_size', '3'), '1.2.0rc1').error).toMatch(/assert self\.num_heads % \(tp_size \* cp_size\) == 0\nAssertionError\n$/);
  });
});

describe('what a layout serves', () => {
  const SHAREGPT = { id: 'sharegpt', dataset: { kind: 'sharegpt' as const }, numPrompts: 400, backend: 'openai-chat' as const };
  const RANDOM = { id: 'random', dataset: { kind: 'random' as const, inputLen: 512, outputLen: 128 }, numPrompts: 1000, backend: 'openai-chat' as const };
  const throughput = (argv: string[], version: string, box = BOX8, env: Record<string, string> = {}, workload: typeof SHAREGPT | typeof RANDOM = SHAREGPT) => {
    const server = launchVirtual({ argv, version, box, env, noise: false });
    if (!server.ok) throw new Error(server.error);
    const run = server.run(workload);
    if (!run.ok) throw new Error(run.error);
    return run.metrics.total_token_throughput as number;
  };

  it('collectives run on the slowest link: NVLink beats a PCIe switch pair, which beats GPUs on two sockets', () => {
    const argv = vllm(OSS, '-tp', '2', '--max-model-len', '32768');
    const pcie = virtualBox({ gpu: 'h100', count: 8, topology: 'pcie' });
    const nvlink = throughput(argv, '0.11.0');
    const pair = throughput(argv, '0.11.0', pcie, { CUDA_VISIBLE_DEVICES: '0,1' });
    const sockets = throughput(argv, '0.11.0', pcie, { CUDA_VISIBLE_DEVICES: '0,4' });
    expect(nvlink).toBeGreaterThan(pair * 1.05);
    expect(pair).toBeGreaterThan(sockets * 1.05);
  });

  it('DP replicas of a dense model add throughput under load (vLLM DP 2 of Qwen3-8B, 1000 x 512/128: 1.5x to 2.3x one, the KV cache doubling too)', () => {
    const one = throughput(vllm('Qwen/Qwen3-8B'), '0.11.0', BOX8, {}, RANDOM);
    const two = throughput(vllm('Qwen/Qwen3-8B', '-dp', '2'), '0.11.0', BOX8, {}, RANDOM);
    expect(two / one).toBeGreaterThan(1.5);
    expect(two / one).toBeLessThan(2.3);
  });
});

describe('a multi-GPU server on the box', () => {
  let box: Box;
  let bin: string;
  beforeAll(() => {
    box = makeBox({ gpu: 'h100', count: 4, timeScale: 0.002 });
    bin = envWith(box, 'vllm-env', 'vllm==0.11.1');
  }, 60_000);
  afterAll(() => box?.cleanup());

  it('holds its share of the weights on each GPU CUDA_VISIBLE_DEVICES gives it, and releases them', async () => {
    const port = await freePort();
    const server = box.start(join(bin, 'vllm'), ['serve', 'openai/gpt-oss-20b', '-tp', '2', '--port', String(port)], { pathPrefix: bin, env: { CUDA_VISIBLE_DEVICES: '2,3' } });
    await server.waitFor('Application startup complete.');
    expect(server.output()).toContain('tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1');
    const used = parseGpuQueryCsv(box.run('nvidia-smi', ['--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,power.limit,driver_version,compute_cap,pci.bus_id,clocks.max.sm', '--format=csv,noheader,nounits']).stdout).map((g) => g.memoryUsedMiB);
    expect(used[0]).toBe(0);
    expect(used[1]).toBe(0);
    expect(used[2]).toBeGreaterThan(60_000);
    expect(used[3]).toBe(used[2]);
    const apps = parseComputeApps(box.run('nvidia-smi', ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits']).stdout);
    expect(apps.map((a) => a.pid)).toEqual([server.child.pid, server.child.pid]);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(parseComputeApps(box.run('nvidia-smi', ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits']).stdout)).toEqual([]);
  });

  it('refuses TP above the visible GPUs while building its config, exit 1, before any engine core', async () => {
    const r = box.run(join(bin, 'vllm'), ['serve', 'openai/gpt-oss-20b', '-tp', '8', '--port', String(await freePort())], { pathPrefix: bin });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(APIServer pid=');
    expect(r.stderr).toContain('Value error, Tensor parallel size (8) cannot be larger than the number of available GPUs (4).');
    expect(`${r.stdout}${r.stderr}`).not.toContain('EngineCore');
  });
});
