import { afterEach, describe, expect, it } from 'vitest';
import arrivalSource from '../../../shared/bench/arrival.ts?raw';
import workloadSource from '../../../shared/bench/workload.ts?raw';
import serverConfigSource from '../../../shared/engines/server-config.ts?raw';
import studySource from '../../../shared/study/study.ts?raw';
import { StudyDefinitionSchema } from '../../../shared/study/study';
import { formatGpuTime } from '../features/wizard/ReviewStep';
import { currentMessages, setLocale } from '../i18n';
import { assemble } from './assemble';
import { initialDraft, rowKey, withFreshStages, workloadDraft, type WizardDraft } from './draft';
import { locateCoreIssue } from './issue-location';
import { issueLine, issueMessage, plainMessage } from './issue-text';

afterEach(() => setLocale('en'));

const isDemo = (hostId: string) => hostId === 'demo-lab';

/** A valid draft, then four mistakes: no model id, an SLO value that is no number, too many GPUs, a scenario id twice. */
function faultyDraft(): WizardDraft {
  const valid = withFreshStages({
    ...initialDraft(),
    name: 'x',
    modelId: 'Qwen/Qwen3-8B',
    hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
    engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'sglang' })),
    tuned: ['sglang'],
    generalisationPresets: ['random-128-4'],
  });
  expect(assemble(valid, isDemo, currentMessages()).issues).toEqual([]);
  return {
    ...valid,
    modelId: '',
    slos: [{ key: rowKey(), metric: 'p99_ttft_ms', bound: 'max', value: 'fast' }],
    demoCount: '9',
    generalisationCustom: [{ ...workloadDraft(undefined), id: 'random-128-4' }],
  };
}

