import type { Client, ClientChannel } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { closeSessionChannel, openSession } from './session-gate';

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** The remote exit status; null when the command was ended by a signal. */
  code: number | null;
}

export interface ExecCollectOptions {
  /** Written to the command's stdin, which is then closed. */
  stdin?: string;
  timeoutSeconds: number;
}

// Bounds memory when a command prints far more than expected.
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

/** Runs one command on an open connection and collects its whole output. */
export function execCollect(client: Client, command: string, opts: ExecCollectOptions): Promise<ExecResult> {
  return new Promise<ExecResult>((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outputBytes = 0;
    let code: number | null = null;
    let stream: ClientChannel | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    // Taken out of the gate's queue when the command fails before a session is free (the connection closed).
    const gaveUp = new AbortController();

    const finish = (error: ServelabError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      gaveUp.abort(error ?? undefined);
      client.removeListener('close', onClientClose);
      if (error) {
        if (stream) {
          try {
            stream.signal('KILL');
          } catch {
            // The channel may already be gone; closing it below is enough.
          }
          closeSessionChannel(stream);
        }
        reject(error);
        return;
      }
      resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8'), code });
    };

    const onClientClose = () => finish(new ServelabError('CONNECT_FAILED', 'The SSH connection closed while a remote command was running.'));
    client.once('close', onClientClose);

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      outputBytes += chunk.length;
      if (outputBytes > MAX_OUTPUT_BYTES) {
        finish(new ServelabError('REMOTE_COMMAND_FAILED', `The remote command printed more than ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB; it was stopped.`));
        return;
      }
      into.push(chunk);
    };

    openSession<ClientChannel, void>(
      client,
      (done) => client.exec(command, done),
      (channel) => {
        stream = channel;
        if (settled) {
          closeSessionChannel(channel);
          return;
        }
        // From the open on: the wait for a free session (ssh/session-gate.ts) is not the command's time.
        timer = setTimeout(() => {
          finish(new ServelabError('TIMEOUT', `The remote command did not finish within ${opts.timeoutSeconds} s.`, { details: { command: summarize(command) } }));
        }, Math.max(1, Math.round(opts.timeoutSeconds * 1000)));
        channel.on('data', collect(stdout));
        channel.stderr.on('data', collect(stderr));
        channel.on('exit', (exitCode: number | null) => {
          code = typeof exitCode === 'number' ? exitCode : null;
        });
        channel.on('close', () => finish(null));
        channel.end(opts.stdin ?? '');
      },
      { signal: gaveUp.signal },
    ).catch(
      (error: unknown) => {
        finish(error instanceof ServelabError ? error : new ServelabError('REMOTE_COMMAND_FAILED', `Could not start the remote command: ${(error as Error).message}`));
      },
    );
  });
}

function summarize(command: string): string {
  const first = command.split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 77)}…` : first;
}
