// A Slurm batch job as a box: the job runs an agent on its compute node (agent-script.ts) for its whole life, and
// everything a BoxTransport does runs there through a mailbox folder on the shared HOME, via the login node's box.
// Servers and benchmark clients started through it live in the job, reach each other on the node's loopback and
// outlive the app. docs/ARCHITECTURE.md "Batch jobs as boxes".
import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import { shellQuote } from '../../shared/shell-quote';
import type { SlurmJobState } from '../../shared/model/slurm-job';
import { scriptWithStdin, type BoxHttpRequest, type BoxHttpResponse, type BoxRunOptions, type BoxRunResult, type BoxTransport, type TransferProgress, type TransferResult } from '../box/box-transport';
import { boxHttpFailure, checkPort } from '../box/http-request';
import { delay } from '../jobs/client-provider';
import type { CommandChannel, CommandChannelProvider, RunningCommand } from '../jobs/command-channel';
import { RemoteJobRunner } from '../jobs/remote-job-runner';
import { remotePathExpr } from '../jobs/job-scripts';
import { textChunks } from '../box/run-script';
import { agentScript, cancelRequestScript, DEFAULT_IDLE_MINUTES, parseReady, READY_MARKER, readyScript, relayScript, stopAgentScript, parseRelayEnd, type RelayEnd } from './agent-script';
import { cancelSlurmJobs, observeSlurmJobs, submitSlurmJob } from './slurm-jobs';

export interface AgentJobSpec {
  name: string;
  partition?: string;
  account?: string;
  qos?: string;
  gpus?: { type: string | null; count: number };
  timeLimitMinutes: number;
  /** Minutes with no request running or arriving after which the job ends itself (default 10; fractions allowed). */
  idleMinutes?: number;
  /** The mailbox folder (newMailboxDir()), when the caller records it before the job exists; a new one otherwise. */
  dir?: string;
}

export interface AgentJob {
  jobId: string;
  /** The mailbox folder, `~/…` or absolute. */
  dir: string;
}

/** Where agent jobs keep their mailboxes, under the login user's HOME (shared with the compute nodes). */
export const AGENT_ROOT = '~/.servelab/slurm';

/**
 * Removes the mailboxes of jobs Slurm reports ended: what a request left there (a launch script's secret environment
 * when the job died under it) is not kept on the shared storage. Only folders this app makes (AGENT_ROOT/<16 hex>):
 * a folder name read back from a project file is never trusted further than that.
 */
export async function removeMailboxes(login: BoxTransport, dirs: readonly string[]): Promise<void> {
  const ours = dirs.filter((dir) => MAILBOX_DIR.test(dir));
  if (ours.length === 0) return;
  await login.run(`rm -rf ${ours.map((dir) => remotePathExpr(dir)).join(' ')}\n`, { timeoutSeconds: 60 });
}
const MAILBOX_DIR = /^~\/\.servelab\/slurm\/[0-9a-f]{16}$/;

/** A new job's mailbox folder: AGENT_ROOT/<16 hex>, also the job's working directory (squeue's %Z finds it). */
export function newMailboxDir(): string {
  return `${AGENT_ROOT}/${randomBytes(8).toString('hex')}`;
}

/** Submits a batch job that runs the agent; its mailbox and Slurm's output file are in a new folder under AGENT_ROOT. */
export async function submitAgentJob(login: BoxTransport, spec: AgentJobSpec): Promise<AgentJob> {
  const idleMinutes = spec.idleMinutes ?? DEFAULT_IDLE_MINUTES;
  if (!(idleMinutes > 0)) throw new ServelabError('BAD_INPUT', 'idleMinutes must be more than 0.');
  const dir = spec.dir ?? newMailboxDir();
  if (!MAILBOX_DIR.test(dir)) throw new ServelabError('BAD_INPUT', `"${dir}" is not a mailbox folder of this app.`);
  const submitted = await submitSlurmJob(login, {
    name: spec.name,
    script: agentScript({ dir, idleSeconds: Math.max(1, Math.round(idleMinutes * 60)) }),
    ...(spec.partition ? { partition: spec.partition } : {}),
    ...(spec.account ? { account: spec.account } : {}),
    ...(spec.qos ? { qos: spec.qos } : {}),
    ...(spec.gpus ? { gpus: spec.gpus } : {}),
    timeLimitMinutes: spec.timeLimitMinutes,
    outputPath: `${dir}/job.out`,
    workDir: dir,
  });
  return { jobId: submitted.jobId, dir };
}

