import { describe, expect, it } from 'vitest';
import { buildReportModel, renderCsv, renderHtml, renderMarkdown } from '.';
import { stageDecisionText } from './model';
import { text as markdownText } from './markdown';
import en, { type ReportMessageKey } from './messages/en';
import { SAME_IN_EVERY_LANGUAGE } from './messages/catalogue';
import { GPT_OSS_TPS, QWEN235_TPS, gptOssStudy, qwen235Study, runAsPublished } from '../../../../tests/helpers/parallel-studies';

/** CSV rows as cells (the rows these studies write hold no quoted commas or line breaks but the commands'). */
function csvRows(csv: string): string[][] {
  return csv
    .trimEnd()
    .split('\r\n')
    .map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => (m[1] as string).replace(/^"|"$/g, '').replace(/""/g, '"')).slice(0, -1));
}

const decisionOf = (project: ReturnType<typeof runAsPublished>, stageId: string) => project.state.decisions.find((d) => d.stageId === stageId)!;

describe('a report compared per GPU (GPT-OSS-120B on H100, published numbers)', () => {
  const project = runAsPublished(gptOssStudy({ basis: 'per-gpu' }), GPT_OSS_TPS);

  it('says so in the recommendation, the goal and the setup, and words the stage decision per GPU, in English', () => {
    const md = renderMarkdown(project, 'en');
    const basis = 'Compared per GPU: each configuration by its total token throughput divided by the GPUs its server holds (1, 2 and 4 GPUs).';
    expect(md).toContain('vLLM 0.10.2, for the highest total token throughput per GPU on ShareGPT, 1000 prompts, unbounded concurrency:');
    expect(md.split(basis)).toHaveLength(4); // recommendation, goal, setup
    expect(md).toContain(`- Objective basis: ${basis}`);
    expect(md).toContain('- Objective: total token throughput per GPU (tok/s/GPU), higher is better');
    // "achieving 26.8% higher token throughput per GPU" (the study's own words for TP2 against one GPU)
    expect(md).toMatch(/Decision: Kept TP2 \(gain \+26\.8%\)\. TP2: \+26\.8% \\\[\+\d+\.\d, \+\d+\.\d\\\] total token throughput per GPU \(6325 → 8021 tok\/s\/GPU; 1 run each\)\. Kept\./);
    expect(md).toContain('| Baseline (tok/s/GPU) | Recommended (tok/s/GPU) | Change in total token throughput per GPU |');
  });

  it('in Turkish', () => {
    const md = renderMarkdown(project, 'tr');
    expect(md).toContain('GPU başına karşılaştırma: her yapılandırma, toplam token veriminin sunucusunun kullandığı GPU sayısına bölümüyle (1, 2 ve 4 GPU).');
    expect(md).toContain('Hedefin temeli: GPU başına karşılaştırma');
    expect(md).toMatch(/Korunan: TP2 \(kazanç: \+\u2060%26,8\)\. TP2: GPU başına toplam token verimi değişimi \+\u2060%26,8/);
    // The app words the same decision with the same catalogue.
    expect(stageDecisionText(project, decisionOf(project, 'parallelism'), 'tr').words).toContain('GPU başına toplam token verimi değişimi +\u2060%26,8');
  });

  it('shows each trial with its GPUs, the objective column per GPU and the raw throughput beside it', () => {
    const model = buildReportModel(project);
    expect(model.objectiveColumn).toBe('total_token_throughput_per_gpu');
    expect(model.metricColumns[0]?.key).toBe('total_token_throughput_per_gpu');
    expect(model.metricColumns.map((c) => c.key)).toContain('total_token_throughput');
    const tp4 = model.trials.find((t) => t.candidateId === 'tp4')!;
    expect(tp4).toMatchObject({ gpuCount: 4, replicas: null });
    expect(tp4.metrics.total_token_throughput).toBe(23759.49);
    expect(tp4.metrics.total_token_throughput_per_gpu).toBeCloseTo(23759.49 / 4, 9);
    expect(tp4.objective).toBeCloseTo(23759.49 / 4, 9);
    expect(renderMarkdown(project)).toContain('| TP4 | done | 4 | 5940 |');
  });
});

