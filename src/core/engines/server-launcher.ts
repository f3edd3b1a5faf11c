import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import { buildDockerRun, getAdapter, parseServerConfig, validateExtraArgs, type EngineId, type LogVerdict, type ServerConfigInput } from '../../shared/engines';
import { HF_TOKEN_NAMES } from '../../shared/engines/docker-run';
import type { RemoteJobHandle } from '../jobs/remote-job-runner';
import { newJobId, REMOTE_JOBS_ROOT } from '../jobs/job-scripts';
import { httpFailureOf } from '../box/http-request';
import { redactCredentialArgs } from '../../shared/engines/credentials';
import { shellCommand, shellQuote } from '../../shared/shell-quote';
import { boxFacts, checkEngineVersion, inLoginEnv, MARKER_FILE, runChecked, SERVERS_ROOT, type EngineBox, type EngineMode } from './engine-box';
import { EngineInstaller } from './engine-installer';
import { isJobId, JOB_ALIVE_FUNCTIONS, remotePathExpr, REMOTE_TREE_GUARD } from '../jobs/job-scripts';
import { parseServerRecord } from './server-records';
import { pulledImage, requireDocker } from './docker-images';
import { filesForConfig, placeConfigFiles, type PlacedConfigFile } from './config-file-upload';
import { boxFilePath, type ConfigFile } from '../../shared/engines/config-files';

export type ServerState = 'starting' | 'ready' | 'failed' | 'stopping' | 'stopped';

export interface LaunchRequest {
  engine: string;
  version: string;
  config: ServerConfigInput;
  /** GPU indices (or UUIDs) the server may use, as CUDA_VISIBLE_DEVICES. */
  gpus?: string[];
  /** Who launched it (a study's project path), so that a later run can find and stop what an earlier one left. */
  owner?: string;
  /** Give up waiting for readiness after this long (default 20 minutes). */
  readinessTimeoutMs?: number;
  onLog?: (text: string) => void;
  onState?: (state: ServerState, classification?: LogVerdict) => void;
  /** Values of the config's secret environment (e.g. HF_TOKEN), by reference; from the OS keychain. */
  resolveSecret?: (secretRef: string) => Promise<string | null>;
  /** `env` (default): from the engine's environment; `docker`: `docker run` of the engine's pulled official image. */
  mode?: EngineMode;
  /**
   * The weights are in the box's Hugging Face cache (prefetched): the server runs with HF_HUB_OFFLINE=1 and without
   * HF_TOKEN, so the token does not live in a long-running process's environment or a container's config.
   */
  offline?: boolean;
  /** The files the config names (`chatTemplate`, `optionsFile`), by name: put on the box before the server starts. */
  files?: readonly ConfigFile[];
  /** What of the config's files was copied to the box, and what it already had, before the server starts. */
  onFilesPlaced?: (files: PlacedConfigFile[]) => void;
}

const HF_TOKEN_ENV = HF_TOKEN_NAMES;
/** In a docker-mode server's folder: the Hugging Face token the container reads through HF_TOKEN_PATH; removed at stop. */
export const TOKEN_FILE = 'hf-token';

export interface StopReport {
  portClosed: boolean;
  gpuMemoryReleased: boolean;
  /** Whatever of the server is still there: processes, a GPU process, an open port. Empty when clean. */
  leftovers: string[];
  signal: 'TERM' | 'KILL' | 'none';
}

/** What a later process needs to stop the server: written next to the server's generated files. */
export interface ServerRecord {
  serverId: string;
  hostId: string;
  engine: EngineId;
  version: string;
  port: number;
  jobId: string;
  jobDir: string;
  /** The command as it runs on the box, for the user to read or rerun by hand. */
  command: string;
  startedAt: string;
  /** Absent in records written before docker mode: `env`. */
  mode?: EngineMode;
  /** The container's name in docker mode (`servelab-<serverId>`). */
  container?: string;
  /** What the server serves and how it was started, for results' provenance (absent in older records). */
  model?: string;
  servedModelName?: string;
  argv?: string[];
  /** Names only: values may be secrets. */
  envNames?: string[];
  gpus?: string[];
  owner?: string;
}

