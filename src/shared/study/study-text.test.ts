import { describe, expect, it } from 'vitest';
import { StudyDefinitionSchema, type StudyDefinitionInput } from './study';
import { localizedStudyText, translationsStillTrue } from './study-text';

const sharegpt = (c: number) => ({ id: `sharegpt-c${c}`, label: `ShareGPT, 100 prompts, concurrency ${c}`, dataset: { kind: 'sharegpt' as const }, numPrompts: 100, maxConcurrency: c });

function input(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinitionInput {
  return {
    name: 'Qwen3-8B, lowest latency on one H100',
    description: 'Mean latency at low concurrency.',
    model: { id: 'Qwen/Qwen3-8B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', label: 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)', precision: 'fp8' }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'sglang', version: '0.5.3.post3' }],
    stages: [
      { id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)', variant: 'fp8' }] },
      { id: 'attention-backend', label: 'Attention backend', candidates: [{ id: 'triton', label: '--attention-backend triton', config: { attentionBackend: 'triton' } }] },
    ],
    workloads: { primary: sharegpt(4), generalisation: [sharegpt(1)] },
    ...overrides,
  };
}

const turkish = {
  name: 'Qwen3-8B, tek bir H100’de en düşük gecikme',
  stages: { quantization: 'Nicemleme' },
  candidates: { 'quantization/fp8': 'FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)' },
  workloads: { 'sharegpt-c4': 'ShareGPT, 100 prompt, eşzamanlılık 4' },
  variants: { fp8: 'FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)' },
};

function issues(overrides: Partial<StudyDefinitionInput>): string[] {
  const parsed = StudyDefinitionSchema.safeParse(input(overrides));
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('study translations', () => {
  it('accepts a translation of the name, description and labels the study has', () => {
    expect(issues({ translations: { tr: turkish } })).toEqual([]);
  });

  it('refuses a translation key that names no stage, candidate, workload or variant, by its path', () => {
    const found = issues({
      translations: { tr: { stages: { quantisation: 'Nicemleme' }, candidates: { 'quantization/awq': 'AWQ', fp8: 'FP8' }, workloads: { 'sharegpt-c2': 'x' }, variants: { awq: 'AWQ' } } },
    });
    expect(found.map((f) => f.split(':')[0])).toEqual([
      'translations.tr.stages.quantisation',
      'translations.tr.candidates.quantization/awq',
      'translations.tr.candidates.fp8',
      'translations.tr.workloads.sharegpt-c2',
      'translations.tr.variants.awq',
    ]);
    expect(found[0]).toContain('names no stage of the study');
  });

  it('refuses a language the report does not have, an unknown field and an empty label, each by its path', () => {
    const paths = (o: Partial<StudyDefinitionInput>) => issues(o).map((f) => f.split(':')[0]);
    // Unknown keys and an empty label are refused on purpose (hand-written edge cases).
    expect(issues({ translations: { de: { name: 'Qwen3-8B' } } } as never)).toEqual(['translations: Unrecognized key: "de"']);
    expect(issues({ translations: { tr: { title: 'x' } } } as never)).toEqual(['translations.tr: Unrecognized key: "title"']);
    expect(paths({ translations: { tr: { stages: { quantization: '' } } } })).toEqual(['translations.tr.stages.quantization']);
  });

  it('gives the translation where there is one and the written text elsewhere', () => {
    const study = StudyDefinitionSchema.parse(input({ translations: { tr: turkish } }));
    const tr = localizedStudyText(study, 'tr');
    expect(tr.name).toBe(turkish.name);
    expect(tr.description).toBe('Mean latency at low concurrency.');
    expect(tr.stage('quantization')).toBe('Nicemleme');
    expect(tr.stage('attention-backend')).toBe('Attention backend');
    expect(tr.stage('engine')).toBeUndefined();
    expect(tr.candidate('quantization', 'fp8')).toBe('FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)');
    expect(tr.candidate('attention-backend', 'triton')).toBe('--attention-backend triton');
    expect(tr.workload('sharegpt-c4')).toBe('ShareGPT, 100 prompt, eşzamanlılık 4');
    expect(tr.workload('sharegpt-c1')).toBe('ShareGPT, 100 prompts, concurrency 1');
    expect(tr.variant('fp8')).toBe('FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)');
    const en = localizedStudyText(study, 'en');
    expect([en.name, en.stage('quantization'), en.candidate('quantization', 'fp8')]).toEqual(['Qwen3-8B, lowest latency on one H100', 'Quantization', 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)']);
  });

  it('translates the candidate labels a trial label is built of, and leaves the rest as written', () => {
    const tr = localizedStudyText(StudyDefinitionSchema.parse(input({ translations: { tr: turkish } })), 'tr');
    expect(tr.composite('FP8 checkpoint (Qwen/Qwen3-8B-FP8)', 'quantization')).toBe('FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)');
    // A grid trial's label: the engine, then each stage's pick.
    expect(tr.composite('SGLang 0.5.3.post3 + FP8 checkpoint (Qwen/Qwen3-8B-FP8) + --attention-backend triton')).toBe(
      'SGLang 0.5.3.post3 + FP8 checkpoint’i (Qwen/Qwen3-8B-FP8) + --attention-backend triton',
    );
    expect(tr.composite('sglang-0.5.3.post3 + fp8')).toBe('sglang-0.5.3.post3 + fp8');
  });

  it('keeps, after an edit, only the translations whose written text is unchanged', () => {
    const translated = StudyDefinitionSchema.parse(input({ translations: { tr: { ...turkish, description: 'Düşük eşzamanlılıkta ortalama gecikme.' } } }));
    expect(translationsStillTrue(translated, translated)).toEqual(translated.translations);
    const edited = StudyDefinitionSchema.parse(
      input({
        name: 'Qwen3-8B on one H100',
        stages: [{ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 weights', variant: 'fp8' }] }],
        workloads: { primary: sharegpt(4), generalisation: [] },
      }),
    );
    expect(translationsStillTrue(translated, edited)).toEqual({
      tr: {
        description: 'Düşük eşzamanlılıkta ortalama gecikme.',
        stages: { quantization: 'Nicemleme' },
        workloads: { 'sharegpt-c4': 'ShareGPT, 100 prompt, eşzamanlılık 4' },
        variants: { fp8: 'FP8 checkpoint’i (Qwen/Qwen3-8B-FP8)' },
      },
    });
    expect(translationsStillTrue(translated, { ...edited, description: 'Other.', stages: [], model: { variants: [] }, workloads: { primary: sharegpt(2) } })).toBeUndefined();
  });
});
