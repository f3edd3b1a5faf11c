// The options-YAML reader, on files people pass to trtllm-serve --extra_llm_api_options.
import { describe, expect, it } from 'vitest';
import { readYaml, toYaml } from './yaml';

describe('readYaml', () => {
  it('reads the options file of a TensorRT-LLM serve test (github.com/NVIDIA/TensorRT-LLM/pull/7492, Qwen3-30B-A3B-FP8.yml)', () => {
    const text = `max_batch_size: 1
max_num_tokens: 4223
max_seq_len: 4223
tensor_parallel_size: 1
num_postprocess_workers: 1

# KV Cache configuration
kv_cache_config:
  free_gpu_memory_fraction: 0.8

# Additional performance settings
print_iter_log: true
`;
    expect(readYaml(text)).toEqual({
      value: { max_batch_size: 1, max_num_tokens: 4223, max_seq_len: 4223, tensor_parallel_size: 1, num_postprocess_workers: 1, kv_cache_config: { free_gpu_memory_fraction: 0.8 }, print_iter_log: true },
    });
  });

  it('reads null, quoted strings, flow mappings and sequences (github.com/NVIDIA/TensorRT-LLM/pull/6880, and edge cases)', () => {
    expect(readYaml('cuda_graph_config: null\nattn_backend: "FLASHINFER"\nkv_cache_config:\n  enable_block_reuse: false\n')).toEqual({
      value: { cuda_graph_config: null, attn_backend: 'FLASHINFER', kv_cache_config: { enable_block_reuse: false } },
    });
    expect(readYaml("a: {x: 1, y: 'b c'}\nb: [1, 2.5, 1e5]\nc:\n  - 1\n  - k\nd: {}\n")).toEqual({ value: { a: { x: 1, y: 'b c' }, b: [1, 2.5, '1e5'], c: [1, 'k'], d: {} } });
  });

  it('reads scalars as PyYAML (YAML 1.1) does: yes/on are true, 1e5 without a dot is text, 07 is octal', () => {
    expect(readYaml('a: on\nb: No\nc: 1_000\nd: 1.5e+3\ne: 0.9\nf: 07\n')).toEqual({ value: { a: true, b: false, c: 1000, d: 1500, e: 0.9, f: 7 } });
  });

  it('reads back what toYaml writes', () => {
    const value = { kv_cache_config: { dtype: 'fp8', free_gpu_memory_fraction: 0.85 }, torch_compile_config: {}, speculative_config: { decoding_type: 'Eagle', max_draft_len: 3 } };
    expect(readYaml(toYaml(value))).toEqual({ value });
  });

  it('refuses what it does not read, with the line', () => {
    expect(readYaml('a: 1\n  b: 2\n')).toEqual({ error: 'line 2: unexpected indentation' });
    expect(readYaml('a: &anchor 1\n')).toEqual({ error: 'line 1: anchors, tags and block scalars are not read' });
    expect(readYaml('just text\n')).toEqual({ error: 'line 1: expected "key: value"' });
  });
});
