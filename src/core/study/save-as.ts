import { cp, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ServelabError } from '../../shared/contract';
import type { ProjectFile } from '../../shared/study/study';
import { writeFileAtomic } from '../util/atomic-write';
import { readVersionedFile } from '../util/versioned-file';
import { PROJECT_FILE_SPEC, projectDataDir } from './project-store';

const exists = (path: string) => stat(path).then(() => true, () => false);

/**
 * Copies a project to `out`: first its data folder (journal, runs, logs), then the project file, written atomically,
 * so the copy's file appears only once everything it refers to is there. Nothing existing is overwritten.
 */
export async function saveProjectAs(path: string, out: string): Promise<ProjectFile> {
  if (resolve(path) === resolve(out)) throw new ServelabError('BAD_INPUT', 'The copy needs another file name than the project itself.', { issues: [{ path: 'out', message: 'is the project itself' }] });
  const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
  if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
  if (await exists(out)) throw new ServelabError('BAD_INPUT', `${out} already exists; choose another name.`, { issues: [{ path: 'out', message: 'already exists' }] });
  const fromData = projectDataDir(path);
  const toData = projectDataDir(out);
  if (await exists(toData)) throw new ServelabError('BAD_INPUT', `${toData} already exists; choose another name.`, { issues: [{ path: 'out', message: 'has a data folder already' }] });
  let copiedData = false;
  try {
    if (await exists(fromData)) {
      await cp(fromData, toData, { recursive: true, errorOnExist: true, force: false });
      copiedData = true;
    }
    await writeFileAtomic(out, `${JSON.stringify(read.data, null, 1)}\n`, 0o644);
  } catch (error) {
    // A half-made copy is removed; the original was only read.
    if (copiedData || (await exists(toData))) await rm(toData, { recursive: true, force: true });
    throw error;
  }
  return read.data;
}
