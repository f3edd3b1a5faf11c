// The report of a re-run against its original study: the latency example run to the end in virtual time, then re-run
// from rerunDefinition at a newer vLLM on a slower simulated GPU (a real slowdown the decision rule's statistics
// must find) and at the newer vLLM on the same box; the section is checked against compareStudies, in Markdown, HTML
// and CSV, in English and Turkish, through `servelab report`, and without the original.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReport } from '../../src/cli/commands/report';
import { rerunDefinition } from '../../src/shared/study/rerun';
import { buildReportModel, renderCsv, renderHtml, renderMarkdown, reportText } from '../../src/shared/study/report';
import { text as markdownText } from '../../src/shared/study/report/markdown';
import { escapeHtml } from '../../src/shared/study/report/escape';
import { compareStudies } from '../../src/shared/study/study-diff';
import { PROJECT_SCHEMA_VERSION, type ProjectFile } from '../../src/shared/study/study';
import { runCaptured } from '../helpers/cli';
import { finishedExampleProject } from '../helpers/example-projects';
import { runVirtualStudy } from '../helpers/virtual-study';

const EXAMPLE = 'qwen3-8b-latency-h100.servelab';
let dir: string;
let original: ProjectFile;
/** Re-run at vLLM 0.12.0 on the demo lab's A100 instead of its H100. */
let slower: ProjectFile;
/** Re-run at vLLM 0.12.0 on the same box. */
let same: ProjectFile;

function rerunOf(path: string, change: (study: ProjectFile['study']) => ProjectFile['study'], seed: number): ProjectFile {
  const study = change(rerunDefinition({ path, file: original }, { engineVersions: { vllm: '0.12.0' } }).definition);
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study, state: runVirtualStudy(study, { seed }).state };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-versus-'));
  original = finishedExampleProject(EXAMPLE);
  const path = join(dir, 'latency.servelab');
  writeFileSync(path, JSON.stringify(original, null, 1));
  // Marked edge case: "another box" in virtual time is the demo lab's GPU model, which the virtual lab reads from the study.
  slower = rerunOf(path, (s) => ({ ...s, demoLab: { gpu: 'a100', count: 1 } }), 3);
  same = rerunOf(path, (s) => s, 2);
  writeFileSync(join(dir, 'latency-a100.servelab'), JSON.stringify(slower, null, 1));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the report model of a re-run', () => {
  it('has no comparison for a study that is not a re-run', () => {
    expect(buildReportModel(original, 'en').versus).toBeNull();
    expect(renderMarkdown(original, 'en')).not.toContain('Versus the original study');
    expect(renderCsv(original)).not.toContain('verdict vs original');
  });

  it('says what changed and carries every row of compareStudies, the worse first, with its values, runs, change and verdict', () => {
    const diff = compareStudies(original, slower);
    const v = buildReportModel(slower, 'en', { original }).versus;
    expect(v).not.toBeNull();
    if (!v) return;
    expect(v.found).toBe(true);
    expect(v.changes).toEqual([
      'vLLM: 0.11.0 → 0.12.0',
      'SGLang 0.5.3.post3, unchanged',
      'TensorRT-LLM 1.2.0rc1, unchanged',
      'Hosts: demo-lab, unchanged',
      'GPUs: 1× H100 (simulated GPU box) → 1× A100 (simulated GPU box)',
    ]);
    expect(v.rows.map((r) => r.key).sort()).toEqual(diff.rows.map((r) => r.key).sort());
    for (const row of diff.rows) {
      const shown = v.rows.find((r) => r.key === row.key);
      const objective = row.metrics.find((m) => m.metric === 'mean_latency_s');
      expect(shown?.original.value, row.key).toBe(objective?.original ?? null);
      expect(shown?.rerun.value, row.key).toBe(objective?.rerun ?? null);
      expect(shown?.original.runs, row.key).toBe(row.original.runs);
      expect(shown?.rerun.runs, row.key).toBe(row.rerun.runs);
      expect(shown?.change, row.key).toEqual(objective?.change ?? null);
      expect(shown?.regression, row.key).toBe(objective?.verdict === 'worse');
    }
    // The slower box is a regression on the objective for every engine, and those rows lead the table.
    const regressed = v.rows.filter((r) => r.regression);
    expect(regressed.length).toBeGreaterThanOrEqual(3);
    expect(v.rows.slice(0, regressed.length).every((r) => r.regression)).toBe(true);
    expect(v.regressions).toHaveLength(new Set(diff.regressions.map((r) => r.key)).size);
    expect(v.onlyOriginal.map((s) => s.key)).toEqual(diff.onlyOriginal.map((s) => s.key));
    expect(v.onlyRerun.map((s) => s.key)).toEqual(diff.onlyRerun.map((s) => s.key));
  });

  it('finds no regression of the objective re-run on the same box at the newer version, and says so when there is none', () => {
    const v = buildReportModel(same, 'en', { original }).versus;
    expect(v?.rows.length).toBeGreaterThan(10);
    // The simulated engines are as fast at both versions: what differs is run-to-run noise, which the interval covers.
    expect(v?.rows.filter((r) => r.regression).length).toBeLessThanOrEqual(1);
    const md = renderMarkdown(same, 'en', { original });
    if (v?.regressions.length === 0) expect(md).toContain('No regression against the original');
    expect(md).toContain('| no difference |');
  });
});

