import { describe, expect, it } from 'vitest';
import { parseServerConfig, type ServerConfigInput } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import type { PlanContext } from './plan-context';
import { knownModel, nvlinkWarning, preflight } from './preflight';
import { StudyDefinitionSchema, type StudyDefinition, type StudyDefinitionInput } from './study';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };
const A100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' }] };
const L4: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA L4', memoryMiB: 23034, computeCapability: '8.9' }] };

function study(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'preflight',
    model: {
      id: 'Qwen/Qwen3-32B',
      variants: [
        { id: 'fp8', model: 'Qwen/Qwen3-32B-FP8', precision: 'fp8', fp8BlockScaled: true },
        { id: 'awq', model: 'Qwen/Qwen3-32B-AWQ', precision: 'awq' },
      ],
    },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'throughput' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    workloads: {
      primary: { id: 'sharegpt', dataset: { kind: 'sharegpt' }, numPrompts: 1000 },
      generalisation: [
        { id: 'random-32000-100', dataset: { kind: 'random', inputLen: 32000, outputLen: 100 }, numPrompts: 100, seed: 42 },
        { id: 'random-ratio', dataset: { kind: 'random', inputLen: 1000, outputLen: 100, rangeRatio: 0.5, prefixLen: 24 }, numPrompts: 10 },
      ],
    },
    ...overrides,
  });
}

const check = (engine: EngineId, version: string, config: ServerConfigInput, ctx: PlanContext = A100, workloadId = 'sharegpt', s = study()) =>
  preflight(s, { engine, version, config: parseServerConfig(config), workloadId }, ctx);

