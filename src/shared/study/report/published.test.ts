import { describe, expect, it } from 'vitest';
// The published latency guide, verbatim (tests/fixtures/guides/README.md), read by the guide reader.
import latencyGuide from '../../../../tests/fixtures/guides/qwen3-8b-h100-latency.tr.txt?raw';
import { studyFromGuide } from '../guide/study-from-guide';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema } from '../study';
import { buildReportModel, stageRows } from './model';
import { renderHtml } from './html';
import { renderMarkdown } from './markdown';

const FILE = 'qwen3-8b-h100-latency.tr.txt';
const read = studyFromGuide(latencyGuide, { fileName: FILE });
const project = ProjectFileSchema.parse({
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: read.study,
  state: { status: 'draft', trials: [], decisions: [], references: read.references, guide: { file: FILE, title: read.title, problems: read.problems } },
});

describe('published results in the report', () => {
  it('places each published result in its stage with the printed numbers and its line', () => {
    const m = buildReportModel(project);
    const engine = m.stages.find((s) => s.id === 'engine')!;
    expect(engine.published.map((r) => [r.source, r.metrics.total_token_throughput, r.metrics.mean_ttft_ms, r.besideTrialId])).toEqual([
      [`${FILE}:114`, 1020.76, 64, null],
      [`${FILE}:169`, 1079.74, 27.7, null],
      [`${FILE}:224`, 1001.25, 51.61, null],
    ]);
    expect(stageRows(engine).map((l) => l.kind)).toEqual(['published', 'published', 'published']);
    expect(m.notes.find((n) => n.kind === 'published')?.text).toContain('25 results printed in the guide');
  });

  it('writes them in Markdown and HTML, named published, in English and in Turkish', () => {
    const md = renderMarkdown(project);
    expect(md).toMatch(/\| \*Published: vLLM 0\.11\.0\* \| \*published\* \|.*\| printed in the guide at qwen3-8b-h100-latency\.tr\.txt:114, not measured here \|/);
    expect(md).toContain('no decision used them');
    const tr = renderMarkdown(project, 'tr');
    expect(tr).toMatch(/\| \*Yayımlanmış: vLLM 0\.11\.0\* \| \*yayımlanmış\* \|.*\| rehberde qwen3-8b-h100-latency\.tr\.txt:114 konumunda basılı, burada ölçülmedi \|/);
    const html = renderHtml(project);
    expect(html).toContain('<tr class="published"><td>Published: vLLM 0.11.0</td>');
  });
});
