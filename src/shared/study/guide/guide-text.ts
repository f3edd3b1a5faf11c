/**
 * A tuning guide as lines, whatever it was written in: Markdown (fenced code, `#` headings), HTML (tags dropped,
 * `<pre>` kept as code, `<h1>`–`<h6>` as headings) or plain text pasted from a web page. Every line keeps the line
 * number it has in the file the user opened, so what the study says about a line points at that file.
 *
 * Pasted code viewers add their own lines: a run of bare line numbers before a block (`1`, ` 2`, …), or a number and
 * a tab before a back-quoted command (`1\t\`vllm serve …\``). Those numbers are dropped and the back-quotes taken off.
 */

export type GuideFormat = 'markdown' | 'html' | 'text';

export interface GuideLine {
  /** 1-based line in the opened file. */
  line: number;
  text: string;
  /** Inside a fenced block or `<pre>`. */
  code: boolean;
  /** Heading level (1–6) of an explicit Markdown or HTML heading. */
  heading?: number;
}

/** The format from the file name, else from the text itself. */
export function guideFormatOf(fileName: string, text: string): GuideFormat {
  const name = fileName.toLowerCase();
  if (/\.(md|markdown)$/.test(name)) return 'markdown';
  if (/\.(html?|xhtml)$/.test(name)) return 'html';
  if (/\.txt$/.test(name)) return 'text';
  if (/<(html|body|h[1-6]|pre|p|div)\b/i.test(text.slice(0, 20_000))) return 'html';
  if (/^```|^#{1,6} \S/m.test(text)) return 'markdown';
  return 'text';
}

const LINE_NUMBER_ONLY = /^\s*\d{1,4}\s*$/;
/** `1\t\`trtllm-serve …\``: a code viewer's number, a tab, and the code in back-quotes. */
const NUMBERED_INLINE_CODE = /^\s*\d{1,4}\t+`(.*)`\s*$/;

function cleanPasted(lines: GuideLine[]): GuideLine[] {
  const out: GuideLine[] = [];
  for (const l of lines) {
    if (!l.code && LINE_NUMBER_ONLY.test(l.text)) continue;
    const inline = NUMBERED_INLINE_CODE.exec(l.text);
    out.push(inline ? { ...l, text: inline[1] ?? '', code: true } : l);
  }
  return out;
}

function markdownLines(source: readonly { text: string; line: number }[]): GuideLine[] {
  const out: GuideLine[] = [];
  let fence: string | null = null;
  for (const { text, line } of source) {
    const fenceMatch = /^\s*(```+|~~~+)/.exec(text);
    if (fenceMatch) {
      const mark = fenceMatch[1] ?? '```';
      if (fence === null) fence = mark;
      else if (mark.startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) {
      out.push({ line, text, code: true });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) out.push({ line, text: stripInlineMarkdown(heading[2] ?? ''), code: false, heading: (heading[1] ?? '#').length });
    else out.push({ line, text: stripInlineMarkdown(text), code: false });
  }
  return out;
}

/** Emphasis and inline-code marks, list bullets and table pipes become plain words. */
function stripInlineMarkdown(text: string): string {
  return text
    .replace(/\*\*|__/g, '')
    .replace(/^\s*[-*+]\s+/, '  • ')
    .replace(/^\s*\|(.*)\|\s*$/, (_m, inner: string) => (/^[\s|:-]+$/.test(inner) ? '' : inner.split('|').map((c) => c.trim()).join('\t')));
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#') && lower !== '#39') return String.fromCodePoint(Number(lower.slice(1)));
    return ENTITIES[lower] ?? m;
  });
}

const BLOCK_TAG = /<\/?(p|div|br|li|ul|ol|tr|table|thead|tbody|section|article|header|footer|blockquote|dd|dt|dl|hr)\b[^>]*>/gi;

/** HTML to Markdown-like lines, each piece keeping its source line. Scripts and styles are dropped whole. */
function htmlToMarkdownLines(text: string): { text: string; line: number }[] {
  const cleaned = text.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, (m) => m.replace(/[^\n]/g, '')).replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ''));
  const out: { text: string; line: number }[] = [];
  let inPre = false;
  cleaned.split(/\r?\n|\r/).forEach((raw, i) => {
    const line = i + 1;
    // Mark headings, pre and table cells before the other tags go.
    let s = raw
      .replace(/<h([1-6])\b[^>]*>/gi, (_m, n: string) => `\n${'#'.repeat(Number(n))} `)
      .replace(/<\/h[1-6]>/gi, '\n')
      .replace(/<pre\b[^>]*>/gi, '\n```\n')
      .replace(/<\/pre>/gi, '\n```\n')
      .replace(/<\/t[dh]>\s*<t[dh]\b[^>]*>/gi, '\t');
    for (const piece of s.split('\n')) {
      if (piece.trim() === '```') {
        inPre = !inPre;
        out.push({ text: '```', line });
        continue;
      }
      s = inPre ? piece.replace(/<[^>]*>/g, '') : piece.replace(BLOCK_TAG, '\n').replace(/<[^>]*>/g, '');
      for (const part of s.split('\n')) {
        const decoded = decodeEntities(part);
        if (!inPre && decoded.trim() === '') continue;
        out.push({ text: inPre ? decoded : decoded.replace(/[ \t]+$/, ''), line });
      }
    }
  });
  return out;
}

export function guideLines(text: string, format: GuideFormat): GuideLine[] {
  const raw = text.replace(/^\uFEFF/, '');
  if (format === 'html') return cleanPasted(markdownLines(htmlToMarkdownLines(raw)));
  const source = raw.split(/\r?\n|\r/).map((t, i) => ({ text: t.replace(/\u00a0/g, ' '), line: i + 1 }));
  if (format === 'markdown') return cleanPasted(markdownLines(source));
  return cleanPasted(source.map((s) => ({ ...s, code: false })));
}