describe('preflight', () => {
  it('passes what can run', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 32768 })).toBeNull();
    expect(check('trtllm', '1.2.0rc1', { model: 'Qwen/Qwen3-32B-AWQ' })).toBeNull();
  });

  it('refuses settings the engine version has no flag for, with the adapter\'s reason', () => {
    const reason = check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', speculative: { algorithm: 'eagle3', draftModel: 'a/b', numSteps: 4, eagleTopK: 4 } });
    expect(reason).toMatch(/^vLLM 0\.11\.0 cannot apply speculative\.eagleTopK/);
    expect(check('sglang', '0.5.3.post3', { model: 'Qwen/Qwen3-32B', attentionBackend: 'FLASH_ATTN' })).toMatch(/attentionBackend .*not accepted by SGLang 0\.5\.3\.post3/);
  });

  it('refuses extra arguments the engine would reject', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', extraArgs: ['--no-such-flag'] })).toMatch(/refuse the extra arguments/);
  });

  it('refuses TensorRT-LLM with a block-scaled FP8 checkpoint below sm 8.9, naming the GPU and its sm', () => {
    const reason = check('trtllm', '1.2.0rc1', { model: 'Qwen/Qwen3-32B-FP8' });
    expect(reason).toContain('NVIDIA A100-SXM4-80GB (sm 8.0)');
    expect(reason).toContain('sm 8.9 or newer');
    expect(check('trtllm', '1.2.0rc1', { model: 'Qwen/Qwen3-32B-FP8' }, H100)).toBeNull();
    // Other engines run it on sm80 (weight-only FP8).
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B-FP8', maxModelLen: 32768 })).toBeNull();
  });

  it('reads -FP8 repos as block-scaled unless their variant says otherwise', () => {
    const s = study({ model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'tensor', model: 'org/Qwen3-8B-FP8', fp8BlockScaled: false }] } });
    expect(check('trtllm', '1.2.0rc1', { model: 'Qwen/Qwen3-8B-FP8' }, A100, 'sharegpt', s)).toMatch(/sm 8\.0/);
    expect(check('trtllm', '1.2.0rc1', { model: 'org/Qwen3-8B-FP8' }, A100, 'sharegpt', s)).toBeNull();
  });

  it('refuses weights that cannot fit the GPU at their precision and TP, in GB', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B' }, H100)).toBeNull();
    const llama = check('vllm', '0.11.0', { model: 'meta-llama/Llama-3.1-70B-Instruct' }, H100);
    expect(llama).toContain('141.1 GB per GPU at TP1');
    expect(llama).toContain('NVIDIA H100 80GB HBM3');
    // Two GPUs at TP 2 halve it to 70.6 GB each, which fits.
    const two: PlanContext = { gpus: [...H100.gpus, { ...(H100.gpus[0] as PlanContext['gpus'][number]), index: '1' }] };
    const wide = study({ gpusPerTrial: 2 });
    expect(check('vllm', '0.11.0', { model: 'meta-llama/Llama-3.1-70B-Instruct', tensorParallelSize: 2 }, two, 'sharegpt', wide)).toBeNull();
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B' }, L4)).toMatch(/65\.5 GB per GPU .* GB/);
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B-AWQ' }, L4)).toBeNull();
  });

  it('counts a lower memory fraction against the fit', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', gpuMemoryFraction: 0.5 }, H100)).toMatch(/more than vLLM 0\.11\.0 can use/);
  });

  it('skips the fit check for models it does not know', () => {
    expect(check('vllm', '0.11.0', { model: 'someone/Giant-400B' }, L4)).toBeNull();
    expect(knownModel('Qwen/Qwen3-8B-FP8')?.params).toBe(8.19e9);
    expect(knownModel('/models/Qwen3-14B')?.params).toBe(14.77e9);
    // The dated instruct checkpoints of the MoE studies are the same model.
    expect(knownModel('Qwen/Qwen3-235B-A22B-Instruct-2507-FP8')?.moe?.experts).toBe(128);
    expect(knownModel('Qwen/Qwen3-30B-A3B-Thinking-2507')?.layers).toBe(48);
    expect(knownModel('someone/Giant-400B')).toBeUndefined();
  });

  it('refuses a layout that needs more GPUs than any host has', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 2 }, H100)).toMatch(/most any host offers is 1/);
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 8 }, H100)).toMatch(/8 GPUs/);
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B' }, H100, 'sharegpt', study({ gpusPerTrial: 2 }))).toMatch(/most any host offers is 1/);
  });

  it('refuses workloads whose requests exceed the maximum model length', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 32768 }, H100, 'random-32000-100')).toBeNull();
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 16384 }, H100, 'random-32000-100')).toBe(
      'workload random-32000-100 sends requests of up to 32100 tokens (prompt + output), more than the configured maximum model length of 16384',
    );
    // Range ratio 0.5: up to 1500 in + 24 prefix + 150 out.
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 1673 }, H100, 'random-ratio')).toMatch(/up to 1674 tokens/);
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 1674 }, H100, 'random-ratio')).toBeNull();
    // vLLM's ShareGPT filter keeps prompt + output up to 2048 tokens.
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 2048 }, H100)).toBeNull();
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', maxModelLen: 1024 }, H100)).toMatch(/up to 2048 tokens/);
    // Without a configured length, the model's own context (40960 for Qwen3) applies.
    const s = study({ workloads: { primary: { id: 'long', dataset: { kind: 'random', inputLen: 40000, outputLen: 1000 }, numPrompts: 1 }, generalisation: [] } });
    expect(check('sglang', '0.5.3.post3', { model: 'Qwen/Qwen3-32B' }, H100, 'long', s)).toMatch(/Qwen\/Qwen3-32B's context length of 40960/);
  });
});

const box = (count: number, name: string, memoryMiB: number, computeCapability: string): PlanContext => ({
  gpus: Array.from({ length: count }, (_, i) => ({ hostId: 'lab', index: String(i), name, memoryMiB, computeCapability })),
});
// nvidia-smi's memory.total for each: H100 SXM 81559 MiB, H200 143771 MiB.
const H100x8 = box(8, 'NVIDIA H100 80GB HBM3', 81559, '9.0');
const H200x8 = box(8, 'NVIDIA H200', 143771, '9.0');

