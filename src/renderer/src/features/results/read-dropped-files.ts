import { MAX_IMPORT_FILE_CHARS } from '../../../../shared/contract/bench-contract';
import { t } from '../../i18n';

export interface NamedFile {
  /** The file's name, with its folder path when it came from a dropped folder. */
  name: string;
  file: File;
}

export interface ReadFiles {
  files: { name: string; text: string }[];
  /** One line per file that was not read, naming it. */
  problems: string[];
}

/** Reads each file as text; files above the core's limit are refused here, before they are sent. */
export async function readFilesAsText(files: NamedFile[]): Promise<ReadFiles> {
  const out: ReadFiles = { files: [], problems: [] };
  for (const { name, file } of files) {
    if (file.size > MAX_IMPORT_FILE_CHARS) {
      out.problems.push(t('results.import.tooLarge', { file: name, size: (file.size / (1024 * 1024)).toFixed(1) }));
      continue;
    }
    try {
      out.files.push({ name, text: await file.text() });
    } catch (error) {
      out.problems.push(t('results.import.unreadable', { file: name, message: error instanceof Error ? error.message : String(error) }));
    }
  }
  return out;
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** readEntries hands out a folder's entries in chunks, until an empty one. */
async function childrenOf(entry: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = entry.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const chunk = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (chunk.length === 0) return all;
    all.push(...chunk);
  }
}

async function walk(entry: FileSystemEntry, out: NamedFile[], problems: string[]): Promise<void> {
  const name = entry.fullPath.replace(/^\//, '') || entry.name;
  try {
    if (entry.isFile) {
      out.push({ name, file: await fileOf(entry as FileSystemFileEntry) });
    } else if (entry.isDirectory) {
      const children = await childrenOf(entry as FileSystemDirectoryEntry);
      children.sort((a, b) => a.name.localeCompare(b.name));
      for (const child of children) await walk(child, out, problems);
    }
  } catch (error) {
    problems.push(t('results.import.unreadable', { file: name, message: error instanceof Error ? error.message : String(error) }));
  }
}

/** The files of a drop, each dropped folder walked to every file below it (where the browser allows it). */
export async function droppedFiles(data: DataTransfer): Promise<{ files: NamedFile[]; problems: string[] }> {
  const files: NamedFile[] = [];
  const problems: string[] = [];
  const items = [...(data.items ?? [])].filter((item) => item.kind === 'file');
  // Entries must be taken before the first await: the drop's data is gone once the handler yields.
  const entries = items.map((item) => (typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null));
  if (entries.length > 0 && entries.every((entry) => entry !== null)) {
    for (const entry of entries) await walk(entry!, files, problems);
    return { files, problems };
  }
  for (const file of [...data.files]) files.push({ name: file.name, file });
  return { files, problems };
}
