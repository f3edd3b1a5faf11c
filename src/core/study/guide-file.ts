import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { studyFromGuide } from '../../shared/study/guide/study-from-guide';
import type { GuideProblem, ProjectFile } from '../../shared/study/study';
import { StudyProject } from './project-store';

/** A guide is a page of text: 8 MiB is far above any (the two reference guides are 22 and 38 KiB). */
export const MAX_GUIDE_BYTES = 8 * 1024 * 1024;

/** Reads a tuning guide's text (UTF-8, a BOM dropped by the reader), refusing a missing, binary or oversized file. */
export async function readGuideFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ServelabError('NOT_FOUND', `There is no guide ${path}.`);
    if (code === 'EISDIR') throw new ServelabError('BAD_INPUT', `${path} is a folder, not a guide.`);
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_GUIDE_BYTES) {
      throw new ServelabError('BAD_INPUT', `${path} is ${(size / 1024 / 1024).toFixed(1)} MiB; a guide may have at most ${MAX_GUIDE_BYTES / 1024 / 1024} MiB.`);
    }
    const bytes = await handle.readFile();
    if (bytes.includes(0)) throw new ServelabError('BAD_INPUT', `${path} is not a text file (it holds NUL bytes); open the guide as Markdown, HTML or text.`);
    return bytes.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * A tuning guide opened as a new project at `out` (refused when `out` exists): the definition the guide reader makes,
 * with the guide's results as published reference trials and what it could not take, or found wrong, in `state.guide`.
 */
export async function openGuideAsStudy(guidePath: string, out: string, options: { hostId?: string } = {}): Promise<{ project: ProjectFile; problems: GuideProblem[] }> {
  const text = await readGuideFile(guidePath);
  const file = basename(guidePath);
  const read = studyFromGuide(text, { fileName: file, ...(options.hostId ? { hostId: options.hostId } : {}) });
  const project = await StudyProject.create(out, read.study, {
    references: read.references,
    guide: { file, title: read.title.slice(0, 500), problems: read.problems },
  });
  return { project: project.file, problems: read.problems };
}