describe('a report compared per server, of configurations of different sizes', () => {
  const project = runAsPublished(gptOssStudy(), GPT_OSS_TPS);

  it('states the per-GPU numbers beside the raw ones, and the recommendation per GPU against a baseline of another size', () => {
    const md = renderMarkdown(project, 'en');
    expect(md).toContain("Compared per server: each configuration by its own server's throughput, whatever GPUs it holds (1, 2 and 4 GPUs); the stages show per-GPU numbers beside them.");
    // TP4 is the fastest server, and 6.1% less per GPU than the one-GPU baseline (23759.49 / 4 against 6325.41).
    expect(md).toContain('The recommended server holds 4 GPUs and the baseline 1: per GPU, 5940 against 6325 tok/s/GPU (−6.1%).');
    expect(md).toContain('| Trial | Status | GPUs | **total throughput (tok/s)** |');
    expect(md).toContain('total throughput per GPU (tok/s/GPU)');
    const tr = renderMarkdown(project, 'tr');
    expect(tr).toContain('Önerilen sunucu 4 GPU, referans 1 GPU kullanıyor: GPU başına önerilen 5940, referans 6325 tok/s/GPU (−\u2060%6,1).');
    expect(tr).toContain('Sunucu başına karşılaştırma: her yapılandırma, kaç GPU kullanırsa kullansın kendi sunucusunun verimiyle (1, 2 ve 4 GPU)');
  });

  it('says nothing of GPUs for a study whose configurations all hold the same', () => {
    const sameSize = runAsPublished({ ...gptOssStudy(), stages: [] }, GPT_OSS_TPS);
    const model = buildReportModel(sameSize);
    expect(model).toMatchObject({ showGpus: false, basis: { kind: 'server', text: null } });
    expect(model.metricColumns.map((c) => c.key)).not.toContain('total_token_throughput_per_gpu');
    const md = renderMarkdown(sameSize);
    expect(md).not.toContain('| GPUs |');
    expect(md).toContain("- Objective basis: Compared per server: each configuration by its own server's numbers.");
  });
});

describe('a report on a GPU budget (Qwen3-235B-A22B on 8 × H100, published numbers)', () => {
  const project = runAsPublished(qwen235Study({ basis: 'gpu-budget', gpuBudget: 8 }), QWEN235_TPS);

  it('names the replicas in the recommendation and the decisions, and finds the published +84.9% of 2 × TP4 over TP8', () => {
    const md = renderMarkdown(project, 'en');
    expect(md).toContain('On the budget of 8 GPUs: 2 × this server, 4 GPUs each.');
    expect(md).toContain('Compared on a budget of 8 GPUs: each configuration as many whole replicas as fit in them');
    expect(md).toMatch(/Decision: Kept 2 × FP8 TP4 \(gain \+78\.7%\)\. 2 × FP8 TP4: \+78\.7% .* total token throughput on 8 GPUs \(8425 → 15,056 tok\/s; 1 run each\)\. Kept\./);
    // The engine stage's one engine is the baseline, named as compared: one replica of TP8.
    expect(md).toContain('Decision: Kept 1 × vLLM 0.11.0 (gain 0.0%). 1 × vLLM 0.11.0 is best: 8425 tok/s total token throughput on 8 GPUs. It is also the baseline.');
    // "Total TPS: 8424.86 | Total TPS: 7787.17x2 (+84.9%)"
    expect(md).toContain('| **Overall: baseline → recommended, primary workload** |  | 8425 | 15,574 | **+84.9%** |');
    expect(md).toContain('| FP8 TP4 | done | 4 | 15,056 |');
    expect(md).toContain('2 replicas on 8 GPUs');
  });

  it('in Turkish', () => {
    const md = renderMarkdown(project, 'tr');
    expect(md).toContain('8 GPU bütçesinde: bu sunucudan 2 kopya, her biri 4 GPU.');
    expect(md).toContain('8 GPU bütçesiyle karşılaştırma');
    expect(md).toMatch(/Korunan: 2 kopya FP8 TP4 \(kazanç: \+\u2060%78,7\)\. 2 kopya FP8 TP4: 8 GPU üzerinde toplam token verimi değişimi \+\u2060%78,7/);
    expect(md).toContain('8 GPU üzerinde 2 kopya');
    expect(md).toContain('**+\u2060%84,9**');
  });

  it('in the CSV: the GPU count, per-GPU throughputs, the basis, the replicas and the objective on the budget', () => {
    const rows = csvRows(renderCsv(project));
    const header = rows[0]!;
    const row = rows.find((r) => r[0] === 'layout/fp8-tp4/sharegpt-1000/r1')!;
    const cell = (title: string) => row[header.indexOf(title)];
    expect(header).toEqual(expect.arrayContaining(['gpu count', 'total_token_throughput_per_gpu (tok/s/GPU)', 'output_throughput_per_gpu (tok/s/GPU)', 'request_throughput_per_gpu (req/s/GPU)', 'objective basis', 'replicas on the gpu budget', 'objective (tok/s)']));
    expect(cell('gpu count')).toBe('4');
    expect(Number(cell('total_token_throughput_per_gpu (tok/s/GPU)'))).toBeCloseTo(7527.8 / 4, 9);
    expect(cell('objective basis')).toBe('gpu-budget 8');
    expect(cell('replicas on the gpu budget')).toBe('2');
    expect(Number(cell('objective (tok/s)'))).toBeCloseTo(15055.6, 9);
    expect(cell('total_token_throughput (tok/s)')).toBe('7527.8');
  });

  it('says why a configuration over the budget is not compared, in both languages', () => {
    const small = runAsPublished(gptOssStudy({ basis: 'gpu-budget', gpuBudget: 2 }), GPT_OSS_TPS);
    expect(renderMarkdown(small, 'en')).toContain('TP4 needs 4 GPUs, more than the budget of 2: it has no place in it.');
    // Refused before launch: a server that has no place in the budget is not run at all.
    expect(renderMarkdown(small, 'en')).toMatch(/\| TP4 \| \*\*rejected before launch\*\* \| 4 \|/);
    expect(renderMarkdown(small, 'en')).toContain("this configuration needs 4 GPUs, more than the study's budget of 2");
    expect(renderMarkdown(small, 'en')).not.toContain('needs more than the budget of 2 GPUs;');
    expect(renderMarkdown(small, 'tr')).toContain('TP4 4 GPU gerektiriyor, bu 2 GPU bütçesinden fazla: bütçeye sığmıyor.');
    expect(renderHtml(small, 'tr')).toContain('çalışmanın 2 GPU’luk bütçesinden fazla');
  });
});