const DEFAULT_READINESS_TIMEOUT_MS = 20 * 60_000;
const POLL_MS = 300;
const LOG_KEEP_CHARS = 512 * 1024;
const GPU_RELEASE_WAIT_MS = 10_000;

export function newServerId(): string {
  return `srv-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** One launched server: its log, its state and how to stop it. */
export class RunningServer {
  state: ServerState = 'starting';
  classification: LogVerdict | undefined;
  private logText = '';
  private exitCode: number | null = null;
  private readonly exited: Promise<number | null>;
  private readonly streamAbort = new AbortController();
  private stopping: Promise<StopReport> | undefined;
  private readonly stateListeners = new Set<(state: ServerState, classification?: LogVerdict) => void>();
  private readonly logListeners = new Set<(text: string) => void>();

  constructor(
    private readonly box: EngineBox,
    readonly record: ServerRecord,
    private readonly handle: RemoteJobHandle,
  ) {
    this.exited = handle
      .stream((text) => this.onLog(text), { signal: this.streamAbort.signal })
      .then(
        (code) => {
          this.exitCode = code;
          return code;
        },
        () => null,
      )
      .then((code) => {
        if (this.state === 'starting' || this.state === 'ready') {
          this.setState('failed', getAdapter(record.engine).classifyLog(this.logText, { exited: true }));
        }
        return code;
      });
  }

  get serverId(): string {
    return this.record.serverId;
  }

  get port(): number {
    return this.record.port;
  }

  get log(): string {
    return this.logText;
  }

  /** The exit code once the process has ended on its own; null while it runs. */
  get exitStatus(): number | null {
    return this.exitCode;
  }

  onState(listener: (state: ServerState, classification?: LogVerdict) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onLogText(listener: (text: string) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  /** Resolves with the process's exit code when it ends (or null when its log could not be followed). */
  whenExited(): Promise<number | null> {
    return this.exited;
  }

  /**
   * Waits until the adapter's ready log line has appeared and its health endpoint answers as ready. Rejects (after
   * stopping the server) on timeout, and when the process ends first; both carry the log's classification.
   */
  async waitReady(timeoutMs: number = DEFAULT_READINESS_TIMEOUT_MS): Promise<void> {
    const readiness = getAdapter(this.record.engine).readiness;
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.exited.then(() => {
      ended = true;
    });
    for (;;) {
      if (this.state === 'failed' || ended) throw this.failure('The server process ended before it was ready');
      if (this.state === 'stopping' || this.state === 'stopped') throw new ServelabError('NOT_FOUND', `Server ${this.serverId} was stopped before it was ready.`);
      if (readiness.readyLogPatterns.some((p) => p.test(this.logText)) && (await this.healthReady(readiness))) {
        // The process may have died between the log line and the probe: only a live server counts.
        if (!ended) {
          this.setState('ready');
          return;
        }
      }
      if (Date.now() >= deadline) {
        this.setState('failed', getAdapter(this.record.engine).classifyLog(this.logText));
        const error = this.failure(`The server was not ready within ${Math.round(timeoutMs / 1000)} s`);
        await this.stop().catch(() => {});
        this.state = 'failed';
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /**
   * Whether the server still serves, asked after a workload saw failed requests. The process's end reaches us through
   * its log stream a moment after the port closes, so an unhealthy server is given `graceMs` to be seen ending; then
   * `state` and `classification` name the cause instead of the workload reporting bare failed requests.
   */
  async confirmServing(graceMs = 10_000): Promise<boolean> {
    if (this.state !== 'ready') return false;
    const readiness = getAdapter(this.record.engine).readiness;
    if (await this.healthReady(readiness).catch(() => false)) return this.state === 'ready';
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    return this.state === 'ready';
  }

  /**
   * SIGTERM to the process group, then SIGKILL after the engine's grace time; then checks that the port is closed and
   * that no process of the server holds GPU memory. Whatever is left is reported, never ignored.
   */
  stop(): Promise<StopReport> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<StopReport> {
    const failedBefore = this.state === 'failed';
    if (!failedBefore) this.setState('stopping');
    const report = await stopServer(this.box, this.record, this.handle);
    this.streamAbort.abort(new Error('stopped'));
    if (!failedBefore) this.setState('stopped');
    return report;
  }

  private async healthReady(readiness: ReturnType<typeof getAdapter>['readiness']): Promise<boolean> {
    try {
      const response = await this.box.httpRequest(this.record.port, { path: readiness.healthPath, timeoutMs: 5000 });
      return readiness.healthIsReadyWhen(response.status);
    } catch (error) {
      if (httpFailureOf(error) !== null) return false;
      throw error;
    }
  }

  private failure(what: string): ServelabError {
    const verdict = this.classification ?? getAdapter(this.record.engine).classifyLog(this.logText);
    const code = this.exitCode === null ? '' : ` (exit status ${this.exitCode})`;
    return new ServelabError('REMOTE_COMMAND_FAILED', `${what}${code}: ${verdict.class}${verdict.evidence ? ` — ${verdict.evidence}` : ''}. ${verdict.hint}`, {
      details: { serverId: this.serverId, classification: verdict.class, evidence: verdict.evidence, hint: verdict.hint },
    });
  }

  private onLog(text: string): void {
    this.logText = (this.logText + text).slice(-LOG_KEEP_CHARS);
    for (const listener of this.logListeners) listener(text);
  }

  private setState(state: ServerState, classification?: LogVerdict): void {
    this.state = state;
    if (classification) this.classification = classification;
    for (const listener of this.stateListeners) listener(state, classification);
  }
}

/**
 * Starts engine@version from its environment as a detached job: checks the extra args and the install, picks a free
 * port (or checks the given one), writes the adapter's generated files, pins the GPUs. Readiness is `waitReady()`.
 */
export async function launchServer(box: EngineBox, request: LaunchRequest): Promise<RunningServer> {
  const engine = checkEngineVersion(request.engine, request.version);
  const version = request.version;
  const config = parseServerConfig(request.config);
  // Refused here rather than by the engine's parser after a GPU start.
  const check = validateExtraArgs(engine, version, config.extraArgs);
  if (!check.ok) {
    const errors = check.issues.filter((i) => i.severity === 'error');
    throw new ServelabError('BAD_INPUT', `The extra arguments would be refused by ${getAdapter(engine).displayName} ${version}: ${errors.map((i) => i.message).join('; ')}`, {
      issues: errors.map((i) => ({ path: `config.extraArgs.${i.index}`, message: i.message })),
    });
  }
  // A file the config names but the launch lacks is refused before anything reaches the box.
  const configFiles = filesForConfig(config, request.files);
  const gpus = request.gpus ?? [];
  for (const gpu of gpus) {
    if (!/^(\d{1,2}|GPU-[0-9a-fA-F-]{8,64}|MIG-[0-9a-zA-Z/-]{8,80})$/.test(gpu)) {
      throw new ServelabError('BAD_INPUT', `"${gpu}" is not a GPU index or UUID.`, { issues: [{ path: 'gpus', message: 'must be GPU indices or UUIDs' }] });
    }
  }

  const mode = request.mode ?? 'env';
  const installer = new EngineInstaller(box);
  const envDir = await installer.envDir(engine, version);
  if (mode === 'docker') {
    await requireDocker(box, `run ${getAdapter(engine).displayName} in docker`);
    if (!(await pulledImage(box, engine, version))) {
      throw new ServelabError('NOT_FOUND', `The ${getAdapter(engine).displayName} ${version} image is not on this box; pull it first (servelab engine install ${engine} ${version} --docker).`);
    }
    // The server listens on all of the container's interfaces; only the box's 127.0.0.1 is published.
    if (config.host !== undefined && config.host !== '0.0.0.0') {
      throw new ServelabError('BAD_INPUT', `In docker mode the server listens on 0.0.0.0 inside its container (published on the box's 127.0.0.1 only); leave the host empty.`, {
        issues: [{ path: 'config.host', message: 'must be empty or 0.0.0.0 in docker mode' }],
      });
    }
  } else {
    const markerRead = await box.run(`test -f ${shellQuote(`${envDir}/${MARKER_FILE}`)} && echo present\n`, { timeoutSeconds: 30 });
    if (!/^present$/m.test(markerRead.stdout)) {
      throw new ServelabError('NOT_FOUND', `${getAdapter(engine).displayName} ${version} is not installed on this box (no ${envDir}); install it first.`);
    }
  }

  const facts = await boxFacts(box);
  const serverId = newServerId();
  const home = facts.home.replace(/\/+$/, '');
  const serverDir = `${home}/${SERVERS_ROOT}/${serverId}`;
  const host = mode === 'docker' ? '0.0.0.0' : (config.host ?? '127.0.0.1');
  const port = config.port ?? (await freePort(box));
  if (config.port !== undefined && !(await portIsFree(box, config.port))) {
    throw new ServelabError('BAD_INPUT', `Port ${config.port} is already in use on the box; choose another or leave it empty for a free one.`, {
      issues: [{ path: 'config.port', message: 'is in use on the box' }],
    });
  }

  // Each file is at ~/.servelab/files/<sha256>/<name> on the box (placed below, once the command is known to take it).
  const built = getAdapter(engine).buildArgv({ ...config, host, port }, version, {
    filesDir: serverDir,
    filePath: (ref) => {
      const named = configFiles.find((c) => c.file.name === ref.file)?.file;
      return named ? boxFilePath(named, home) : ref.file;
    },
    fileText: (ref) => configFiles.find((c) => c.file.name === ref.file)?.file.content,
  });
  // A file the engine cannot read, or an options file the typed options cannot join, would start a server without them.
  const fileRefusals = built.unsupported.filter((u) => u.file !== undefined);
  if (fileRefusals.length > 0) {
    throw new ServelabError('BAD_INPUT', `${getAdapter(engine).displayName} ${version} cannot take this config's files: ${fileRefusals.map((u) => `${u.knob} (${u.reason})`).join('; ')}`, {
      issues: fileRefusals.map((u) => ({ path: `config.${u.knob}`, message: u.reason })),
    });
  }
  // Uploaded unless the box has the file with that checksum.
  const placed = await placeConfigFiles(box, home, configFiles);
  request.onFilesPlaced?.(placed);
  const [program, ...args] = built.argv;
  if (program === undefined) throw new ServelabError('INTERNAL', `The ${engine} adapter built an empty command.`);
  const container = `servelab-${serverId}`;
  // Mounted read-only into the container at their own paths: the generated files and the config's files.
  const files = [...(built.extraFiles ?? []).map((file) => (file.path.startsWith('/') ? file.path : `${serverDir}/${file.path}`)), ...placed.map((p) => p.path)];
  const hfCacheDir = `${home}/.cache/huggingface`;
  const offline = request.offline === true;
  const secretEnvSpecs = built.secretEnv.filter((s) => !(offline && HF_TOKEN_ENV.has(s.name)));
  // Docker mode: the Hugging Face token reaches the container as a private file, never as a variable (which docker
  // keeps in the container's configuration for anyone in the docker group to read).
  const tokenSpec = mode === 'docker' ? secretEnvSpecs.find((s) => HF_TOKEN_ENV.has(s.name)) : undefined;
  const tokenFile = tokenSpec ? `${serverDir}/${TOKEN_FILE}` : undefined;
  const jobSecretSpecs = tokenSpec ? secretEnvSpecs.filter((s) => !HF_TOKEN_ENV.has(s.name)) : secretEnvSpecs;
  // The container runs as the box user, so the blobs and locks it writes into the shared cache are the user's.
  const user = mode === 'docker' ? await boxUser(box) : undefined;
  // Env mode: the engine's own program from its environment, never whatever is first on PATH. Docker mode: the
  // container gets the GPUs, the plain env and the names of the secret variables (their values stay in the job's env).
  const argv =
    mode === 'docker'
      ? buildDockerRun({
          engine,
          version,
          serverArgv: built.argv,
          port,
          gpus,
          hfCacheDir,
          envNames: jobSecretSpecs.map((s) => s.name),
          plainEnv: built.env,
          ...(user !== undefined ? { user } : {}),
          offline,
          files,
          ...(tokenFile !== undefined ? { tokenFile } : {}),
          name: container,
        })
      : [`${envDir}/bin/${program}`, ...args];

  const resolveSpec = async ({ name, secretRef }: { name: string; secretRef: string }): Promise<string> => {
    const value = request.resolveSecret ? await request.resolveSecret(secretRef) : null;
    if (value === null) throw new ServelabError('NOT_FOUND', `The secret "${secretRef}" for ${name} is not in the keychain.`);
    return value;
  };
  const secretEnv: Record<string, string> = {};
  for (const spec of jobSecretSpecs) secretEnv[spec.name] = await resolveSpec(spec);
  const tokenValue = tokenSpec ? await resolveSpec(tokenSpec) : undefined;
  // Docker mode too: `docker run --env NAME` copies each value from this environment, so none is on its argv.
  const env: Record<string, string> = { ...built.env };
  if (gpus.length > 0 && mode === 'env') env.CUDA_VISIBLE_DEVICES = gpus.join(',');
  if (offline && mode === 'env') env.HF_HUB_OFFLINE = '1';

  await runChecked(box, `create ${serverDir}`, `${REMOTE_TREE_GUARD}mkdir -p -m 700 ${shellQuote(serverDir)}\n`);
  // Created by us before docker would create it as root.
  if (mode === 'docker') await runChecked(box, `create ${hfCacheDir}`, `mkdir -p ${shellQuote(hfCacheDir)}\n`);
  // The token travels on stdin into a file only the box user can read (the container runs as that user).
  if (tokenFile !== undefined && tokenValue !== undefined) {
    await runChecked(box, 'write the token file', `umask 077\ncat > ${shellQuote(tokenFile)}\n`, { stdin: tokenValue });
  }
  for (const file of built.extraFiles ?? []) {
    const path = file.path.startsWith('/') ? file.path : `${serverDir}/${file.path}`;
    await runChecked(box, `write ${path}`, `umask 077\nmkdir -p "$(dirname ${shellQuote(path)})" && cat > ${shellQuote(path)}\n`, { stdin: file.content });
  }

  // The record is on the box before the job starts: a process killed during the launch leaves a server that the
  // next run finds (by its owner) and stops, never one that holds the GPUs unrecorded.
  const jobId = newJobId();
  const record: ServerRecord = {
    serverId,
    hostId: box.hostId,
    engine,
    version,
    port,
    jobId,
    jobDir: `${home}/${REMOTE_JOBS_ROOT}/${jobId}`,
    command: [...Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`), shellCommand(redactCredentialArgs(argv))].join(' '),
    startedAt: new Date().toISOString(),
    mode,
    ...(mode === 'docker' ? { container } : {}),
    model: config.model,
    ...(config.servedModelName !== undefined ? { servedModelName: config.servedModelName } : {}),
    argv: redactCredentialArgs(argv),
    envNames: [...Object.keys(env), ...Object.keys(secretEnv)].sort(),
    ...(gpus.length > 0 ? { gpus } : {}),
    ...(request.owner !== undefined ? { owner: request.owner } : {}),
  };
  const writeRecord = () => runChecked(box, 'record the server', `umask 077\ncat > ${shellQuote(`${serverDir}/server.json`)}\n`, { stdin: `${JSON.stringify(record)}\n` });
  await writeRecord();
  const handle = await box
    .jobs()
    .start({
      id: jobId,
      command: inLoginEnv(facts, argv),
      cwd: serverDir,
      env,
      ...(Object.keys(secretEnv).length > 0 ? { secretEnv } : {}),
      label: `${engine} ${version} server ${serverId}`,
    })
    .catch(async (error: unknown) => {
      // Nothing started: no record of a server that never was (best effort; a record without a job reads as stopped).
      await box.run(`rm -f ${shellQuote(`${serverDir}/server.json`)} ${shellQuote(`${serverDir}/${TOKEN_FILE}`)}\n`, { timeoutSeconds: 30 }).catch(() => {});
      throw error;
    });
  if (handle.remoteDir !== record.jobDir) {
    // The box names the folder as it resolved it (a symlinked HOME).
    record.jobDir = handle.remoteDir;
    await writeRecord();
  }
  const server = new RunningServer(box, record, handle);
  if (request.onLog) server.onLogText(request.onLog);
  if (request.onState) server.onState(request.onState);
  return server;
}

/** `uid:gid` of the login on the box. */
async function boxUser(box: EngineBox): Promise<string> {
  const result = await box.run('printf "%s:%s\\n" "$(id -u)" "$(id -g)"\n', { timeoutSeconds: 30 });
  const line = result.stdout.split('\n').map((l) => l.trim()).find((l) => /^\d+:\d+$/.test(l));
  if (line === undefined) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not read the box user's uid and gid (id -u, id -g): ${result.stderr.trim() || result.stdout.trim() || 'no output'}`);
  return line;
}

