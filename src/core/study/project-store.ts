import { copyFile, mkdir, open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ServelabError, parseOrBadInput } from '../../shared/contract';
import {
  PROJECT_MIGRATIONS,
  PROJECT_SCHEMA_VERSION,
  ProjectFileSchema,
  StudyDefinitionSchema,
  type ProjectFile,
  type StudyDefinitionInput,
  type StudyState,
} from '../../shared/study/study';
import { writeFileAtomic } from '../util/atomic-write';
import { readVersionedFile, type VersionedFileSpec } from '../util/versioned-file';
import { describeHolder, liveHolder, tryLock, type HeldLock, type LockHolder } from '../util/lock-file';
import { readJsonLines } from '../util/json-lines';
import { withoutProjectSuffix } from '../../shared/project-document';

/** How a `.servelab` file is read: this build's version, its schema, and the migrations from older versions. */
export const PROJECT_FILE_SPEC: VersionedFileSpec<ProjectFile> = { version: PROJECT_SCHEMA_VERSION, schema: ProjectFileSchema, migrations: PROJECT_MIGRATIONS };

/** The folder beside `<name>.servelab` that holds the study's results, logs and journal. */
export function projectDataDir(path: string): string {
  const name = withoutProjectSuffix(basename(path));
  return join(dirname(path), `${name}.servelab-data`);
}

/**
 * One study on disk: the `.servelab` file (definition + state, written atomically with the previous version kept as
 * `.bak`) and its data folder: `journal.jsonl` (every trial event, flushed one by one), `runs/` (each benchmark's
 * fetched JSON), `logs/` (server logs and benchmark output), `gpu-memory.jsonl` (GPU memory samples). A damaged or
 * newer file is refused with the field or version named, and left untouched.
 */
export class StudyProject {
  private current: ProjectFile;
  // Saves run one after another, so an older state never lands after a newer one.
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    project: ProjectFile,
  ) {
    this.current = project;
  }

  static async open(path: string): Promise<StudyProject> {
    const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
    if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
    const project = new StudyProject(path, read.data);
    if (read.fileVersion < PROJECT_SCHEMA_VERSION) await project.save(read.data.state);
    return project;
  }

  /**
   * A new project from a definition; refuses to overwrite an existing file. `published`: the reference results and
   * the guide reading of a study opened from a guide.
   */
  static async create(path: string, study: StudyDefinitionInput, published: Pick<StudyState, 'references' | 'guide'> = {}): Promise<StudyProject> {
    const definition = parseOrBadInput(StudyDefinitionSchema, study, 'study');
    if (await stat(path).then(() => true, () => false)) throw new ServelabError('BAD_INPUT', `${path} already exists; open it or choose another name.`);
    const project = new StudyProject(path, { schemaVersion: PROJECT_SCHEMA_VERSION, study: definition, state: { status: 'draft', trials: [], decisions: [], ...published } });
    await project.save(project.current.state);
    return project;
  }

  get file(): ProjectFile {
    return this.current;
  }

  get dataDir(): string {
    return projectDataDir(this.path);
  }

  get runsDir(): string {
    return join(this.dataDir, 'runs');
  }

  get journalPath(): string {
    return join(this.dataDir, 'journal.jsonl');
  }

  /** Each server's log and each trial's benchmark output (`trial-log-files.ts`). */
  get logsDir(): string {
    return join(this.dataDir, 'logs');
  }

  get gpuMemoryPath(): string {
    return join(this.dataDir, 'gpu-memory.jsonl');
  }

  /** Held by the process running the study (`run.lock`, see `util/lock-file.ts`). */
  get runLockPath(): string {
    return join(this.dataDir, 'run.lock');
  }

  /**
   * Takes the project's run lock, or refuses naming the process that runs it: a second runner would otherwise
   * "resume" the study and stop the first one's live servers. A lock left by a killed run is taken over.
   */
  async lockRun(): Promise<HeldLock> {
    const attempt = await tryLock(this.runLockPath);
    if (attempt.ok) return attempt.lock;
    throw runningElsewhere(this.path, attempt.holder, this.runLockPath);
  }

  /** Refuses when another process runs this study (changing it under a running study is not allowed). */
  async assertNotRunningElsewhere(): Promise<void> {
    const holder = await liveHolder(this.runLockPath);
    if (holder) throw runningElsewhere(this.path, holder, this.runLockPath);
  }

  /** Reads the file again (after taking the run lock: another process may have run the study meanwhile). */
  async reload(): Promise<void> {
    const read = await readVersionedFile(this.path, PROJECT_FILE_SPEC);
    if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${this.path}.`);
    this.current = read.data;
  }

  /** Writes the state: temp + fsync + rename, after copying the previous file to `<file>.bak`. */
  save(state: StudyState): Promise<void> {
    const next: ProjectFile = { ...this.current, state };
    this.current = next;
    const text = `${JSON.stringify(next, null, 1)}\n`;
    this.saving = this.saving
      .catch(() => {})
      .then(async () => {
        await copyFile(this.path, `${this.path}.bak`).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
        await writeFileAtomic(this.path, text, 0o644);
      });
    return this.saving;
  }

  /** The journal's events, oldest first (a line cut short by a crash is skipped). */
  async readJournal(): Promise<Record<string, unknown>[]> {
    return (await readJsonLines(this.journalPath)).filter((event): event is Record<string, unknown> => typeof event === 'object' && event !== null && !Array.isArray(event));
  }

  /** Appends one event to the journal and flushes it to disk before returning. */
  async journal(event: Record<string, unknown>): Promise<void> {
    await mkdir(this.dataDir, { recursive: true });
    const handle = await open(this.journalPath, 'a', 0o644);
    try {
      await handle.write(`${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

function runningElsewhere(path: string, holder: LockHolder | null, lockPath: string): ServelabError {
  const who = holder ? describeHolder(holder) : 'another process';
  return new ServelabError(
    'BAD_INPUT',
    `${basename(path)} is already being run by ${who}. Wait for that run to end or cancel it there; a second run would stop its servers. If that process is gone for good (it ran on another machine), delete ${lockPath}.`,
    { details: { path, lockPath, ...(holder ? { pid: holder.pid, program: holder.program, since: holder.since, hostname: holder.hostname } : {}) } },
  );
}
