// The report in Turkish: the example studies run to the end (in virtual time, on the simulated box's model) and
// rendered as Markdown and HTML hold none of the English catalogue's sentences, their numbers and dates are in the
// tr-TR forms, decisions are worded from their facts, and the CSV is the same machine-readable file in any language.
import { beforeAll, describe, expect, it } from 'vitest';
import { renderCsv, renderHtml, renderMarkdown } from '../../src/shared/study/report';
import { field } from '../../src/shared/study/report/csv';
import { text as markdownText } from '../../src/shared/study/report/markdown';
import { escapeHtml } from '../../src/shared/study/report/escape';
import { trialProblemWords } from '../../src/shared/study/report/problem-words';
import { reportText } from '../../src/shared/study/report/text';
import en, { type ReportMessageKey } from '../../src/shared/study/report/messages/en';
import { SAME_IN_EVERY_LANGUAGE } from '../../src/shared/study/report/messages/catalogue';
import type { ProjectFile, Trial } from '../../src/shared/study/study';
import { exampleFiles, finishedExampleProject } from '../helpers/example-projects';
import { rerunDefinition } from '../../src/shared/study/rerun';
import { PROJECT_SCHEMA_VERSION } from '../../src/shared/study/study';
import { runVirtualStudy } from '../helpers/virtual-study';

/**
 * The English catalogue's own words: each message's text between placeholders, where it holds at least two words
 * (a lone word such as "Model" or "Status" can be Turkish too, or part of a label).
 */
function englishSentences(): { key: ReportMessageKey; words: string }[] {
  const out: { key: ReportMessageKey; words: string }[] = [];
  for (const key of Object.keys(en) as ReportMessageKey[]) {
    if (SAME_IN_EVERY_LANGUAGE.has(key)) continue;
    for (const part of en[key].split(/\{[A-Za-z]+\}/)) {
      const words = part.trim().replace(/^[^A-Za-z]+|[^A-Za-z]+$/g, '');
      if (words.split(/\s+/).filter((w) => /[A-Za-z]{2}/.test(w)).length >= 2) out.push({ key, words });
    }
  }
  return out;
}

/**
 * Text the report quotes without translating: commands (and candidate labels that are engine flags), model and engine
 * names, and what an engine or the benchmark wrote (`engineText`). Not the study's name, description or other labels:
 * the examples carry them in Turkish too (`translations`), so an English one left in a Turkish report is found. Only
 * these are taken out (not every string of the project: "latency" as the goal's key must not hide an English
 * sentence of the report).
 */
/**
 * Text a trial quotes from an engine, the benchmark or the flag tables: a refusal's knob reasons and argument issues,
 * a failure's detail and log evidence, the benchmark's error. Not the refusal or failure itself: the report words
 * those from their codes, so their English must not reach a Turkish report.
 */
function engineText(t: Trial): string[] {
  const out: (string | undefined)[] = [t.result?.error];
  const r = t.refusal;
  if (r?.code === 'knobs-unsupported') out.push(...r.knobs.map((k) => k.reason));
  if (r?.code === 'extra-args-refused') out.push(...r.issues);
  const f = t.failure;
  if (f && 'detail' in f) out.push(f.detail);
  if (f && 'death' in f) out.push(f.death?.evidence);
  // An error raised while measuring has no code; it is quoted as raised.
  if (t.status === 'failed' && !f) out.push(t.error);
  return out.filter((s): s is string => s !== undefined);
}

/** A label that is engine flags or a name (as torch.compile), the same in every language. */
// Flags, names and parallel layouts ("TP4×PP2") read the same in every language.
const SAME_LABEL = (label: string) => label.startsWith('--') || label === 'torch.compile' || /^[A-Z]{2}\d+(×[A-Z]{2}\d+)*$/.test(label);

