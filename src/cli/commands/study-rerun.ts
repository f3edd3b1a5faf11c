import { resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { parseSinglePositional, UsageError } from '../command-line';
import { ProjectTrust } from '../../core/study/project-trust';
import { rerunOriginal, rerunProject } from '../../core/study/rerun-project';
import { PROJECT_FILE_SPEC } from '../../core/study/project-store';
import { defaultDataDir } from '../../core/util/paths';
import { readVersionedFile } from '../../core/util/versioned-file';
import { ServelabError } from '../../shared/contract';
import { ENGINE_IDS, type EngineId } from '../../shared/engines/types';
import { compareStudies, type StudyDiff } from '../../shared/study/study-diff';
import { formatChange } from '../../shared/study/verdict';

export const RERUN_USAGE = `Usage: servelab rerun <project.servelab> --out NEW.servelab [--engine ENGINE=VERSION]... [--host HOST_ID] [--name NAME] [--data-dir DIR]
       servelab rerun --compare <rerun.servelab> [--fail-on-regression]

The first form writes a new project that re-runs a finished study: the same stages, candidates and workloads, with
each named engine at the new version and, with --host, on another host. Candidates the new version cannot launch
stay in the study (its pre-flight check rejects them) and are listed. Run it with \`servelab run NEW.servelab\`: if
you had accepted what the original runs, the re-run is accepted too.

The second form compares a re-run with the study it repeats, configuration by configuration: each change of the
objective with its 95% interval over runs and the verdict against the study's margin. A regression is the same
settings doing worse in the re-run: a change whose whole interval is worse than the margin, or a configuration the
original measured that the re-run failed or refused to launch.

  --out FILE             the new project file (never replaces an existing one)
  --engine ENGINE=VER    an engine's new version (${ENGINE_IDS.join(', ')}); repeat for several engines
  --host HOST_ID         run on this host instead of the original's
  --name NAME            the new study's name (default: the original's with "(re-run)")
  --data-dir DIR         the app's data folder, where accepted projects are remembered (default: $SERVELAB_DATA_DIR or ~/.config/servelab)
  --compare              print the comparison of a re-run with its original
  --fail-on-regression   with --compare: exit 3 when there is a regression
  -h, --help             show this help

Exit codes: 0 done, 1 a project could not be read or written, 2 usage, 3 regressions (with --fail-on-regression).`;

interface Create {
  kind: 'create';
  project: string;
  out: string;
  engineVersions: Partial<Record<EngineId, string>>;
  hostId?: string;
  name?: string;
  dataDir?: string;
}

interface Compare {
  kind: 'compare';
  project: string;
  failOnRegression: boolean;
}

export async function runStudyRerun(args: string[], io: CliIo): Promise<number> {
  let command: Create | Compare | 'help';
  try {
    command = parseCommand(args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab rerun: ${error.message}\n\n${RERUN_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${RERUN_USAGE}\n`);
    return 0;
  }
  try {
    return command.kind === 'create' ? await create(command, io) : await compare(command, io);
  } catch (error) {
    io.stderr(`servelab rerun: ${messageOf(error)}\n`);
    return 1;
  }
}

async function create(command: Create, io: CliIo): Promise<number> {
  const out = resolve(io.cwd, command.out);
  const dataDir = command.dataDir !== undefined ? resolve(io.cwd, command.dataDir) : defaultDataDir(io.env);
  const made = await rerunProject(
    resolve(io.cwd, command.project),
    out,
    {
      engineVersions: command.engineVersions,
      ...(command.hostId !== undefined ? { hostId: command.hostId } : {}),
      ...(command.name !== undefined ? { name: command.name } : {}),
    },
    new ProjectTrust(dataDir),
  );
  const engines = made.project.study.engines.map((e) => `${e.engine} ${e.version}`).join(', ');
  io.stdout(`Wrote ${command.out}: "${made.project.study.name}" (${engines}).\n`);
  for (const u of made.untabled) io.stdout(`Servelab has no flag table of ${u.engine} ${u.version}: its flags are checked against ${u.checkedAgainst}.\n`);
  if (made.lost.length > 0) {
    io.stdout('The new versions cannot launch these candidates (kept; the pre-flight check rejects them):\n');
    for (const l of made.lost) io.stdout(`  ${l.engine} ${l.version} ${l.stageId}/${l.candidateId} (${l.label}): ${l.reason}\n`);
  }
  return 0;
}

async function compare(command: Compare, io: CliIo): Promise<number> {
  const path = resolve(io.cwd, command.project);
  const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
  if (!read) throw new ServelabError('NOT_FOUND', `${command.project}: no such file.`);
  const original = await rerunOriginal(path);
  const diff = compareStudies(original.project, read.data);
  io.stdout(comparisonText(diff, original.project.study.name));
  return command.failOnRegression && diff.regressions.length > 0 ? 3 : 0;
}

/** The comparison as plain text: the objective's row per configuration × workload, then every regression. */
export function comparisonText(diff: StudyDiff, originalName: string): string {
  const objective = diff.metrics[0] ?? '';
  const lines = [`Against "${originalName}" (${objective}; margin ±${diff.marginPct}%):`];
  if (diff.rows.length === 0) lines.push('  Nothing to compare yet: the re-run has no configuration that the original also tried.');
  for (const row of diff.rows) {
    const m = row.metrics.find((x) => x.metric === objective);
    const regressed = diff.regressions.some((r) => r.key === row.key && (r.kind === 'lost' || r.metric === objective));
    const what = m ? `${formatChange(m.change)} ${m.verdict}` : `original ${row.original.outcome}, re-run ${row.rerun.outcome}`;
    const settings = row.sameConfig ? '' : ' (other settings: an earlier stage kept another candidate)';
    lines.push(`  ${row.key}  ${row.rerun.label}: ${what}${regressed ? ' (REGRESSION)' : ''}${settings}`);
  }
  lines.push(diff.regressions.length === 0 ? 'No regression.' : `Regressions (${diff.regressions.length}):`);
  for (const r of diff.regressions) lines.push(r.kind === 'worse' ? `  ${r.key} ${r.metric}: ${formatChange(r.change)}` : `  ${r.key}: measured in the original, ${r.outcome} in the re-run`);
  if (diff.onlyOriginal.length > 0) lines.push(`Only in the original: ${diff.onlyOriginal.map((s) => s.key).join(', ')}`);
  if (diff.onlyRerun.length > 0) lines.push(`Only in the re-run: ${diff.onlyRerun.map((s) => s.key).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function parseCommand(args: string[]): Create | Compare | 'help' {
  const { values, positional, help } = parseSinglePositional(
    args,
    {
      out: { type: 'string', short: 'o' },
      engine: { type: 'string', multiple: true },
      host: { type: 'string' },
      name: { type: 'string' },
      'data-dir': { type: 'string' },
      compare: { type: 'boolean' },
      'fail-on-regression': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    { missing: 'name the project file (.servelab).', noun: 'project file' },
  );
  if (help) return 'help';
  if (values.compare) {
    if (values.out !== undefined || values.engine !== undefined || values.host !== undefined || values.name !== undefined || values['data-dir'] !== undefined) {
      throw new UsageError('--compare takes no --out, --engine, --host, --name or --data-dir.');
    }
    return { kind: 'compare', project: positional, failOnRegression: values['fail-on-regression'] === true };
  }
  if (values['fail-on-regression']) throw new UsageError('--fail-on-regression goes with --compare.');
  if (!values.out) throw new UsageError('--out needs the new project file.');
  const engineVersions: Partial<Record<EngineId, string>> = {};
  for (const pair of values.engine ?? []) {
    const at = pair.indexOf('=');
    const engine = pair.slice(0, at);
    if (at <= 0 || at === pair.length - 1 || !(ENGINE_IDS as readonly string[]).includes(engine)) throw new UsageError(`--engine takes ENGINE=VERSION with ENGINE one of ${ENGINE_IDS.join(', ')}, not "${pair}".`);
    engineVersions[engine as EngineId] = pair.slice(at + 1);
  }
  return {
    kind: 'create',
    project: positional,
    out: values.out,
    engineVersions,
    ...(values.host !== undefined ? { hostId: values.host } : {}),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
  };
}

function messageOf(error: unknown): string {
  return error instanceof ServelabError || error instanceof Error ? error.message : String(error);
}
