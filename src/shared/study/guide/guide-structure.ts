import { parseBenchText, type TextBlock } from '../../results/parse-bench-text';
import type { GuideLine } from './guide-text';
import { sectionKindOf, type GuideSectionKind } from './guide-words';

/**
 * A guide's structure, found without knowing the guide: sections (a heading a keyword table names, or a numbered
 * section `2. …` — the guide's stages), commands recognised by their program (continued with `\`), result blocks by
 * their `Serving Benchmark Result` header (read by `parseBenchText`), the `# …` line that labels a block or reports a
 * launch that failed (`# KeyError: 'weight'`), and the prose between them.
 */

export type CommandProgram = 'server' | 'bench';

export type GuideItem =
  | { kind: 'command'; program: CommandProgram; text: string; line: number }
  | { kind: 'block'; block: TextBlock; label?: string; labelLine?: number }
  | { kind: 'failure'; error: string; line: number }
  | { kind: 'prose'; text: string; line: number };

export interface GuideSection {
  /** A keyword-named section, a numbered `stage`, or the part before the first heading (`intro`). */
  kind: GuideSectionKind | 'stage' | 'intro';
  title: string;
  line: number;
  /** The number of a numbered section. */
  number?: number;
  items: GuideItem[];
}

export interface GuideStructure {
  title: string;
  sections: GuideSection[];
  /** Result blocks `parseBenchText` could not read, with their line. */
  blockErrors: { line: number; message: string }[];
}

/** Programs that start an inference server, as they are typed (an env prefix or `sudo` allowed). */
const SERVER_PROGRAM = /^(?:sudo\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:vllm\s+serve\b|python3?\s+-m\s+sglang\.launch_server\b|trtllm-serve\b(?!\s+bench))/;
const BENCH_PROGRAM = /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*vllm\s+bench\s+serve\b/;
const NUMBERED = /^(\d{1,2})[.)]\s+(\S.{0,118})$/;
/** `# RuntimeError: …`, `# KeyError: 'weight'`: a launch that failed, as the guide shows it. */
const FAILURE = /^#\s*([A-Z][A-Za-z]*(?:Error|Exception)\b.*)$/;
const COMMENT = /^#\s*(.*\S)\s*$/;
const CLOSING = /^={20,}$/;

function programOf(text: string): CommandProgram | undefined {
  if (BENCH_PROGRAM.test(text)) return 'bench';
  if (SERVER_PROGRAM.test(text)) return 'server';
  return undefined;
}

function headingOf(l: GuideLine): { kind: GuideSection['kind']; number?: number; title: string } | undefined {
  const text = l.text.trim();
  if (l.code || text === '') return undefined;
  const kind = sectionKindOf(text);
  if (kind) return { kind, title: text };
  const numbered = NUMBERED.exec(text);
  // A numbered stage heading is a short line of its own, not an indented note or a sentence.
  if (numbered && !/^\s/.test(l.text) && !/[.:;]$/.test(text) && text.length <= 100) {
    return { kind: 'stage', number: Number(numbered[1]), title: (numbered[2] ?? '').trim() };
  }
  return undefined;
}

export function readGuideStructure(lines: readonly GuideLine[]): GuideStructure {
  // Blocks are read from the cleaned lines (code viewers' numbers gone), then given their line in the file.
  const parsed = parseBenchText(lines.map((l) => l.text).join('\n'));
  const fileLine = (index: number): number => lines[index - 1]?.line ?? index;
  const blocksByLine = new Map(parsed.blocks.map((b) => [fileLine(b.line), { ...b, line: fileLine(b.line) }]));
  const sections: GuideSection[] = [{ kind: 'intro', title: '', line: 1, items: [] }];
  let section = sections[0] as GuideSection;
  let pendingLabel: { text: string; line: number } | null = null;
  let inBlockUntilClosing = false;

  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as GuideLine;
    const text = l.text.trim();
    if (inBlockUntilClosing) {
      if (CLOSING.test(text) || blocksByLine.has(l.line)) inBlockUntilClosing = false;
      if (!blocksByLine.has(l.line)) continue;
    }
    const block = blocksByLine.get(l.line);
    if (block) {
      section.items.push({ kind: 'block', block, ...(pendingLabel ? { label: pendingLabel.text, labelLine: pendingLabel.line } : {}) });
      pendingLabel = null;
      inBlockUntilClosing = true;
      continue;
    }
    if (text === '') continue;
    const heading = l.heading !== undefined || !l.code ? headingOf(l) : undefined;
    if (heading) {
      section = { kind: heading.kind, title: heading.title, line: l.line, ...(heading.number !== undefined ? { number: heading.number } : {}), items: [] };
      sections.push(section);
      pendingLabel = null;
      continue;
    }
    if (l.heading !== undefined) {
      // A heading no table names: inside a stage it names a candidate, elsewhere it is prose of its own.
      section.items.push({ kind: 'prose', text, line: l.line });
      continue;
    }
    const program = programOf(text);
    if (program) {
      let command = text;
      while (/\\$/.test(command) && i + 1 < lines.length) {
        i++;
        command = `${command.slice(0, -1).trimEnd()} ${(lines[i] as GuideLine).text.trim()}`;
      }
      section.items.push({ kind: 'command', program, text: command.trim(), line: l.line });
      pendingLabel = null;
      continue;
    }
    const failure = FAILURE.exec(text);
    if (failure) {
      section.items.push({ kind: 'failure', error: (failure[1] ?? '').trim(), line: l.line });
      pendingLabel = null;
      continue;
    }
    const comment = COMMENT.exec(text);
    if (comment && (l.code || !l.heading)) {
      pendingLabel = { text: comment[1] ?? '', line: l.line };
      continue;
    }
    section.items.push({ kind: 'prose', text, line: l.line });
    pendingLabel = null;
  }
  return { title: titleOf(sections[0] as GuideSection, sections), sections, blockErrors: parsed.errors.map((e) => ({ ...e, line: fileLine(e.line) })) };
}

/** The page's title: its first explicit heading, else the longest of the first lines before any section. */
function titleOf(intro: GuideSection, sections: readonly GuideSection[]): string {
  const prose = intro.items.filter((i): i is Extract<GuideItem, { kind: 'prose' }> => i.kind === 'prose').slice(0, 5);
  const longest = prose.reduce<string>((best, p) => (p.text.length > best.length ? p.text : best), '');
  return longest || sections.find((s) => s.kind !== 'intro')?.title || '';
}