describe('wizard messages', () => {
  it('says the assembled draft’s problems in English exactly as before', () => {
    expect(assemble(faultyDraft(), isDemo, currentMessages()).issues).toEqual([
      { step: 'goal', field: 'slos.0.value', message: 'SLO 1 value must be a number' },
      { step: 'workloads', field: 'custom.0.id', message: 'Scenario 1 id "random-128-4" is used twice' },
      { step: 'model', field: 'modelId', message: 'Model is required' },
      { step: 'hardware', field: 'demoCount', message: 'Simulated GPU count must be at most 8' },
    ]);
  });

  it('says them in Turkish, naming the field in Turkish, after setLocale("tr")', () => {
    setLocale('tr');
    expect(assemble(faultyDraft(), isDemo, currentMessages()).issues).toEqual([
      { step: 'goal', field: 'slos.0.value', message: 'SLO 1 değeri bir sayı olmalıdır' },
      { step: 'workloads', field: 'custom.0.id', message: 'Senaryo 1: kimlik "random-128-4" iki kez kullanılmış' },
      { step: 'model', field: 'modelId', message: 'Model zorunludur' },
      { step: 'hardware', field: 'demoCount', message: 'Simüle GPU sayısı en fazla 8 olmalıdır' },
    ]);
    const settings = assemble({ ...faultyDraft(), engines: initialDraft().engines.map((e) => ({ ...e, enabled: e.engine === 'vllm', settings: '{"maxModelLenX": 5, "cudaGraphMaxBatchSize": 0}' })) }, isDemo, currentMessages());
    expect(settings.issues.filter((i) => i.step === 'engines').map((i) => i.message)).toEqual([
      'vLLM ayarları: cudaGraphMaxBatchSize en az 1 olmalıdır',
      'vLLM ayarları: bilinmeyen bir ayar içeriyor: "maxModelLenX"',
    ]);
  });

  it('translates zod’s generic issues by their code and params, and keeps a message it does not know', () => {
    const parsed = StudyDefinitionSchema.safeParse({ demoLab: { gpu: 'b200', count: 9.5 } });
    const issues = parsed.success ? [] : parsed.error.issues;
    const at = (path: string) => issues.find((i) => i.path.join('.') === path)!;
    expect(issueMessage(at('demoLab.count'), currentMessages())).toBe('must be a whole number');
    expect(issueMessage(at('demoLab.gpu'), currentMessages())).toBe('must be one of "h100"|"a100"|"h200"');
    expect(issueMessage({ code: 'too_big', origin: 'number', maximum: 8, inclusive: true, message: 'Too big: expected number to be <=8' }, currentMessages())).toBe('must be at most 8');
    expect(issueMessage({ code: 'too_small', origin: 'number', minimum: 0, inclusive: false, message: 'Too small: expected number to be >0' }, currentMessages())).toBe('must be above 0');
    setLocale('tr');
    expect(issueMessage(at('demoLab.count'), currentMessages())).toBe('bir tam sayı olmalıdır');
    expect(issueMessage(at('demoLab.gpu'), currentMessages())).toBe('şunlardan biri olmalıdır: "h100"|"a100"|"h200"');
    expect(issueMessage({ code: 'too_big', origin: 'string', maximum: 64, inclusive: true, message: 'Too big: expected string to have <=64 characters' }, currentMessages())).toBe('en fazla 64 karakter olabilir');
    expect(issueMessage({ code: 'invalid_type', expected: 'boolean', message: 'Invalid input: expected boolean, received string' }, currentMessages())).toBe('boolean türünde olmalıdır');
    // A schema's own message wins over the issue's code; one the wizard does not know is shown as it came.
    expect(issueMessage({ code: 'too_small', origin: 'array', minimum: 1, inclusive: true, message: 'needs at least one host' }, currentMessages())).toBe('en az bir ana makine gerektirir');
    expect(issueMessage({ code: 'too_small', origin: 'array', minimum: 1, inclusive: true, message: 'needs a spare GPU' }, currentMessages())).toBe('needs a spare GPU');
    expect(plainMessage('must be at most 500 on this box', currentMessages())).toBe('must be at most 500 on this box');
  });

  it('translates every fixed message the shared schemas give, and those with values in them', () => {
    const fixed = [...new Set([studySource, workloadSource, arrivalSource, serverConfigSource].flatMap((source) => [...source.matchAll(/'((?:is|must|may|needs|has|holds) [^']*)'/g)].map((m) => m[1]!)))];
    expect(fixed.length).toBeGreaterThan(20);
    const english = fixed.map((message) => plainMessage(message, currentMessages()));
    setLocale('tr');
    const untranslated = fixed.filter((message) => plainMessage(message, currentMessages()) === message);
    expect(untranslated).toEqual([]);
    setLocale('en');
    expect(english).toEqual(fixed);
    const withValues = [
      '"cuda-graph" is used twice or reserved',
      '"a" is used twice in this stage',
      'names no variant of the model (none defined)',
      'vllm 0.11.0 is listed twice',
      'is required for eagle3',
      'must be one of vllm, sglang, trtllm',
      'name must be letters, digits and _, not starting with a digit',
      'is less than gpusPerTrial (4): no configuration fits in it',
      '"per-gpu" applies to a throughput goal only: a latency per request does not divide by GPUs; compare latency on "server", or use a throughput goal with a latency SLO',
    ];
    expect(withValues.map((message) => plainMessage(message, currentMessages()))).toEqual(withValues);
    setLocale('tr');
    expect(withValues.map((message) => plainMessage(message, currentMessages()))).toEqual([
      '"cuda-graph" iki kez kullanılmış ya da ayrılmış',
      '"a" bu aşamada iki kez kullanılmış',
      'modelin hiçbir varyantını belirtmiyor (tanımlı varyant yok)',
      'vllm 0.11.0 iki kez listelenmiş',
      'eagle3 için zorunludur',
      'şunlardan biri olmalıdır: vllm, sglang, trtllm',
      'adı geçersiz: harf, rakam ve _ içermeli, rakamla başlamamalıdır',
      'gpusPerTrial değerinden (4) küçük: hiçbir yapılandırma sığmaz',
      '"per-gpu" yalnızca verim hedefine uygulanır: istek başına gecikme GPU sayısına bölünmez; gecikmeyi "server" temeliyle karşılaştırın ya da gecikme SLO’su ile verim hedefini seçin',
    ]);
  });

  it('names the field of a problem the core reports, and the plan’s GPU time, in the reader’s language', () => {
    const draft = initialDraft();
    const core = (path: string, message: string) => issueLine(locateCoreIssue(path, draft, 0, currentMessages()).label, plainMessage(message, currentMessages()), currentMessages());
    expect(core('study.workloads.primary.numPrompts', 'must be at most 500')).toBe('Primary workload prompts must be at most 500');
    expect(core('path', 'is required')).toBe('File is required');
    expect([45, 720, 3900].map(formatGpuTime)).toEqual(['45 s', '12 min', '1 h 05 min']);
    setLocale('tr');
    expect(core('study.workloads.primary.numPrompts', 'must be at most 500')).toBe('Birincil iş yükü: prompt sayısı en fazla 500 olmalıdır');
    expect(core('path', 'is required')).toBe('Dosya zorunludur');
    expect([45, 720, 3900].map(formatGpuTime)).toEqual(['45 sn', '12 dk', '1 sa 05 dk']);
  });
});
