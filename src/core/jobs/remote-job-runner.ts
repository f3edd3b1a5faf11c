import { ServelabError } from '../../shared/contract';
import { shellQuote } from '../../shared/shell-quote';
import { Utf8ChunkDecoder } from '../ssh/utf8-decoder';
import { abortReason, Backoff, DEFAULT_RETRY_POLICY, isTransientConnectionError, withClient, type RetryPolicy, type SshClientProvider } from './client-provider';
import { channelError, sshCommandChannel, type CommandChannel, type CommandChannelProvider, type RunningCommand } from './command-channel';
import { execOnChannel } from './exec-binary';
import { cancelScript, commandFileText, isEnvName, isJobId, launchScript, newJobId, REMOTE_JOBS_ROOT, statusScript, streamScript } from './job-scripts';
import { LogFrameParser } from './log-frames';
import type { JobRecord, JobRegistry } from './job-registry';

export interface RemoteJobSpec {
  /** argv of the job; each word is quoted with shellCommand, never parsed by a shell. */
  command: string[];
  /** Working folder on the box; `~/…` is relative to the remote HOME. Defaults to HOME. */
  cwd?: string;
  /** Environment written to the job's `command` file as well. */
  env?: Record<string, string>;
  /** Environment (tokens and the like) that reaches the job only through the launcher's stdin. */
  secretEnv?: Record<string, string>;
  label?: string;
  /**
   * The job's id (`newJobId()`), when the caller must know its folder before it starts — a server's record is
   * written first, so that a process killed during the launch leaves a job that can be found and stopped.
   */
  id?: string;
}

export type RemoteJobStatus = { state: 'running' } | { state: 'exited'; code: number } | { state: 'lost'; reason: string };

export interface StreamOptions {
  /** Stops streaming: what was received is delivered, the offset persisted, and the promise rejects with the reason. */
  signal?: AbortSignal;
  /** Chunks are batched and delivered at most this often. */
  flushIntervalMs?: number;
  /** Largest piece of log read from the box at once. */
  readSizeBytes?: number;
  /** How often the box looks for new output. */
  pollIntervalMs?: number;
}

export interface CancelResult {
  /** The strongest signal that was needed; `none` when nothing of the job was running any more. */
  signal: 'TERM' | 'KILL' | 'none';
  status: RemoteJobStatus;
}

export type RemoteJobRunnerOptions = RemoteJobRunnerBaseOptions &
  (
    | {
        /** SSH connections to the box (e.g. the pool's provider for the host). */
        provider: SshClientProvider;
        channels?: undefined;
      }
    | {
        /** Any way to run commands on the box: SSH, or local processes for this machine and the demo lab. */
        channels: CommandChannelProvider;
        provider?: undefined;
      }
  );

interface RemoteJobRunnerBaseOptions {
  /** Which host of the app this runner's provider connects to; stored with each job. */
  hostId: string;
  /** Where jobs are recorded so they can be re-attached after a restart. */
  registry?: JobRegistry;
  retry?: RetryPolicy;
  /** Bound on the short remote commands (launch, status, cancel beyond its grace time). */
  commandTimeoutMs?: number;
  /** A stream that hears nothing (not even a heartbeat) for this long is treated as a dropped connection. */
  silenceTimeoutMs?: number;
  /** How often the box looks for new output when a stream does not say (default 100 ms). */
  pollIntervalMs?: number;
  /** How long a log stream keeps its session while other commands wait for one (default 30 s). */
  streamTurnMs?: number;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
const DEFAULT_SILENCE_TIMEOUT_MS = 20_000;
const DEFAULT_STREAM_TURN_MS = 30_000;
const DEFAULT_FLUSH_INTERVAL_MS = 100;
const DEFAULT_READ_SIZE_BYTES = 256 * 1024;
const DEFAULT_POLL_INTERVAL_MS = 100;
const DEFAULT_CANCEL_GRACE_SECONDS = 5;

/**
 * Starts jobs on one box that outlive the connection (and the app): each runs detached under setsid + nohup
 * with its output in a job folder (`~/.servelab/jobs/<id>/`), and is followed by reading that folder again,
 * through whatever command channel the provider currently has (SSH, or local processes).
 */
export class RemoteJobRunner {
  readonly hostId: string;
  private readonly channels: CommandChannelProvider;
  private readonly registry: JobRegistry | undefined;
  private readonly retry: RetryPolicy;
  private readonly commandTimeoutMs: number;
  private readonly silenceTimeoutMs: number;
  private readonly streamTurnMs: number;
  readonly pollIntervalMs: number;

