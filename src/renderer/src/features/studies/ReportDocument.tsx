import { memo, useMemo, type JSX, type ReactNode } from 'react';
import { parseReportMarkdown, type Block, type Inline } from './report-markdown';

/**
 * The study report as it reads: its Markdown (report-markdown.ts) drawn as React elements, so every character of it,
 * a label a project carries included, is text on the page and never markup. Headings start one level below the
 * page's own: the report's title is an h2 under the study's name.
 */
export const ReportDocument = memo(function ReportDocument({ markdown, label, lang }: { markdown: string; label: string; lang: string }) {
  const blocks = useMemo(() => parseReportMarkdown(markdown), [markdown]);
  return (
    <article className="study-report-document" aria-label={label} lang={lang}>
      {blocks.map(block)}
    </article>
  );
});

function block(b: Block, key: number): JSX.Element {
  switch (b.kind) {
    case 'heading': {
      const level = Math.min(6, b.level + 1);
      const Tag = `h${level}` as 'h2';
      return <Tag key={key}>{inlines(b.content)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{inlines(b.content)}</p>;
    case 'code':
      return (
        <pre key={key} className="mono-block">
          <code>{b.text}</code>
        </pre>
      );
    case 'list':
      return (
        <ul key={key}>
          {b.items.map((item, i) => (
            <li key={i}>{inlines(item)}</li>
          ))}
        </ul>
      );
    case 'quote':
      return (
        <blockquote key={key} className="study-report-callout">
          {b.blocks.map(block)}
        </blockquote>
      );
    case 'table':
      return (
        // A wide table scrolls sideways on its own: focusable, so the keyboard can scroll it too.
        <div key={key} className="study-report-table" tabIndex={0}>
          <table>
            <thead>
              <tr>
                {b.header.map((cell, i) => (
                  <th key={i} scope="col">
                    {inlines(cell)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, i) => (
                    <td key={i}>{inlines(cell)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

function inlines(nodes: Inline[]): ReactNode[] {
  return nodes.map((node, i) => {
    switch (node.kind) {
      case 'text':
        return node.text;
      case 'code':
        return (
          <code key={i} className="mono">
            {node.text}
          </code>
        );
      case 'strong':
        return <strong key={i}>{inlines(node.children)}</strong>;
      case 'em':
        return <em key={i}>{inlines(node.children)}</em>;
    }
  });
}
