import { resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { parseSinglePositional, UsageError } from '../command-line';
import { ServelabError } from '../../shared/contract';
import { openGuideAsStudy } from '../../core/study/guide-file';
import type { GuideProblem, ProjectFile } from '../../shared/study/study';
import { PROJECT_SUFFIX } from '../../shared/project-document';

export const STUDY_USAGE = `Usage: servelab study from-guide <guide.md|.html|.txt> --out <study.servelab> [--host ID] [--json]

Opens a tuning guide as a study: its goal (latency or throughput), GPU and count, engine versions, the workloads of
its vllm bench serve commands, a stage per numbered section with a candidate per configuration it ran (the engine
comparison as the engine selection), and every "Serving Benchmark Result" block it prints as a published reference
trial beside which the study's own measurements are shown. Markdown, HTML or text pasted from a web page, in English
or Turkish section names.

What the study cannot take, and what the guide gets wrong (a summary number none of its results shows, a command
serving another model, more GPUs than its box, unquoted JSON), is listed with its line.

  --out FILE    the project file to write (.servelab; refused when it exists)
  --host ID     the host the study runs on (default: demo-lab, the simulated box)
  --json        print {"project": …, "problems": […]} instead of the summary
  -h, --help    show this help

Exit codes: 0 project written (problems, if any, listed), 1 the guide could not be read or the project not written,
2 usage.`;

interface Command {
  guide: string;
  out: string;
  host?: string;
  json: boolean;
}

export async function runStudy(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(`${STUDY_USAGE}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'from-guide') {
    io.stderr(`servelab study: unknown subcommand "${sub}".\n\n${STUDY_USAGE}\n`);
    return 2;
  }
  let command: Command | 'help';
  try {
    command = parseCommand(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab study from-guide: ${error.message}\n\n${STUDY_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${STUDY_USAGE}\n`);
    return 0;
  }
  let opened: { project: ProjectFile; problems: GuideProblem[] };
  try {
    opened = await openGuideAsStudy(resolve(io.cwd, command.guide), resolve(io.cwd, command.out), command.host ? { hostId: command.host } : {});
  } catch (error) {
    io.stderr(`servelab study from-guide: ${error instanceof ServelabError || error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (command.json) {
    io.stdout(`${JSON.stringify(opened, null, 1)}\n`);
    return 0;
  }
  io.stdout(summary(command.out, opened.project, opened.problems));
  return 0;
}

function summary(out: string, project: ProjectFile, problems: readonly GuideProblem[]): string {
  const { study, state } = project;
  const references = state.references ?? [];
  const lines = [
    `Wrote ${out}: ${study.name}`,
    `  goal: ${study.goal.kind}; model: ${study.model.id}; box: ${study.demoLab ? `${study.demoLab.count} × ${study.demoLab.gpu.toUpperCase()}` : 'not stated'}`,
    `  engines: ${study.engines.map((e) => `${e.engine} ${e.version}`).join(', ')}`,
    `  workloads: ${[study.workloads.primary, ...study.workloads.generalisation].map((w) => w.id).join(', ')}`,
    '  stages:',
    ...study.stages.map((s) => `    ${s.id} (${s.label}): ${s.candidates.map((c) => c.id).join(', ')}`),
    `  published results: ${references.filter((r) => r.status === 'ok').length} result blocks, ${references.filter((r) => r.status === 'failed').length} failed launches (reference trials, never decided on)`,
  ];
  if (problems.length > 0) {
    lines.push(`${problems.length} problem${problems.length === 1 ? '' : 's'} in ${state.guide?.file ?? 'the guide'}:`);
    for (const p of problems) lines.push(`  line ${p.line}: ${p.kind === 'wrong' ? 'the guide is wrong' : 'not mapped'}: ${p.message}`);
  } else lines.push('Nothing in the guide was left out.');
  return `${lines.join('\n')}\n`;
}

function parseCommand(args: string[]): Command | 'help' {
  const { values, positional, help } = parseSinglePositional(
    args,
    { out: { type: 'string', short: 'o' }, host: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    { missing: 'name the guide to open (.md, .html or .txt).', noun: 'guide' },
  );
  if (help) return 'help';
  if (values.out === undefined || values.out === '') throw new UsageError('--out needs the project file to write (.servelab).');
  if (!values.out.endsWith(PROJECT_SUFFIX)) throw new UsageError(`--out must name a ${PROJECT_SUFFIX} file, not "${values.out}".`);
  return { guide: positional, out: values.out, ...(values.host ? { host: values.host } : {}), json: values.json === true };
}