  constructor(opts: RemoteJobRunnerOptions) {
    this.hostId = opts.hostId;
    if (opts.channels) {
      this.channels = opts.channels;
    } else {
      const ssh = opts.provider;
      this.channels = async () => sshCommandChannel(await ssh());
    }
    this.registry = opts.registry;
    this.retry = opts.retry ?? DEFAULT_RETRY_POLICY;
    this.commandTimeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.silenceTimeoutMs = opts.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS;
    this.pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.streamTurnMs = opts.streamTurnMs ?? DEFAULT_STREAM_TURN_MS;
  }

  async start(spec: RemoteJobSpec): Promise<RemoteJobHandle> {
    const env = spec.env ?? {};
    const secretEnv = spec.secretEnv ?? {};
    validateSpec(spec, env, secretEnv);
    const id = spec.id ?? newJobId();
    if (!isJobId(id)) throw new ServelabError('BAD_INPUT', `"${id}" is not a job id.`);
    const command = commandFileText({ argv: spec.command, ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}), env, secretEnv });
    const now = new Date().toISOString();
    // Recorded before the launch: if the app dies during it, the job can still be found and re-attached.
    const record: JobRecord = {
      id,
      hostId: this.hostId,
      remoteDir: `~/${REMOTE_JOBS_ROOT}/${id}`,
      ...(spec.label !== undefined ? { label: spec.label } : {}),
      command,
      offset: 0,
      state: 'starting',
      createdAt: now,
      updatedAt: now,
    };
    await this.registry?.put(record);

    const script = launchScript({ id, argv: spec.command, ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}), env, secretEnv });
    let result;
    try {
      // Safe to repeat after a dropped connection: the script starts a given id only once.
      result = await withClient(this.channels, (channel) => execOnChannel(channel, 'sh -s', { stdin: script, timeoutMs: this.commandTimeoutMs }), {
        policy: this.retry,
      });
    } catch (error) {
      await this.registry?.remove(id);
      throw error;
    }
    const stdout = result.stdout.toString('utf8');
    const started = /^started (.+)$/m.exec(stdout);
    if (result.code !== 0 || !started) {
      // A launch that timed out and could not kill what it had started keeps its record (state `starting`), so the
      // job can still be found and stopped; any other failure started nothing.
      const leftRunning = result.code === 4 && /still running/.test(result.stderr);
      if (!leftRunning) await this.registry?.remove(id);
      const reason = result.stderr.trim() || stdout.trim() || `exit status ${result.code ?? 'signal'}`;
      throw new ServelabError('REMOTE_COMMAND_FAILED', `The job ${spec.label ?? spec.command[0]} could not be started: ${reason}`, {
        details: { jobId: id, stderr: result.stderr },
      });
    }
    const remoteDir = started[1] as string;
    const running = { ...record, remoteDir, state: 'running' as const };
    if (this.registry) await this.registry.put({ ...running, updatedAt: new Date().toISOString() });
    return new RemoteJobHandle(this, running);
  }

  /**
   * A handle on a job recorded earlier (e.g. before the app restarted); streaming resumes at its offset. Pass
   * the offset of the app's own copy of the log (JobLogMirror) when there is one: the registry's offset is
   * saved lazily and may lag behind what was already kept after a hard crash.
   */
  reattach(record: JobRecord): RemoteJobHandle {
    if (record.hostId !== this.hostId) {
      throw new ServelabError('BAD_INPUT', `Job ${record.id} belongs to host ${record.hostId}, not ${this.hostId}.`);
    }
    if (!isJobId(record.id)) throw new ServelabError('BAD_INPUT', `"${record.id}" is not a job id.`);
    return new RemoteJobHandle(this, record);
  }

  /** @internal Runs a short script with retries over dropped connections. */
  async runScript(script: string, timeoutMs = this.commandTimeoutMs): Promise<{ stdout: string; stderr: string; code: number | null }> {
    const result = await withClient(this.channels, (channel) => execOnChannel(channel, 'sh -s', { stdin: script, timeoutMs }), { policy: this.retry });
    return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, code: result.code };
  }

  /** @internal */
  get deps(): { channels: CommandChannelProvider; registry: JobRegistry | undefined; retry: RetryPolicy; silenceTimeoutMs: number; streamTurnMs: number } {
    return { channels: this.channels, registry: this.registry, retry: this.retry, silenceTimeoutMs: this.silenceTimeoutMs, streamTurnMs: this.streamTurnMs };
  }
}

