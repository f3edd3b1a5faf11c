import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import { RESULTS_LIBRARY_VERSION, ResultsLibraryFileSchema, type ResultEntry } from '../../shared/results/result-entry';
import { writeFileAtomic } from '../util/atomic-write';
import { readVersionedFile } from '../util/versioned-file';

export function newResultId(): string {
  return `res-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/**
 * The results library (`<data dir>/results/library.json`): every measured and imported benchmark run, written
 * atomically on each change. A damaged or newer file is reported and never overwritten.
 */
export class ResultsLibrary {
  private entries: ResultEntry[] = [];
  private loadProblem: string | null = null;
  // Changes are written one after another, so a later write never lands before an earlier one.
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly path: string) {}

  static async open(path: string): Promise<ResultsLibrary> {
    const library = new ResultsLibrary(path);
    try {
      const read = await readVersionedFile(path, { version: RESULTS_LIBRARY_VERSION, schema: ResultsLibraryFileSchema });
      if (read) library.entries = read.data.entries;
    } catch (error) {
      library.loadProblem = error instanceof Error ? error.message : String(error);
    }
    return library;
  }

  /** Why the library file could not be read, or null. */
  get problem(): string | null {
    return this.loadProblem;
  }

  list(): ResultEntry[] {
    return [...this.entries];
  }

  get(id: string): ResultEntry {
    const entry = this.entries.find((e) => e.id === id);
    if (!entry) throw new ServelabError('NOT_FOUND', `No result with id "${id}".`);
    return entry;
  }

  /** Adds entries (ids and times filled in) and saves; returns them as stored. */
  async add(entries: Array<Omit<ResultEntry, 'id' | 'addedAt'>>): Promise<ResultEntry[]> {
    this.assertWritable();
    const now = new Date().toISOString();
    const added = entries.map((e) => ({ ...e, id: newResultId(), addedAt: now }));
    this.entries = [...this.entries, ...added];
    await this.save();
    return added;
  }

  async remove(ids: string[]): Promise<number> {
    this.assertWritable();
    const drop = new Set(ids);
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => !drop.has(e.id));
    const removed = before - this.entries.length;
    if (removed > 0) await this.save();
    return removed;
  }

  private assertWritable(): void {
    if (this.loadProblem) throw new ServelabError('BAD_INPUT', `The results library cannot be changed: ${this.loadProblem}`);
  }

  private save(): Promise<void> {
    const text = `${JSON.stringify({ schemaVersion: RESULTS_LIBRARY_VERSION, entries: this.entries }, null, 1)}\n`;
    this.writing = this.writing.catch(() => {}).then(() => writeFileAtomic(this.path, text));
    return this.writing;
  }
}