export type AgentWait = { kind: 'started'; node: string; gpus: string[]; box: SlurmJobBox } | { kind: 'ended'; state: SlurmJobState };

export interface WaitForAgentOptions {
  hostId: string;
  signal?: AbortSignal;
  pollMs?: number;
  /** Each change of Slurm's state or reason while the job waits or starts. */
  onState?: (state: SlurmJobState) => void;
}

/**
 * Waits until the job's agent wrote `ready` (then a box on it), or until the job ended without one. One login-node
 * round trip per poll, for the state and the ready file together.
 */
export async function waitForAgent(login: BoxTransport, job: AgentJob, opts: WaitForAgentOptions): Promise<AgentWait> {
  let last = '';
  for (;;) {
    opts.signal?.throwIfAborted();
    // The state first: once it says ended, a ready file read after it is final too.
    const [state] = await observeSlurmJobs(login, [job.jobId], opts.signal ? { signal: opts.signal } : {});
    if (!state) throw new Error('no state for the job');
    const key = `${state.state}|${state.reason ?? ''}`;
    if (key !== last && (state.phase === 'pending' || state.phase === 'running')) opts.onState?.(state);
    last = key;
    if (state.phase === 'ended' || state.phase === 'unknown') return { kind: 'ended', state };
    if (state.phase === 'running') {
      const ready = await readReady(login, job, opts.signal);
      if (ready?.ended) return { kind: 'ended', state: (await observeSlurmJobs(login, [job.jobId]))[0] ?? state };
      if (ready) return { kind: 'started', node: ready.node, gpus: ready.gpus, box: SlurmJobBox.attach(login, job, opts.hostId) };
    }
    await delay(opts.pollMs ?? 1000, opts.signal);
  }
}

async function readReady(login: BoxTransport, job: AgentJob, signal?: AbortSignal) {
  const result = await login.run(readyScript(job.dir), { timeoutSeconds: 60, ...(signal ? { signal } : {}) });
  const at = result.stdout.indexOf(`${READY_MARKER}\n`);
  if (at < 0) throw new ServelabError('REMOTE_COMMAND_FAILED', `Reading the mailbox of Slurm job ${job.jobId} on the login node failed: ${result.stderr.trim().slice(0, 300)}`);
  return parseReady(result.stdout.slice(at + READY_MARKER.length + 1));
}

/** Bound on a request's own time limit for jobs() commands, which their callers end themselves. */
const CHANNEL_REQUEST_SECONDS = 7 * 24 * 3600;
/** What the login-node part of a request may take beyond the request's own time limit. */
const LOGIN_MARGIN_SECONDS = 60;

interface RequestOptions {
  timeoutSeconds: number;
  /** As `sh -l -s`, where the login profile runs first. */
  login: boolean;
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  signal?: AbortSignal;
  /** Keep the output for the result (default); jobs() commands stream theirs for as long as a server runs. */
  keep?: boolean;
}

/**
 * A box that is a running agent job. `run` sends the script to the agent and relays its output as it grows, one
 * login-node round trip per call; `jobs()` runs the remote job scripts the same way, so detached jobs live in the Slurm
 * job; `httpRequest` is made on the node (python3); files go through the login node (shared storage).
 */
export class SlurmJobBox implements BoxTransport {
  readonly kind = 'ssh';
  private runner: RemoteJobRunner | undefined;
  private readonly inFlight = new Set<AbortController>();
  private channel: MailboxChannel | undefined;
  private released = false;
  private finished = false;
  /** What the agent did when it was found gone: later calls fail at once, with Slurm's state then. */
  private gone: string | undefined;

  private constructor(
    private readonly login: BoxTransport,
    readonly job: AgentJob,
    readonly hostId: string,
  ) {}

  /** A box on a job whose agent runs (waitForAgent), or ran when the app last saw it (after a restart). */
  static attach(login: BoxTransport, job: AgentJob, hostId: string): SlurmJobBox {
    return new SlurmJobBox(login, job, hostId);
  }