export class RemoteJobHandle {
  readonly id: string;
  /** The job folder on the box (absolute once the job has started). */
  readonly remoteDir: string;
  readonly label: string | undefined;
  readonly command: string;
  private delivered: number;
  private streaming = false;

  constructor(
    private readonly runner: RemoteJobRunner,
    record: JobRecord,
  ) {
    this.id = record.id;
    this.remoteDir = record.remoteDir;
    this.label = record.label;
    this.command = record.command;
    this.delivered = record.offset;
  }

  /** Bytes of the log delivered so far; the next stream starts here. */
  get offset(): number {
    return this.delivered;
  }

  async status(): Promise<RemoteJobStatus> {
    const result = await this.runner.runScript(statusScript(this.remoteDir));
    const status = parseStatus(result.stdout);
    if (!status) throw this.scriptFailure('read the status of', result);
    await this.recordStatus(status);
    return status;
  }

  /**
   * Delivers the log from the current offset until the job has ended and all of it is read; resolves with the
   * exit code. Survives dropped connections (re-reads from the last byte received, so nothing is lost or
   * repeated); rejects with NOT_FOUND when the job is lost (gone without an exit code).
   */
  async stream(onChunk: (text: string, offset: number, end: number) => void, opts: StreamOptions = {}): Promise<number> {
    if (this.streaming) throw new ServelabError('BAD_INPUT', `Job ${this.id} is already being streamed.`);
    this.streaming = true;
    const { channels, registry, retry, silenceTimeoutMs, streamTurnMs } = this.runner.deps;
    const stop = new AbortController();
    const onOuterAbort = () => stop.abort(abortReason(opts.signal as AbortSignal));
    if (opts.signal?.aborted) onOuterAbort();
    opts.signal?.addEventListener('abort', onOuterAbort, { once: true });

    let callbackFailed = false;
    const delivery = new ThrottledDelivery(this.delivered, opts.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS, (text, offset, end) => {
      if (callbackFailed) return;
      try {
        onChunk(text, offset, end);
      } catch (error) {
        callbackFailed = true;
        stop.abort(error);
        return;
      }
      this.delivered = end;
      registry?.noteOffset(this.id, end);
    });
    const backoff = new Backoff(retry);
    const pollSeconds = Math.max(10, opts.pollIntervalMs ?? this.runner.pollIntervalMs) / 1000;
    const params = {
      remoteDir: this.remoteDir,
      maxFrameBytes: Math.max(1, Math.floor(opts.readSizeBytes ?? DEFAULT_READ_SIZE_BYTES)),
      pollSeconds,
      // A heartbeat about once a second while the log is quiet, whatever the poll interval.
      heartbeatPolls: Math.max(1, Math.round(1 / pollSeconds)),
    };

    try {
      for (;;) {
        if (stop.signal.aborted) throw abortReason(stop.signal);
        let channel: CommandChannel;
        try {
          channel = await channels();
        } catch (error) {
          if (!isTransientConnectionError(error)) throw error;
          await backoff.wait(error, stop.signal);
          continue;
        }
        const outcome = await streamOnce(channel, { ...params, offset: delivery.receivedEnd }, delivery, { silenceTimeoutMs, streamTurnMs }, stop.signal, () =>
          backoff.succeeded(),
        );
        if (outcome.kind === 'exit') {
          delivery.flushNow();
          if (stop.signal.aborted) throw abortReason(stop.signal);
          await this.recordStatus({ state: 'exited', code: outcome.code });
          return outcome.code;
        }
        if (outcome.kind === 'lost') {
          delivery.flushNow();
          await this.recordStatus({ state: 'lost', reason: outcome.reason });
          throw new ServelabError('NOT_FOUND', `Job ${this.label ?? this.id} is lost: ${outcome.reason}.`, {
            details: { jobId: this.id, remoteDir: this.remoteDir },
          });
        }
        if (outcome.kind === 'failed') throw outcome.error;
        if (outcome.kind === 'aborted') throw abortReason(stop.signal);
        if (outcome.kind === 'yielded') continue;
        await backoff.wait(outcome.error, stop.signal);
      }
    } catch (error) {
      // Whatever was received is handed over, so a later stream (or app) starts exactly after it.
      delivery.flushNow();
      throw error;
    } finally {
      delivery.dispose();
      opts.signal?.removeEventListener('abort', onOuterAbort);
      this.streaming = false;
      await registry?.flush().catch(() => {});
    }
  }

