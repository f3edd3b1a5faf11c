import { describe, expect, it } from 'vitest';
import { initialDraft, type WizardDraft } from './draft';
import { isLayoutStage, layoutCandidate, layoutFieldsOf, layoutOnEngines, layoutPatch, layoutStage, withLayout, type LayoutFields } from './layout-draft';

const fields = (sizes: Partial<LayoutFields['sizes']>, more: Partial<Omit<LayoutFields, 'sizes'>> = {}): LayoutFields => ({
  sizes: { tensorParallelSize: '', pipelineParallelSize: '', dataParallelSize: '', expertParallelSize: '', decodeContextParallelSize: '', ...sizes },
  dpAttention: false,
  moeAllToAllBackend: '',
  ...more,
});

function draftWith(modelId: string, engines: [string, string][]): WizardDraft {
  const d = initialDraft();
  return { ...d, modelId, engines: d.engines.map((e) => {
    const on = engines.find(([id]) => id === e.engine);
    return on ? { ...e, enabled: true, version: on[1] } : e;
  }) };
}

describe('layout candidates', () => {
  it('reads a candidate that sets only the layout, and leaves any other as JSON', () => {
    expect(layoutFieldsOf({ config: '{"tensorParallelSize":4,"dataParallelSize":2,"dpAttention":true}', variant: '' })).toEqual(fields({ tensorParallelSize: '4', dataParallelSize: '2' }, { dpAttention: true }));
    expect(layoutFieldsOf({ config: '{"tensorParallelSize":4,"maxModelLen":8192}', variant: '' })).toBeNull();
    expect(layoutFieldsOf({ config: '{"tensorParallelSize":4}', variant: 'fp8' })).toBeNull();
    expect(layoutFieldsOf({ config: 'not json', variant: '' })).toBeNull();
  });

  it('writes the typed fields back as settings, names the candidate after its layout, and keeps a name the user gave', () => {
    const c = layoutCandidate(1);
    expect(c).toMatchObject({ id: 'tp1', label: 'TP1', config: '{"tensorParallelSize":1}' });
    const tp4dp2 = withLayout(c, fields({ tensorParallelSize: '4', dataParallelSize: '2' }));
    expect(tp4dp2).toMatchObject({ id: 'tp4xdp2', label: 'TP4×DP2', config: '{"tensorParallelSize":4,"dataParallelSize":2}' });
    const named = withLayout({ ...tp4dp2, label: 'wide' }, fields({ tensorParallelSize: '8' }));
    expect(named).toMatchObject({ label: 'wide', id: 'tp4xdp2', config: '{"tensorParallelSize":8}' });
    // A size that is not a whole number stays as typed, for the schema to name.
    expect(layoutPatch(fields({ tensorParallelSize: 'four' }))).toEqual({ tensorParallelSize: 'four' });
  });

  it('makes a parallelism stage that the editor recognises', () => {
    const stage = layoutStage('Parallelism', []);
    expect(stage).toMatchObject({ id: 'parallelism', label: 'Parallelism' });
    expect(isLayoutStage(stage)).toBe(true);
    expect(layoutStage('Parallelism', [stage]).id).toBe('parallelism-2');
    expect(isLayoutStage({ candidates: [...stage.candidates, { key: 'k', id: 'x', label: 'x', config: '{"kvCacheDtype":"fp8"}', variant: '' }] })).toBe(false);
  });
});

describe('a layout on each chosen engine', () => {
  it('says the GPUs each engine gives one server', () => {
    const d = draftWith('Qwen/Qwen3-30B-A3B', [['vllm', '0.11.0'], ['sglang', '0.5.5.post1']]);
    const on = layoutOnEngines(d, fields({ tensorParallelSize: '8', dataParallelSize: '8', expertParallelSize: '8' }, { dpAttention: true }));
    // vLLM has no DP attention switch; SGLang's DP ranks share the TP GPUs.
    expect(on?.map((e) => [e.engine, e.gpus, e.refusal?.code ?? null])).toEqual([
      ['vllm', 64, 'knobs-unsupported'],
      ['sglang', 8, null],
    ]);
    const plain = layoutOnEngines(d, fields({ tensorParallelSize: '4', pipelineParallelSize: '2' }));
    expect(plain?.map((e) => e.gpus)).toEqual([8, 8]);
  });

  it('refuses inline what the pre-flight will refuse, against the model’s shape', () => {
    const d = draftWith('Qwen/Qwen3-14B', [['vllm', '0.11.0']]);
    expect(layoutOnEngines(d, fields({ tensorParallelSize: '3' }))?.[0]?.refusal).toEqual({ code: 'heads-indivisible', engine: 'vllm', version: '0.11.0', model: 'Qwen/Qwen3-14B', heads: 40, tp: 3 });
    expect(layoutOnEngines(d, fields({ tensorParallelSize: '4' }))?.[0]?.refusal).toBeNull();
    expect(layoutOnEngines(d, fields({ tensorParallelSize: 'x' }))).toBeNull();
  });
});
