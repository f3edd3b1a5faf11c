import { describe, expect, it } from 'vitest';
import latencyExampleText from '../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import throughputExampleText from '../../../../examples/qwen3-32b-throughput-a100.servelab?raw';
import { WORKLOAD_PRESETS } from '../../../shared/bench/workload';
import { StudyDefinitionSchema } from '../../../shared/study/study';
import { currentMessages, setLocale } from '../i18n';
import { assemble } from './assemble';
import {
  draftFromDefinition,
  initialDraft,
  mergedDefaultStages,
  rowKey,
  stageDrafts,
  suggestedVariants,
  withFreshStages,
  workloadDraft,
  type WizardDraft,
} from './draft';
import { plainMessage } from './issue-text';

const isDemo = (hostId: string) => hostId === 'demo-lab';

function draftFor(over: Partial<WizardDraft>): WizardDraft {
  return { ...initialDraft(), ...over };
}

describe('wizard model', () => {
  it('assembles the throughput example from what the user would enter', () => {
    // The wizard has no fields for translations: what a user enters is the study as written.
    const { translations: _translations, ...example } = StudyDefinitionSchema.parse((JSON.parse(throughputExampleText) as { study: unknown }).study);
    const engines = initialDraft().engines.map((e) => {
      if (e.engine === 'vllm') return { ...e, enabled: true, version: '0.11.0', maxModelLen: '32768' };
      if (e.engine === 'sglang') return { ...e, enabled: true, version: '0.5.5.post1' };
      return { ...e, enabled: true, version: '1.2.0rc1', maxModelLen: '40960', settings: '{"chunkedPrefill": true}' };
    });
    const custom = example.workloads.generalisation.slice(0, 2).map((w) => ({
      ...workloadDraft(WORKLOAD_PRESETS.find((p) => p.id === w.id)),
      numPrompts: String(w.numPrompts),
      label: w.label ?? '',
    }));
    const draft = withFreshStages(
      draftFor({
        name: example.name,
        description: example.description ?? '',
        modelId: 'Qwen/Qwen3-32B',
        precision: 'bf16',
        variants: suggestedVariants('Qwen/Qwen3-32B').map((v) => ({ key: rowKey(), ...v })),
        hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
        demoGpu: 'a100',
        goal: 'throughput',
        marginPct: '1',
        engines,
        tuned: ['trtllm'],
        primary: workloadDraft(WORKLOAD_PRESETS.find((p) => p.id === 'sharegpt-1000-unbounded')),
        generalisationCustom: custom,
        generalisationPresets: ['random-2000-100', 'random-128-4'],
      }),
    );
    const { parsed, issues } = assemble(draft, isDemo, currentMessages());
    expect(issues).toEqual([]);
    // The example lists its scenarios with the two shortened ones first; the wizard lists presets, then custom ones.
    const reorder = <T>(items: T[]) => [...items.slice(2), ...items.slice(0, 2)];
    expect(parsed).toEqual({ ...example, workloads: { ...example.workloads, generalisation: reorder(example.workloads.generalisation) } });
  });

  it('merges several engines’ default stages without clashing ids, sharing the checkpoint stage', () => {
    const draft = draftFor({
      modelId: 'Qwen/Qwen3-8B',
      variants: suggestedVariants('Qwen/Qwen3-8B').map((v) => ({ key: rowKey(), ...v })),
      tuned: ['vllm', 'sglang'],
    });
    const stages = mergedDefaultStages(draft);
    const ids = stages.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id === 'quantization')).toHaveLength(1);
    expect(ids).toContain('attention-backend-vllm');
    expect(ids).toContain('attention-backend-sglang');
    expect(ids.indexOf('attention-backend-sglang')).toBe(ids.indexOf('attention-backend-vllm') + 1);
    expect(stages.find((s) => s.id === 'torch-compile')?.engines).toEqual(['sglang']);
  });

  it('places schema issues on the step and field they belong to', () => {
    const base = withFreshStages(
      draftFor({
        name: 'x',
        modelId: 'Qwen/Qwen3-8B',
        hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
        engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'sglang' })),
        tuned: ['sglang'],
      }),
    );
    expect(assemble(base, isDemo, currentMessages()).issues).toEqual([]);
    const twice = { ...base, stages: [...base.stages, ...stageDrafts([{ id: 'cuda-graph', label: 'Again', candidates: [{ id: 'a', label: 'A', config: {}, variant: 'nope' }] }])] };
    const n = twice.stages.length - 1;
    expect(assemble(twice, isDemo, currentMessages()).issues).toEqual([
      { step: 'stages', field: `stages.${n}.id`, message: `Stage ${n + 1} id "cuda-graph" is used twice or reserved` },
      { step: 'stages', field: `stages.${n}.candidates.0.variant`, message: `Stage ${n + 1} candidate 1 variant names no variant of the model (none defined)` },
    ]);
    expect(assemble({ ...base, name: '', demoCount: '0' }, isDemo, currentMessages()).issues).toEqual([
      { step: 'review', field: 'name', message: 'Study name is required' },
      { step: 'hardware', field: 'demoCount', message: 'Simulated GPU count must be at least 1' },
    ]);
  });

  it('checks extra arguments against the chosen engine version’s flags, naming the version that lacks one', () => {
    const base = withFreshStages(
      draftFor({
        name: 'x',
        modelId: 'Qwen/Qwen3-8B',
        hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
        engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'vllm', version: '0.11.0', extraArgs: `--enable-prefix-caching --speculative-config '{"method": "ngram", "num_speculative_tokens": 3}'` })),
        tuned: ['vllm'],
      }),
    );
    const ok = assemble(base, isDemo, currentMessages());
    expect(ok.issues).toEqual([]);
    expect(ok.definition.engines?.[0]?.config?.extraArgs).toEqual(['--enable-prefix-caching', '--speculative-config', '{"method": "ngram", "num_speculative_tokens": 3}']);
    const later = { ...base, engines: base.engines.map((e) => (e.engine === 'vllm' ? { ...e, extraArgs: '--performance-mode throughput' } : e)) };
    expect(assemble(later, isDemo, currentMessages()).issues).toEqual([
      { step: 'engines', field: 'engines.vllm.extraArgs', message: 'vLLM extra arguments are refused: unknown flag: --performance-mode (vllm serve 0.11.0 does not have it: it was added in 0.17.0)' },
    ]);
    // The same words pass at the release that has the flag, and the draft reads them back from the definition.
    const newer = { ...later, engines: later.engines.map((e) => (e.engine === 'vllm' ? { ...e, version: '0.17.1' } : e)) };
    const assembled = assemble(newer, isDemo, currentMessages());
    expect(assembled.issues).toEqual([]);
    expect(draftFromDefinition(assembled.parsed!).engines.find((e) => e.engine === 'vllm')?.extraArgs).toBe('--performance-mode throughput');
  });

  it('reads a saved definition back into a draft that assembles to the same definition', () => {
    const examples = [latencyExampleText, throughputExampleText].map((t) => StudyDefinitionSchema.parse((JSON.parse(t) as { study: unknown }).study));
    const made = assemble(
      withFreshStages(
        draftFor({
          name: 'Two hosts, a subset of GPUs',
          description: 'made in the wizard',
          modelId: 'Qwen/Qwen3-8B',
          variants: suggestedVariants('Qwen/Qwen3-8B').map((v) => ({ key: rowKey(), ...v })),
          hosts: [
            { hostId: 'demo-lab', gpus: ['0', '2'], allGpus: ['0', '1', '2', '3'] },
            { hostId: 'h200', gpus: ['1'], allGpus: ['0', '1'] },
          ],
          demoCount: '4',
          slos: [{ key: rowKey(), metric: 'p99_ttft_ms', bound: 'max', value: '250' }],
          engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine !== 'trtllm', maxModelLen: e.engine === 'vllm' ? '8192' : '', settings: e.engine === 'sglang' ? '{"chunkedPrefill": true}' : '' })),
          tuned: ['vllm', 'sglang'],
          generalisationPresets: ['random-128-4'],
          generalisationCustom: [{ ...workloadDraft(undefined), id: 'mine', kind: 'random', inputLen: '64', outputLen: '8', numPrompts: '20', seed: '7' }],
          strategy: 'grid',
          repeats: '2',
          parallelism: '2',
        }),
      ),
      isDemo,
      currentMessages(),
    );
    expect(made.issues).toEqual([]);
    const wizardMade = made.parsed;
    expect(wizardMade).not.toBeNull();
    for (const study of [...examples, wizardMade!]) {
      const draft = draftFromDefinition(study);
      const back = assemble(draft, isDemo, currentMessages());
      expect(back.issues).toEqual([]);
      expect(back.parsed).toEqual(study);
      // The file's stages are kept as they are, not regenerated when a step is visited.
      expect(withFreshStages(draft)).toBe(draft);
    }
    const throughput = draftFromDefinition(examples[1]!);
    expect(throughput.engines.filter((e) => e.enabled).map((e) => e.engine)).toEqual(examples[1]!.engines.map((e) => e.engine));
    expect(draftFromDefinition(wizardMade!).generalisationPresets).toEqual(['random-128-4']);
  });

  it('assembles the goal’s basis: per GPU, or a GPU budget that is the box’s GPUs unless typed, and none for latency', () => {
    const base = withFreshStages(
      draftFor({
        name: 'x',
        modelId: 'Qwen/Qwen3-8B',
        hosts: [{ hostId: 'demo-lab', gpus: ['0', '1', '2', '3', '4', '5', '6', '7'], allGpus: ['0', '1', '2', '3', '4', '5', '6', '7'] }],
        demoCount: '8',
        goal: 'throughput',
        engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'vllm' })),
        tuned: ['vllm'],
      }),
    );
    const goalOf = (over: Partial<WizardDraft>) => assemble({ ...base, ...over }, isDemo, currentMessages());
    expect(goalOf({}).parsed?.goal.basis).toBeUndefined();
    expect(goalOf({ basis: 'per-gpu' }).parsed?.goal).toMatchObject({ basis: 'per-gpu' });
    expect(goalOf({ basis: 'per-gpu' }).parsed?.goal.gpuBudget).toBeUndefined();
    expect(goalOf({ basis: 'gpu-budget' }).parsed?.goal).toMatchObject({ basis: 'gpu-budget', gpuBudget: 8 });
    expect(goalOf({ basis: 'gpu-budget', gpuBudget: '4' }).parsed?.goal).toMatchObject({ basis: 'gpu-budget', gpuBudget: 4 });
    // A latency goal has no basis to choose: what the draft kept from a throughput goal is left out.
    expect(goalOf({ basis: 'gpu-budget', goal: 'latency' }).parsed?.goal).not.toHaveProperty('basis');
    // A budget below the fewest GPUs a trial takes is the schema's problem, placed on the goal step.
    expect(goalOf({ basis: 'gpu-budget', gpuBudget: '2', gpusPerTrial: '4' }).issues).toEqual([
      { step: 'goal', field: 'gpuBudget', message: 'GPU budget is less than gpusPerTrial (4): no configuration fits in it' },
    ]);
    // An SSH host whose inventory is not read yet: nobody knows the box's GPUs, so the budget must be typed.
    expect(goalOf({ basis: 'gpu-budget', hosts: [{ hostId: 'h200', gpus: null, allGpus: null }] }).issues).toEqual([
      { step: 'goal', field: 'gpuBudget', message: "GPU budget is required: the hosts' GPU count is not known yet" },
    ]);
    // And it reads back.
    const made = goalOf({ basis: 'gpu-budget', gpuBudget: '4' }).parsed!;
    expect(draftFromDefinition(made)).toMatchObject({ goal: 'throughput', basis: 'gpu-budget', gpuBudget: '4' });
    expect(assemble(draftFromDefinition(made), isDemo, currentMessages()).parsed).toEqual(made);
  });

  it('says zod’s generic messages the way the schema’s own are said', () => {
    expect(plainMessage('Too big: expected number to be <=8', currentMessages())).toBe('must be at most 8');
    expect(plainMessage('Too small: expected number to be >0', currentMessages())).toBe('must be above 0');
    expect(plainMessage('Invalid input: expected int, received number', currentMessages())).toBe('must be a whole number');
    expect(plainMessage('is required', currentMessages())).toBe('is required');
  });

  it('assembles each arrival kind, ticks the constant-rate sweep, and reads them back', () => {
    const base = withFreshStages(
      draftFor({
        name: 'rates',
        modelId: 'Qwen/Qwen3-8B',
        hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
        engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'vllm' })),
        clientVersion: '0.11.1',
      }),
    );
    const row = (id: string, over: object) => ({ ...workloadDraft(undefined), id, numPrompts: '50', ...over });
    const draft: WizardDraft = {
      ...base,
      primary: row('constant', { arrival: 'constant', requestRate: '8' }),
      generalisationPresets: ['sharegpt-rate1', 'sharegpt-rate16'],
      generalisationCustom: [
        row('gamma', { arrival: 'gamma', requestRate: '4', burstiness: '100' }),
        row('ramp', { arrival: 'ramp', rampStrategy: 'exponential', rampStart: '1', rampEnd: '16' }),
        row('ramp-const', { arrival: 'ramp', rampStart: '2', rampEnd: '8', burstiness: 'inf' }),
        row('poisson', { arrival: 'poisson', requestRate: '2.5' }),
        // A rate typed before switching to "all at once" is not sent.
        row('burst', { arrival: 'burst', requestRate: '3' }),
      ],
    };
    const made = assemble(draft, isDemo, currentMessages());
    expect(made.issues).toEqual([]);
    const arrivals = (w: { requestRate?: number; burstiness?: number | 'inf'; rampUp?: object }) => [w.requestRate, w.burstiness, w.rampUp];
    expect(arrivals(made.parsed!.workloads.primary)).toEqual([8, 'inf', undefined]);
    expect(made.parsed!.workloads.generalisation.map((w) => [w.id, ...arrivals(w)])).toEqual([
      ['sharegpt-rate1', 1, 'inf', undefined],
      ['sharegpt-rate16', 16, 'inf', undefined],
      ['gamma', 4, 100, undefined],
      ['ramp', undefined, undefined, { strategy: 'exponential', startRps: 1, endRps: 16 }],
      ['ramp-const', undefined, 'inf', { strategy: 'linear', startRps: 2, endRps: 8 }],
      ['poisson', 2.5, undefined, undefined],
      ['burst', undefined, undefined, undefined],
    ]);
    expect(made.parsed!.workloads.primary.label).toBe('ShareGPT, 50 prompts, unbounded concurrency, constant 8 req/s');
    const back = draftFromDefinition(made.parsed!);
    expect(back.generalisationPresets).toEqual(['sharegpt-rate1', 'sharegpt-rate16']);
    expect(back.generalisationCustom.map((w) => w.arrival)).toEqual(['gamma', 'ramp', 'ramp', 'poisson', 'burst']);
    expect(assemble(back, isDemo, currentMessages()).parsed).toEqual(made.parsed);
  });

  it('refuses a constant rate on benchmark client 0.11.0 on the arrival field, in the reader’s language', () => {
    const draft = withFreshStages(
      draftFor({
        name: 'rates',
        modelId: 'Qwen/Qwen3-8B',
        hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
        engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'vllm' })),
        clientVersion: '0.11.0',
        primary: { ...workloadDraft(undefined), id: 'c8', arrival: 'constant', requestRate: '8' },
        generalisationCustom: [{ ...workloadDraft(undefined), id: 'r', arrival: 'ramp', rampStart: '8', rampEnd: '2' }],
      }),
    );
    expect(assemble(draft, isDemo, currentMessages()).issues).toEqual([
      {
        step: 'workloads',
        field: 'custom.0.rampEnd',
        message: 'Scenario 1 ramp end rate must be at least the start rate (the client refuses a ramp down)',
      },
      {
        step: 'workloads',
        field: 'primary.burstiness',
        message:
          'Primary workload burstiness cannot be constant with benchmark client 0.11.0, which would send every request at once: choose client 0.11.1 or later (step 7), or Gamma arrivals with a high burstiness',
      },
    ]);
    setLocale('tr');
    try {
      expect(assemble(draft, isDemo, currentMessages()).issues.map((i) => i.message)[1]).toMatch(/benchmark istemcisinin 0\.11\.0 sürümüyle sabit olamaz.*0\.11\.1/);
    } finally {
      setLocale('en');
    }
  });
});
