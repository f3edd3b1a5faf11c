import type { Workload } from './workload';

/**
 * The warm-up run sent to a fresh server before its measured runs on a workload. The first requests after a launch
 * are slower (CUDA graph capture, torch.compile and JIT warm-up: https://github.com/NVIDIA/TensorRT-LLM/pull/18432
 * measured the first run after a launch at +9.5% median TTFT), and p99 TTFT is "especially sensitive to fresh-server
 * kernel state" (https://github.com/vllm-project/perf-eval/pull/59). Warm-up requests sent all at once would skew the
 * next run's TTFT (https://github.com/sgl-project/sglang/pull/39398), so the warm-up is the workload itself — same
 * dataset, lengths and concurrency cap — only shorter, and with other prompts so that it does not fill the prefix
 * cache with the measured ones.
 */

/** Requests per warm-up: two full batches at the workload's concurrency (an unbounded one counted as 32), 16 to 64. */
export function warmupRequests(workload: Workload): number {
  const batch = workload.maxConcurrency ?? 32;
  return Math.min(workload.numPrompts, Math.max(16, Math.min(64, 2 * batch)));
}

/** The warm-up's workload: the measured one, shorter, with the next seed. */
export function warmupWorkload(workload: Workload): Workload {
  return { ...workload, id: `${workload.id}-warmup`.slice(0, 64), numPrompts: warmupRequests(workload), seed: ((workload.seed ?? 0) + 1) % 2 ** 31 };
}
