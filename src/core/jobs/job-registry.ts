import { readFile, rename } from 'node:fs/promises';
import { z } from 'zod';
import { ServelabError, describeIssues, fieldIssues } from '../../shared/contract';
import { removeAbandonedTemps, writeFileAtomic } from '../util/atomic-write';
import { withLock } from '../util/lock-file';

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
/** Finished (exited, lost) records are kept this long after their last change, and at most this many of them. */
const DEFAULT_KEEP_FINISHED_MS = 7 * 24 * 3600_000;
const DEFAULT_KEEP_FINISHED_COUNT = 200;

export interface JobRegistryOptions {
  offsetWriteDelayMs?: number;
  keepFinishedMs?: number;
  keepFinishedCount?: number;
  now?: () => number;
}

/**
 * The jobs this app started, persisted as JSON (atomically replaced) in the local data folder, so that after a
 * restart the app can re-attach to them and continue each log where it stopped. Several processes (the app, the CLI)
 * share the file: every write takes `jobs.json.lock`, re-reads the file and applies only this process's own changes
 * to it, so no process loses another's records. Finished records are pruned after 7 days (at most 200 are kept). A
 * damaged file is moved aside to `jobs.json.damaged-<time>` and reported (`problem`); the registry starts empty.
 */
export class JobRegistry {
  private jobs = new Map<string, JobRecord>();
  /** This process's changes not yet written: the record, or null for a removal. */
  private readonly pending = new Map<string, JobRecord | null>();
  private writing: Promise<void> = Promise.resolve();
  private offsetTimer: NodeJS.Timeout | undefined;
  private damage: string | null = null;
  private readonly offsetWriteDelayMs: number;
  private readonly keepFinishedMs: number;
  private readonly keepFinishedCount: number;
  private readonly now: () => number;

  private constructor(
    readonly file: string,
    opts: JobRegistryOptions,
  ) {
    this.offsetWriteDelayMs = opts.offsetWriteDelayMs ?? DEFAULT_OFFSET_WRITE_DELAY_MS;
    this.keepFinishedMs = opts.keepFinishedMs ?? DEFAULT_KEEP_FINISHED_MS;
    this.keepFinishedCount = opts.keepFinishedCount ?? DEFAULT_KEEP_FINISHED_COUNT;
    this.now = opts.now ?? Date.now;
  }

  /** Loads the registry file; a missing file is an empty registry, a damaged one is moved aside and reported. */
  static async open(file: string, opts: JobRegistryOptions = {}): Promise<JobRegistry> {
    const registry = new JobRegistry(file, opts);
    registry.jobs = await withLock(`${file}.lock`, async () => {
      // Every writer writes under this lock: a temp file here is one a killed process left.
      await removeAbandonedTemps(file);
      return registry.readDisk();
    });
    return registry;
  }

  /** Why the file could not be read (it was moved aside and the registry started anew), or null. */
  get problem(): string | null {
    return this.damage;
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
    this.change(JobRecordSchema.parse(record));
    await this.save();
  }

  /** Changes some fields of a known record and writes the file. */
  async update(id: string, patch: Partial<Omit<JobRecord, 'id' | 'hostId' | 'remoteDir' | 'createdAt'>>): Promise<JobRecord> {
    const current = this.jobs.get(id);
    if (!current) throw new ServelabError('NOT_FOUND', `No job ${id} in the registry.`);
    const next = JobRecordSchema.parse({ ...current, ...patch, updatedAt: new Date(this.now()).toISOString() });
    this.change(next);
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
    this.change({ ...current, offset, updatedAt: new Date(this.now()).toISOString() });
    if (this.offsetTimer) return;
    this.offsetTimer = setTimeout(() => {
      this.offsetTimer = undefined;
      this.save().catch(() => {
        // The next write (or flush) retries with the same pending changes.
      });
    }, this.offsetWriteDelayMs);
  }

  async remove(id: string): Promise<void> {
    if (!this.jobs.delete(id)) return;
    this.pending.set(id, null);
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

  private change(record: JobRecord): void {
    this.jobs.set(record.id, record);
    this.pending.set(record.id, record);
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
    if (this.pending.size === 0) return;
    const changes = new Map(this.pending);
    this.pending.clear();
    try {
      const merged = await withLock(`${this.file}.lock`, async () => {
        const disk = await this.readDisk();
        for (const [id, record] of changes) {
          if (record === null) disk.delete(id);
          else disk.set(id, { ...record, offset: Math.max(record.offset, disk.get(id)?.offset ?? 0) });
        }
        const kept = this.pruned(disk);
        const jobs = [...kept.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        await writeFileAtomic(this.file, JSON.stringify({ version: 1, jobs }, null, 2) + '\n');
        return kept;
      });
      // Changes made while this write ran stay pending, and stay visible.
      for (const [id, record] of this.pending) {
        if (record === null) merged.delete(id);
        else merged.set(id, record);
      }
      this.jobs = merged;
    } catch (error) {
      for (const [id, record] of changes) if (!this.pending.has(id)) this.pending.set(id, record);
      throw error;
    }
  }

  /** Live records and the newest finished ones. */
  private pruned(jobs: Map<string, JobRecord>): Map<string, JobRecord> {
    const cutoff = this.now() - this.keepFinishedMs;
    const finished = [...jobs.values()]
      .filter((j) => j.state === 'exited' || j.state === 'lost')
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    const drop = finished.filter((j, i) => i >= this.keepFinishedCount || Date.parse(j.updatedAt) < cutoff);
    const kept = new Map(jobs);
    for (const j of drop) kept.delete(j.id);
    return kept;
  }

  /** The records on disk (call under the lock). A damaged file is moved aside and the problem kept. */
  private async readDisk(): Promise<Map<string, JobRecord>> {
    const jobs = new Map<string, JobRecord>();
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return jobs;
      throw new ServelabError('INTERNAL', `Cannot read the job registry ${this.file}: ${(error as Error).message}`, { details: { file: this.file } });
    }
    let parsed: z.infer<typeof RegistryFileSchema>;
    try {
      parsed = RegistryFileSchema.parse(JSON.parse(text));
    } catch (error) {
      const reason = error instanceof z.ZodError ? describeIssues(fieldIssues(error)) : (error as Error).message;
      const aside = `${this.file}.damaged-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
      await rename(this.file, aside);
      this.damage = `The job registry ${this.file} was damaged (${reason}); it was kept as ${aside} and a new one was started. Servers and benchmarks recorded only there are not re-attached: look for them on their box (Servers on this box).`;
      return jobs;
    }
    for (const job of parsed.jobs) jobs.set(job.id, job);
    return jobs;
  }
}
