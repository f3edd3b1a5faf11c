// Slurm batch jobs through a cluster's login node: submit, observe many at once, cancel, and read a job's output from
// the shared storage as it grows. Each call is one `sh -l -s` run through the host's BoxTransport (SSH, or this
// machine when it is the login node); scripts in slurm-job-scripts.ts, parsing in parse-slurm-jobs.ts.
import { parseOrBadInput, ServelabError } from '../../shared/contract';
import { SlurmJobSpecSchema, type SlurmJobSpec, type SlurmJobState, type SlurmSubmittedJob } from '../../shared/model/slurm-job';
import type { BoxTransport } from '../box/box-transport';
import { delay } from '../jobs/client-provider';
import { probeCompleted, splitProbeSections } from '../inventory/parse-probe';
import { CLUSTER_READ_TIMEOUT_SECONDS, SLURM_COMMAND_TIMEOUT_SECONDS } from './cluster-script';
import { parseNamedJobs, parseObserveOutput, parseSubmitOutput } from './parse-slurm-jobs';
import { batchScript, cancelScript, JOB_SECTIONS, namedJobsScript, observeScript, OUTPUT_MARKER, readOutputScript, submitScript, workDirJobsScript } from './slurm-job-scripts';

type Box = Pick<BoxTransport, 'run' | 'hostId'>;

export interface SlurmCallOptions {
  signal?: AbortSignal;
}

async function runScript(box: Box, what: string, script: string, opts: SlurmCallOptions & { stdin?: string; timeoutSeconds?: number } = {}): Promise<string> {
  const result = await box.run(script, {
    timeoutSeconds: opts.timeoutSeconds ?? SLURM_COMMAND_TIMEOUT_SECONDS + 10,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!probeCompleted(result.stdout)) {
    const said = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-3).join(' | ');
    throw new ServelabError('REMOTE_COMMAND_FAILED', `${what} did not run to the end on the login node (exit code ${result.code ?? 'none'})${said ? `: ${said.slice(0, 500)}` : ''}`, {
      details: { code: result.code },
    });
  }
  return result.stdout;
}

/**
 * Submits one batch job: its options as sbatch arguments, its script on sbatch's standard input. Creates the output
 * and working folders first. BAD_INPUT names the wrong field of the spec; REMOTE_COMMAND_FAILED carries sbatch's words.
 */
export async function submitSlurmJob(box: Box, spec: SlurmJobSpec, opts: SlurmCallOptions = {}): Promise<SlurmSubmittedJob> {
  const parsed = parseOrBadInput(SlurmJobSpecSchema, spec, 'Slurm job');
  const stdout = await runScript(box, 'sbatch', submitScript(parsed), { ...opts, stdin: batchScript(parsed) });
  return parseSubmitOutput(stdout);
}

/** The states of many jobs in one round trip, in the order asked (see parseObserveOutput). */
export async function observeSlurmJobs(box: Box, jobIds: readonly string[], opts: SlurmCallOptions = {}): Promise<SlurmJobState[]> {
  if (jobIds.length === 0) return [];
  const stdout = await runScript(box, 'Reading job states', observeScript(jobIds), { ...opts, timeoutSeconds: CLUSTER_READ_TIMEOUT_SECONDS });
  return parseObserveOutput(stdout, jobIds);
}

export interface CancelSlurmJobsOptions extends SlurmCallOptions {
  /** How long to wait for the jobs to leave the queue (default 30 s); 0 returns right after scancel. */
  waitSeconds?: number;
  pollMs?: number;
}

/**
 * `scancel` for the jobs, then waits until none of them is pending or running any more and returns their states.
 * Jobs that had already ended are not an error. Fails with TIMEOUT when one is still in the queue after waitSeconds.
 */
export async function cancelSlurmJobs(box: Box, jobIds: readonly string[], opts: CancelSlurmJobsOptions = {}): Promise<SlurmJobState[]> {
  if (jobIds.length === 0) return [];
  const stdout = await runScript(box, 'scancel', cancelScript(jobIds), opts);
  const section = splitProbeSections(stdout).get(JOB_SECTIONS.cancel);
  // scancel exits 1 for a job that is already over ("Job/step already completing or completed", "Invalid job id").
  if (!section || (section.rc !== 0 && !/already completing or completed|Invalid job id specified/.test(section.output))) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `scancel failed on the login node${section?.rc != null ? ` (exit code ${section.rc})` : ''}: ${section?.output.trim().slice(0, 500) ?? ''}`);
  }
  const waitSeconds = opts.waitSeconds ?? 30;
  const until = Date.now() + waitSeconds * 1000;
  for (;;) {
    const states = await observeSlurmJobs(box, jobIds, opts);
    const queued = states.filter((state) => state.phase === 'pending' || state.phase === 'running');
    if (queued.length === 0 || waitSeconds === 0) return states;
    if (Date.now() > until) {
      throw new ServelabError('TIMEOUT', `Slurm still lists ${queued.map((state) => `${state.jobId} (${state.state})`).join(', ')} ${waitSeconds} s after scancel.`);
    }
    await delay(opts.pollMs ?? 500, opts.signal);
  }
}

/** The login user's jobs in the queue whose name starts with `prefix` (a study's jobs share one). */
export async function findSlurmJobsNamed(box: Box, prefix: string, opts: SlurmCallOptions = {}): Promise<{ jobId: string; name: string }[]> {
  if (prefix === '') throw new ServelabError('BAD_INPUT', 'A job name prefix cannot be empty.');
  const stdout = await runScript(box, 'squeue', namedJobsScript(), opts);
  const section = splitProbeSections(stdout).get(JOB_SECTIONS.named);
  if (!section || section.rc !== 0) throw new ServelabError('REMOTE_COMMAND_FAILED', `squeue failed on the login node: ${section?.output.trim().slice(0, 500) ?? ''}`);
  return parseNamedJobs(section.output).filter((job) => job.name.startsWith(prefix));
}

