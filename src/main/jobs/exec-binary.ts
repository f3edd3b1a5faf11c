import type { Client, ClientChannel } from 'ssh2';
import { ServelabError } from '../../shared/contract';

export interface BinaryExecResult {
  /** The raw bytes the command printed, for output that must be compared or decoded byte-exactly. */
  stdout: Buffer;
  stderr: string;
  /** The remote exit status; null when the command was ended by a signal. */
  code: number | null;
}

// Bounds memory when a command prints far more than expected.
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Runs one command and collects stdout as bytes. A connection that drops (or was already gone) is reported as
 * CONNECT_FAILED, which callers treat as "ask the provider for a new connection and try again".
 */
export function execBinary(client: Client, command: string, opts: { stdin?: string | Buffer; timeoutMs: number }): Promise<BinaryExecResult> {
  return new Promise<BinaryExecResult>((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let code: number | null = null;
    let channel: ClientChannel | undefined;
    let settled = false;

    const finish = (error: ServelabError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.removeListener('close', onClientClose);
      if (error) {
        try {
          channel?.close();
        } catch {
          // The connection is already gone, and the channel with it.
        }
        reject(error);
        return;
      }
      resolve({ stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8'), code });
    };
    const timer = setTimeout(() => {
      finish(new ServelabError('TIMEOUT', `The remote command did not finish within ${Math.round(opts.timeoutMs / 100) / 10} s.`));
    }, opts.timeoutMs);
    const onClientClose = () => finish(connectionLost());
    client.once('close', onClientClose);

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > MAX_OUTPUT_BYTES) {
        finish(new ServelabError('REMOTE_COMMAND_FAILED', `The remote command printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; it was stopped.`));
        return;
      }
      into.push(chunk);
    };

    try {
      client.exec(command, (error, opened) => {
        if (error) {
          finish(channelError(error));
          return;
        }
        channel = opened;
        if (settled) {
          opened.close();
          return;
        }
        opened.on('data', collect(stdout));
        opened.stderr.on('data', collect(stderr));
        opened.on('exit', (exitCode: number | null) => {
          code = typeof exitCode === 'number' ? exitCode : null;
        });
        opened.on('close', () => finish(null));
        opened.end(opts.stdin ?? '');
      });
    } catch (error) {
      finish(channelError(error as Error));
    }
  });
}

export function connectionLost(): ServelabError {
  return new ServelabError('CONNECT_FAILED', 'The SSH connection closed while a remote command was running.');
}

/**
 * ssh2 reports a dead connection as "Not connected" (thrown) or "No response from server" (callback); both mean
 * the connection is gone, anything else is the box refusing the channel.
 */
export function channelError(error: Error): ServelabError {
  if (/not connected|no response from server/i.test(error.message)) {
    return new ServelabError('CONNECT_FAILED', `The SSH connection is gone: ${error.message}`);
  }
  return new ServelabError('REMOTE_COMMAND_FAILED', `Could not start the remote command: ${error.message}`);
}
