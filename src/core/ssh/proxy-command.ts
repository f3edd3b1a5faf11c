/**
 * ProxyCommand: the SSH connection carried over a local command's stdin/stdout, run the way OpenSSH 9.2 runs it
 * (sshconnect.c ssh_proxy_connect at V_9_2_P1): `$SHELL -c "exec <command>"`, /bin/sh when SHELL is unset or
 * empty, with the caller's environment. On Windows, where there is no $SHELL and no process group, it runs as
 * `cmd.exe /d /s /c "<command>"` (what Node's own `shell: true` does; Win32-OpenSSH hands the command line to
 * CreateProcess) and only that process is ended.
 *
 * The stream is not half-open: when the command exits the stream closes, so ssh2 reports the connection closed.
 * Ending the stream (client.end()) ends the command: SIGHUP to its process group as soon as its stdin is closed
 * (ssh_kill_proxy_command sends SIGHUP at exit), then SIGKILL to whatever is left of the group after 2 s, even once
 * the command itself has exited. Its stderr goes to the connection log line by line, with credentials hidden as in
 * the command (and any word the command's redaction hid, wherever a line repeats it); the last 10 lines and its exit
 * status are kept for the error when it ends before the login.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import type { ConnectionLogWriter } from './connection-log';
import { REDACTED } from '../../shared/engines/credentials';
import { redactCommandText } from './redact-command';

export const KEPT_STDERR_LINES = 10;
const KILL_GRACE_MS = 2_000;
// How often a group whose leader has exited is checked for being empty, until the SIGKILL is due.
const GROUP_POLL_MS = 100;
// One stderr line longer than this is cut, so a command printing without newlines cannot grow the log without bound.
export const MAX_LINE_CHARS = 2_000;

export interface ProxyCommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why the command could not be started at all (spawn error), if so. */
  spawnError?: string;
}

export interface ProxyCommandOptions {
  env?: NodeJS.ProcessEnv;
  log?: ConnectionLogWriter;
  /** process.platform unless a test says otherwise. */
  platform?: NodeJS.Platform;
  /** The grace before SIGKILL (2 s); tests may shorten it. */
  killGraceMs?: number;
}

/** The program and arguments that run `command` as OpenSSH would: `$SHELL -c "exec …"`, or cmd.exe on Windows. */
export function proxyCommandInvocation(command: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): { file: string; args: string[]; windows: boolean } {
  if (platform === 'win32') return { file: env.ComSpec || env.COMSPEC || 'cmd.exe', args: ['/d', '/s', '/c', `"${command}"`], windows: true };
  return { file: env.SHELL || '/bin/sh', args: ['-c', `exec ${command}`], windows: false };
}

/** The running command as a stream: what ssh2 writes goes to its stdin, its stdout is what ssh2 reads. */
export class ProxyCommandStream extends Duplex {
  readonly command: string;
  /** The command with credential-looking values hidden: the only form that goes to the log or into errors. */
  readonly shownCommand: string;
  readonly shell: string;
  private readonly child: ChildProcess;
  private readonly windows: boolean;
  private readonly killGraceMs: number;
  private readonly stderrLines: string[] = [];
  // Words of the command that redaction hid, so that they are hidden wherever its stderr repeats them.
  private readonly hiddenWords: string[];
  private partialLine = '';
  private exitInfo: ProxyCommandExit | undefined;
  private readonly exitWaiters: ((exit: ProxyCommandExit) => void)[] = [];
  private stopping = false;
  // Set at the leader's 'exit' (Node has reaped it then), which can come well before 'close' when something the
  // command started still holds its stdout.
  private leaderGone = false;
  // The command's pid is its process group's id (detached); the id is ours only while the leader or another
  // member is alive, so once the group has been seen empty it is never signalled again.
  private groupGone = false;
  private killTimer: ReturnType<typeof setTimeout> | undefined;
  private groupPoll: ReturnType<typeof setInterval> | undefined;