/**
 * The login user's queued jobs whose working directory is one of `dirs` (`~/…` folders: squeue prints them absolute,
 * so they are matched on what follows the home folder).
 */
export async function findSlurmJobsInDirs(box: Box, dirs: readonly string[], opts: SlurmCallOptions = {}): Promise<{ jobId: string; dir: string }[]> {
  if (dirs.length === 0) return [];
  const stdout = await runScript(box, 'squeue', workDirJobsScript(), opts);
  const section = splitProbeSections(stdout).get(JOB_SECTIONS.workDirs);
  if (!section || section.rc !== 0) throw new ServelabError('REMOTE_COMMAND_FAILED', `squeue failed on the login node: ${section?.output.trim().slice(0, 500) ?? ''}`);
  const found: { jobId: string; dir: string }[] = [];
  // Same `id|text` lines as the named jobs', the text being the working directory.
  for (const { jobId, name: workDir } of parseNamedJobs(section.output)) {
    const dir = dirs.find((d) => (d.startsWith('~/') ? workDir.endsWith(`/${d.slice(2)}`) : workDir === d));
    if (dir !== undefined) found.push({ jobId, dir });
  }
  return found;
}

/** Cancels every queued job of the login user whose name starts with `prefix`; returns their final states. */
export async function cancelSlurmJobsNamed(box: Box, prefix: string, opts: CancelSlurmJobsOptions = {}): Promise<SlurmJobState[]> {
  const jobs = await findSlurmJobsNamed(box, prefix, opts);
  return cancelSlurmJobs(
    box,
    jobs.map((job) => job.jobId),
    opts,
  );
}

export interface SlurmOutputChunk {
  /** Decoded text; a UTF-8 character cut by the read is left for the next one. */
  text: string;
  /** The byte offset just past `text`: where the next read starts. */
  nextOffset: number;
  /** The file's size when read; null when it does not exist (yet: a pending job has none). */
  size: number | null;
}

const DEFAULT_READ_BYTES = 256 * 1024;

/** Bytes at the end of `bytes` that start a UTF-8 character not complete yet. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** Reads a job's output file on the shared storage from `offset` (at most `maxBytes`), through the login node. */
export async function readSlurmJobOutput(box: Box, path: string, offset: number, opts: SlurmCallOptions & { maxBytes?: number } = {}): Promise<SlurmOutputChunk> {
  // Four bytes at least: a read must be able to hold the longest UTF-8 character, or it would never move on.
  const maxBytes = Math.max(4, opts.maxBytes ?? DEFAULT_READ_BYTES);
  const result = await box.run(readOutputScript(path, offset, maxBytes), { timeoutSeconds: 60, ...(opts.signal ? { signal: opts.signal } : {}) });
  const lines = result.stdout.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`${OUTPUT_MARKER} `));
  const header = at >= 0 ? (lines[at] as string).slice(OUTPUT_MARKER.length + 1) : null;
  if (header === 'missing') return { text: '', nextOffset: offset, size: null };
  const size = header ? /^size (\d+)$/.exec(header) : null;
  if (result.code !== 0 || !size) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Reading ${path} on the login node failed (exit code ${result.code ?? 'none'}): ${result.stderr.trim().slice(0, 500)}`);
  }
  const bytes = Buffer.from(lines.slice(at + 1).join(''), 'base64');
  const keep = bytes.length - incompleteTail(bytes);
  return { text: bytes.subarray(0, keep).toString('utf8'), nextOffset: offset + keep, size: Number(size[1]) };
}

export interface FollowSlurmJobOptions extends SlurmCallOptions {
  /** Where to start reading (a restarted app resumes at the offset it kept). */
  offset?: number;
  /** Each new piece of output, with the offset just past it. */
  onOutput: (text: string, nextOffset: number) => void;
  /** Each state read while following. */
  onState?: (state: SlurmJobState) => void;
  pollMs?: number;
  /** Largest piece read at once (default 256 KiB). */
  maxBytes?: number;
}

/**
 * Streams a job's output file while the job lives, polling the file and (when it did not grow) the job's state, and
 * returns the final state once the job has ended and every byte it wrote was delivered. An UNKNOWN job (forgotten by
 * Slurm) ends the follow too.
 */
export async function followSlurmJobOutput(box: Box, jobId: string, outputPath: string, opts: FollowSlurmJobOptions): Promise<SlurmJobState> {
  let offset = opts.offset ?? 0;
  const pollMs = opts.pollMs ?? 1000;
  for (;;) {
    opts.signal?.throwIfAborted();
    const [state] = await observeSlurmJobs(box, [jobId], opts);
    if (!state) throw new Error('no state for the job');
    opts.onState?.(state);
    // After the state: once it says ended, the file holds everything the job wrote.
    for (;;) {
      const chunk = await readSlurmJobOutput(box, outputPath, offset, opts);
      if (chunk.text !== '') opts.onOutput(chunk.text, chunk.nextOffset);
      const grew = chunk.nextOffset > offset;
      offset = chunk.nextOffset;
      if (!grew || chunk.size === null || offset >= chunk.size) break;
    }
    if (state.phase === 'ended' || state.phase === 'unknown') return state;
    await delay(pollMs, opts.signal);
  }
}