  async run(script: string, opts: BoxRunOptions): Promise<BoxRunResult> {
    const onStdout = textChunks(opts.onStdout);
    const onStderr = textChunks(opts.onStderr);
    const result = await this.request(scriptWithStdin(script, opts.stdin), {
      timeoutSeconds: opts.timeoutSeconds,
      login: true,
      ...(onStdout ? { onStdout } : {}),
      ...(onStderr ? { onStderr } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return { stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8'), code: result.code };
  }

  jobs(): RemoteJobRunner {
    this.runner ??= new RemoteJobRunner({ hostId: this.hostId, channels: this.channels });
    return this.runner;
  }

  async httpRequest(port: number, request: BoxHttpRequest): Promise<BoxHttpResponse> {
    checkPort(port);
    const body = request.body === undefined ? '' : (Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8')).toString('base64');
    const input = JSON.stringify({ port, method: request.method ?? 'GET', path: request.path, headers: request.headers ?? {}, body, timeout: request.timeoutMs / 1000 });
    const where = `127.0.0.1:${port}${request.path}`;
    const result = await this.run(`exec python3 -c ${shellQuote(HTTP_REQUEST_PY)}`, { stdin: input, timeoutSeconds: request.timeoutMs / 1000 + 30 });
    let answer: { status?: number; headers?: [string, string][]; body?: string; failure?: string; error?: string };
    try {
      answer = JSON.parse(result.stdout.trim().split('\n').pop() ?? '') as typeof answer;
    } catch {
      throw new ServelabError('REMOTE_COMMAND_FAILED', `The HTTP request to ${where} on the node of Slurm job ${this.job.jobId} did not run (exit code ${result.code ?? 'none'}): ${result.stderr.trim().slice(-300)}`);
    }
    if (answer.failure === 'refused') throw boxHttpFailure('refused', `Nothing listens on ${where} on the box (connection refused).`);
    if (answer.failure === 'timeout') throw boxHttpFailure('timeout', `No HTTP answer from ${where} on the box within ${request.timeoutMs / 1000} s.`);
    if (answer.failure === 'reset') throw boxHttpFailure('reset', `The server at ${where} on the box closed the connection without an answer (${answer.error ?? 'reset'}).`);
    const headers: Record<string, string> = {};
    for (const [name, value] of answer.headers ?? []) {
      const key = name.toLowerCase();
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    return { status: answer.status ?? 0, headers, body: Buffer.from(answer.body ?? '', 'base64').toString('utf8') };
  }

  upload(localPath: string, remotePath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    this.checkOpen();
    return this.login.upload(localPath, remotePath, onProgress);
  }

  download(remotePath: string, localPath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    this.checkOpen();
    return this.login.download(remotePath, localPath, onProgress);
  }

  /** Ends the requests still running through this box (on the node too); detached jobs live on in the Slurm job. */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const controller of this.inFlight) controller.abort(this.releasedError());
    this.channel?.drop(this.releasedError());
  }

  /**
   * Asks the agent to end and waits until Slurm reports the job ended (scancel after the timeout); its final state.
   * The mailbox goes with the job.
   */
  async finish(opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<SlurmJobState> {
    this.finished = true;
    for (const controller of this.inFlight) controller.abort(this.releasedError());
    await this.login.run(stopAgentScript(this.job.dir), { timeoutSeconds: 60, ...(opts.signal ? { signal: opts.signal } : {}) });
    const final = await this.ended(opts);
    await removeMailboxes(this.login, [this.job.dir]).catch(() => undefined);
    return final;
  }

  private async ended(opts: { signal?: AbortSignal; timeoutMs?: number }): Promise<SlurmJobState> {
    const until = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const [state] = await observeSlurmJobs(this.login, [this.job.jobId], opts.signal ? { signal: opts.signal } : {});
      if (!state) throw new Error('no state for the job');
      if (state.phase === 'ended' || state.phase === 'unknown') return state;
      if (Date.now() > until) {
        const [cancelled] = await cancelSlurmJobs(this.login, [this.job.jobId], opts.signal ? { signal: opts.signal } : {});
        return cancelled ?? state;
      }
      await delay(500, opts.signal);
    }
  }

  private readonly channels: CommandChannelProvider = async () => {
    this.checkOpen();
    if (!this.channel || this.channel.dropped) this.channel = new MailboxChannel(this);
    return this.channel;
  };

  private checkOpen(): void {
    if (this.released || this.finished) throw this.releasedError();
  }

  private releasedError(): ServelabError {
    return new ServelabError('CANCELLED', `The box of Slurm job ${this.job.jobId} was ${this.finished ? 'finished' : 'released'}.`);
  }

  /** One request through the mailbox: raw output, the script's exit status. */
  /** @internal One request through the mailbox: its output (kept unless `keep` is false) and exit status. */
  async request(text: string, opts: RequestOptions): Promise<{ stdout: Buffer; stderr: Buffer; code: number | null }> {
    this.checkOpen();
    if (this.gone !== undefined) throw await this.goneError(this.gone);
    const id = randomBytes(8).toString('hex');
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) throw opts.signal.reason;
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    this.inFlight.add(controller);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    const keep = opts.keep ?? true;
    const deadline = Date.now() + opts.timeoutSeconds * 1000;
    let resume: { out: number; err: number } | undefined;
    try {
      for (;;) {
        // A fresh token per relay: the lines of one that was cut off cannot be taken for the next one's.
        const token = `SL${randomBytes(6).toString('hex')}`;
        let end: RelayEnd | null = null;
        let pending = '';
        const onLine = (line: string) => {
          if (!line.startsWith(token)) return;
          const kind = line.charAt(token.length);
          const rest = line.slice(token.length + 2);
          if (kind === 'O' || kind === 'E') {
            const bytes = Buffer.from(rest, 'base64');
            if (keep) (kind === 'O' ? stdout : stderr).push(bytes);
            (kind === 'O' ? opts.onStdout : opts.onStderr)?.(bytes);
          } else if (kind === '.') {
            end = parseRelayEnd(rest);
          }
        };
        const seconds = Math.max(1, (deadline - Date.now()) / 1000);
        let result: BoxRunResult;
        try {
          result = await this.login.run(relayScript({ dir: this.job.dir, id, token, timeoutSeconds: seconds, login: opts.login, ...(resume ? { resume } : {}) }), {
            // A follow-on of a long request waits behind short ones for a session of the login connection.
            ...(resume ? { background: true } : { stdin: text }),
            timeoutSeconds: seconds + LOGIN_MARGIN_SECONDS,
            signal: controller.signal,
            onStdout: (chunk) => {
              const lines = (pending + chunk).split('\n');
              pending = lines.pop() ?? '';
              for (const line of lines) onLine(line);
            },
          });
        } catch (error) {
          // The login side is gone (aborted, or its connection dropped): the request may still run on the node.
          await this.login.run(cancelRequestScript(this.job.dir, id), { timeoutSeconds: 30 }).catch(() => undefined);
          throw controller.signal.aborted ? controller.signal.reason : error;
        }
        if (pending) onLine(pending);
        const ended = end as RelayEnd | null;
        if (!ended) {
          const said = `${result.stderr}`.trim().split('\n').slice(-3).join(' | ');
          throw new ServelabError('REMOTE_COMMAND_FAILED', `The request to Slurm job ${this.job.jobId} did not run to the end on the login node (exit code ${result.code ?? 'none'})${said ? `: ${said.slice(0, 500)}` : ''}`);
        }
        switch (ended.kind) {
          case 'more':
            resume = { out: ended.out, err: ended.err };
            continue;
          case 'rc':
            return { stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr), code: ended.code };
          case 'timeout':
            throw new ServelabError('TIMEOUT', `The remote command did not finish within ${opts.timeoutSeconds} s on the node of Slurm job ${this.job.jobId}; it was killed.`);
          case 'cancelled':
            throw new ServelabError('REMOTE_COMMAND_FAILED', `The command on the node of Slurm job ${this.job.jobId} was cancelled there before it finished.`);
          case 'gone':
            throw await this.goneError(ended.why === 'stale' ? 'stopped answering' : `ended (${ended.why.replace(/^ended ?/, '') || 'no reason'})`);
          case 'failed':
            throw new ServelabError('REMOTE_COMMAND_FAILED', `The request to Slurm job ${this.job.jobId} could not be sent: ${ended.why}`);
          default:
            throw new Error('unknown relay end');
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      this.inFlight.delete(controller);
    }
  }

  /** The agent no longer takes requests: Slurm's word on the job, in the message and in details. */
  private async goneError(what: string): Promise<ServelabError> {
    this.gone ??= what;
    let state: SlurmJobState | undefined;
    try {
      [state] = await observeSlurmJobs(this.login, [this.job.jobId]);
      // An agent that ended on a signal ends with its job: Slurm's final word (TIMEOUT, CANCELLED) comes a moment later.
      for (let tries = 0; tries < 20 && state?.phase === 'running' && /signal/.test(what); tries++) {
        await delay(500);
        [state] = await observeSlurmJobs(this.login, [this.job.jobId]);
      }
    } catch (error) {
      return new ServelabError('REMOTE_COMMAND_FAILED', `The agent of Slurm job ${this.job.jobId} ${what}; Slurm's state of the job could not be read: ${(error as Error).message}`);
    }
    if (!state) return new ServelabError('REMOTE_COMMAND_FAILED', `The agent of Slurm job ${this.job.jobId} ${what}.`);
    const reason = state.reason ? `, ${state.reason}` : '';
    return new ServelabError('REMOTE_COMMAND_FAILED', `Slurm job ${this.job.jobId} is ${state.state}${reason}: its agent ${what}, so nothing more runs on its node.`, {
      details: { slurmJob: state },
    });
  }
}

/**
 * The command channel of jobs(): each command is one mailbox request, its stdin embedded in the script. A request
 * that fails (the agent is gone, the login connection dropped) drops the channel, as a closed SSH connection would.
 */
class MailboxChannel implements CommandChannel {
  readonly label: string;
  dropped = false;
  private readonly listeners = new Set<(error: ServelabError) => void>();

  constructor(private readonly box: SlurmJobBox) {
    this.label = `Slurm job ${box.job.jobId}`;
  }

  exec(command: string): Promise<RunningCommand> {
    if (this.dropped) return Promise.reject(new ServelabError('CONNECT_FAILED', `The channel to ${this.label} was dropped.`));
    const controller = new AbortController();
    const out: ((chunk: Buffer) => void)[] = [];
    const err: ((chunk: Buffer) => void)[] = [];
    const close: ((code: number | null) => void)[] = [];
    let abandoned = false;
    const running: RunningCommand = {
      onStdout: (listener) => void out.push(listener),
      onStderr: (listener) => void err.push(listener),
      onClose: (listener) => void close.push(listener),
      end: (stdin) => {
        this.box
          .request(scriptWithStdin(command, stdin ?? ''), {
            timeoutSeconds: CHANNEL_REQUEST_SECONDS,
            login: false,
            keep: false,
            signal: controller.signal,
            onStdout: (chunk) => abandoned || out.forEach((listener) => listener(chunk)),
            onStderr: (chunk) => abandoned || err.forEach((listener) => listener(chunk)),
          })
          .then(
            (result) => abandoned || close.forEach((listener) => listener(result.code)),
            (error: unknown) => {
              if (abandoned) return;
              this.drop(error instanceof ServelabError ? error : new ServelabError('CONNECT_FAILED', (error as Error).message));
            },
          );
      },
      close: () => {
        if (abandoned) return;
        abandoned = true;
        controller.abort(new ServelabError('CANCELLED', 'The command was abandoned.'));
      },
    };
    return Promise.resolve(running);
  }

  onDrop(listener: (error: ServelabError) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  drop(error: ServelabError): void {
    if (this.dropped) return;
    this.dropped = true;
    for (const listener of [...this.listeners]) listener(error);
    this.listeners.clear();
  }
}

/**
 * One HTTP request on the node, its parameters as JSON on stdin; prints one JSON line: the status, headers and body
 * (base64), or a failure as http-request.ts names them (refused, reset, timeout).
 */
const HTTP_REQUEST_PY = `
import base64, http.client, json, socket, sys, time
r = json.load(sys.stdin)
def out(value):
    sys.stdout.write(json.dumps(value) + "\\n")
deadline = time.monotonic() + r["timeout"]
try:
    c = http.client.HTTPConnection("127.0.0.1", r["port"], timeout=r["timeout"])
    c.request(r["method"], r["path"], body=base64.b64decode(r["body"]) if r["body"] else None, headers=r["headers"])
    res = c.getresponse()
    if c.sock is not None:
        c.sock.settimeout(max(0.001, deadline - time.monotonic()))
    body = res.read()
    out({"status": res.status, "headers": res.getheaders(), "body": base64.b64encode(body).decode()})
except ConnectionRefusedError:
    out({"failure": "refused"})
except (socket.timeout, TimeoutError):
    out({"failure": "timeout"})
except (ConnectionError, http.client.HTTPException, OSError) as e:
    out({"failure": "reset", "error": type(e).__name__})
`;
