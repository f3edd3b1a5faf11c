import { basename, dirname, join, resolve } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { rerunDefinition, type RerunDefinition, type RerunOptions } from '../../shared/study/rerun';
import type { ReportInputs } from '../../shared/study/report';
import type { ProjectFile } from '../../shared/study/study';
import { readVersionedFile } from '../util/versioned-file';
import { PROJECT_FILE_SPEC, StudyProject } from './project-store';
import type { ProjectTrust } from './project-trust';

/**
 * "Re-run with…" on disk: the finished project at `path` read (validated, as any project), its re-run's definition
 * made by `rerunDefinition` and written as a new project at `out` (atomic, versioned, never over an existing file),
 * with a draft state; the original is only read. The provenance names the original by its absolute path. The re-run
 * runs what the original ran, at other versions: with `trust`, it is trusted as far as the original was.
 */
export async function rerunProject(path: string, out: string, options: RerunOptions, trust?: ProjectTrust): Promise<Omit<RerunDefinition, 'definition'> & { path: string; project: ProjectFile }> {
  const from = resolve(path);
  if (from === resolve(out)) throw new ServelabError('BAD_INPUT', 'The re-run needs another file name than the original.', { issues: [{ path: 'out', message: 'is the original project itself' }] });
  const original = await readProject(from);
  if (original.state.status !== 'done') {
    throw new ServelabError('BAD_INPUT', `Only a finished study can be re-run; "${original.study.name}" is ${original.state.status === 'draft' ? 'not run yet' : original.state.status}.`, {
      issues: [{ path: 'path', message: 'is not a finished study' }],
    });
  }
  const { definition, lost, untabled } = rerunDefinition({ path: from, file: original }, options);
  const project = await StudyProject.create(out, definition);
  if (trust && (await trust.check(from, original.study)).trusted) await trust.trustWritten(out, project.file.study);
  return { path: out, project: project.file, lost, untabled };
}

/**
 * The project a re-run repeats, as its provenance names it — a path written by hand may be relative, to the re-run's
 * folder — or, when that is gone, a file of the same name beside the re-run (the two were moved or copied together).
 * Either must hold the study the provenance names: a file that now holds another study is not the original.
 */
export async function rerunOriginal(path: string): Promise<{ path: string; project: ProjectFile }> {
  const rerun = await readProject(path);
  const of = rerun.study.rerunOf;
  if (!of) throw new ServelabError('BAD_INPUT', `"${rerun.study.name}" is not a re-run of another study.`, { issues: [{ path: 'path', message: 'has no rerunOf' }] });
  const folder = dirname(resolve(path));
  const recorded = resolve(folder, of.path);
  const beside = join(folder, basename(of.path));
  const others: string[] = [];
  for (const place of recorded === beside ? [recorded] : [recorded, beside]) {
    const read = await readVersionedFile(place, PROJECT_FILE_SPEC);
    if (read && read.data.study.name === of.name) return { path: place, project: read.data };
    if (read) others.push(`${place} holds "${read.data.study.name}"`);
  }
  const where = recorded === beside ? `no longer at ${recorded}` : `neither at ${recorded} nor beside this re-run`;
  throw new ServelabError('NOT_FOUND', `The original study "${of.name}" is ${where}${others.length > 0 ? ` (${others.join('; ')})` : ''}; put it back at ${recorded} to compare with it.`);
}

/**
 * What the report of the project at `path` needs besides the project: a re-run's original (`rerunOriginal`), or null
 * when it cannot be read (gone, damaged, newer): the report then says so rather than failing.
 */
export async function reportInputs(path: string, project: ProjectFile): Promise<ReportInputs> {
  if (!project.study.rerunOf) return {};
  try {
    return { original: (await rerunOriginal(path)).project };
  } catch {
    return { original: null };
  }
}

async function readProject(path: string): Promise<ProjectFile> {
  const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
  if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
  return read.data;
}
