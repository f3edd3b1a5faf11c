/**
 * ProxyCommand: the SSH connection carried over a local command's stdin/stdout, run the way OpenSSH 9.2 runs it
 * (sshconnect.c ssh_proxy_connect at V_9_2_P1): `$SHELL -c "exec <command>"`, /bin/sh when SHELL is unset or
 * empty, with the caller's environment. The command gets a process group of its own, so ending the connection
 * ends whatever it started (SIGHUP as ssh sends, then SIGKILL after 2 s). Its stderr goes to the connection log
 * line by line; the last 10 lines and its exit status are kept for the error when it ends before the login.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import type { ConnectionLogWriter } from './connection-log';

const KEPT_STDERR_LINES = 10;
const KILL_GRACE_MS = 2_000;
// One stderr line longer than this is cut, so a command printing without newlines cannot grow the log without bound.
const MAX_LINE_CHARS = 2_000;

export interface ProxyCommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the command could not be started at all (spawn error), if so. */
  spawnError?: string;
}

export interface ProxyCommandOptions {
  env?: NodeJS.ProcessEnv;
  log?: ConnectionLogWriter;
}

/** The running command as a stream: what ssh2 writes goes to its stdin, its stdout is what ssh2 reads. */
export class ProxyCommandStream extends Duplex {
  readonly command: string;
  readonly shell: string;
  private readonly child: ChildProcess;
  private readonly stderrLines: string[] = [];
  private partialLine = '';
  private exitInfo: ProxyCommandExit | undefined;
  private readonly exitWaiters: ((exit: ProxyCommandExit) => void)[] = [];
  private killTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(command: string, opts: ProxyCommandOptions = {}) {
    super({ allowHalfOpen: true });
    const env = opts.env ?? process.env;
    this.command = command;
    this.shell = env.SHELL && env.SHELL !== '' ? env.SHELL : '/bin/sh';
    const log = opts.log;
    log?.('info', `Executing proxy command: exec ${command}`);
    this.child = spawn(this.shell, ['-c', `exec ${command}`], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });

    this.child.stdout?.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) this.child.stdout?.pause();
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => this.onStderr(text, log));
    // Writes after the command went away fail with EPIPE; the exit is what gets reported.
    this.child.stdin?.on('error', () => {});
    this.child.once('error', (error) => this.settle({ code: null, signal: null, spawnError: error.message }, log));
    // 'close' comes after the exit and after stdout and stderr are drained: the stream ends only once the
    // exit status and every stderr line are known, so whoever sees the end can report them.
    this.child.once('close', (code, signal) => this.settle({ code, signal }, log));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Set once the command has ended. */
  get exit(): ProxyCommandExit | undefined {
    return this.exitInfo;
  }

  /** Resolves when the command has ended (stdout and stderr drained). */
  exited(): Promise<ProxyCommandExit> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** The last stderr lines, oldest first. */
  lastStderr(): string[] {
    return [...this.stderrLines, ...(this.partialLine ? [this.partialLine] : [])].slice(-KEPT_STDERR_LINES);
  }

  /** "exited with status 1", "was killed by SIGTERM", "could not be started (…)". */
  describeExit(): string {
    const exit = this.exitInfo;
    if (!exit) return 'is still running';
    if (exit.spawnError) return `could not be started (${exit.spawnError})`;
    if (exit.signal) return `was killed by ${exit.signal}`;
    return `exited with status ${exit.code ?? 'unknown'}`;
  }

  override _read(): void {
    this.child.stdout?.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || this.exitInfo) {
      callback();
      return;
    }
    stdin.write(chunk, () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.child.stdin?.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.stop();
    callback(error);
  }

  /** Ends the command's process group: SIGHUP (as ssh does), SIGKILL if it is still there after 2 s. */
  stop(): void {
    if (this.exitInfo || this.child.pid === undefined) return;
    const pid = this.child.pid;
    this.signalGroup(pid, 'SIGHUP');
    this.killTimer ??= setTimeout(() => this.signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    this.killTimer.unref();
  }

  private signalGroup(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private onStderr(text: string, log: ConnectionLogWriter | undefined): void {
    const parts = (this.partialLine + text).split(/\r?\n/);
    this.partialLine = (parts.pop() ?? '').slice(0, MAX_LINE_CHARS);
    for (const line of parts) this.noteLine(line.slice(0, MAX_LINE_CHARS), log);
  }

  private noteLine(line: string, log: ConnectionLogWriter | undefined): void {
    if (line.trim() === '') return;
    this.stderrLines.push(line);
    if (this.stderrLines.length > KEPT_STDERR_LINES) this.stderrLines.shift();
    log?.('info', `proxy command: ${line}`);
  }

  private settle(exit: ProxyCommandExit, log: ConnectionLogWriter | undefined): void {
    if (this.exitInfo) return;
    if (this.partialLine) {
      this.noteLine(this.partialLine, log);
      this.partialLine = '';
    }
    this.exitInfo = exit;
    if (this.killTimer) clearTimeout(this.killTimer);
    // Whatever the command started in its group goes with it, as when ssh's connection ends.
    if (this.child.pid !== undefined) this.signalGroup(this.child.pid, 'SIGHUP');
    log?.(exit.code === 0 ? 'info' : 'warn', `The proxy command ${this.describeExit()}.`);
    for (const waiter of this.exitWaiters.splice(0)) waiter(exit);
    this.push(null);
  }
}

/** Starts `command` (tokens already expanded) as OpenSSH's ProxyCommand would be started. */
export function startProxyCommand(command: string, opts: ProxyCommandOptions = {}): ProxyCommandStream {
  return new ProxyCommandStream(command, opts);
}
