import { spawn, type ChildProcess } from 'node:child_process';
import { ServelabError } from '../../shared/contract';
import type { CommandChannel, RunningCommand } from './command-channel';

export interface LocalCommandChannelOptions {
  /** The whole environment of every command (HOME, PATH, …): nothing else leaks in. */
  env: NodeJS.ProcessEnv;
  /** Folder the commands start in, as an SSH session starts in HOME. */
  cwd: string;
}

/**
 * Runs commands on this machine the way an SSH server runs them on a box: `/bin/sh -c COMMAND` with a fixed
 * environment, stdin/stdout/stderr as pipes. Each command is the leader of its own process group, so abandoning
 * it ends everything it started, except what detached itself (setsid), as remote jobs do. It only "drops" when
 * disposed, which ends the commands still running.
 */
export class LocalCommandChannel implements CommandChannel {
  readonly label = 'local shell';
  private readonly running = new Set<ChildProcess>();
  private readonly dropListeners = new Set<(error: ServelabError) => void>();
  private disposed = false;

  constructor(private readonly opts: LocalCommandChannelOptions) {}

  exec(command: string): Promise<RunningCommand> {
    if (this.disposed) return Promise.reject(this.disposedError());
    return new Promise<RunningCommand>((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn('/bin/sh', ['-c', command], { cwd: this.opts.cwd, env: this.opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      } catch (error) {
        reject(new ServelabError('REMOTE_COMMAND_FAILED', `Could not start the local command: ${(error as Error).message}`));
        return;
      }
      this.running.add(child);
      child.once('close', () => this.running.delete(child));
      // A command that exits before reading all of its stdin breaks the pipe; its exit status tells the story.
      child.stdin?.on('error', () => {});
      child.once('error', (error) => {
        this.running.delete(child);
        reject(new ServelabError('REMOTE_COMMAND_FAILED', `Could not start the local command in ${this.opts.cwd}: ${error.message}`));
      });
      child.once('spawn', () => resolve(localRunningCommand(child)));
    });
  }

  onDrop(listener: (error: ServelabError) => void): () => void {
    this.dropListeners.add(listener);
    return () => {
      this.dropListeners.delete(listener);
    };
  }

  /** Ends every command still running (never detached jobs) and refuses new ones. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const child of this.running) killGroup(child);
    this.running.clear();
    const error = this.disposedError();
    for (const listener of [...this.dropListeners]) listener(error);
    this.dropListeners.clear();
  }

  private disposedError(): ServelabError {
    // CONNECT_FAILED, like a closed SSH connection: retry loops ask their provider again, which decides.
    return new ServelabError('CONNECT_FAILED', 'The local shell of this box was released.');
  }
}

function localRunningCommand(child: ChildProcess): RunningCommand {
  let abandoned = false;
  let ended = false;
  child.once('close', () => {
    ended = true;
  });
  return {
    onStdout: (listener) => void child.stdout?.on('data', (chunk: Buffer) => abandoned || listener(chunk)),
    onStderr: (listener) => void child.stderr?.on('data', (chunk: Buffer) => abandoned || listener(chunk)),
    // 'close' comes after the output pipes are drained, like an SSH channel's close after its data.
    onClose: (listener) => void child.once('close', (code: number | null) => abandoned || listener(code)),
    end: (stdin) => void child.stdin?.end(stdin ?? ''),
    close() {
      if (abandoned) return;
      abandoned = true;
      if (!ended) killGroup(child);
    },
  };
}

/**
 * The whole group, not just the shell: what it started in the background would otherwise live on. The group id
 * cannot be reused while any member is alive, so this never hits an unrelated process.
 */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
