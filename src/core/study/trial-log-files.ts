import { createHash } from 'node:crypto';
import { appendFile, mkdir, open, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** How much of each log `readTail` returns at most: enough to read a failure, small enough for one IPC message. */
export const TRIAL_LOG_TAIL_BYTES = 1024 * 1024;

/**
 * The bound on one log file. An append that would pass it first renames the file to `<file>.1` (replacing an older
 * one) and starts a new file, so a log never takes more than twice this on disk and its end is always kept.
 */
export const TRIAL_LOG_MAX_BYTES = 32 * 1024 * 1024;

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

/**
 * The last `maxBytes` of a log (from the first whole line, so no line or character is cut), reaching into the
 * previous generation (`<file>.1`) when the current file is shorter; null when there is no log.
 */
export async function readTail(path: string, maxBytes: number = TRIAL_LOG_TAIL_BYTES): Promise<LogTail | null> {
  const current = await readLastBytes(path, maxBytes);
  if (current === null) return null;
  let bytes = current.bytes;
  let cut = current.cut;
  if (!cut && bytes.length < maxBytes) {
    const previous = await readLastBytes(`${path}.1`, maxBytes - bytes.length);
    if (previous) {
      bytes = Buffer.concat([previous.bytes, bytes]);
      cut = previous.cut;
    }
  }
  let text = bytes.toString('utf8');
  if (cut) {
    const newline = text.indexOf('\n');
    text = newline === -1 ? '' : text.slice(newline + 1);
  }
  return { text, truncated: cut };
}

/** The last `maxBytes` of a file and whether anything came before them; null when absent. */
async function readLastBytes(path: string, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean } | null> {
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
    return { bytes: buffer.subarray(0, bytesRead), cut: start > 0 };
  } finally {
    await handle.close();
  }
}

/**
 * The study's per-trial logs beside the project, `<name>.servelab-data/logs/`: each server's own log
 * (`<serverId>.server.log`, shared by every trial of that server) and each trial's benchmark output
 * (`<trial>.bench.log`). Text is appended as it streams, in order per file; a failed write is reported once per file
 * and does not stop the study. Each file is capped at `maxFileBytes` (see TRIAL_LOG_MAX_BYTES).
 */
export class TrialLogFiles {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly failed = new Set<string>();
  private readonly sizes = new Map<string, number>();
  private made: Promise<unknown> | undefined;

  constructor(
    readonly dir: string,
    private readonly onError: (file: string, error: Error) => void = () => {},
    private readonly maxFileBytes: number = TRIAL_LOG_MAX_BYTES,
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
      .then(() => this.write(file, text))
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

  private async write(file: string, text: string): Promise<void> {
    const bytes = Buffer.byteLength(text, 'utf8');
    let size = this.sizes.get(file);
    if (size === undefined) size = await stat(file).then((s) => s.size, () => 0);
    if (size > 0 && size + bytes > this.maxFileBytes) {
      await rename(file, `${file}.1`);
      size = 0;
    }
    await appendFile(file, text, { encoding: 'utf8', mode: 0o644 });
    this.sizes.set(file, size + bytes);
  }
}
