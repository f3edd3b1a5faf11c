// The performance model on mixture-of-experts models spread over several GPUs, against GPUStack's published H100
// studies (tests/fixtures/bench-import-corpus/dev/gpustack-gpt-oss-120b-h100.md and gpustack-qwen3-235b-a22b-h100.md,
// sources in their .expected.json): ShareGPT, 1000 prompts, no concurrency limit, in virtual time. The relations
// are checked (ordering, per-GPU ratios), each with the tolerance its `it` states; README "Calibration" has the table.
import { describe, expect, it } from 'vitest';
import { GPU_MODELS, resolveModel } from '../../resources/simbox/lib/catalog.mjs';
import { buildProfile, type Knobs } from '../../resources/simbox/lib/perf-model.mjs';
import { sharegptLikeLengths, simulateBenchmark, type Metrics } from '../../resources/simbox/lib/simulate.mjs';
import { launchVirtual, virtualBox } from '../../resources/simbox/lib/virtual-lab.mjs';

type Engine = 'vllm' | 'sglang' | 'trtllm';
// The studies' releases as the simulated box runs them: vLLM 0.10.2 parses as 0.11.0, SGLang 0.5.3rc0 as 0.5.3,
// TensorRT-LLM 1.0.0 with the 1.2.0rc1 table; the Qwen3 study ran vLLM 0.11.0.
const VERSION: Record<Engine, string> = { vllm: '0.11.0', sglang: '0.5.3', trtllm: '1.2.0rc1' };
const SHAREGPT = sharegptLikeLengths(1000, 0);
const SHAREGPT_C4 = sharegptLikeLengths(100, 0);

function measure(model: string, knobs: Knobs, engine: Engine = 'vllm', requests = SHAREGPT, maxConcurrency: number | null = null): Metrics {
  const m = resolveModel(model);
  if (!m) throw new Error(`unknown model ${model}`);
  const profile = buildProfile({ engine, version: VERSION[engine], gpu: GPU_MODELS.h100, model: m, knobs });
  return simulateBenchmark({ profile, requests, maxConcurrency, seed: 42 }).metrics;
}
const perGpu = (m: Metrics, gpus: number) => m.totalTokenThroughput / gpus;
const within = (got: number, want: number, tolerance: number) => {
  expect(got).toBeGreaterThan(want * (1 - tolerance));
  expect(got).toBeLessThan(want * (1 + tolerance));
};

