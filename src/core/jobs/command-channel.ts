import type { Client, ClientChannel } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { closeSessionChannel, openSession, sessionsContended } from '../ssh/session-gate';

/**
 * A command started on a box: its output as it arrives, its exit status once everything was delivered, and its
 * stdin, written once and closed. Listeners are set before `end()` sends stdin.
 */
export interface RunningCommand {
  onStdout(listener: (chunk: Buffer) => void): void;
  onStderr(listener: (chunk: Buffer) => void): void;
  /** Once, after all output: the exit status, or null when a signal ended the command. */
  onClose(listener: (code: number | null) => void): void;
  end(stdin?: string | Buffer): void;
  /** Abandons the command: it is ended (killed where possible) and nothing more is delivered. */
  close(): void;
}

/**
 * A way to run commands on one box: an SSH connection, or local child processes. Remote jobs, scripts and
 * transfers are written against this, never against ssh2 or child_process directly.
 */
export interface CommandChannel {
  /** "SSH connection", "local shell": for messages. */
  readonly label: string;
  /**
   * Starts `command` as the box's shell would (`sh -s` and the like). Rejects with CONNECT_FAILED when the
   * channel is gone (worth another try on a fresh one), REMOTE_COMMAND_FAILED when the box refused.
   */
  exec(command: string, opts?: CommandStartOptions): Promise<RunningCommand>;
  /** Called once when the channel drops (commands on it are gone); returns an unsubscribe. */
  onDrop(listener: (error: ServelabError) => void): () => void;
  /** Whether other commands wait to start (the connection's sessions are all in use): long-lived ones make way. */
  contended?(): boolean;
}

/** How a command waits for a free session of an SSH connection (ssh/session-gate.ts); other channels start at once. */
export interface CommandStartOptions {
  /** Behind every other command: a long stream's re-open, which short commands should not wait behind. */
  background?: boolean;
  /** Gives up waiting (rejecting with the reason) when the caller no longer wants the command. */
  signal?: AbortSignal;
}

/** Returns a live channel to one box, opening a new one when the previous one dropped. */
export type CommandChannelProvider = () => Promise<CommandChannel>;

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

const sshChannels = new WeakMap<Client, CommandChannel>();

/** The command channel of an ssh2 connection (one per client, so drop listeners are shared). */
export function sshCommandChannel(client: Client): CommandChannel {
  const known = sshChannels.get(client);
  if (known) return known;
  const channel: CommandChannel = {
    label: 'SSH connection',
    exec: (command, opts) =>
      openSession<ClientChannel, RunningCommand>(client, (done) => client.exec(command, done), sshRunningCommand, opts).catch((error: unknown) => {
        throw error instanceof ServelabError ? error : channelError(error as Error);
      }),
    contended: () => sessionsContended(client),
    onDrop(listener) {
      const onClose = () => listener(connectionLost());
      client.once('close', onClose);
      return () => {
        client.removeListener('close', onClose);
      };
    },
  };
  sshChannels.set(client, channel);
  return channel;
}

function sshRunningCommand(channel: ClientChannel): RunningCommand {
  let code: number | null = null;
  let abandoned = false;
  channel.on('exit', (exitCode: number | null) => {
    code = typeof exitCode === 'number' ? exitCode : null;
  });
  // A channel whose connection dies may emit an error; the connection's close reports it.
  channel.on('error', () => {});
  return {
    onStdout: (listener) => void channel.on('data', (chunk: Buffer) => abandoned || listener(chunk)),
    onStderr: (listener) => void channel.stderr.on('data', (chunk: Buffer) => abandoned || listener(chunk)),
    onClose: (listener) => void channel.once('close', () => abandoned || listener(code)),
    end: (stdin) => void channel.end(stdin ?? ''),
    close() {
      if (abandoned) return;
      abandoned = true;
      try {
        channel.signal('KILL');
      } catch {
        // Servers that ignore signal requests, or a channel already gone: closing is what matters.
      }
      try {
        closeSessionChannel(channel);
      } catch {
        // Closing a channel of a connection that just died may fail; the channel is gone either way.
      }
    },
  };
}
