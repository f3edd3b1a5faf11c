import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const MarkSchema = z.object({ remoteOffset: z.number().int().nonnegative(), localBytes: z.number().int().nonnegative() });

/**
 * The app's own copy of a remote job's log, and the one source of truth for how far it has been read.
 *
 * Each delivered chunk is appended and fsynced, then a small mark file records (remote offset, local size)
 * atomically. After a crash at any point — even kill -9 between the two writes — reopening cuts the copy back
 * to the last mark and resumes the remote log from the matching offset: nothing is lost and nothing repeated.
 */
export class JobLogMirror {
  private constructor(
    readonly logPath: string,
    private readonly markPath: string,
    private mark: z.infer<typeof MarkSchema>,
  ) {}

  static open(dir: string, jobId: string): JobLogMirror {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const logPath = join(dir, `${jobId}.log`);
    const markPath = join(dir, `${jobId}.mark`);
    let mark = { remoteOffset: 0, localBytes: 0 };
    try {
      mark = MarkSchema.parse(JSON.parse(readFileSync(markPath, 'utf8')));
    } catch {
      // No mark yet (or an unreadable one): start from the beginning of the remote log.
    }
    let size = 0;
    try {
      size = statSync(logPath).size;
    } catch {
      // No copy yet.
    }
    if (size < mark.localBytes) {
      // The copy lost bytes the mark vouched for (deleted or damaged): read the remote log again from the start.
      mark = { remoteOffset: 0, localBytes: 0 };
    }
    if (size !== mark.localBytes) truncateSync(logPath, mark.localBytes);
    return new JobLogMirror(logPath, markPath, mark);
  }

  /** The remote log offset to resume reading from. */
  get remoteOffset(): number {
    return this.mark.remoteOffset;
  }

  /** Keeps one delivered chunk; `remoteEnd` is the remote byte offset just past it. */
  append(text: string, remoteEnd: number): void {
    const bytes = Buffer.from(text, 'utf8');
    const fd = openSync(this.logPath, 'a', 0o600);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const next = { remoteOffset: remoteEnd, localBytes: this.mark.localBytes + bytes.length };
    const temp = `${this.markPath}.tmp`;
    const markFd = openSync(temp, 'w', 0o600);
    try {
      writeSync(markFd, JSON.stringify(next));
      fsyncSync(markFd);
    } finally {
      closeSync(markFd);
    }
    renameSync(temp, this.markPath);
    this.mark = next;
  }

  /** Everything kept so far. */
  read(): string {
    try {
      return readFileSync(this.logPath, 'utf8');
    } catch {
      return '';
    }
  }
}
