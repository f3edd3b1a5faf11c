import { createHash } from 'node:crypto';
import { appendFile, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';

/** How much of each log `readTail` returns at most: enough to read a failure, small enough for one IPC message. */
export const TRIAL_LOG_TAIL_BYTES = 1024 * 1024;

/**
 * A file name for any id: the readable part (letters, digits, `.`, `_`, `-`; others become `_`) plus a short hash of
 * the whole id, so two ids that read the same once cleaned (`a/b`, `a_b`) never share a file.
 */
export function safeLogName(id: string): string {
  const readable = id.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 120) || 'log';
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 10);
  return `${readable}-${hash}`;
}

export interface LogTail {
  text: string;
  /** The file was longer than the tail returned. */
  truncated: boolean;
}

/** The last `maxBytes` of a file (from the first whole line, so no line or character is cut), or null when absent. */
export async function readTail(path: string, maxBytes: number = TRIAL_LOG_TAIL_BYTES): Promise<LogTail | null> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    if (start > 0) {
      const newline = text.indexOf('\n');
      text = newline === -1 ? '' : text.slice(newline + 1);
    }
    return { text, truncated: start > 0 };
  } finally {
    await handle.close();
  }
}

/**
 * The study's per-trial logs beside the project, `<name>.servelab-data/logs/`: each server's own log
 * (`<serverId>.server.log`, shared by every trial of that server) and each trial's benchmark output
 * (`<trial>.bench.log`). Text is appended as it streams, in order per file; a failed write is reported once per file
 * and does not stop the study.
 */
export class TrialLogFiles {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly failed = new Set<string>();
  private made: Promise<unknown> | undefined;

  constructor(
    readonly dir: string,
    private readonly onError: (file: string, error: Error) => void = () => {},
  ) {}

  serverLogPath(serverId: string): string {
    return join(this.dir, `${safeLogName(serverId)}.server.log`);
  }

  benchLogPath(trialId: string): string {
    return join(this.dir, `${safeLogName(trialId)}.bench.log`);
  }

  appendServer(serverId: string, text: string): void {
    this.append(this.serverLogPath(serverId), text);
  }

  appendBench(trialId: string, text: string): void {
    this.append(this.benchLogPath(trialId), text);
  }

  /** Resolves once every append made so far is on disk (or has failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }

  private append(file: string, text: string): void {
    if (text === '') return;
    this.made ??= mkdir(this.dir, { recursive: true });
    const made = this.made;
    const previous = this.queues.get(file) ?? Promise.resolve();
    const next = previous
      .then(() => made)
      .then(() => appendFile(file, text, { encoding: 'utf8', mode: 0o644 }))
      .catch((error: unknown) => {
        if (this.failed.has(file)) return;
        this.failed.add(file);
        this.onError(file, error as Error);
      });
    this.queues.set(file, next);
    void next.then(() => {
      if (this.queues.get(file) === next) this.queues.delete(file);
    });
  }
}
