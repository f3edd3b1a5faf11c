import { cleanup, render, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../../shared/study/report';
import { STUDY_A_RECOMMENDED, studyAProject } from '../../../../../tests/helpers/study-projects';
import { ReportDocument } from './ReportDocument';
import { parseInline, parseReportMarkdown } from './report-markdown';

afterEach(cleanup);

function renderReport(markdown: string) {
  render(<ReportDocument markdown={markdown} label="Report" lang="en" />);
  return document.querySelector('article') as HTMLElement;
}

describe('the report drawn as a document', () => {
  it('shows the real report with its headings, callouts, command, lists and tables, and no Markdown syntax', () => {
    const article = renderReport(renderMarkdown(studyAProject()));
    const view = within(article);
    // The report's title one level below the page's own heading, its sections below that.
    expect(view.getByRole('heading', { level: 2 }).textContent).toBe('Qwen/Qwen3-8B on 1× NVIDIA H100 80GB HBM3: lowest mean latency per request');
    const sections = view.getAllByRole('heading', { level: 3 }).map((h) => h.textContent);
    expect(sections.slice(0, 4)).toEqual(['Recommendation', 'Before and after, per scenario', 'Notes and caveats', 'Optimisation goal']);
    // The simulated-results callout: a quote whose first words are strong.
    const callout = article.querySelector('blockquote') as HTMLElement;
    expect(callout.querySelector('strong')?.textContent).toBe('Simulated results.');
    // The launch command as a code block, exactly.
    expect(article.querySelector('pre code')?.textContent).toBe(STUDY_A_RECOMMENDED);
    // The scenario table: its header cells and an escaped interval read as plain brackets.
    const table = view.getAllByRole('table')[0] as HTMLElement;
    expect(within(table).getAllByRole('columnheader').map((c) => c.textContent)).toEqual([
      'Scenario',
      'Baseline (s/request)',
      'Recommended (s/request)',
      'Change in mean latency',
      'Speed-up',
      'Winner',
    ]);
    const first = within(table).getAllByRole('row')[1] as HTMLElement;
    expect(within(first).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      'ShareGPT, 100 prompts, concurrency 1',
      '1.66, 1 run',
      '0.62, 1 run',
      'better: −62.7% [−63.6, −61.7]',
      '2.68x',
      'recommended',
    ]);
    // The goal's bullets, with the SLO as inline code.
    const goal = [...article.querySelectorAll('ul')].find((list) => list.textContent?.startsWith('Objective:')) as HTMLElement;
    expect(goal.querySelectorAll('li').length).toBeGreaterThanOrEqual(3);
    expect(goal.querySelector('code')?.textContent).toBe('p99_ttft_ms ≤ 500');
    const text = article.textContent ?? '';
    for (const syntax of ['## ', '| ---', '```', '**', '\\[']) expect(text).not.toContain(syntax);
  });

  it('shows a hostile label as the text it is: no element, attribute or handler comes from the report', () => {
    const project = studyAProject();
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script> **bold** `tick` | pipe';
    project.study.name = hostile;
    project.study.description = '<a href="javascript:alert(3)">click</a>';
    const stage = project.study.stages.find((s) => s.id === 'quantization')!;
    stage.label = '<b onmouseover=alert(4)>Quantization</b>';
    const article = renderReport(renderMarkdown(project));
    expect(article.querySelector('img, script, a, b, iframe')).toBeNull();
    for (const element of article.querySelectorAll('*')) {
      for (const attribute of element.attributes) expect(attribute.name).not.toMatch(/^on|href|src/);
    }
    const text = article.textContent ?? '';
    expect(text).toContain(hostile);
    expect(text).toContain('<a href="javascript:alert(3)">click</a>');
    expect(text).toContain('<b onmouseover=alert(4)>Quantization</b>');
  });
});

describe('reading the report Markdown', () => {
  it('reads escapes, code spans of any fence and nested emphasis as CommonMark does', () => {
    expect(parseInline('a \\*b\\* \\<c\\> \\_d')).toEqual([{ kind: 'text', text: 'a *b* <c> _d' }]);
    expect(parseInline('run `` a`b `` now')).toEqual([
      { kind: 'text', text: 'run ' },
      { kind: 'code', text: 'a`b' },
      { kind: 'text', text: ' now' },
    ]);
    expect(parseInline('**⚠ x *y* z** and *w*')).toEqual([
      { kind: 'strong', children: [{ kind: 'text', text: '⚠ x ' }, { kind: 'em', children: [{ kind: 'text', text: 'y' }] }, { kind: 'text', text: ' z' }] },
      { kind: 'text', text: ' and ' },
      { kind: 'em', children: [{ kind: 'text', text: 'w' }] },
    ]);
    // Unclosed markers stay as they are.
    expect(parseInline('2 * 3 and `open')).toEqual([{ kind: 'text', text: '2 * 3 and `open' }]);
  });

  it('splits table cells at unescaped pipes only, a pipe inside a code span included', () => {
    const [table] = parseReportMarkdown('| a | b |\n| --- | --- |\n| `x\\|y` | c \\| d |\n');
    expect(table).toEqual({
      kind: 'table',
      header: [[{ kind: 'text', text: 'a' }], [{ kind: 'text', text: 'b' }]],
      rows: [[[{ kind: 'code', text: 'x|y' }], [{ kind: 'text', text: 'c | d' }]]],
    });
  });

  it('keeps a fenced block verbatim up to a fence at least as long', () => {
    expect(parseReportMarkdown('````sh\necho ```\n# not a heading\n````\nafter\n')).toEqual([
      { kind: 'code', lang: 'sh', text: 'echo ```\n# not a heading' },
      { kind: 'paragraph', content: [{ kind: 'text', text: 'after' }] },
    ]);
  });
});