describe('the Markdown, HTML and CSV of a re-run', () => {
  it('shows the section in Markdown: the changes, the regressions marked first, each row with its runs and interval', () => {
    const md = renderMarkdown(slower, 'en', { original });
    const section = md.slice(md.indexOf('## Versus the original study'), md.indexOf('## Notes and caveats'));
    expect(section).toContain('This study re-runs "Qwen3-8B, lowest latency on one H100" with the same stages, candidates and workloads.');
    expect(section).toContain('- vLLM: 0.11.0 → 0.12.0');
    expect(section).toMatch(/> \*\*⚠ REGRESSION\.\*\* The re-run is worse than the original on \d+ configurations and workloads:/);
    const tx = reportText('en');
    const v = buildReportModel(slower, 'en', { original }).versus;
    const first = v?.rows[0];
    if (!first?.change || first.original.value === null || first.rerun.value === null) throw new Error('the first row has no comparison');
    const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
    const line = section.split('\n').find((l) => l.startsWith(`| **⚠ ${markdownText(first.configuration)}** |`));
    expect(line).toContain(`| ${tx.number(first.original.value)}, ${runs(first.original.runs)} | ${tx.number(first.rerun.value)}, ${runs(first.rerun.runs)} |`);
    expect(line).toContain(`| **${markdownText(tx.change(first.change))}** | **worse than the original** |`);
    // Rows that did not get worse follow, unmarked; configurations only one study has are listed.
    if (v?.onlyOriginal.length) expect(section).toContain('Only in the original study:');
    expect(section.indexOf('| **⚠')).toBeLessThan(section.indexOf('Values are the geometric means'));
  });

  it('shows the same section in HTML, escaped, the regression rows marked', () => {
    const html = renderHtml(slower, 'en', { original });
    const section = html.slice(html.indexOf('<section id="versus">'), html.indexOf('<section id="notes">'));
    expect(section).toContain('<h2>Versus the original study</h2>');
    expect(section).toContain('<li>vLLM: 0.11.0 → 0.12.0</li>');
    expect(section).toContain('<div class="callout warning" role="alert">');
    expect(section).toMatch(/<tr class="regression"><td><span class="flag">⚠<\/span> Engine selection · vLLM 0\.12\.0<\/td>/);
    expect(section).toContain(escapeHtml('This study re-runs "Qwen3-8B, lowest latency on one H100"'));
  });

  it('adds the comparison to each trial row of the CSV, in its language-neutral form', () => {
    const csv = renderCsv(slower, { original }).split('\r\n');
    const header = (csv[0] as string).split(',');
    const tail = ['original mean_latency_s (s)', 'original runs', 'objective vs original (%)', 'objective vs original low (%)', 'objective vs original high (%)', 'verdict vs original'];
    expect(header.slice(-tail.length)).toEqual(tail);
    expect(csv).toHaveLength(slower.state.trials.length + 2);
    const v = buildReportModel(slower, 'en', { original }).versus;
    const engineRow = v?.rows.find((r) => r.key.startsWith('engine/vllm-0.12.0/'));
    const trialIndex = slower.state.trials.findIndex((t) => `${t.stageId}/${t.candidateId}/${t.workloadId}` === engineRow?.key);
    const cells = (csv[trialIndex + 1] as string).split(',');
    expect(cells.at(-1)).toBe('worse');
    expect(Number(cells.at(-4))).toBeCloseTo(engineRow?.change?.pct ?? NaN, 1);
    expect(cells.at(-4)).toMatch(/^\d+\.\d+$/);
    // Without the original the re-run keeps its columns, empty.
    const without = renderCsv(slower, { original: null }).split('\r\n');
    expect(without[0]).toBe(csv[0]);
    expect((without[trialIndex + 1] as string).endsWith(',,,,,,')).toBe(true);
  });

  it('writes the section in Turkish, numbers the Turkish way', () => {
    const md = renderMarkdown(slower, 'tr', { original });
    expect(md).toContain('## Özgün çalışmaya göre');
    expect(md).toContain('- vLLM: 0.11.0 → 0.12.0');
    expect(md).toMatch(/> \*\*⚠ GERİLEME\.\*\* Yeniden çalıştırma, \d+ yapılandırma ve iş yükünde özgün çalışmadan daha kötü:/);
    expect(md).toMatch(/\| \*\*⚠ Motor seçimi · vLLM 0\.12\.0\*\* \| `sharegpt-c4` \| \d+,\d\d, \d çalıştırma \| \d+,\d\d, \d çalıştırma \|/);
    expect(md).toContain('özgünden daha kötü');
    expect(renderHtml(slower, 'tr', { original })).toContain('<h2>Özgün çalışmaya göre</h2>');
  });

  it('lists and marks a configuration that ran in the original and fails in the re-run', () => {
    // Marked edge case: the re-run's TensorRT-LLM engine trials turned into failures by hand (the virtual lab has none).
    const failing: ProjectFile = {
      ...same,
      state: {
        ...same.state,
        trials: same.state.trials.map((t) => (t.stageId === 'engine' && t.engine === 'trtllm' ? { ...t, status: 'failed' as const, result: undefined, error: 'exited' } : t)),
      },
    };
    const v = buildReportModel(failing, 'en', { original }).versus;
    const row = v?.rows.find((r) => r.key.startsWith('engine/trtllm-'));
    expect(row).toMatchObject({ lost: true, change: null, verdict: null, rerun: { outcome: 'failed', note: 'failed' } });
    expect(v?.lost).toEqual(['Engine selection · TensorRT-LLM 1.2.0rc1 on sharegpt-c4: measured in the original, failed in the re-run']);
    const md = renderMarkdown(failing, 'en', { original });
    expect(md).toContain('> - Engine selection · TensorRT-LLM 1.2.0rc1 on sharegpt-c4: measured in the original, failed in the re-run');
    expect(md).toMatch(/\| \*\*⚠ Engine selection · TensorRT-LLM 1\.2\.0rc1\*\* \| `sharegpt-c4` \| \d\.\d\d, 1 run \| failed \| – \| – \| no longer runs \|/);
    expect(row?.original.value).toBe(compareStudies(original, same).rows.find((r) => r.key === row?.key)?.metrics.find((m) => m.metric === 'mean_latency_s')?.original);
  });

  it('says only that nothing is compared yet for a re-run not run yet', () => {
    const draft: ProjectFile = { ...same, state: { status: 'draft', trials: [], decisions: [] } };
    const md = renderMarkdown(draft, 'en', { original });
    const section = md.slice(md.indexOf('## Versus the original study'), md.indexOf('## Notes and caveats'));
    expect(section).toContain('- vLLM: 0.11.0 → 0.12.0');
    expect(section).toContain('No configuration has been measured on a workload in both studies yet.');
    expect(section).not.toContain('No regression');
    expect(section).not.toContain('Only in the original study:');
  });

  it('says the original could not be read, and where it was, instead of failing the report', () => {
    for (const [lang, words] of [
      ['en', 'could not be read at'],
      ['tr', 'konumundan okunamadı'],
    ] as const) {
      const md = renderMarkdown(slower, lang, { original: null });
      expect(md).toContain(words);
      expect(md).toContain(`\`${join(dir, 'latency.servelab')}\``);
      expect(md).toContain(lang === 'en' ? '- vLLM: 0.11.0 → 0.12.0' : '- vLLM: 0.11.0 → 0.12.0');
      expect(md).not.toMatch(/\| (Configuration|Yapılandırma) \|/);
      const html = renderHtml(slower, lang, { original: null });
      expect(html).toContain(`<code>${escapeHtml(join(dir, 'latency.servelab'))}</code>`);
    }
    expect(buildReportModel(slower, 'en', {}).versus?.found).toBe(false);
  });
});

