import type { Client } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { channelError, sshCommandChannel, type CommandChannel, type RunningCommand } from './command-channel';

export interface BinaryExecResult {
  /** The raw bytes the command printed, for output that must be compared or decoded byte-exactly. */
  stdout: Buffer;
  stderr: string;
  /** The remote exit status; null when the command was ended by a signal. */
  code: number | null;
}

export interface ChannelExecOptions {
  stdin?: string | Buffer;
  timeoutMs: number;
  /** Output as it arrives (it is collected as well). */
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  /** Ends the command and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Waits for a free session behind other commands (CommandStartOptions). */
  background?: boolean;
}

// Bounds memory when a command prints far more than expected.
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Runs one command and collects stdout as bytes. A connection that drops (or was already gone) is reported as
 * CONNECT_FAILED, which callers treat as "ask the provider for a new connection and try again".
 */
export function execBinary(client: Client, command: string, opts: { stdin?: string | Buffer; timeoutMs: number }): Promise<BinaryExecResult> {
  return execOnChannel(sshCommandChannel(client), command, opts);
}

/** execBinary on any command channel (SSH or local). */
export function execOnChannel(channel: CommandChannel, command: string, opts: ChannelExecOptions): Promise<BinaryExecResult> {
  return new Promise<BinaryExecResult>((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let running: RunningCommand | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    // Taken out of the wait for a free session when the command is given up first (abort, dropped connection).
    const gaveUp = new AbortController();

    const finish = (error: unknown, code: number | null = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      gaveUp.abort(error);
      offDrop();
      opts.signal?.removeEventListener('abort', onAbort);
      if (error) {
        running?.close();
        reject(error);
        return;
      }
      resolve({ stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8'), code });
    };
    const offDrop = channel.onDrop((error) => finish(error));
    const onAbort = () => finish(opts.signal?.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
    if (opts.signal?.aborted) {
      onAbort();
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    const collect = (into: Buffer[], forward: ((chunk: Buffer) => void) | undefined) => (chunk: Buffer) => {
      if (settled) return;
      outputBytes += chunk.length;
      if (outputBytes > MAX_OUTPUT_BYTES) {
        finish(new ServelabError('REMOTE_COMMAND_FAILED', `The remote command printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; it was stopped.`));
        return;
      }
      into.push(chunk);
      forward?.(chunk);
    };

    channel.exec(command, { signal: gaveUp.signal, ...(opts.background ? { background: true } : {}) }).then(
      (opened) => {
        running = opened;
        if (settled) {
          opened.close();
          return;
        }
        // From the start on: the wait for a free session of the connection is not the command's time.
        timer = setTimeout(() => {
          finish(new ServelabError('TIMEOUT', `The remote command did not finish within ${Math.round(opts.timeoutMs / 100) / 10} s.`));
        }, opts.timeoutMs);
        opened.onStdout(collect(stdout, opts.onStdout));
        opened.onStderr(collect(stderr, opts.onStderr));
        opened.onClose((code) => finish(null, code));
        opened.end(opts.stdin ?? '');
      },
      (error: unknown) => finish(error instanceof ServelabError ? error : channelError(error as Error)),
    );
  });
}
