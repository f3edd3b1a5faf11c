import { extname, resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { parseSinglePositional, UsageError } from '../command-line';
import { readVersionedFile } from '../../core/util/versioned-file';
import { writeFileAtomic } from '../../core/util/atomic-write';
import { ServelabError } from '../../shared/contract';
import type { ProjectFile } from '../../shared/study/study';
import { PROJECT_FILE_SPEC } from '../../core/study/project-store';
import { REPORT_LANGS, renderCsv, renderHtml, renderMarkdown, type ReportInputs, type ReportLang } from '../../shared/study/report';
import { reportInputs } from '../../core/study/rerun-project';

export const REPORT_USAGE = `Usage: servelab report <project.servelab> [--format md|html|csv] [--lang en|tr] [--out FILE]

Writes the study report of a project file: the recommended launch command, the baseline and the recommendation on
every scenario (regressions flagged), notes and caveats, the goal, the setup (GPU, driver, CUDA, engine versions,
datasets with SHA-256, benchmark command), every stage with each trial's command and metrics or error, and the
summary of gains. A study still running is reported as far as it went. A re-run ("servelab rerun") is also
compared with its original study, read from where it was when the re-run was made (or beside the re-run).

  --format FORMAT   md (Markdown), html (one self-contained file with charts) or csv (one row per trial);
                    default: from the --out file's extension, else md
  --lang LANG       the report's language: en (English, the default) or tr (Turkish), numbers and dates
                    written the language's way; the CSV is the same in every language (metric keys as
                    headers, numbers with a decimal point) so that scripts and spreadsheets read it alike
  --out FILE        write to FILE (replaced atomically) instead of standard output
  -h, --help        show this help

Environment variable values never appear in a report, only their names.
Exit codes: 0 report written, 1 the project could not be read or the report not written, 2 usage.`;

const FORMATS = ['md', 'html', 'csv'] as const;
type Format = (typeof FORMATS)[number];

const RENDERERS: Record<Format, (project: ProjectFile, lang: ReportLang, inputs: ReportInputs) => string> = {
  md: renderMarkdown,
  html: renderHtml,
  csv: (project, _lang, inputs) => renderCsv(project, inputs),
};
const EXTENSIONS: Record<string, Format> = { '.md': 'md', '.markdown': 'md', '.html': 'html', '.htm': 'html', '.csv': 'csv' };

interface Command {
  project: string;
  format: Format;
  lang: ReportLang;
  out?: string;
}

export async function runReport(args: string[], io: CliIo): Promise<number> {
  let command: Command | 'help';
  try {
    command = parseCommand(args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab report: ${error.message}\n\n${REPORT_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${REPORT_USAGE}\n`);
    return 0;
  }

  const path = resolve(io.cwd, command.project);
  let project: ProjectFile;
  try {
    const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
    if (read === null) {
      io.stderr(`servelab report: ${command.project}: no such file.\n`);
      return 1;
    }
    project = read.data;
  } catch (error) {
    io.stderr(`servelab report: ${messageOf(error)}\n`);
    return 1;
  }

  const text = RENDERERS[command.format](project, command.lang, await reportInputs(path, project));
  if (command.out === undefined) {
    (io.document ?? io.stdout)(text);
    return 0;
  }
  try {
    // A report is shared on purpose, so it gets ordinary file permissions (not the 0600 of private state).
    await writeFileAtomic(resolve(io.cwd, command.out), text, 0o644);
  } catch (error) {
    io.stderr(`servelab report: cannot write ${command.out}: ${messageOf(error)}\n`);
    return 1;
  }
  io.stderr(`Wrote ${command.out} (${command.format}).\n`);
  return 0;
}

function parseCommand(args: string[]): Command | 'help' {
  const { values, positional, help } = parseSinglePositional(
    args,
    { format: { type: 'string' }, lang: { type: 'string' }, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    { missing: 'name the project file (.servelab).', noun: 'project file' },
  );
  if (help) return 'help';
  const out = values.out;
  if (out === '') throw new UsageError('--out needs a file name.');
  let format: Format;
  if (values.format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(values.format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not "${values.format}".`);
    format = values.format as Format;
  } else {
    format = (out !== undefined ? EXTENSIONS[extname(out).toLowerCase()] : undefined) ?? 'md';
  }
  const lang = values.lang ?? 'en';
  if (!(REPORT_LANGS as readonly string[]).includes(lang)) throw new UsageError(`--lang must be one of ${REPORT_LANGS.join(', ')}, not "${lang}".`);
  return { project: positional, format, lang: lang as ReportLang, ...(out !== undefined ? { out } : {}) };
}

function messageOf(error: unknown): string {
  return error instanceof ServelabError || error instanceof Error ? error.message : String(error);
}
