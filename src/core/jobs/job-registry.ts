import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ServelabError } from '../../shared/contract';
import { writeFileAtomic } from '../util/atomic-write';

export const JOB_STATES = ['starting', 'running', 'exited', 'lost'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const JobRecordSchema = z.object({
  id: z.string().min(1),
  hostId: z.string().min(1),
  /** Absolute path of the job folder on the box. */
  remoteDir: z.string().min(1),
  label: z.string().optional(),
  /** The command line as stored in the job's `command` file (never a secret value). */
  command: z.string(),
  /** Bytes of the log already delivered to the app; streaming resumes here. */
  offset: z.number().int().nonnegative(),
  state: z.enum(JOB_STATES),
  exitCode: z.number().int().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

const RegistryFileSchema = z.object({ version: z.literal(1), jobs: z.array(JobRecordSchema) });

// Offsets move with every delivered chunk; writing the file for each would be wasteful.
const DEFAULT_OFFSET_WRITE_DELAY_MS = 500;

/**
 * The jobs this app started, persisted as JSON (atomically replaced) in the local data folder, so that after a
 * restart the app can re-attach to them and continue each log where it stopped.
 */
export class JobRegistry {
  private readonly jobs = new Map<string, JobRecord>();
  private writing: Promise<void> = Promise.resolve();
  private offsetTimer: NodeJS.Timeout | undefined;

  private constructor(
    readonly file: string,
    private readonly offsetWriteDelayMs: number,
  ) {}

  /** Loads the registry file; a missing file is an empty registry, an unreadable one an error naming it. */
  static async open(file: string, opts: { offsetWriteDelayMs?: number } = {}): Promise<JobRegistry> {
    const registry = new JobRegistry(file, opts.offsetWriteDelayMs ?? DEFAULT_OFFSET_WRITE_DELAY_MS);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return registry;
      throw new ServelabError('INTERNAL', `Cannot read the job registry ${file}: ${(error as Error).message}`, { details: { file } });
    }
    let parsed: z.infer<typeof RegistryFileSchema>;
    try {
      parsed = RegistryFileSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new ServelabError('INTERNAL', `The job registry ${file} is not valid: ${(error as Error).message}`, { details: { file } });
    }
    for (const job of parsed.jobs) registry.jobs.set(job.id, job);
    return registry;
  }

  list(filter: { hostId?: string } = {}): JobRecord[] {
    return [...this.jobs.values()].filter((j) => filter.hostId === undefined || j.hostId === filter.hostId).map((j) => ({ ...j }));
  }

  get(id: string): JobRecord | undefined {
    const job = this.jobs.get(id);
    return job ? { ...job } : undefined;
  }

  /** Adds or replaces a record and writes the file. */
  async put(record: JobRecord): Promise<void> {
    this.jobs.set(record.id, JobRecordSchema.parse(record));
    await this.save();
  }

  /** Changes some fields of a known record and writes the file. */
  async update(id: string, patch: Partial<Omit<JobRecord, 'id' | 'hostId' | 'remoteDir' | 'createdAt'>>): Promise<JobRecord> {
    const current = this.jobs.get(id);
    if (!current) throw new ServelabError('NOT_FOUND', `No job ${id} in the registry.`);
    const next = JobRecordSchema.parse({ ...current, ...patch, updatedAt: new Date().toISOString() });
    this.jobs.set(id, next);
    await this.save();
    return { ...next };
  }

  /**
   * Records how far a job's log was delivered. Cheap to call for every chunk: the file is written at most once
   * per delay; `flush()` writes it now. Offsets only move forward.
   */
  noteOffset(id: string, offset: number): void {
    const current = this.jobs.get(id);
    if (!current || offset <= current.offset) return;
    this.jobs.set(id, { ...current, offset, updatedAt: new Date().toISOString() });
    if (this.offsetTimer) return;
    this.offsetTimer = setTimeout(() => {
      this.offsetTimer = undefined;
      this.save().catch(() => {
        // The next write (or flush) retries with the same in-memory state.
      });
    }, this.offsetWriteDelayMs);
  }

  async remove(id: string): Promise<void> {
    if (!this.jobs.delete(id)) return;
    await this.save();
  }

  /** Writes any pending offset now. */
  async flush(): Promise<void> {
    if (this.offsetTimer) {
      clearTimeout(this.offsetTimer);
      this.offsetTimer = undefined;
    }
    await this.save();
  }

  /** Serialises writes so a slow one never overwrites a newer state. */
  private save(): Promise<void> {
    const next = this.writing.then(
      () => this.writeNow(),
      () => this.writeNow(),
    );
    this.writing = next.catch(() => {});
    return next;
  }

  private async writeNow(): Promise<void> {
    const jobs = [...this.jobs.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    await writeFileAtomic(this.file, JSON.stringify({ version: 1, jobs }, null, 2) + '\n');
  }
}
