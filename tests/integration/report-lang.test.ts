// The report in Turkish: the example studies run to the end (in virtual time, on the simulated box's model) and
// rendered as Markdown and HTML hold none of the English catalogue's sentences, their numbers and dates are in the
// tr-TR forms, decisions are worded from their facts, and the CSV is the same machine-readable file in any language.
import { beforeAll, describe, expect, it } from 'vitest';
import { renderCsv, renderHtml, renderMarkdown } from '../../src/shared/study/report';
import { text as markdownText } from '../../src/shared/study/report/markdown';
import { escapeHtml } from '../../src/shared/study/report/escape';
import en, { type ReportMessageKey } from '../../src/shared/study/report/messages/en';
import { SAME_IN_EVERY_LANGUAGE } from '../../src/shared/study/report/messages/catalogue';
import type { ProjectFile } from '../../src/shared/study/study';
import { exampleFiles, finishedExampleProject } from '../helpers/example-projects';

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
 * What the user wrote, and text the report quotes without translating: the study's name, description and labels
 * (stages, candidates, variants, workloads) and the trials' labels, commands, errors and refusals, as they may
 * appear in either format. The examples' labels are English, and a Turkish report shows them as they are. Only
 * these are taken out (not every string of the project: "latency" as the goal's key must not hide an English
 * sentence of the report).
 */
function userStrings(project: ProjectFile): string[] {
  const { study } = project;
  const found = new Set<string>([study.name, ...(study.description ? [study.description] : [])]);
  for (const stage of study.stages) {
    if (stage.label) found.add(stage.label);
    for (const c of stage.candidates) if (c.label) found.add(c.label);
  }
  for (const v of study.model.variants) if (v.label) found.add(v.label);
  for (const w of [study.workloads.primary, ...study.workloads.generalisation]) if (w.label) found.add(w.label);
  for (const t of project.state.trials) {
    for (const s of [t.label, t.command, t.rejectReason, t.error, t.result?.error]) if (s) found.add(s);
    // The report words a planned role itself ("Baseline: …"), and shows what follows it.
    found.add(t.label.replace(/^(Best so far|Baseline|Recommended): /, ''));
  }
  const forms = [...found].filter((s) => s.length >= 3).flatMap((s) => [s, markdownText(s), escapeHtml(s)]);
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

function withoutUserText(report: string, project: ProjectFile): string {
  let out = report;
  for (const s of userStrings(project)) out = out.split(s).join(' ');
  return out;
}

const projects = new Map<string, ProjectFile>();
beforeAll(() => {
  for (const file of exampleFiles()) projects.set(file, finishedExampleProject(file));
}, 120_000);

describe('Turkish report of the example studies', () => {
  const sentences = englishSentences();

  it('finds the check meaningful: the English report of each example holds many catalogue sentences', () => {
    expect(sentences.length).toBeGreaterThan(150);
    for (const [file, project] of projects) {
      const md = withoutUserText(renderMarkdown(project, 'en'), project);
      const present = sentences.filter((s) => md.includes(markdownText(s.words)));
      expect(present.length, file).toBeGreaterThan(40);
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
    });
  }

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
    const project = projects.get(exampleFiles()[0] as string) as ProjectFile;
    const old: ProjectFile = {
      ...project,
      state: { ...project.state, decisions: project.state.decisions.map(({ basis: _b, unmeasured: _u, ...d }) => d) },
    };
    const engine = old.state.decisions.find((d) => d.stageId === 'engine');
    const md = renderMarkdown(old, 'tr');
    expect(md).toContain('Kayıtlı gerekçe (eski bir sürüm tarafından yazıldı; o sürüm gerekçeyi yalnızca İngilizce saklıyordu):');
    expect(md).toContain(markdownText((engine?.reason ?? '').slice(1)));
    // In English the stored reason is the report's own language: it is quoted as it is.
    expect(renderMarkdown(old, 'en')).not.toContain('Recorded reason');
  });

  it('writes numbers and dates the Turkish way, and marks the HTML as Turkish', () => {
    const project = projects.get(exampleFiles()[0] as string) as ProjectFile;
    const md = renderMarkdown(project, 'tr');
    // Decimal comma in the tables and intervals with a semicolon between their ends; percent sign first.
    expect(md).toMatch(/\| \d+,\d{2} \|/);
    expect(md).toMatch(/\\\[[−+]?\d+,\d; [−+]?\d+,\d\\\]/);
    expect(md).toMatch(/[−+]%\d+,\d/);
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
    }
  });
});
