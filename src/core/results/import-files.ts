// Reads result files and folders for the importer: folders recursively (regular files, sorted), a size limit per
// file, and every read failure as a problem naming the file, so one bad file never stops the others.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { importResults, type BenchResult, type ImportProblem } from '../../shared/results';

/** Result files are a few kilobytes; anything this big is not one (a full log, a dataset). */
export const MAX_RESULT_FILE_BYTES = 64 * 1024 * 1024;

export interface FilesImport {
  records: BenchResult[];
  errors: ImportProblem[];
  warnings: ImportProblem[];
  /** Files (as named in the output) with at least one error. */
  failedFiles: string[];
}

/** `paths` as the user typed them, relative to `cwd`; records name files the same way. */
export async function importResultFiles(paths: string[], cwd: string, maxBytes = MAX_RESULT_FILE_BYTES): Promise<FilesImport> {
  const out: FilesImport = { records: [], errors: [], warnings: [], failedFiles: [] };
  const fail = (file: string, message: string) => {
    out.errors.push({ file, line: null, message });
    if (!out.failedFiles.includes(file)) out.failedFiles.push(file);
  };
  for (const given of paths) {
    let files: string[];
    try {
      files = await expand(given, cwd);
    } catch (error) {
      fail(given, readFailure(error));
      continue;
    }
    if (files.length === 0) fail(given, 'this folder has no files to import');
    for (const file of files) {
      const text = await readResultFile(resolve(cwd, file), maxBytes).catch((error: unknown) => {
        fail(file, readFailure(error));
        return undefined;
      });
      if (text === undefined) continue;
      const outcome = importResults(text, file);
      out.records.push(...outcome.records);
      out.warnings.push(...outcome.warnings);
      out.errors.push(...outcome.errors);
      if (outcome.errors.length > 0 && !out.failedFiles.includes(file)) out.failedFiles.push(file);
    }
  }
  return out;
}

/** A file stays as given; a folder becomes every regular file below it, sorted by path. */
async function expand(given: string, cwd: string): Promise<string[]> {
  const info = await stat(resolve(cwd, given));
  if (!info.isDirectory()) return [given];
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(resolve(cwd, given, relative), { withFileTypes: true });
    for (const entry of entries) {
      const child = relative ? join(relative, entry.name) : entry.name;
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  await walk('');
  return found.sort().map((rel) => join(given, rel));
}

class ResultFileError extends Error {}

async function readResultFile(path: string, maxBytes: number): Promise<string> {
  const info = await stat(path);
  if (info.isDirectory()) throw new ResultFileError('is a folder');
  if (info.size > maxBytes) {
    throw new ResultFileError(
      `${mib(info.size)} is more than the ${mib(maxBytes)} a result file may have; import the benchmark's own output (the result block or its --save-result JSON), not a whole log or data set`,
    );
  }
  const bytes = await readFile(path);
  if (bytes.includes(0)) throw new ResultFileError('is not a text file; import the text or JSON a benchmark client wrote');
  return new TextDecoder('utf-8').decode(bytes);
}

function mib(bytes: number): string {
  const value = bytes / (1024 * 1024);
  return `${Number.isInteger(value) ? value : value.toFixed(1)} MiB`;
}

function readFailure(error: unknown): string {
  if (error instanceof ResultFileError) return error.message;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'not allowed to read it (check its permissions)';
  return `cannot read it: ${(error as Error).message}`;
}
