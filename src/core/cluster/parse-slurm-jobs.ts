// Reads what the job scripts (slurm-job-scripts.ts) print: sbatch's job id, and each job's state from squeue, scontrol
// or sacct, merged into one SlurmJobState per asked id. Formats as captured in tests/fixtures/slurm/jobs/.
import { ServelabError } from '../../shared/contract';
import { SLURM_JOB_STATES, SlurmJobStateSchema, type SlurmJobState, type SlurmJobStateName, type SlurmSubmittedJob } from '../../shared/model/slurm-job';
import { splitProbeSections, type ProbeSection } from '../inventory/parse-probe';
import { JOB_SECTIONS, SACCT_FIELDS } from './slurm-job-scripts';
import { valueOrNull } from './slurm-fields';

/** Which phase each state word means (see SLURM_JOB_PHASES). */
const PHASE: Record<SlurmJobStateName, SlurmJobState['phase']> = {
  PENDING: 'pending',
  REQUEUED: 'pending',
  REQUEUE_FED: 'pending',
  REQUEUE_HOLD: 'pending',
  SPECIAL_EXIT: 'pending',
  RESV_DEL_HOLD: 'pending',
  RUNNING: 'running',
  SUSPENDED: 'running',
  COMPLETING: 'running',
  STAGE_OUT: 'running',
  CONFIGURING: 'running',
  RESIZING: 'running',
  STOPPED: 'running',
  SIGNALING: 'running',
  COMPLETED: 'ended',
  CANCELLED: 'ended',
  FAILED: 'ended',
  TIMEOUT: 'ended',
  NODE_FAIL: 'ended',
  PREEMPTED: 'ended',
  BOOT_FAIL: 'ended',
  DEADLINE: 'ended',
  OUT_OF_MEMORY: 'ended',
  REVOKED: 'ended',
  UNKNOWN: 'unknown',
};

function failed(command: string, section: ProbeSection | undefined): ServelabError {
  const said = section?.output.trim().split('\n').slice(-3).join(' | ') ?? '';
  return new ServelabError(
    'REMOTE_COMMAND_FAILED',
    `${command} failed on the login node${section?.rc != null ? ` (exit code ${section.rc})` : ''}${said ? `: ${said}` : '; the login shell may not be POSIX sh compatible.'}`,
    { details: { command, code: section?.rc ?? null } },
  );
}

/**
 * A state word as Slurm prints it. sacct adds who cancelled (`CANCELLED by 1000`, src/sacct/print.c); an unknown word
 * (a newer Slurm's) is an error rather than a guess.
 */
export function parseJobStateWord(text: string): SlurmJobStateName {
  const word = text.trim().split(/\s+/)[0]?.toUpperCase() ?? '';
  if ((SLURM_JOB_STATES as readonly string[]).includes(word) && word !== 'UNKNOWN') return word as SlurmJobStateName;
  throw new ServelabError('REMOTE_COMMAND_FAILED', `Slurm printed a job state Servelab does not know: "${text.trim()}"`);
}

/** `ExitCode=3:0`: the script's exit status and the signal that ended it. */
export function parseExitCode(text: string | undefined): { exitCode: number | null; signal: number | null } {
  const match = /^(\d+):(\d+)$/.exec(text?.trim() ?? '');
  return match ? { exitCode: Number(match[1]), signal: Number(match[2]) } : { exitCode: null, signal: null };
}

/** A time, or null for Slurm's `N/A`, `Unknown`, `None`, `(null)`. */
function time(text: string | undefined): string | null {
  const value = valueOrNull(text);
  return value === null || /^(Unknown|None)$/i.test(value) ? null : value;
}

function reason(text: string | undefined): string | null {
  const value = valueOrNull(text);
  return value === null || value === 'None' ? null : value;
}

function nodeList(text: string | undefined): string | null {
  const value = valueOrNull(text);
  return value === null || value === 'None assigned' ? null : value;
}

function jobState(fields: Omit<SlurmJobState, 'phase'>): SlurmJobState {
  return SlurmJobStateSchema.parse({ ...fields, phase: PHASE[fields.state] });
}

/** `squeue -h -o '%i|%T|%r|%N|%S'` lines. */
export function parseSqueue(text: string): SlurmJobState[] {
  return text
    .split('\n')
    .filter((line) => /^\d+\|/.test(line))
    .map((line) => {
      const [jobId, state, why, nodes, start] = line.split('|');
      return jobState({
        jobId: jobId as string,
        state: parseJobStateWord(state ?? ''),
        source: 'squeue',
        reason: reason(why),
        nodeList: nodeList(nodes),
        startTime: time(start),
        endTime: null,
        exitCode: null,
        signal: null,
      });
    });
}

/**
 * One `scontrol -o show job` line as key → value. Unlike a node's record, free text sits in the middle (JobName= second,
 * a Reason= that may be a sentence, WorkDir= and Command= paths): a key is a word followed by `=` after a space, and a
 * value runs to the next key. The name is skipped (everything up to ` UserId=`), so no job name can pose as a field.
 */
export function parseScontrolJobLine(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  const id = /^JobId=(\S+)/.exec(line.trim());
  if (id) fields.set('JobId', id[1] as string);
  const afterName = line.indexOf(' UserId=');
  if (afterName < 0) return fields;
  const rest = line.slice(afterName);
  const keys = [...rest.matchAll(/\s([A-Za-z][A-Za-z0-9_:/]*)=/g)];
  keys.forEach((match, i) => {
    const start = (match.index as number) + match[0].length;
    const end = i + 1 < keys.length ? (keys[i + 1]?.index as number) : rest.length;
    fields.set(match[1] as string, rest.slice(start, end).trim());
  });
  return fields;
}