  constructor(command: string, opts: ProxyCommandOptions = {}) {
    super({ allowHalfOpen: false });
    const env = opts.env ?? process.env;
    this.command = command;
    this.shownCommand = redactCommandText(command);
    this.hiddenWords = hiddenWordsOf(command, this.shownCommand);
    this.killGraceMs = opts.killGraceMs ?? KILL_GRACE_MS;
    const invocation = proxyCommandInvocation(command, env, opts.platform ?? process.platform);
    this.shell = invocation.file;
    this.windows = invocation.windows;
    const log = opts.log;
    log?.('debug', `Executing proxy command: exec ${this.shownCommand}`);
    // detached: the command starts a new session (setsid), so it has no controlling terminal and is the leader
    // of a process group of its own, which can be ended as a whole. The app has no terminal to give it anyway.
    this.child = spawn(invocation.file, invocation.args, {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: !this.windows,
      windowsHide: true,
      ...(this.windows ? { windowsVerbatimArguments: true } : {}),
    });

    this.child.stdout?.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) this.child.stdout?.pause();
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => this.onStderr(text, log));
    // Writes after the command went away fail with EPIPE; the exit is what gets reported.
    this.child.stdin?.on('error', () => {});
    this.child.once('error', (error) => this.settle({ code: null, signal: null, spawnError: error.message }, log));
    this.child.once('exit', () => {
      this.leaderGone = true;
      if (this.stopping) this.watchGroup();
    });
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
    return [...this.stderrLines, ...(this.partialLine ? [redactStderrLine(this.partialLine, this.hiddenWords)] : [])].slice(-KEPT_STDERR_LINES);
  }

  /** "exited with status 1", "was killed by SIGTERM", "could not be started (…)". */
  describeExit(): string {
    return describeProxyExit(this.exitInfo);
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
    // The connection is over: once what was written (ssh2's DISCONNECT) is handed to the command, end it as ssh
    // does, rather than wait for it to notice the end of its stdin (nc does not, on a silent path).
    const stdin = this.child.stdin;
    if (stdin && !stdin.destroyed) {
      stdin.end(() => this.stop());
      // In case the pipe never reports back (a command that stopped reading).
      setTimeout(() => this.stop(), 1_000).unref();
    } else {
      this.stop();
    }
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.stop();
    callback(error);
  }

  /** Ends the command's process group: SIGHUP (as ssh does), SIGKILL to what is left of the group after 2 s. */
  stop(): void {
    if (this.stopping || this.child.pid === undefined) return;
    this.stopping = true;
    this.signal('SIGHUP');
    if (this.groupGone) return;
    this.killTimer = setTimeout(() => {
      this.signal('SIGKILL');
      this.stopWatchingGroup();
    }, this.killGraceMs);
    this.killTimer.unref();
    if (this.leaderGone) this.watchGroup();
  }

  private signal(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined || this.groupGone) return;
    if (this.windows) {
      if (!this.leaderGone) this.child.kill();
      return;
    }
    // After the leader was reaped the id is only ours while the group still has a member.
    if (this.leaderGone && !groupExists(pid)) {
      this.groupGone = true;
      return;
    }
    try {
      process.kill(-pid, signal);
    } catch {
      this.groupGone = true;
    }
  }

  /** Once the leader has exited, notices the group emptying before the SIGKILL, so a reused id is never signalled. */
  private watchGroup(): void {
    const pid = this.child.pid;
    if (this.groupPoll || this.groupGone || this.windows || pid === undefined) return;
    this.groupPoll = setInterval(() => {
      if (groupExists(pid)) return;
      this.groupGone = true;
      this.stopWatchingGroup();
    }, GROUP_POLL_MS);
    this.groupPoll.unref();
  }

  private stopWatchingGroup(): void {
    if (this.groupPoll) clearInterval(this.groupPoll);
    this.groupPoll = undefined;
    if (this.groupGone && this.killTimer) clearTimeout(this.killTimer);
  }

  private onStderr(text: string, log: ConnectionLogWriter | undefined): void {
    const parts = (this.partialLine + text).split(/\r?\n/);
    this.partialLine = (parts.pop() ?? '').slice(0, MAX_LINE_CHARS);
    for (const line of parts) this.noteLine(line.slice(0, MAX_LINE_CHARS), log);
  }

  private noteLine(raw: string, log: ConnectionLogWriter | undefined): void {
    if (raw.trim() === '') return;
    // The command's stderr may echo its own arguments (a proxy printing its URL or usage): hidden the same way.
    const line = redactStderrLine(raw, this.hiddenWords);
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
    this.leaderGone = true;
    if (exit.spawnError) this.groupGone = true;
    // The connection ends with the command; whatever it started in its group goes too, as when ssh's ends.
    if (this.stopping) this.watchGroup();
    else this.stop();
    log?.(exit.code === 0 ? 'info' : 'warn', `The proxy command ${this.describeExit()}.`);
    for (const waiter of this.exitWaiters.splice(0)) waiter(exit);
    this.push(null);
  }
}

/** "exited with status 1", "was killed by SIGTERM", "could not be started (…)", "is still running". */
export function describeProxyExit(exit: ProxyCommandExit | undefined): string {
  if (!exit) return 'is still running';
  if (exit.spawnError) return `could not be started (${exit.spawnError})`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with status ${exit.code ?? 'unknown'}`;
}

/** Whether any process is in process group `pgid` (kill with signal 0 sends nothing). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts `command` (tokens already expanded) as OpenSSH's ProxyCommand would be started. */
export function startProxyCommand(command: string, opts: ProxyCommandOptions = {}): ProxyCommandStream {
  return new ProxyCommandStream(command, opts);
}

// Shorter words are too likely to be ordinary text in an error line.
const MIN_HIDDEN_WORD = 4;

/** The words of `command` (split at blanks, quotes, `:`, `@`, `=`) that its redacted form no longer contains. */
export function hiddenWordsOf(command: string, shownCommand: string): string[] {
  const words = command.split(/[\s'"=:@/]+/).filter((word) => word.length >= MIN_HIDDEN_WORD && !shownCommand.includes(word));
  // Longest first, so a word that contains another is hidden whole.
  return [...new Set(words)].sort((a, b) => b.length - a.length);
}

/** One stderr line of the command as it may be logged: the product's redaction, and the command's hidden words. */
export function redactStderrLine(line: string, hiddenWords: readonly string[]): string {
  let shown = redactCommandText(line);
  for (const word of hiddenWords) shown = shown.split(word).join(REDACTED);
  return shown;
}
