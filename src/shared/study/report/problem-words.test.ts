import { describe, expect, it } from 'vitest';
import { parseServerConfig, type ServerConfigInput } from '../../engines/server-config';
import type { EngineId } from '../../engines/types';
import type { PlanContext } from '../plan-context';
import { preflight, preflightRefusal } from '../preflight';
import { StudyDefinitionSchema, type StudyDefinition, type StudyDefinitionInput } from '../study';
import { FAILURE_CODES, REFUSAL_CODES, STORED_ONLY_REFUSALS, type FailureCode, type Refusal, type RefusalCode, type RunFailure } from '../trial-problem';
import en from './messages/en';
import type { NvlinkWarning } from '../layout-checks';
import { failureWords, nvlinkWarningWords, refusalWords, trialProblemWords } from './problem-words';
import { reportText } from './text';

const A100: PlanContext = { gpus: [0, 1].map((i) => ({ hostId: 'lab', index: String(i), name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' })) };

function study(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinition {
  return StudyDefinitionSchema.parse({
    name: 'refusals',
    model: { id: 'Qwen/Qwen3-32B', variants: [{ id: 'fp8', model: 'Qwen/Qwen3-32B-FP8', precision: 'fp8', fp8BlockScaled: true }] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'throughput' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    workloads: {
      primary: { id: 'sharegpt', dataset: { kind: 'sharegpt' }, numPrompts: 1000 },
      generalisation: [{ id: 'random-32000-100', dataset: { kind: 'random', inputLen: 32000, outputLen: 100 }, numPrompts: 100, seed: 42 }],
    },
    ...overrides,
  });
}

interface Case {
  engine: EngineId;
  version: string;
  config: ServerConfigInput;
  workloadId?: string;
  study?: StudyDefinition;
  ctx?: PlanContext;
  /** Facts the words must carry in Turkish (numbers in the Turkish forms). */
  tr: string[];
}

// One planned trial per refusal kind, refused by the pre-flight itself (a kind without a case is a type error).
const CASES: Record<Exclude<RefusalCode, 'tp-over-gpus'>, Case> = {
  'knobs-unsupported': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-32B', speculative: { algorithm: 'eagle3', draftModel: 'a/b', numSteps: 4, eagleTopK: 4 } },
    tr: ['vLLM 0.11.0 şu ayarları uygulayamaz: speculative.eagleTopK'],
  },
  'extra-args-refused': { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-32B', extraArgs: ['--no-such-flag'] }, tr: ['vLLM 0.11.0 ek argümanları reddeder', '--no-such-flag'] },
  'host-too-small': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-32B' },
    study: study({ gpusPerTrial: 4 }),
    tr: ['tek makinede 4 GPU', 'makinede 2 GPU var'],
  },
  'over-gpu-budget': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-32B', tensorParallelSize: 4 },
    study: study({ goal: { kind: 'throughput', basis: 'gpu-budget', gpuBudget: 2 } }),
    ctx: { gpus: Array.from({ length: 4 }, (_, i) => ({ hostId: 'lab', index: String(i), name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' })) },
    tr: ['4 GPU ister', '2 GPU’luk bütçesinden fazla'],
  },
  'heads-indivisible': { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-14B', tensorParallelSize: 3 }, tr: ['Qwen/Qwen3-14B modelinin 40 dikkat başlığı', '3 boyutlu', 'vLLM 0.11.0'] },
  'pp-over-layers': { engine: 'sglang', version: '0.5.5.post1', config: { model: 'Qwen/Qwen3-0.6B', pipelineParallelSize: 32 }, tr: ['28 katmanını 32 boru hattı', 'SGLang 0.5.5.post1'] },
  'experts-indivisible': {
    engine: 'sglang',
    version: '0.5.5.post1',
    config: { model: 'zai-org/GLM-4.5-Air', tensorParallelSize: 6, expertParallelSize: 6 },
    tr: ['zai-org/GLM-4.5-Air modelinin 128 uzmanını', '6, 128 sayısını'],
  },
  'ep-indivisible': { engine: 'trtllm', version: '1.2.0rc1', config: { model: 'Qwen/Qwen3-30B-A3B', tensorParallelSize: 4, expertParallelSize: 8 }, tr: ['8 boyutlu uzman paralel', '4 GPU’luk', 'TensorRT-LLM 1.2.0rc1'] },
  'dcp-indivisible': { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-32B', tensorParallelSize: 4, decodeContextParallelSize: 3 }, tr: ['tensör paralel boyutu 4', 'paralel boyutu 3 ile'] },
  'dp-attention-indivisible': {
    engine: 'sglang',
    version: '0.5.5.post1',
    config: { model: 'Qwen/Qwen3-30B-A3B', tensorParallelSize: 4, dataParallelSize: 3, dpAttention: true },
    tr: ['tensör paralel boyutu 4', 'veri paralel boyutu 3'],
  },
  'ep-dense-model': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-32B', tensorParallelSize: 2, expertParallelSize: 2 },
    tr: ['Qwen/Qwen3-32B modelinde uzman yok', 'vLLM 0.11.0', '"Number of experts in the model must be greater than 0 when expert parallelism is enabled."'],
  },
  'fp8-block-scaling-sm': {
    engine: 'trtllm',
    version: '1.2.0rc1',
    config: { model: 'Qwen/Qwen3-32B-FP8' },
    tr: ['Qwen/Qwen3-32B-FP8', 'NVIDIA A100-SXM4-80GB (sm 8.0)', 'sm 8.9', '"Unsupported SM version for FP8 block scaling GEMM"'],
  },
  'weights-too-large': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'meta-llama/Llama-3.1-70B-Instruct' },
    tr: ['70,6 milyar parametre', 'GPU başına 141,1 GB', 'NVIDIA A100-SXM4-80GB (85,9 GB belleğin 77,3 GB kadarı)'],
  },
  'request-too-long': {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-32B', maxModelLen: 16384 },
    workloadId: 'random-32000-100',
    tr: ['iş yükü random-32000-100', '32100 tokenlik', 'en büyük model uzunluğu ise 16384'],
  },
};

function refusalOf(c: Case): Refusal {
  const trial = { engine: c.engine, version: c.version, config: parseServerConfig(c.config), workloadId: c.workloadId ?? 'sharegpt' };
  const refusal = preflightRefusal(c.study ?? study(), trial, c.ctx ?? A100);
  if (refusal === null) throw new Error('the pre-flight passed it');
  return refusal;
}

/** The English template's own words of a message (its text between placeholders, two words or more). */
function englishParts(key: keyof typeof en): string[] {
  return en[key]
    .split(/\{[A-Za-z]+\}/)
    .map((part) => part.trim().replace(/^[^A-Za-z"]+|[^A-Za-z"]+$/g, ''))
    .filter((part) => part.split(/\s+/).filter((w) => /[A-Za-z]{2}/.test(w)).length >= 2)
    // The engine's own error message, quoted in both languages.
    .map((part) => part.replace(/"[^"]*"/g, '').trim())
    .filter((part) => part.split(/\s+/).length >= 2);
}

const english = reportText('en');
const turkish = reportText('tr');

describe('pre-flight warning words', () => {
  it('words the NVLink warning in both languages with its facts', () => {
    const w: NvlinkWarning = { code: 'tp-without-nvlink', tp: 4, hosts: ['lab'] };
    expect(nvlinkWarningWords(w, english)).toBe(
      "no host (lab) has 4 of the study's GPUs all linked by NVLink: the engine runs tensor parallel size 4 over PCIe, but every layer's all-reduce crosses it, which slows each step",
    );
    expect(nvlinkWarningWords(w, turkish)).toContain('hiçbir makinede (lab) çalışmanın GPU’larından 4 tanesi birbirine NVLink ile bağlı değil');
  });
});

describe('refusal words', () => {
  it('words a stored tp-over-gpus refusal of an older project in both languages', () => {
    const stored: Refusal = { code: 'tp-over-gpus', tp: 2, gpusPerTrial: 1 };
    expect(refusalWords(stored, turkish)).toContain('tensör paralel boyutu 2');
    expect(refusalWords(stored, turkish)).toContain('her denemeye 1 GPU');
    expect(refusalWords(stored, english)).toMatch(/2/);
  });

  for (const code of REFUSAL_CODES.filter((c): c is keyof typeof CASES => !STORED_ONLY_REFUSALS.includes(c))) {
    it(`words a ${code} refusal in English as the trial stores it, and in Turkish with its facts`, () => {
      const c = CASES[code];
      const refusal = refusalOf(c);
      expect(refusal.code).toBe(code);
      const trial = { engine: c.engine, version: c.version, config: parseServerConfig(c.config), workloadId: c.workloadId ?? 'sharegpt' };
      expect(refusalWords(refusal, english)).toBe(preflight(c.study ?? study(), trial, c.ctx ?? A100));
      const words = refusalWords(refusal, turkish);
      for (const fact of c.tr) expect(words).toContain(fact);
      const keys = (Object.keys(en) as (keyof typeof en)[]).filter((k) => k.startsWith('refusal.') || k === 'problem.gigabytes');
      for (const key of keys) for (const part of englishParts(key)) expect(words, key).not.toContain(part);
    });
  }

  it('states sizes in English as before the codes: gigabytes with one decimal, the usable share of each GPU', () => {
    const words = refusalWords(refusalOf(CASES['weights-too-large']), english);
    expect(words).toContain('take 141.1 GB per GPU at TP1, more than vLLM 0.11.0 can use on NVIDIA A100-SXM4-80GB (77.3 GB of 85.9 GB)');
  });
});

// Verdicts and evidence lines as the log classifier reads them, from logs users pasted:
// https://github.com/sgl-project/sglang/issues/4547 (oom) and https://github.com/sgl-project/sglang/issues/34676 (kv-cache-too-small).
const OOM = { class: 'oom', evidence: 'RuntimeError: CUDA error: out of memory' };
const KV = { class: 'kv-cache-too-small', evidence: 'RuntimeError: Prefill out of memory. Try to lower your batch size.' };

const FAILURES: Record<FailureCode, { failure: RunFailure; en: string; tr: string }> = {
  'launch-refused': {
    failure: { code: 'launch-refused', detail: 'vLLM 0.11.0 is not installed on this box (no ~/.servelab/envs/vllm-0.11.0); install it first.' },
    en: 'launch refused: vLLM 0.11.0 is not installed on this box (no ~/.servelab/envs/vllm-0.11.0); install it first.',
    tr: 'başlatma reddedildi: vLLM 0.11.0 is not installed',
  },
  'not-ready': { failure: { code: 'not-ready', death: OOM }, en: `server did not become ready: oom — ${OOM.evidence}`, tr: `sunucu hazır hâle gelmedi: oom — ${OOM.evidence}` },
  'died-before-workload': { failure: { code: 'died-before-workload', death: {} }, en: 'the server died before this workload: process ended', tr: 'sunucu bu iş yükünden önce kapandı: süreç sona erdi' },
  'requests-failed': {
    failure: { code: 'requests-failed', lost: 12, total: 1000, death: KV },
    en: `12 of 1000 requests failed — the server died: kv-cache-too-small — ${KV.evidence}`,
    tr: `1000 isteğin 12 tanesi başarısız oldu — sunucu kapandı: kv-cache-too-small — ${KV.evidence}`,
  },
  'bench-failed': { failure: { code: 'bench-failed' }, en: 'no result', tr: 'sonuç yok' },
  // TIMEOUT with reason TimeLimit as the test cluster's scontrol gave them (tests/fixtures/slurm/jobs).
  'job-ended': {
    failure: { code: 'job-ended', jobId: '12', state: 'TIMEOUT', reason: 'TimeLimit' },
    en: 'Slurm ended job 12 (TIMEOUT, TimeLimit) before this trial was measured',
    tr: 'Slurm, 12 numaralı işi bu deneme ölçülmeden sonlandırdı (TIMEOUT, TimeLimit)',
  },
};

describe('failure words', () => {
  for (const code of FAILURE_CODES) {
    it(`words a ${code} failure in English and Turkish, quoting the engine's text as it is`, () => {
      const { failure, en: inEnglish, tr: inTurkish } = FAILURES[code];
      expect(failureWords(failure, english)).toBe(inEnglish);
      expect(failureWords(failure, turkish)).toContain(inTurkish);
    });
  }

  it('quotes a verdict of class unknown by its line alone, and the benchmark\'s own error as it is', () => {
    expect(failureWords({ code: 'died-before-workload', death: { class: 'unknown', evidence: 'Killed' } }, turkish)).toBe('sunucu bu iş yükünden önce kapandı: Killed');
    expect(failureWords({ code: 'bench-failed', detail: 'benchmark exited with status 1' }, turkish)).toBe('benchmark exited with status 1');
  });

  it('falls back to the stored English text of a trial written before the codes', () => {
    expect(trialProblemWords({ rejectReason: 'an old reason' }, turkish)).toBe('an old reason');
    expect(trialProblemWords({ error: 'server did not become ready: old' }, turkish)).toBe('server did not become ready: old');
    expect(trialProblemWords({ error: 'server did not become ready: old', failure: FAILURES['bench-failed'].failure }, turkish)).toBe('sonuç yok');
    expect(trialProblemWords({}, turkish)).toBeNull();
  });
});