  /**
   * Stops the whole process group: TERM, up to `graceSeconds`, then KILL, and confirms nothing of it is left.
   * Throws REMOTE_COMMAND_FAILED listing the processes that survived.
   */
  async cancel(opts: { graceSeconds?: number } = {}): Promise<CancelResult> {
    const grace = opts.graceSeconds ?? DEFAULT_CANCEL_GRACE_SECONDS;
    const result = await this.runner.runScript(cancelScript(this.remoteDir, grace), (grace + 5) * 1000 + DEFAULT_COMMAND_TIMEOUT_MS);
    const lines = result.stdout.split('\n');
    const verdictAt = lines.findIndex((l) => /^(gone (TERM|KILL|none)|survivors|missing)$/.test(l));
    const verdict = lines[verdictAt];
    if (verdict === undefined) throw this.scriptFailure('cancel', result);
    if (verdict === 'missing') {
      throw new ServelabError(
        'NOT_FOUND',
        `Job ${this.label ?? this.id}: nothing of it was found to stop, but whether it still runs is unknown: its folder ${this.remoteDir} is gone or holds no process group, and no process carries its SERVELAB_JOB mark.`,
        { details: { jobId: this.id, remoteDir: this.remoteDir } },
      );
    }
    if (verdict === 'survivors') {
      const survivors = lines.slice(verdictAt + 1).filter((l) => l.trim() !== '');
      throw new ServelabError('REMOTE_COMMAND_FAILED', `Job ${this.label ?? this.id} did not stop: ${survivors.length} process(es) survived SIGKILL.`, {
        details: { jobId: this.id, survivors },
      });
    }
    const signal = verdict.slice('gone '.length) as CancelResult['signal'];
    return { signal, status: await this.status() };
  }

  private async recordStatus(status: RemoteJobStatus): Promise<void> {
    const registry = this.runner.deps.registry;
    if (!registry?.get(this.id)) return;
    if (status.state === 'exited') await registry.update(this.id, { state: 'exited', exitCode: status.code, offset: Math.max(this.delivered, registry.get(this.id)?.offset ?? 0) });
    else if (status.state === 'lost') await registry.update(this.id, { state: 'lost' });
  }