describe('servelab report of a re-run', () => {
  const run = (args: string[]) => runCaptured((io) => runReport(args, io), {}, dir);

  it('prints the section, reading the original its provenance names, in either language and in the CSV', async () => {
    const en = await run(['latency-a100.servelab']);
    expect(en.stderr).toBe('');
    expect(en.code).toBe(0);
    expect(en.stdout).toContain('## Versus the original study');
    expect(en.stdout).toContain('| **⚠ Engine selection · vLLM 0.12.0** |');
    const tr = await run(['latency-a100.servelab', '--lang', 'tr', '--format', 'html']);
    expect(tr.code).toBe(0);
    expect(tr.stdout).toContain('<h2>Özgün çalışmaya göre</h2>');
    const csv = await run(['latency-a100.servelab', '--format', 'csv']);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/,verdict vs original$/);
    expect(csv.stdout).toMatch(/,worse\r\n/);
  });

  it('still writes the report when the original is gone, saying so', async () => {
    const away = join(dir, 'away');
    mkdirSync(away, { recursive: true });
    renameSync(join(dir, 'latency.servelab'), join(away, 'latency.servelab'));
    try {
      const { code, stdout, stderr } = await run(['latency-a100.servelab']);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain('## Versus the original study');
      expect(stdout).toContain(`The original study "Qwen3-8B, lowest latency on one H100" could not be read at \`${join(dir, 'latency.servelab')}\``);
      expect(stdout).toContain('## Notes and caveats');
    } finally {
      renameSync(join(away, 'latency.servelab'), join(dir, 'latency.servelab'));
    }
  });
});