/** Reads the record a launch left on the box, so another process can stop that server. */
export async function readServerRecord(box: EngineBox, serverId: string): Promise<ServerRecord> {
  if (!/^srv-[0-9a-z]+-[0-9a-f]{8}$/.test(serverId)) throw new ServelabError('BAD_INPUT', `"${serverId}" is not a server id.`);
  const result = await box.run(`cat "$HOME"/${shellQuote(`${SERVERS_ROOT}/${serverId}/server.json`)} 2>/dev/null || :\n`, { timeoutSeconds: 30 });
  const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new ServelabError('NOT_FOUND', `No server ${serverId} was launched on this box.`);
  return parseServerRecord(line, `~/${SERVERS_ROOT}/${serverId}/server.json`);
}

/** Stops a server recorded by an earlier process (see readServerRecord). */
export async function stopRecordedServer(box: EngineBox, record: ServerRecord): Promise<StopReport> {
  const now = new Date().toISOString();
  const handle = box.jobs().reattach({
    id: record.jobId,
    hostId: box.hostId,
    remoteDir: record.jobDir,
    command: record.command,
    offset: 0,
    state: 'running',
    createdAt: record.startedAt,
    updatedAt: now,
  });
  return stopServer(box, record, handle);
}

async function stopServer(box: EngineBox, record: ServerRecord, handle: RemoteJobHandle): Promise<StopReport> {
  const grace = Math.max(1, Math.round((getAdapter(record.engine).stopSignals.steps[0]?.waitMs ?? 30_000) / 1000));
  const leftovers: string[] = [];
  let signal: StopReport['signal'] = 'none';
  let members: Set<number>;
  if (record.mode === 'docker' && record.container) {
    // The container's processes are not in the job's process group (the docker daemon starts them): their pids come
    // from `docker top` before the stop, and `docker stop` (TERM, then KILL after the grace time) ends them.
    members = await containerPids(box, record.container);
    const stopped = await box.run(`${shellCommand(['docker', 'stop', '-t', String(grace), record.container])} 2>&1\n`, { timeoutSeconds: grace + 60 });
    // The token file outlives no server (a container still running keeps its mount open until it ends).
    if (/^srv-[A-Za-z0-9-]+$/.test(record.serverId)) {
      await box.run(`rm -f "$HOME"/${shellQuote(`${SERVERS_ROOT}/${record.serverId}/${TOKEN_FILE}`)}\n`, { timeoutSeconds: 30 }).catch(() => {});
    }
    if (stopped.code === 0) signal = 'TERM';
    else if (!/No such container/i.test(stopped.stdout)) leftovers.push(`docker stop ${record.container} failed: ${stopped.stdout.trim().split('\n').slice(-2).join(' ')}`);
  } else {
    members = await jobProcesses(box, record.jobId, record.jobDir);
  }
  // Nothing found to stop (no folder, no pgid, no marked process) is unknown, not clean: the report says so.
  let unknown = false;
  try {
    const cancelled = (await handle.cancel({ graceSeconds: record.mode === 'docker' ? 5 : grace })).signal;
    if (signal === 'none') signal = cancelled;
  } catch (error) {
    const survivors = (error as ServelabError).details?.survivors;
    if (Array.isArray(survivors)) leftovers.push(...survivors.map((s) => `process still running after SIGKILL: ${String(s).trim()}`));
    else if (!(error instanceof ServelabError && error.code === 'NOT_FOUND')) throw error;
    else if (record.mode !== 'docker') {
      unknown = true;
      leftovers.push(
        `the job folder ${record.jobDir} is gone or holds no process group, and no process carries the job's SERVELAB_JOB mark: whether the server still runs cannot be confirmed (a worker that dropped the mark would not be found)`,
      );
    }
  }

  const portClosed = !(await portIsOpen(box, record.port));
  if (!portClosed) leftovers.push(`port ${record.port} still accepts connections`);

  // nvidia-smi drops a process's memory once the driver has freed it, which can lag the process's exit.
  let holders: string[];
  const deadline = Date.now() + GPU_RELEASE_WAIT_MS;
  for (;;) {
    const apps = await computeApps(box);
    // Also what carries the job's mark now: a worker that left the group after the members were listed.
    const ours = record.mode === 'docker' ? members : new Set([...members, ...(apps.length > 0 ? await jobProcesses(box, record.jobId, record.jobDir) : [])]);
    holders = apps.filter((a) => ours.has(a.pid)).map((a) => `pid ${a.pid} (${a.name}) still holds ${a.usedMiB} MiB on GPU ${a.gpu}`);
    if (holders.length === 0 || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  leftovers.push(...holders);
  // With nothing of the job to match pids against, what the server's GPUs hold is the next best evidence.
  if (unknown) leftovers.push(...(await gpuMemoryInUse(box, record.gpus)));
  if (record.mode === 'docker' && record.container) leftovers.push(...(await containerLeftovers(box, record.container)));
  return { portClosed, gpuMemoryReleased: holders.length === 0 && !unknown, leftovers, signal };
}

/** Host pids of the container's processes (`docker top`), empty when it is not running. */
async function containerPids(box: EngineBox, container: string): Promise<Set<number>> {
  const result = await box.run(`${shellCommand(['docker', 'top', container, '-eo', 'pid'])} 2>/dev/null || :\n`, { timeoutSeconds: 30 });
  return new Set(
    result.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^\d+$/.test(l))
      .map(Number),
  );
}

/** The container if docker still lists it (running or stopped); `--rm` removes it shortly after it ends. */
async function containerLeftovers(box: EngineBox, container: string): Promise<string[]> {
  const deadline = Date.now() + GPU_RELEASE_WAIT_MS;
  for (;;) {
    const result = await box.run(`${shellCommand(['docker', 'ps', '-a', '--filter', `name=^/${container}$`, '--format', '{{.Names}}\t{{.Status}}'])}\n`, { timeoutSeconds: 30 });
    const rows = result.stdout.split('\n').filter((l) => l.startsWith(`${container}\t`));
    if (result.code !== 0) return [`could not list containers to check ${container}: ${result.stderr.trim() || `exit status ${result.code ?? 'signal'}`}`];
    if (rows.length === 0) return [];
    if (Date.now() >= deadline) return rows.map((row) => `container ${row.replace('\t', ' is still listed by docker: ')}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Pids of the job while it runs: its process group when job_alive confirms it is still the job's (the engine forks
 * workers that hold GPU memory), and every process carrying its SERVELAB_JOB mark (a worker that left the group, a
 * job whose folder is gone).
 */
async function jobProcesses(box: EngineBox, jobId: string, jobDir: string): Promise<Set<number>> {
  if (!isJobId(jobId)) return new Set();
  const script = `job_id=${shellQuote(jobId)}
${JOB_ALIVE_FUNCTIONS}
if cd ${remotePathExpr(jobDir)} 2>/dev/null && job_alive; then ps -e -o pid=,pgid= | awk -v g="$pgid" '$2 == g { print $1 }'; fi
job_marked
`;
  const result = await box.run(script, { timeoutSeconds: 30 });
  return new Set(
    result.stdout
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => Number.isInteger(n) && n > 1),
  );
}

/** `GPU <i> has <n> MiB in use` for the given GPUs (indices or UUIDs; all when none), from nvidia-smi; empty without it. */
async function gpuMemoryInUse(box: EngineBox, gpus: readonly string[] | undefined): Promise<string[]> {
  const result = await box.run('nvidia-smi --query-gpu=index,uuid,memory.used --format=csv,noheader,nounits 2>/dev/null || :\n', { timeoutSeconds: 30 });
  const out: string[] = [];
  for (const line of result.stdout.split('\n')) {
    const [index = '', uuid = '', used = ''] = line.split(',').map((c) => c.trim());
    if (!/^\d+$/.test(index) || !/^\d+$/.test(used)) continue;
    if (gpus && gpus.length > 0 && !gpus.includes(index) && !gpus.includes(uuid)) continue;
    if (Number(used) > 0) out.push(`GPU ${index} has ${used} MiB in use (by this server or another process)`);
  }
  return out;
}

interface ComputeApp {
  pid: number;
  name: string;
  usedMiB: string;
  gpu: string;
}

async function computeApps(box: EngineBox): Promise<ComputeApp[]> {
  const result = await box.run('nvidia-smi --query-compute-apps=pid,process_name,used_memory,gpu_uuid --format=csv,noheader,nounits 2>/dev/null || :\n', {
    timeoutSeconds: 30,
  });
  const apps: ComputeApp[] = [];
  for (const line of result.stdout.split('\n')) {
    const cells = line.split(',').map((c) => c.trim());
    const pid = Number(cells[0]);
    if (cells.length < 4 || !Number.isInteger(pid) || pid <= 0) continue;
    apps.push({ pid, name: cells[1] ?? '', usedMiB: cells[2] ?? '', gpu: cells[3] ?? '' });
  }
  return apps;
}

const PY_FREE_PORT = "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()";

/** A port the OS calls free on the box's 127.0.0.1 right now. */
export async function freePort(box: EngineBox): Promise<number> {
  const result = await runChecked(box, 'find a free port on the box', `${shellCommand(['python3', '-c', PY_FREE_PORT])}\n`);
  const port = Number(/^(\d{1,5})$/m.exec(result.stdout)?.[1]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ServelabError('REMOTE_COMMAND_FAILED', `The box did not name a free port: ${result.stdout.trim()}`);
  return port;
}

async function portIsFree(box: EngineBox, port: number): Promise<boolean> {
  const script = `import socket, sys\ns = socket.socket()\ntry:\n    s.bind(('0.0.0.0', ${port}))\nexcept OSError:\n    sys.exit(1)\n`;
  const result = await box.run(`${shellCommand(['python3', '-c', script])}\n`, { timeoutSeconds: 30 });
  return result.code === 0 && !(await portIsOpen(box, port));
}

async function portIsOpen(box: EngineBox, port: number): Promise<boolean> {
  try {
    await box.httpRequest(port, { path: '/', timeoutMs: 3000 });
    return true;
  } catch (error) {
    const failure = httpFailureOf(error);
    // A reset or timeout still means something holds the port.
    return failure !== 'refused';
  }
}
