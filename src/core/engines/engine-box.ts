// What engines need of a box, as a local structural type: BoxTransport (SSH or local) satisfies it, and so does
// any test double, so this module does not depend on how the transport is built.
import { ServelabError } from '../../shared/contract';
import type { EngineId } from '../../shared/engines';
import { isEngineId } from '../../shared/engines';
import type { RemoteJobHandle, RemoteJobSpec } from '../jobs/remote-job-runner';
import type { JobRecord } from '../jobs/job-registry';
import type { InstallProgress } from './install-progress';

export interface EngineBoxRunResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface EngineBoxJobs {
  start(spec: RemoteJobSpec): Promise<RemoteJobHandle>;
  reattach(record: JobRecord): RemoteJobHandle;
}

export interface EngineBox {
  readonly hostId: string;
  run(script: string, opts: { stdin?: string; timeoutSeconds: number }): Promise<EngineBoxRunResult>;
  jobs(): EngineBoxJobs;
  httpRequest(port: number, request: { method?: string; path: string; timeoutMs: number }): Promise<{ status: number; body: string; headers: Record<string, string> }>;
}

// The install vocabulary shared by both ways of installing an engine: an environment (engine-installer.ts) and
// the engine's docker image (docker-images.ts).

/** The marker written into an environment once the engine imported and reported the expected version. */
export interface EnvMarker {
  engine: EngineId;
  version: string;
  installedAt: string;
  verifiedVersion: string;
  tool: 'uv' | 'pip';
}

export type EngineMode = 'env' | 'docker';

export interface InstalledEnv extends Omit<EnvMarker, 'tool'> {
  /** Absolute path of the environment on the box; the image reference in docker mode. */
  dir: string;
  tool: 'uv' | 'pip' | 'docker';
  mode: EngineMode;
}

export interface InstallOptions {
  /** `env` (default): a Python environment; `docker`: the engine's official image. */
  mode?: EngineMode;
  force?: boolean;
  onLog?: (text: string) => void;
  onProgress?: (progress: InstallProgress & { line?: string }) => void;
  signal?: AbortSignal;
}

export interface InstallResult {
  ok: boolean;
  /** Already installed and verified: nothing was done. */
  skipped: boolean;
  message: string;
  env?: InstalledEnv;
  /** The remote job that ran the install, when one ran. */
  jobId?: string;
}

export interface InstallStart {
  jobId: string | null;
  done: Promise<InstallResult>;
}

/** Engine environments live here, relative to the box's HOME. */
export const ENGINES_ROOT = '.servelab/engines';
/** Launched servers' working folders (generated files, server.json), relative to HOME. */
export const SERVERS_ROOT = '.servelab/servers';
export const MARKER_FILE = 'servelab-env.json';

// A version becomes a folder name and a pip pin: nothing a shell or a path could read as syntax.
const VERSION_WORD = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;

export function checkEngineVersion(engine: string, version: string): EngineId {
  if (!isEngineId(engine)) throw new ServelabError('BAD_INPUT', `"${engine}" is not an engine Servelab knows (vllm, sglang, trtllm).`, { issues: [{ path: 'engine', message: 'is not a known engine' }] });
  if (!VERSION_WORD.test(version) || version.includes('..')) {
    throw new ServelabError('BAD_INPUT', `"${version}" is not a version number.`, { issues: [{ path: 'version', message: 'is not a version number' }] });
  }
  return engine;
}

export function envName(engine: EngineId, version: string): string {
  return `${engine}-${version}`;
}

/** Facts about the box read through a login shell: what the box's own commands see. */
export interface BoxFacts {
  home: string;
  path: string;
  hasUv: boolean;
  hasPython3: boolean;
  /** A docker client whose daemon answers (`docker version` reaches the server), not merely a `docker` on PATH. */
  hasDocker: boolean;
}

const factsCache = new WeakMap<object, Promise<BoxFacts>>();

export function boxFacts(box: EngineBox): Promise<BoxFacts> {
  let facts = factsCache.get(box);
  if (!facts) {
    facts = readFacts(box);
    factsCache.set(box, facts);
    facts.catch(() => factsCache.delete(box));
  }
  return facts;
}