function userStrings(project: ProjectFile): string[] {
  const { study } = project;
  const found = new Set<string>([study.model.id, ...study.model.variants.map((v) => v.model)]);
  for (const stage of study.stages) for (const c of stage.candidates) if (SAME_LABEL(c.label)) found.add(c.label);
  for (const t of project.state.trials) for (const s of [t.command, ...engineText(t)]) if (s) found.add(s);
  const forms = [...found].filter((s) => s.length >= 3).flatMap((s) => [s, markdownText(s), escapeHtml(s)]);
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** The study's own English words: its name, description and every label that is not flags or a name. */
function studyWords(project: ProjectFile): string[] {
  const { study } = project;
  const labels = [
    ...study.stages.flatMap((s) => [s.label, ...s.candidates.map((c) => c.label)]),
    ...study.model.variants.map((v) => v.label),
    ...[study.workloads.primary, ...study.workloads.generalisation].map((w) => w.label),
  ];
  return [study.name, study.description, ...labels].filter((s): s is string => s !== undefined && !SAME_LABEL(s));
}

function withoutUserText(report: string, project: ProjectFile): string {
  let out = report;
  for (const s of userStrings(project)) out = out.split(s).join(' ');
  return out;
}

/** The English messages that are a word or two with no placeholder: a status, a verdict, a column's title. */
function englishCellWords(): { key: ReportMessageKey; words: string }[] {
  return (Object.keys(en) as ReportMessageKey[])
    .filter((key) => !SAME_IN_EVERY_LANGUAGE.has(key) && !/[{]/.test(en[key]) && /^[A-Za-z][A-Za-z -]*$/.test(en[key]))
    .map((key) => ({ key, words: en[key] }));
}

/**
 * Every table cell of a report, and each "; "-separated part of one (the notes column): Markdown rows, HTML th/td
 * text. A cell the sentence check cannot see (one English word such as "done" or "baseline") is found here.
 */
function tableCells(report: string): string[] {
  const markdown = report
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .flatMap((line) => line.split(' | '));
  const html = [...report.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((m) => (m[1] as string).replace(/<[^>]+>/g, ''));
  return [...markdown, ...html].flatMap((cell) => cell.split('; ')).map((cell) => cell.replace(/[|*⚠]/g, '').trim());
}

const projects = new Map<string, ProjectFile>();
beforeAll(() => {
  for (const file of exampleFiles()) projects.set(file, finishedExampleProject(file));
}, 120_000);

describe('Turkish report of the example studies', () => {
  const sentences = englishSentences();

  it('finds the check meaningful: the English report of each example holds many catalogue sentences and cell words', () => {
    expect(sentences.length).toBeGreaterThan(150);
    for (const [file, project] of projects) {
      const md = withoutUserText(renderMarkdown(project, 'en'), project);
      const present = sentences.filter((s) => md.includes(markdownText(s.words)));
      expect(present.length, file).toBeGreaterThan(40);
      const cells = new Set([...tableCells(md), ...tableCells(withoutUserText(renderHtml(project, 'en'), project))]);
      // Status, winner, column titles: "done", "recommended", "Trial", "Status", "Notes", "Winner", "Option", …
      expect(englishCellWords().filter((w) => cells.has(w.words)).length, file).toBeGreaterThan(10);
    }
  });

  for (const file of exampleFiles()) {
    it(`has none of the English catalogue's sentences in the Markdown and HTML of ${file}`, () => {
      const project = projects.get(file) as ProjectFile;
      expect(project.state.status).toBe('done');
      const md = withoutUserText(renderMarkdown(project, 'tr'), project);
      const html = withoutUserText(renderHtml(project, 'tr'), project);
      const inMd = sentences.filter((s) => md.includes(s.words) || md.includes(markdownText(s.words)));
      const inHtml = sentences.filter((s) => html.includes(s.words) || html.includes(escapeHtml(s.words)));
      expect(inMd.map((s) => `${s.key}: ${s.words}`)).toEqual([]);
      expect(inHtml.map((s) => `${s.key}: ${s.words}`)).toEqual([]);
      const cells = new Set([...tableCells(md), ...tableCells(html)]);
      expect(englishCellWords().filter((w) => cells.has(w.words)).map((w) => `${w.key}: ${w.words}`)).toEqual([]);
    });
  }

  for (const file of exampleFiles()) {
    it(`shows the study's name, description and labels in Turkish in the Markdown and HTML of ${file}`, () => {
      const project = projects.get(file) as ProjectFile;
      const words = studyWords(project);
      // Meaningful: the example has its English name, description, stage, candidate and workload labels, and the
      // English report shows every one of them.
      expect(words.length, file).toBeGreaterThan(5);
      const englishMd = renderMarkdown(project, 'en');
      const englishHtml = renderHtml(project, 'en');
      expect(words.filter((w) => !englishMd.includes(markdownText(w)) || !englishHtml.includes(escapeHtml(w)))).toEqual([]);
      const md = renderMarkdown(project, 'tr');
      const html = renderHtml(project, 'tr');
      expect(words.filter((w) => md.includes(w) || md.includes(markdownText(w)))).toEqual([]);
      expect(words.filter((w) => html.includes(w) || html.includes(escapeHtml(w)))).toEqual([]);
      const turkish = project.study.translations?.tr;
      expect(md).toContain(markdownText(turkish?.name ?? ''));
      expect(html).toContain(escapeHtml(turkish?.description ?? ''));
    });
  }

  it("has none of the English catalogue's sentences in a re-run's comparison with its original, found or not", () => {
    // The latency example re-run at a newer vLLM on a slower simulated GPU (marked edge case: the demo lab's GPU
    // model stands for "another box"), so the section has regressions, rows of every kind and one-sided configurations.
    const original = projects.get('qwen3-8b-latency-h100.servelab') as ProjectFile;
    const definition = rerunDefinition({ path: '/projects/latency.servelab', file: original }, { engineVersions: { vllm: '0.12.0' } }).definition;
    const study = { ...definition, demoLab: { gpu: 'a100' as const, count: 1 } };
    const rerun: ProjectFile = { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: runVirtualStudy(study, { seed: 3 }).state };
    const versusKeys = sentences.filter((s) => s.key.startsWith('versus.'));
    const english = withoutUserText(withoutUserText(renderMarkdown(rerun, 'en', { original }), rerun), original);
    // Meaningful: the English section shows most of its own sentences.
    expect(versusKeys.filter((s) => english.includes(markdownText(s.words))).length).toBeGreaterThan(8);
    for (const inputs of [{ original }, { original: null }]) {
      const md = withoutUserText(withoutUserText(renderMarkdown(rerun, 'tr', inputs), rerun), original);
      const html = withoutUserText(withoutUserText(renderHtml(rerun, 'tr', inputs), rerun), original);
      expect(md).toContain('Özgün çalışmaya göre');
      expect(sentences.filter((s) => md.includes(s.words) || md.includes(markdownText(s.words))).map((s) => `${s.key}: ${s.words}`)).toEqual([]);
      expect(sentences.filter((s) => html.includes(s.words) || html.includes(escapeHtml(s.words))).map((s) => `${s.key}: ${s.words}`)).toEqual([]);
    }
  });

  it('words the pre-flight refusals and the runner\'s failures from their codes: Turkish in the Turkish report, English in the English', () => {
    const seen = new Set<string>();
    for (const [file, project] of projects) {
      const tr = renderMarkdown(project, 'tr');
      const en = renderMarkdown(project, 'en');
      for (const t of project.state.trials) {
        const code = t.refusal?.code ?? t.failure?.code;
        if (code === undefined) continue;
        seen.add(code);
        const turkish = trialProblemWords(t, reportText('tr')) as string;
        expect(tr, `${file} ${t.id}`).toContain(markdownText(turkish));
        expect(en, `${file} ${t.id}`).toContain(markdownText((t.rejectReason ?? t.error) as string));
        expect(turkish).not.toBe(t.rejectReason ?? t.error);
      }
    }
    // The examples hold TensorRT-LLM's refusal of the block-scaled FP8 checkpoint on A100 and an AWQ launch that fails.
    expect([...seen].sort()).toEqual(expect.arrayContaining(['fp8-block-scaling-sm', 'not-ready']));
  });

  it('words every decision from its facts, never quoting the stored English reason', () => {
    for (const [file, project] of projects) {
      const md = renderMarkdown(project, 'tr');
      for (const d of project.state.decisions) {
        expect(d.basis, `${file} ${d.stageId}`).toBeDefined();
        expect(md, `${file} ${d.stageId}`).not.toContain(markdownText(d.reason));
      }
      expect(md).toMatch(/Karar: (Korunan|Hiçbir şey korunmadı)/);
    }
  });

  it('quotes the stored reason of a project written before decisions kept their facts, and says so', () => {
    // The latency example: its engine stage keeps an engine other than the baseline, so its gain is above zero.
    const project = projects.get('qwen3-8b-latency-h100.servelab') as ProjectFile;
    const old: ProjectFile = {
      ...project,
      state: { ...project.state, decisions: project.state.decisions.map(({ basis: _b, unmeasured: _u, ...d }) => d) },
    };
    const engine = old.state.decisions.find((d) => d.stageId === 'engine');
    const md = renderMarkdown(old, 'tr');
    expect(md).toContain('Kayıtlı gerekçe (eski bir sürüm tarafından yazıldı; o sürüm gerekçeyi yalnızca İngilizce saklıyordu):');
    expect(md).toContain(markdownText((engine?.reason ?? '').slice(1)));
    // In English the stored reason is the report's own language: it follows the decision as it is, with no preamble.
    const reason = engine?.reason ?? '';
    const english = renderMarkdown(old, 'en');
    const line = english.split('\n').find((l) => l.startsWith('Decision: Kept ')) ?? '';
    expect(line).toMatch(/^Decision: Kept .+ \(gain \+\d+\.\d%\)\. /);
    expect(line).toContain(`%). ${markdownText(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}`)}`);
    expect(english).not.toContain('Kayıtlı gerekçe');
  });

  it('writes numbers and dates the Turkish way, and marks the HTML as Turkish', () => {
    const project = projects.get(exampleFiles()[0] as string) as ProjectFile;
    const md = renderMarkdown(project, 'tr');
    // Decimal comma in the tables and intervals with a semicolon between their ends; percent sign first, held to
    // its sign by a word joiner so a line never breaks between "−" and "%".
    expect(md).toMatch(/\| \d+,\d{2} \|/);
    expect(md).toMatch(/\\\[[−+]?\d+,\d; [−+]?\d+,\d\\\]/);
    expect(md).toMatch(/[−+]\u2060%\d+,\d/);
    expect(md).not.toMatch(/[−+]%/);
    expect(md).not.toMatch(/\| \d+\.\d{2} \|/);
    // The run's dates in Turkish month names (the virtual clock starts at the epoch).
    expect(md).toMatch(/Başlangıç: 1 Ocak 1970 \d\d:\d\d; bitiş: 1 Ocak 1970 \d\d:\d\d \(UTC\)\./);
    expect(renderHtml(project, 'tr')).toContain('<html lang="tr">');
    const english = renderMarkdown(project, 'en');
    expect(english).toMatch(/\| \d+\.\d{2} \|/);
    expect(english).toMatch(/Ran from January 1, 1970 at \d\d:\d\d to January 1, 1970 at \d\d:\d\d \(UTC\)\./);
  });

  it('keeps the CSV one machine-readable file whatever the report language: numbers with a decimal point, keys as headers', () => {
    for (const project of projects.values()) {
      const csv = renderCsv(project);
      expect(csv.split('\r\n')[0]).toMatch(/^trial id,stage,candidate,label,/);
      expect(csv).toMatch(/,\d+\.\d+,/);
      // Refusals and failures: the English words the trials store, as before their codes.
      for (const t of project.state.trials) {
        const stored = t.status === 'rejected' ? t.rejectReason : t.status === 'failed' ? t.error : undefined;
        if (stored !== undefined) expect(csv).toContain(field(stored));
      }
    }
  });
});