describe('a re-run of a study compared per GPU, against its original', () => {
  it('compares the configurations per GPU, in the units the section names', () => {
    const original = runAsPublished(gptOssStudy({ basis: 'per-gpu' }), GPT_OSS_TPS);
    const study = {
      ...gptOssStudy({ basis: 'per-gpu' }),
      rerunOf: { path: '/projects/gpt-oss.servelab', name: 'GPT-OSS-120B throughput', engines: [{ engine: 'vllm' as const, version: '0.10.2', mode: 'env' as const }], hostIds: ['lab'] },
    };
    // Marked edge case: the same study again, its TP2 run 10% slower, so the row has a change to state.
    const rerun = runAsPublished(study, { ...GPT_OSS_TPS, tp2: GPT_OSS_TPS.tp2 * 0.9 });
    const model = buildReportModel(rerun, 'en', { original });
    const tp2 = model.versus?.rows.find((r) => r.key === 'parallelism/tp2/sharegpt-1000');
    expect(tp2?.original.value).toBeCloseTo(16042.19 / 2, 6);
    expect(tp2?.change?.pct).toBeCloseTo(-10, 6);
    expect(renderMarkdown(rerun, 'en', { original })).toContain('| Configuration | Workload | Original (tok/s/GPU) | Re-run (tok/s/GPU) | Change in total token throughput per GPU |');
  });
});

describe('Turkish reports of studies on a basis hold none of the English catalogue', () => {
  // As tests/integration/report-lang.test.ts checks the examples: each English message's text between placeholders,
  // where it holds two words or more, must not be in the Turkish report.
  const sentences = (Object.keys(en) as ReportMessageKey[])
    .filter((key) => !SAME_IN_EVERY_LANGUAGE.has(key))
    .flatMap((key) => en[key].split(/\{[A-Za-z]+\}/).map((part) => ({ key, words: part.trim().replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, '') })))
    .filter((s) => s.words.split(/\s+/).filter((w) => /[A-Za-z]{2}/.test(w)).length >= 2);
  const studies = {
    'per server': runAsPublished(gptOssStudy(), GPT_OSS_TPS),
    'per GPU': runAsPublished(gptOssStudy({ basis: 'per-gpu' }), GPT_OSS_TPS),
    'budget of 2': runAsPublished(gptOssStudy({ basis: 'gpu-budget', gpuBudget: 2 }), GPT_OSS_TPS),
    'budget of 8': runAsPublished(qwen235Study({ basis: 'gpu-budget', gpuBudget: 8 }), QWEN235_TPS),
  };
  for (const [name, project] of Object.entries(studies)) {
    it(name, () => {
      // Commands and the model's names are quoted as they are; the rest is the catalogue's.
      let md = renderMarkdown(project, 'tr');
      for (const quoted of [...project.state.trials.map((t) => t.command), project.study.model.id, ...project.study.model.variants.map((v) => v.model)]) md = md.split(markdownText(quoted)).join(' ');
      const english = renderMarkdown(project, 'en');
      // Meaningful: the English report holds the basis sentences it is about.
      expect(sentences.filter((s) => english.includes(markdownText(s.words)) && (s.key.startsWith('basis.') || s.key.startsWith('rec.') || s.key.startsWith('setup.'))).length, name).toBeGreaterThan(2);
      expect(sentences.filter((s) => md.includes(markdownText(s.words))).map((s) => `${s.key}: ${s.words}`)).toEqual([]);
    });
  }
});
