import { describe, expect, it } from 'vitest';
import { getAdapter } from '../engines/adapters';
import { ENGINE_IDS } from '../engines/types';
import { defaultStages } from './defaults';
import { applyPatch } from './planner';
import { GOALS, StageSchema, StudyDefinitionSchema, type ModelVariant } from './study';

const QWEN3_8B = {
  id: 'Qwen/Qwen3-8B',
  variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', label: 'FP8 checkpoint', precision: 'fp8', fp8BlockScaled: true }] as ModelVariant[],
};
const QWEN3_32B = {
  id: 'Qwen/Qwen3-32B',
  variants: [
    { id: 'fp8', model: 'Qwen/Qwen3-32B-FP8', precision: 'fp8', fp8BlockScaled: true },
    { id: 'awq', model: 'Qwen/Qwen3-32B-AWQ', precision: 'awq' },
  ] as ModelVariant[],
};

describe('defaultStages', () => {
  it("latency on SGLang: Study A's stages in its order, labelled with SGLang's flags", () => {
    const stages = defaultStages('latency', 'sglang', QWEN3_8B);
    expect(stages.map((s) => s.id)).toEqual(['cuda-graph', 'quantization', 'attention-backend', 'speculative', 'torch-compile']);
    expect(stages[0]?.candidates).toEqual([{ id: 'bs8', label: '--cuda-graph-max-bs 8', config: { cudaGraphMaxBatchSize: 8 } }]);
    expect(stages[1]).toEqual({ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint', config: {}, variant: 'fp8' }] });
    expect(stages[2]?.candidates.map((c) => c.label)).toEqual(['--attention-backend triton', '--attention-backend flashinfer']);
    expect(stages[4]?.candidates.map((c) => c.label)).toEqual(['--enable-torch-compile']);
    expect(stages.filter((s) => s.id !== 'quantization').every((s) => s.engines?.join() === 'sglang')).toBe(true);
  });

  it("latency on SGLang: the reference studies' EAGLE3 grid, both draft heads, with the engine's defaults", () => {
    const spec = defaultStages('latency', 'sglang', QWEN3_8B).find((s) => s.id === 'speculative');
    // Per draft head: defaults + 3 chains (top-k 1) + 3 steps × 2 top-k × 4 draft-token counts.
    expect(spec?.candidates).toHaveLength(2 * (1 + 3 + 24));
    const best = spec?.candidates.find((c) => c.id === 'tengyunw-s4-k4-t16');
    expect(best?.label).toBe(
      '--speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
    expect(spec?.candidates.find((c) => c.id === 'angelslim-defaults')?.config).toEqual({ speculative: { algorithm: 'eagle3', draftModel: 'AngelSlim/Qwen3-8B_eagle3' } });
    expect(spec?.candidates.some((c) => c.id === 'tengyunw-s2-k1-t3')).toBe(true);
    expect(spec?.candidates.some((c) => c.id === 'tengyunw-s2-k1-t8')).toBe(false);
  });

  it('latency on vLLM: its own spellings, a chain-only EAGLE3 grid and no torch.compile stage (on by default)', () => {
    const stages = defaultStages('latency', 'vllm', QWEN3_8B);
    expect(stages.map((s) => s.id)).toEqual(['cuda-graph', 'quantization', 'attention-backend', 'speculative']);
    expect(stages[0]?.candidates[0]?.label).toBe('--cuda-graph-sizes 8');
    expect(stages[2]?.candidates.map((c) => c.label)).toEqual(['VLLM_ATTENTION_BACKEND=FLASHINFER', 'VLLM_ATTENTION_BACKEND=TRITON_ATTN']);
    const spec = stages[3]?.candidates ?? [];
    // No "engine defaults" EAGLE3 candidate: vLLM refuses EAGLE3 without num_speculative_tokens (vllm/config/speculative.py).
    expect(spec.map((c) => c.id)).toEqual(['tengyunw-s2', 'tengyunw-s4', 'tengyunw-s8', 'angelslim-s2', 'angelslim-s4', 'angelslim-s8']);
  });

  it('labels candidates with the flags of the study’s engine version', () => {
    expect(defaultStages('latency', 'vllm', QWEN3_8B, '0.12.0')[0]?.candidates[0]?.label).toBe('--max-cudagraph-capture-size 8');
    // From 0.13.0 the backend is a flag; from 0.15.0 vLLM no longer reads VLLM_ATTENTION_BACKEND at all.
    expect(defaultStages('latency', 'vllm', QWEN3_8B, '0.15.0')[2]?.candidates.map((c) => c.label)).toEqual(['--attention-backend FLASHINFER', '--attention-backend TRITON_ATTN']);
  });

  it("throughput: Study B's quantization variants and max batched tokens", () => {
    const stages = defaultStages('throughput', 'trtllm', QWEN3_32B);
    expect(stages.map((s) => s.id)).toEqual(['quantization', 'max-batched-tokens']);
    expect(stages[0]?.candidates.map((c) => c.variant)).toEqual(['fp8', 'awq']);
    expect(stages[0]?.engines).toBeUndefined();
    expect(stages[1]?.candidates.map((c) => c.label)).toEqual(['--max_num_tokens=16384', '--max_num_tokens=32768']);
    expect(defaultStages('throughput', 'sglang', QWEN3_32B)[1]?.candidates.map((c) => c.label)).toEqual(['--chunked-prefill-size 16384', '--chunked-prefill-size 32768']);
  });

  it('offers load-time FP8 only where the engine has a flag for it, and no EAGLE3 without a known draft head', () => {
    const plain = { id: 'someone/Model-7B', variants: [] };
    expect(defaultStages('latency', 'vllm', plain).find((s) => s.id === 'quantization')?.candidates[0]).toMatchObject({ label: '--quantization fp8', config: { quantization: 'fp8' } });
    expect(defaultStages('latency', 'trtllm', plain).map((s) => s.id)).toEqual(['cuda-graph', 'attention-backend', 'torch-compile']);
    expect(defaultStages('latency', 'sglang', plain).some((s) => s.id === 'speculative')).toBe(false);
  });

  it('only proposes settings the adapter can express, as valid stages of a study', () => {
    for (const goal of GOALS) {
      for (const engine of ENGINE_IDS) {
        const stages = defaultStages(goal, engine, QWEN3_8B);
        expect(stages.length).toBeGreaterThan(0);
        const adapter = getAdapter(engine);
        for (const stage of stages) {
          expect(StageSchema.safeParse(stage).success).toBe(true);
          for (const c of stage.candidates) {
            const newest = adapter.knownVersions.at(-1) as string;
            expect(adapter.buildArgv(applyPatch({ model: 'm', extraArgs: [], env: {} }, c.config), newest).unsupported, `${engine} ${stage.id} ${c.id}`).toEqual([]);
          }
        }
        const parsed = StudyDefinitionSchema.safeParse({
          name: 'defaults',
          model: QWEN3_8B,
          hosts: [{ hostId: 'lab' }],
          goal: { kind: goal },
          engines: [{ engine, version: adapter.knownVersions[0] }],
          stages,
          workloads: { primary: { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 10 } },
        });
        expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      }
    }
  });
});