async function readFacts(box: EngineBox): Promise<BoxFacts> {
  // Markers keep the answer apart from whatever the login profile prints.
  const script = [
    `printf 'SERVELAB_HOME=%s\\n' "$HOME"`,
    `printf 'SERVELAB_PATH=%s\\n' "$PATH"`,
    `if command -v uv >/dev/null 2>&1; then echo SERVELAB_UV=1; fi`,
    `if command -v python3 >/dev/null 2>&1; then echo SERVELAB_PYTHON3=1; fi`,
    // A client without a reachable daemon fails here within the timeout, which is what "no docker" means for us.
    `if command -v docker >/dev/null 2>&1 && timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then echo SERVELAB_DOCKER=1; fi`,
  ].join('\n');
  const result = await box.run(`${script}\n`, { timeoutSeconds: 30 });
  const value = (key: string) => new RegExp(`^SERVELAB_${key}=(.*)$`, 'm').exec(result.stdout)?.[1];
  const home = value('HOME');
  const path = value('PATH');
  if (result.code !== 0 || !home || !path) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not read HOME and PATH on the box: ${result.stderr.trim() || `exit status ${result.code ?? 'signal'}`}`);
  }
  return { home, path, hasUv: value('UV') === '1', hasPython3: value('PYTHON3') === '1', hasDocker: value('DOCKER') === '1' };
}

/**
 * A job's argv that runs `argv` in the box's login environment (the profile's variables) with the PATH the box's
 * commands see: jobs start from a non-login `sh -s`, where neither applies.
 */
export function inLoginEnv(facts: BoxFacts, argv: readonly string[]): string[] {
  return ['sh', '-l', '-c', 'PATH=$1; export PATH; shift; exec "$@"', 'servelab-job', facts.path, ...argv];
}

/** Runs a script and throws REMOTE_COMMAND_FAILED when it exits non-zero. */
export async function runChecked(box: EngineBox, what: string, script: string, opts: { stdin?: string; timeoutSeconds?: number } = {}): Promise<EngineBoxRunResult> {
  const result = await box.run(script, { timeoutSeconds: opts.timeoutSeconds ?? 60, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) });
  if (result.code !== 0) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not ${what}: ${result.stderr.trim() || result.stdout.trim() || `exit status ${result.code ?? 'signal'}`}`);
  }
  return result;
}

/** Reads an install job's log into progress: pip/uv phases, or docker's per-layer lines. */
export interface InstallProgressReader {
  push(text: string): InstallProgress[];
}

export interface StreamedInstall {
  code: number;
  /** The last three lines of the log, joined by " | ", for a failure's message. */
  lastLines: string;
  /** The phase the log last reached, if any. */
  lastPhase: InstallProgress['phase'] | undefined;
}

// Enough of the log's end to hold its last lines, however long the install ran.
const TAIL_CHARS = 8000;

/**
 * Follows an install job to its end, as the environment and docker installs both do: the log goes to `onLog` as it
 * arrives, is read into progress (each with the chunk's last line) and its end kept for the failure message. Throws
 * when the stream is interrupted (cancelled, or the job lost).
 */
export async function streamInstallJob(handle: RemoteJobHandle, reader: InstallProgressReader, opts: Pick<InstallOptions, 'onLog' | 'onProgress' | 'signal'>): Promise<StreamedInstall> {
  let tail = '';
  let lastPhase: InstallProgress['phase'] | undefined;
  const code = await handle.stream(
    (text) => {
      tail = (tail + text).slice(-TAIL_CHARS);
      opts.onLog?.(text);
      const lines = text.trim().split('\n');
      const line = lines[lines.length - 1]?.slice(0, 500);
      for (const p of reader.push(text)) {
        lastPhase = p.phase;
        opts.onProgress?.({ ...p, line });
      }
    },
    opts.signal ? { signal: opts.signal } : {},
  );
  return { code, lastLines: tail.trim().split('\n').slice(-3).join(' | '), lastPhase };
}