  private scriptFailure(what: string, result: { stdout: string; stderr: string; code: number | null }): ServelabError {
    return new ServelabError('REMOTE_COMMAND_FAILED', `Could not ${what} job ${this.label ?? this.id}: ${result.stderr.trim() || result.stdout.trim() || `exit status ${result.code}`}`, {
      details: { jobId: this.id },
    });
  }
}

function validateSpec(spec: RemoteJobSpec, env: Record<string, string>, secretEnv: Record<string, string>): void {
  const issues: { path: string; message: string }[] = [];
  if (spec.command.length === 0) issues.push({ path: 'command', message: 'The command needs at least a program name.' });
  spec.command.forEach((word, i) => {
    if (word.includes('\0')) issues.push({ path: `command.${i}`, message: 'An argument cannot contain a NUL byte.' });
  });
  if (spec.cwd?.includes('\0')) issues.push({ path: 'cwd', message: 'A folder name cannot contain a NUL byte.' });
  for (const [field, vars] of [
    ['env', env],
    ['secretEnv', secretEnv],
  ] as const) {
    for (const [name, value] of Object.entries(vars)) {
      if (!isEnvName(name)) issues.push({ path: `${field}.${name}`, message: 'Not a valid environment variable name.' });
      if (value.includes('\0')) issues.push({ path: `${field}.${name}`, message: 'A value cannot contain a NUL byte.' });
    }
  }
  for (const name of Object.keys(secretEnv)) {
    if (Object.hasOwn(env, name)) issues.push({ path: `secretEnv.${name}`, message: 'Also given as a plain environment variable.' });
  }
  if (issues.length > 0) {
    throw new ServelabError('BAD_INPUT', `The job cannot be started: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  }
  // Throws for anything shellQuote refuses, so the check above cannot drift from it.
  spec.command.forEach(shellQuote);
}

function parseStatus(stdout: string): RemoteJobStatus | undefined {
  const line = stdout.split('\n').find((l) => /^(running|exited -?\d+|lost( .*)?)$/.test(l));
  if (line === undefined) return undefined;
  if (line === 'running') return { state: 'running' };
  if (line.startsWith('exited ')) return { state: 'exited', code: Number(line.slice('exited '.length)) };
  return { state: 'lost', reason: line.slice('lost '.length) || 'the job is gone' };
}

/**
 * Batches decoded log text and hands it over at most once per interval. Tracks two offsets: `receivedEnd`
 * (everything decoded so far, where a new read starts) and what the callback has already been given.
 */
class ThrottledDelivery {
  private parts: string[] = [];
  private pendingStart: number;
  private end: number;
  private lastFlush = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    start: number,
    private readonly intervalMs: number,
    private readonly deliver: (text: string, offset: number, end: number) => void,
  ) {
    this.pendingStart = start;
    this.end = start;
  }

  get receivedEnd(): number {
    return this.end;
  }

  add(text: string, bytes: number): void {
    if (bytes === 0) return;
    if (this.parts.length === 0) this.pendingStart = this.end;
    this.parts.push(text);
    this.end += bytes;
    if (this.timer) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - Date.now());
    this.timer = setTimeout(() => this.flushNow(), wait);
  }

  flushNow(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.lastFlush = Date.now();
    this.deliver(text, this.pendingStart, this.end);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

type StreamOutcome =
  | { kind: 'exit'; code: number }
  | { kind: 'yielded' }
  | { kind: 'lost'; reason: string }
  | { kind: 'dropped'; error: ServelabError }
  | { kind: 'failed'; error: ServelabError }
  | { kind: 'aborted' };

/** One pass of the remote stream script over one connection, until it ends, the connection drops or `signal` fires. */
function streamOnce(
  channel: CommandChannel,
  params: Parameters<typeof streamScript>[0],
  delivery: ThrottledDelivery,
  { silenceTimeoutMs, streamTurnMs }: { silenceTimeoutMs: number; streamTurnMs: number },
  signal: AbortSignal,
  onProgress: () => void,
): Promise<StreamOutcome> {
  return new Promise<StreamOutcome>((resolve) => {
    const parser = new LogFrameParser();
    const decoder = new Utf8ChunkDecoder();
    let command: RunningCommand | undefined;
    let channelDropped = false;
    let settled = false;
    let stderr = '';
    let silence: NodeJS.Timeout | undefined;
    let turns: NodeJS.Timeout | undefined;

    const finish = (outcome: StreamOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(silence);
      clearInterval(turns);
      offDrop();
      signal.removeEventListener('abort', onAbort);
      command?.close();
      resolve(outcome);
    };
    const dropped = (message: string) => finish({ kind: 'dropped', error: new ServelabError('CONNECT_FAILED', message) });
    const armSilence = () => {
      clearTimeout(silence);
      silence = setTimeout(() => dropped(`The log stream was silent for ${silenceTimeoutMs / 1000} s.`), silenceTimeoutMs);
    };
    const offDrop = channel.onDrop(() => {
      channelDropped = true;
      dropped(`The ${channel.label} closed while streaming the log.`);
    });
    const onAbort = () => finish({ kind: 'aborted' });
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) {
      onAbort();
      return;
    }

    const onData = (chunk: Buffer) => {
      if (settled) return;
      armSilence();
      let frames;
      try {
        frames = parser.push(chunk);
      } catch (error) {
        // Re-reading from the last delivered byte puts the stream back in step.
        dropped(`The log stream was garbled: ${(error as Error).message}`);
        return;
      }
      for (const frame of frames) {
        if (frame.kind === 'data') {
          const { text, bytes } = decoder.push(frame.bytes);
          delivery.add(text, bytes);
          onProgress();
        } else if (frame.kind === 'exit' || frame.kind === 'lost') {
          const rest = decoder.end();
          delivery.add(rest.text, rest.bytes);
          finish(frame);
          return;
        }
      }
    };

    // Re-opened after every drop or turn for as long as the job runs: behind the short commands waiting for a session.
    channel.exec('sh -s', { background: true, signal }).then(
      (opened) => {
        command = opened;
        if (settled) {
          opened.close();
          return;
        }
        // From the open on: one may wait for a free session of the connection (ssh/session-gate.ts) for long.
        armSilence();
        // A stream lasts as long as its job (a server: hours). While other commands wait for a session it makes way
        // after its turn and queues again, going on from the last byte received as after a drop.
        if (channel.contended) {
          const opened = Date.now();
          turns = setInterval(() => {
            if (Date.now() - opened >= streamTurnMs && channel.contended?.()) finish({ kind: 'yielded' });
          }, Math.min(2000, streamTurnMs));
        }
        onProgress();
        opened.onStdout(onData);
        opened.onStderr((chunk) => {
          if (stderr.length < 4096) stderr += chunk.toString('utf8');
        });
        opened.onClose((exitCode) => {
          if (settled) return;
          // The script only ends on its own after an X or L line: a plain non-zero exit is a broken box, not a drop.
          if (!channelDropped && exitCode !== null && exitCode !== 0) {
            finish({
              kind: 'failed',
              error: new ServelabError('REMOTE_COMMAND_FAILED', `Reading the job log failed (exit status ${exitCode}): ${stderr.trim() || 'no message'}`),
            });
            return;
          }
          dropped('The log stream ended early.');
        });
        opened.end(streamScript(params));
      },
      (error: unknown) => {
        const failure = error instanceof ServelabError ? error : channelError(error as Error);
        finish(failure.code === 'CONNECT_FAILED' ? { kind: 'dropped', error: failure } : { kind: 'failed', error: failure });
      },
    );
  });
}
