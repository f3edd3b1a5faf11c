import { describe, expect, it } from 'vitest';
import { ENGINE_ADAPTERS, extraArgsSyntax } from './adapters';
import { FLAG_TABLE_IDS, flagTableAt, printedFlags, tableSource, tableVersions, tabledVersion, trtllmYamlKeys, versionsWithFlag } from './flag-tables';
import { ENGINE_IDS } from './types';

const errors = (engine: 'vllm' | 'sglang' | 'trtllm', version: string, args: string[]) =>
  extraArgsSyntax(engine, version, args).issues.filter((i) => i.severity === 'error').map((i) => i.message);

describe('the generated flag tables', () => {
  it('cover every version an adapter offers, each read at a recorded commit', () => {
    for (const engine of ENGINE_IDS) {
      const adapter = ENGINE_ADAPTERS[engine];
      expect(adapter.knownVersions).toEqual(tableVersions(engine));
      expect(adapter.knownVersions).toContain(adapter.defaultVersion);
      for (const version of adapter.knownVersions) expect(tableSource(engine, version)?.commit, `${engine} ${version}`).toMatch(/^[0-9a-f]{40}$/);
    }
    // The pinned releases: vLLM and SGLang at their release tags; TensorRT-LLM's tag could not be read, and says so.
    expect(tableSource('vllm', '0.11.0')).toMatchObject({ ref: 'tag v0.11.0', exact: true });
    expect(tableSource('sglang', '0.5.3.post3')).toMatchObject({ ref: 'tag v0.5.3.post3', exact: true });
    expect(tableSource('trtllm', '1.2.0rc1')?.exact).toBe(false);
  });

  it('give every name of a flag once per version', () => {
    for (const id of FLAG_TABLE_IDS) {
      for (const version of tableVersions(id)) {
        const names = flagTableAt(id, version).flags.flatMap((f) => f.names);
        expect(new Set(names).size, `${id} ${version}`).toBe(names.length);
      }
    }
  });

  it('know what the issue reports the hand-typed lists got wrong', () => {
    // vLLM 0.11.0 has --enable-lora-bias and bfloat16 KV caches; the others came after it.
    expect(errors('vllm', '0.11.0', ['--enable-lora-bias', '--kv-cache-dtype', 'bfloat16'])).toEqual([]);
    expect(errors('vllm', '0.11.0', ['--aggregate-engine-logging'])).toEqual(['unknown flag: --aggregate-engine-logging (vllm serve 0.11.0 does not have it: it was added in 0.11.1)']);
    expect(errors('vllm', '0.11.0', ['--all2all-backend', 'naive', '--enable-mm-embeds'])).toHaveLength(2);
    // Real commands of later releases pass at those releases.
    expect(errors('vllm', '0.17.1', ['--performance-mode', 'throughput'])).toEqual([]);
    expect(errors('sglang', '0.5.5.post1', ['--nsa-prefill-backend', 'flashmla_sparse'])).toEqual([]);
    // SGLang renamed --oltp-traces-endpoint to --otlp-traces-endpoint in 0.5.4.post2.
    expect(errors('sglang', '0.5.3.post3', ['--oltp-traces-endpoint', 'x'])).toEqual([]);
    expect(errors('sglang', '0.5.5', ['--oltp-traces-endpoint', 'x'])).toEqual(['unknown flag: --oltp-traces-endpoint (sglang.launch_server 0.5.5 does not have it: it was removed after 0.5.4.post1)']);
    // trtllm-serve gained --tool_parser after 1.2.0rc1.
    expect(errors('trtllm', '1.2.0rc1', ['--tool_parser', 'qwen3'])).toEqual(['unknown flag: --tool_parser']);
  });

  it('refuse a flag in the release after the one that had it, naming where it exists', () => {
    expect(errors('vllm', '0.11.0', ['--enable-lora-bias'])).toEqual([]);
    expect(errors('vllm', '0.11.1', ['--enable-lora-bias'])).toEqual(['unknown flag: --enable-lora-bias (vllm serve 0.11.1 does not have it: it was removed after 0.11.0)']);
    expect(versionsWithFlag('vllm', '--enable-lora-bias')).toEqual(['0.11.0']);
  });

  it('check values against the parser’s choices, with argparse’s own words', () => {
    expect(errors('sglang', '0.5.3.post3', ['--attention-backend', 'tritn'])).toEqual([
      "argument --attention-backend: invalid choice: 'tritn' (choose from 'triton', 'torch_native', 'flex_attention', 'nsa', 'cutlass_mla', 'fa3', 'fa4', 'flashinfer', 'flashmla', 'trtllm_mla', 'trtllm_mha', 'dual_chunk_flash_attn', 'aiter', 'wave', 'intel_amx', 'ascend')",
    ]);
    expect(errors('vllm', '0.11.0', ['--kv-cache-dtype=fp4'])[0]).toMatch(/^argument --kv-cache-dtype: invalid choice: 'fp4'/);
  });

  it('print each flag with its names, arity and choices', () => {
    const flags = printedFlags('vllm', '0.11.0');
    expect(flags.find((f) => f.names[0] === '--tensor-parallel-size')).toEqual({ names: ['--tensor-parallel-size', '-tp'], arity: 'one' });
    expect(flags.find((f) => f.names.includes('--enable-prefix-caching'))).toMatchObject({ arity: 'negatable' });
    expect(printedFlags('vllm-bench', '0.11.0').some((f) => f.names.includes('--max-concurrency'))).toBe(true);
  });

  it('fall back to the nearest release not newer than an unknown one', () => {
    expect(tabledVersion('vllm', '0.12.5')).toBe('0.12.0');
    expect(tabledVersion('vllm', '0.10.0')).toBe('0.11.0');
  });

  it('list the options-file keys TensorRT-LLM accepts', () => {
    const keys = trtllmYamlKeys('1.2.0rc1').map((k) => k.name);
    expect(keys).toEqual(expect.arrayContaining(['kv_cache_config', 'cuda_graph_config', 'speculative_config', 'attn_backend', 'torch_compile_config']));
  });
});
