/**
 * The study report's Markdown (src/shared/study/report/markdown.ts) read back as blocks, so the Report tab shows it as
 * a document. Only what that renderer writes is read, by the CommonMark/GFM rules it writes for: ATX headings,
 * paragraphs, fenced code blocks, `- ` lists, `> ` block quotes (its callouts, a list inside), GFM pipe tables, and
 * inline backslash escapes, code spans (any fence length), `**strong**` and `*emphasis*`. Anything else stays text:
 * the result is data, never HTML, so the view builds elements and every character of the report reaches the page as
 * text.
 */

export type Inline = { kind: 'text'; text: string } | { kind: 'code'; text: string } | { kind: 'strong' | 'em'; children: Inline[] };

export type Block =
  | { kind: 'heading'; level: number; content: Inline[] }
  | { kind: 'paragraph'; content: Inline[] }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'list'; items: Inline[][] }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'table'; header: Inline[][]; rows: Inline[][][] };

const FENCE = /^(`{3,})([^`]*)$/;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const LIST_ITEM = /^[-*+][ \t]+(.*)$/;
const TABLE_DELIMITER = /^\|?(\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?\s*$/;

export function parseReportMarkdown(markdown: string): Block[] {
  return parseBlocks(markdown.replace(/\r\n?/g, '\n').split('\n'));
}

function parseBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  const startsBlock = (line: string, next: string | undefined) =>
    line.trim() === '' || FENCE.test(line) || HEADING.test(line) || LIST_ITEM.test(line) || line.startsWith('>') || isTableStart(line, next);
  while (i < lines.length) {
    const line = lines[i] as string;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const open = (fence[1] as string).length;
      const body: string[] = [];
      i++;
      // Closed by a run of at least as many backticks alone on its line; an unclosed block runs to the end.
      while (i < lines.length && !new RegExp(`^\`{${open},}\\s*$`).test(lines[i] as string)) body.push(lines[i++] as string);
      i++;
      blocks.push({ kind: 'code', lang: (fence[2] as string).trim(), text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: (heading[1] as string).length, content: parseInline(heading[2] as string) });
      i++;
      continue;
    }
    if (isTableStart(line, lines[i + 1])) {
      const header = cellsOf(line);
      i += 2;
      const rows: Inline[][][] = [];
      while (i < lines.length && (lines[i] as string).trim().startsWith('|')) {
        const cells = cellsOf(lines[i++] as string);
        // GFM: a row is cut or padded to the header's width.
        rows.push(header.map((_, c) => cells[c] ?? []));
      }
      blocks.push({ kind: 'table', header, rows });
      continue;
    }
    if (line.startsWith('>')) {
      const quoted: string[] = [];
      while (i < lines.length && (lines[i] as string).startsWith('>')) quoted.push((lines[i++] as string).replace(/^> ?/, ''));
      blocks.push({ kind: 'quote', blocks: parseBlocks(quoted) });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const items: Inline[][] = [];
      let match: RegExpExecArray | null;
      while (i < lines.length && (match = LIST_ITEM.exec(lines[i] as string))) {
        items.push(parseInline(match[1] as string));
        i++;
      }
      blocks.push({ kind: 'list', items });
      continue;
    }
    const paragraph: string[] = [line.trim()];
    i++;
    while (i < lines.length && !startsBlock(lines[i] as string, lines[i + 1])) paragraph.push((lines[i++] as string).trim());
    blocks.push({ kind: 'paragraph', content: parseInline(paragraph.join(' ')) });
  }
  return blocks;
}

function isTableStart(line: string, next: string | undefined): boolean {
  return line.trim().startsWith('|') && next !== undefined && next.includes('-') && TABLE_DELIMITER.test(next);
}

/** A row's cells: split at each pipe no backslash escapes, then `\|` read as `|` (GFM, code spans included). */
function cellsOf(row: string): Inline[][] {
  const cells: string[] = [];
  let cell = '';
  const text = row.trim();
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '|' && text[i - 1] !== '\\') {
      cells.push(cell);
      cell = '';
    } else {
      cell += c;
    }
  }
  cells.push(cell);
  // The text before the leading pipe and after the trailing one is not a cell.
  if (text.startsWith('|')) cells.shift();
  if (text.endsWith('|') && !text.endsWith('\\|')) cells.pop();
  return cells.map((c) => parseInline(c.trim().replace(/\\\|/g, '|')));
}

const ESCAPABLE = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/;

export function parseInline(source: string): Inline[] {
  return inlineUntil(source, 0, null).nodes;
}

/** Inline content from `start` up to the closing `delimiter` (or the end); `closed` says whether it was found. */
function inlineUntil(source: string, start: number, delimiter: '**' | '*' | null): { nodes: Inline[]; end: number; closed: boolean } {
  const nodes: Inline[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') nodes.push({ kind: 'text', text });
    text = '';
  };
  let i = start;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '\\' && i + 1 < source.length && ESCAPABLE.test(source[i + 1] as string)) {
      text += source[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(source.slice(i))?.[0] as string;
      const close = closingRun(source, i + run.length, run.length);
      if (close === -1) {
        text += run;
        i += run.length;
        continue;
      }
      flush();
      nodes.push({ kind: 'code', text: codeSpanText(source.slice(i + run.length, close)) });
      i = close + run.length;
      continue;
    }
    if (c === '*') {
      const strong = source.startsWith('**', i);
      const marker = strong ? '**' : '*';
      if (delimiter !== null && source.startsWith(delimiter, i) && (delimiter === '**' || !strong)) {
        flush();
        return { nodes, end: i + delimiter.length, closed: true };
      }
      if (marker !== delimiter) {
        const inner = inlineUntil(source, i + marker.length, marker);
        if (inner.closed && inner.nodes.length > 0) {
          flush();
          nodes.push({ kind: strong ? 'strong' : 'em', children: inner.nodes });
          i = inner.end;
          continue;
        }
      }
      text += marker;
      i += marker.length;
      continue;
    }
    text += c;
    i++;
  }
  flush();
  return { nodes, end: i, closed: false };
}

/** Where a run of exactly `length` backticks starts at or after `from`; -1 when none does. */
function closingRun(source: string, from: number, length: number): number {
  let i = from;
  while (i < source.length) {
    if (source[i] !== '`') {
      i++;
      continue;
    }
    let j = i;
    while (source[j] === '`') j++;
    if (j - i === length) return i;
    i = j;
  }
  return -1;
}

/** CommonMark: line ends become spaces, and one space is stripped from each side when both have one (and not only spaces). */
function codeSpanText(raw: string): string {
  const flat = raw.replace(/\n/g, ' ');
  return flat.length >= 2 && flat.startsWith(' ') && flat.endsWith(' ') && flat.trim() !== '' ? flat.slice(1, -1) : flat;
}
