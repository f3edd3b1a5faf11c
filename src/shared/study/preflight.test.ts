import { describe, expect, it } from 'vitest';
import { parseServerConfig, type ServerConfigInput } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import type { PlanContext } from './plan-context';
import { knownModel, preflight } from './preflight';
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
    expect(llama).toContain('141.1 GB per GPU at TP 1');
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