describe('preflight of parallel layouts', () => {
  it('knows the MoE models by their checkpoints, counting every expert', () => {
    expect(knownModel('openai/gpt-oss-120b')).toMatchObject({ params: 116.8e9, heads: 64, layers: 36, moe: { experts: 128, perToken: 4 }, nativePrecision: 'mxfp4' });
    expect(knownModel('Qwen/Qwen3-235B-A22B-FP8')).toMatchObject({ params: 235e9, moe: { experts: 128 } });
    expect(knownModel('deepseek-ai/DeepSeek-V3-0324')).toMatchObject({ layers: 61, moe: { experts: 256 } });
    expect(knownModel('zai-org/GLM-4.5-Air')?.heads).toBe(96);
  });

  it('fits gpt-oss-120b on one H100 in its own MXFP4, and not in BF16', () => {
    // MXFP4 experts (114.7B params at 4.25 bits) and BF16 for the rest: about 65 GB, under 0.9 × 85.5 GB.
    expect(check('vllm', '0.11.0', { model: 'openai/gpt-oss-120b' }, H100, 'sharegpt', study({ model: { id: 'openai/gpt-oss-120b' } }))).toBeNull();
    const bf16 = check('vllm', '0.11.0', { model: 'openai/gpt-oss-120b' }, H100, 'sharegpt', study({ model: { id: 'openai/gpt-oss-120b', precision: 'bf16' } }));
    expect(bf16).toMatch(/take 233\.6 GB per GPU at TP1/);
  });

  it('splits the weights over the layout: TP × PP for everything, and the experts also over vLLM’s DP ranks', () => {
    const s = study({ model: { id: 'Qwen/Qwen3-235B-A22B' } });
    // 470 GB of BF16: TP4 leaves 117.5 GB per GPU, TP4 × PP2 58.8 GB.
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-235B-A22B', tensorParallelSize: 4 }, H100x8, 'sharegpt', s)).toMatch(/117\.5 GB per GPU at TP4,/);
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-235B-A22B', tensorParallelSize: 4, pipelineParallelSize: 2 }, H100x8, 'sharegpt', s)).toBeNull();
    // TP4 × DP2: attention per TP4 (about 4 GB of the 16 GB outside the experts) and the experts over 8 GPUs.
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-235B-A22B', tensorParallelSize: 4, dataParallelSize: 2 }, H100x8, 'sharegpt', s)).toBeNull();
    // SGLang's DP ranks without DP attention are whole servers: TP4 each, so it does not fit.
    expect(check('sglang', '0.5.5.post1', { model: 'Qwen/Qwen3-235B-A22B', tensorParallelSize: 4, dataParallelSize: 2 }, H100x8, 'sharegpt', s)).toMatch(/at TP4×DP2,/);
  });

  it('fits DeepSeek-V3 in FP8 on eight H200s, not on eight H100s', () => {
    const s = study({ model: { id: 'deepseek-ai/DeepSeek-V3' } });
    expect(check('sglang', '0.5.5.post1', { model: 'deepseek-ai/DeepSeek-V3', tensorParallelSize: 8 }, H200x8, 'sharegpt', s)).toBeNull();
    expect(check('sglang', '0.5.5.post1', { model: 'deepseek-ai/DeepSeek-V3', tensorParallelSize: 8 }, H100x8, 'sharegpt', s)).toMatch(/fp8 at 1\.00 bytes each\) take 83\.9 GB per GPU at TP8/);
  });

  it('refuses the layouts the engines refuse at start-up, with their own conditions', () => {
    const at = (engine: EngineId, version: string, config: ServerConfigInput) => check(engine, version, config, H100x8, 'sharegpt', study({ model: { id: config.model } }));
    expect(at('vllm', '0.11.0', { model: 'Qwen/Qwen3-14B', tensorParallelSize: 3 })).toMatch(/40 attention heads, which vLLM 0\.11\.0 cannot split evenly over an attention tensor-parallel size of 3/);
    // SGLang splits attention over TP / DP with DP attention: TP8 with DP attention 8 leaves one head group per GPU.
    expect(at('sglang', '0.5.5.post1', { model: 'Qwen/Qwen3-30B-A3B', tensorParallelSize: 8, dataParallelSize: 8, dpAttention: true, expertParallelSize: 8 })).toBeNull();
    expect(at('sglang', '0.5.5.post1', { model: 'Qwen/Qwen3-30B-A3B', tensorParallelSize: 6, dataParallelSize: 4, dpAttention: true })).toMatch(/tensor parallel size 6 must be divisible by data parallel size 4/);
    expect(at('trtllm', '1.2.0rc1', { model: 'Qwen/Qwen3-0.6B', pipelineParallelSize: 32 })).toMatch(/28 layers of Qwen\/Qwen3-0\.6B into 32 pipeline stages/);
    // vLLM spreads 28 layers over 32 stages without a word (distributed/utils.py get_pp_indices); the host is the limit.
    expect(at('vllm', '0.11.0', { model: 'Qwen/Qwen3-0.6B', pipelineParallelSize: 32 })).toMatch(/needs 32 GPUs on one host/);
    expect(at('sglang', '0.5.5.post1', { model: 'zai-org/GLM-4.5-Air', tensorParallelSize: 6, expertParallelSize: 6 })).toMatch(/128 experts of zai-org\/GLM-4\.5-Air evenly over the expert-parallel size, and 6 does not divide 128/);
    // vLLM gives the remainder to the last rank (fused_moe/layer.py determine_expert_map): TP6 × EP6 is not refused for it.
    expect(at('vllm', '0.11.0', { model: 'zai-org/GLM-4.5-Air', tensorParallelSize: 6, expertParallelSize: 6 })).toBeNull();
    expect(at('sglang', '0.5.5.post1', { model: 'Qwen/Qwen3-30B-A3B', tensorParallelSize: 4, expertParallelSize: 8 })).toMatch(/groups of 8 out of the tensor-parallel group of 4 GPUs/);
    expect(at('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 4, decodeContextParallelSize: 3 })).toMatch(/tensor parallel size 4 must be divisible by decode context parallel size 3/);
    expect(at('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 2, expertParallelSize: 2 })).toMatch(/has no experts/);
    // SGLang takes --ep-size on a dense model without refusing it.
    expect(at('sglang', '0.5.5.post1', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 2, expertParallelSize: 2 })).toBeNull();
  });
});

describe('NVLink warning', () => {
  // The link matrices of tests/fixtures/nvidia-smi/h100-8gpu-nv18 (every pair NV18) and rtx4090-8gpu-pcie (every pair SYS).
  const matrix = (link: string) => ({ gpus: ['0', '1', '2', '3', '4', '5', '6', '7'], links: Array.from({ length: 8 }, (_, i) => Array.from({ length: 8 }, (_, j) => (i === j ? 'X' : link))) });
  const withTopology = (link: string): PlanContext => ({ ...H100x8, topology: { lab: matrix(link) } });

  it('warns when no host has TP GPUs on NVLink, and only then', () => {
    expect(nvlinkWarning({ tensorParallelSize: 4 }, withTopology('SYS'))).toEqual({ code: 'tp-without-nvlink', tp: 4, hosts: ['lab'] });
    expect(nvlinkWarning({ tensorParallelSize: 4 }, withTopology('NV18'))).toBeNull();
    expect(nvlinkWarning({ tensorParallelSize: 1 }, withTopology('SYS'))).toBeNull();
    // Without a link matrix nothing is known, so nothing is said.
    expect(nvlinkWarning({ tensorParallelSize: 4 }, H100x8)).toBeNull();
    // Only the study's GPUs count: two of them cannot hold TP4.
    expect(nvlinkWarning({ tensorParallelSize: 4 }, { gpus: H100x8.gpus.slice(0, 2), topology: { lab: matrix('NV18') } })).toMatchObject({ code: 'tp-without-nvlink' });
  });

  it('does not refuse the layout: the engine runs it over PCIe', () => {
    expect(check('vllm', '0.11.0', { model: 'Qwen/Qwen3-32B', tensorParallelSize: 4 }, withTopology('SYS'))).toBeNull();
  });
});