describe('gpt-oss-120b on H100 (GPUStack: vLLM 0.10.2, --max-model-len 32768)', () => {
  const OSS = 'openai/gpt-oss-120b';
  const base: Knobs = { maxModelLen: 32768 };
  const async: Knobs = { ...base, asyncScheduling: true };
  const tp1 = measure(OSS, base);
  const tp1a = measure(OSS, async);
  const tp2 = measure(OSS, { ...async, tp: 2 });
  const tp4 = measure(OSS, { ...async, tp: 4 });
  const pp2 = measure(OSS, { ...async, pp: 2 });

  it('total throughput orders TP4 > TP2 > PP2 > TP1 with async scheduling > TP1 (23759 > 16042 > 11199 > 6325 > 6095)', () => {
    expect(tp4.totalTokenThroughput).toBeGreaterThan(tp2.totalTokenThroughput);
    expect(tp2.totalTokenThroughput).toBeGreaterThan(pp2.totalTokenThroughput);
    expect(pp2.totalTokenThroughput).toBeGreaterThan(tp1a.totalTokenThroughput);
    expect(tp1a.totalTokenThroughput).toBeGreaterThan(tp1.totalTokenThroughput);
  });

  it('each with async scheduling within 15% of the study: TP1 6325, TP2 16042, TP4 23759, PP2 11199 tok/s', () => {
    within(tp1a.totalTokenThroughput, 6325, 0.15);
    within(tp2.totalTokenThroughput, 16042, 0.15);
    within(tp4.totalTokenThroughput, 23759, 0.15);
    within(pp2.totalTokenThroughput, 11199, 0.15);
  });

  it('per GPU against TP1: TP2 +26.8%, TP4 -6.1%, PP2 -11.5% (each within 0.08 of the ratio), TP2 > TP1 > TP4 > PP2', () => {
    const ratio = (m: Metrics, gpus: number) => perGpu(m, gpus) / perGpu(tp1a, 1);
    expect(Math.abs(ratio(tp2, 2) - 1.268)).toBeLessThan(0.08);
    expect(Math.abs(ratio(tp4, 4) - 0.939)).toBeLessThan(0.08);
    expect(Math.abs(ratio(pp2, 2) - 0.885)).toBeLessThan(0.08);
    expect(perGpu(tp2, 2)).toBeGreaterThan(perGpu(tp1a, 1));
    expect(perGpu(tp1a, 1)).toBeGreaterThan(perGpu(tp4, 4));
    expect(perGpu(tp4, 4)).toBeGreaterThan(perGpu(pp2, 2));
  });

  it('one GPU is short of KV cache: TP1 waits ~24 s for its first token (within 25%), TP2 ~4.6 s', () => {
    within(tp1a.ttft.mean / 1000, 23.6, 0.25);
    within(tp2.ttft.mean / 1000, 4.61, 0.25);
  });

  it('at concurrency 4, TPOT 8.31 ms on TP1 and 5.75 ms on TP2 with async scheduling (within 15%)', () => {
    within(measure(OSS, base, 'vllm', SHAREGPT_C4, 4).tpot.mean, 8.31, 0.15);
    within(measure(OSS, { ...async, tp: 2 }, 'vllm', SHAREGPT_C4, 4).tpot.mean, 5.75, 0.15);
  });

  it('engine choice on one GPU: vLLM 6095 > TensorRT-LLM 2139 > SGLang 1814 tok/s (within 20%)', () => {
    const sglang = measure(OSS, {}, 'sglang');
    const trt = measure(OSS, { maxModelLen: 32768 }, 'trtllm');
    expect(tp1.totalTokenThroughput).toBeGreaterThan(trt.totalTokenThroughput);
    expect(trt.totalTokenThroughput).toBeGreaterThan(sglang.totalTokenThroughput);
    within(tp1.totalTokenThroughput, 6095, 0.2);
    within(trt.totalTokenThroughput, 2139, 0.2);
    within(sglang.totalTokenThroughput, 1814, 0.2);
  });
});

describe('Qwen3-235B-A22B-Instruct-2507 on 8 x H100 (GPUStack: vLLM 0.11.0)', () => {
  const BF16 = 'Qwen/Qwen3-235B-A22B-Instruct-2507';
  const FP8 = `${BF16}-FP8`;
  const tp8 = measure(BF16, { tp: 8 });
  const tp4 = measure(FP8, { tp: 4 });
  const tp4ep = measure(FP8, { tp: 4, enableEp: true });

  it('FP8 at TP8 without expert parallelism is refused with vLLM\'s block-shape error, as in the study', () => {
    const refused = launchVirtual({ argv: ['vllm', 'serve', FP8, '-tp', '8'], version: '0.11.0', box: virtualBox({ gpu: 'h100', count: 8 }) });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toContain("ValueError: The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128.");
    expect(launchVirtual({ argv: ['vllm', 'serve', FP8, '-tp', '8', '--enable-expert-parallel'], version: '0.11.0', box: virtualBox({ gpu: 'h100', count: 8 }) }).ok).toBe(true);
  });

  it('TP8 BF16 8425 and TP4 FP8 7528 tok/s (within 15%); per GPU TP4 FP8 is 1.79x TP8 BF16 (at least 1.5x)', () => {
    within(tp8.totalTokenThroughput, 8425, 0.15);
    within(tp4.totalTokenThroughput, 7528, 0.15);
    expect(perGpu(tp4, 4) / perGpu(tp8, 8)).toBeGreaterThan(1.5);
  });

  it('expert parallelism on TP4 costs throughput: 7132 against 7528 (-5.3%; between -15% and 0)', () => {
    const change = tp4ep.totalTokenThroughput / tp4.totalTokenThroughput - 1;
    expect(change).toBeLessThan(0);
    expect(change).toBeGreaterThan(-0.15);
  });
});