/** One `scontrol -o show job` line. */
export function parseScontrolJob(line: string): SlurmJobState {
  const record = parseScontrolJobLine(line);
  const jobId = record.get('JobId');
  if (!jobId || !/^\d+$/.test(jobId)) throw new ServelabError('REMOTE_COMMAND_FAILED', `scontrol printed no job id: ${line.slice(0, 200)}`);
  const state = parseJobStateWord(record.get('JobState') ?? '');
  const ended = PHASE[state] === 'ended';
  const nodes = nodeList(record.get('NodeList'));
  return jobState({
    jobId,
    state,
    source: 'scontrol',
    reason: reason(record.get('Reason')),
    nodeList: nodes,
    // A pending job's StartTime is the scheduler's estimate; one cancelled while pending gets its end time there.
    startTime: PHASE[state] === 'pending' || nodes === null ? null : time(record.get('StartTime')),
    // For a running job EndTime is when its time limit ends it.
    endTime: ended ? time(record.get('EndTime')) : null,
    ...(ended ? parseExitCode(record.get('ExitCode')) : { exitCode: null, signal: null }),
  });
}

/** `sacct -nP -X --format=JobIDRaw,State,ExitCode,Reason,NodeList,Start,End` lines. */
export function parseSacct(text: string): SlurmJobState[] {
  return text
    .split('\n')
    .filter((line) => /^\d+\|/.test(line))
    .map((line) => {
      const values = line.split('|');
      const get = (field: (typeof SACCT_FIELDS)[number]) => values[SACCT_FIELDS.indexOf(field)];
      const state = parseJobStateWord(get('State') ?? '');
      const ended = PHASE[state] === 'ended';
      const nodes = nodeList(get('NodeList'));
      return jobState({
        jobId: get('JobIDRaw') as string,
        state,
        source: 'sacct',
        reason: reason(get('Reason')),
        nodeList: nodes,
        // Cancelled while pending: Start is `None`, or the time it was cancelled.
        startTime: nodes === null ? null : time(get('Start')),
        endTime: ended ? time(get('End')) : null,
        ...(ended ? parseExitCode(get('ExitCode')) : { exitCode: null, signal: null }),
      });
    });
}

function unknown(jobId: string): SlurmJobState {
  return jobState({ jobId, state: 'UNKNOWN', source: 'none', reason: null, nodeList: null, startTime: null, endTime: null, exitCode: null, signal: null });
}

const INVALID_JOB = /Invalid job id specified/;

/**
 * The observe script's output → one state per asked id, in that order: squeue's for a job in the queue, else
 * scontrol's while slurmctld remembers it, else sacct's; UNKNOWN when none knows it (accounting off or not reachable
 * and MinJobAge passed). Fails with REMOTE_COMMAND_FAILED when squeue or scontrol could not ask slurmctld.
 */
export function parseObserveOutput(stdout: string, jobIds: readonly string[]): SlurmJobState[] {
  const sections = splitProbeSections(stdout);
  const queue = sections.get(JOB_SECTIONS.squeue);
  if (!queue || (queue.rc !== 0 && !INVALID_JOB.test(queue.output))) throw failed('squeue', queue);
  const known = new Map<string, SlurmJobState>();
  if (queue.rc === 0) for (const state of parseSqueue(queue.output)) known.set(state.jobId, state);
  for (const id of jobIds) {
    if (known.has(id)) continue;
    const section = sections.get(`${JOB_SECTIONS.scontrolPrefix}${id}`);
    if (!section) throw failed(`scontrol show job ${id}`, section);
    if (section.rc === 0) {
      const line = section.output.split('\n').find((l) => l.startsWith('JobId='));
      if (!line) throw failed(`scontrol show job ${id}`, section);
      known.set(id, parseScontrolJob(line));
    } else if (!INVALID_JOB.test(section.output)) {
      throw failed(`scontrol show job ${id}`, section);
    }
  }
  // sacct failing (accounting off, slurmdbd unreachable) leaves those jobs unknown rather than failing the read.
  const sacct = sections.get(JOB_SECTIONS.sacct);
  if (sacct?.rc === 0) for (const state of parseSacct(sacct.output)) if (!known.has(state.jobId)) known.set(state.jobId, state);
  return jobIds.map((id) => known.get(id) ?? unknown(id));
}

/** What `sbatch --parsable` printed: `<id>` or `<id>;<cluster>`. */
export function parseSubmitOutput(stdout: string): SlurmSubmittedJob {
  const sections = splitProbeSections(stdout);
  const section = sections.get(JOB_SECTIONS.submit);
  if (!section || section.rc !== 0) throw failed('sbatch', section);
  // sbatch may print warnings before the id (stderr is merged): the id is the last line.
  const last = section.output.trim().split('\n').pop()?.trim() ?? '';
  const match = /^(\d+)(?:;(\S+))?$/.exec(last);
  if (!match) throw failed('sbatch --parsable', section);
  return { jobId: match[1] as string, cluster: match[2] ?? null };
}

/** `id|name` lines of the user's queued jobs. */
export function parseNamedJobs(text: string): { jobId: string; name: string }[] {
  return text
    .split('\n')
    .map((line) => /^(\d+)\|(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ jobId: match[1] as string, name: match[2] as string }));
}
