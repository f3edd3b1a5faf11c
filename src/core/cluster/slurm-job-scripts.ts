// The sh scripts that submit, observe and cancel Slurm jobs and read their output, run on the login node as `sh -l -s`
// through the host's BoxTransport. Every value from a spec goes through shellQuote (or remotePathExpr, which uses it);
// job ids are checked to be numbers before they reach a script. Sections are printed between the inventory probe's
// markers (src/core/inventory/probe-script.ts), as the cluster read does, so profile chatter is ignored.
//
// Formats (Slurm 22.05, outputs captured in tests/fixtures/slurm/jobs/):
//   - `sbatch --parsable`: `<job id>` or `<job id>;<cluster>` (src/sbatch/sbatch.c);
//   - `squeue -h -o '%i|%T|%r|%N|%S'`: id, state (job_state_string), reason, node list, start time; without `-t` it
//     lists only jobs still in the queue (pending, running, completing, …), `-j` naming a single job slurmctld no longer
//     knows fails with "slurm_load_jobs error: Invalid job id specified";
//   - `scontrol -o show job <id>`: one `Key=Value` line while slurmctld keeps the job (MinJobAge, 300 s by default);
//   - `sacct -nP -X`: no header, `|` between fields, one line per job allocation; fails where accounting is off
//     ("Slurm accounting storage is disabled").
import { shellQuote } from '../../shared/shell-quote';
import type { SlurmJobSpecParsed } from '../../shared/model/slurm-job';
import { PROBE_DONE_MARKER, PROBE_MARKER_PREFIX, sectionFunction } from '../inventory/probe-script';
import { remotePathExpr } from '../jobs/job-scripts';
import { SLURM_COMMAND_FUNCTION } from './cluster-script';

/** Fields asked of squeue, in the order the parser reads them. */
export const SQUEUE_FORMAT = '%i|%T|%r|%N|%S';
/** Fields asked of sacct, in the order the parser reads them. */
export const SACCT_FIELDS = ['JobIDRaw', 'State', 'ExitCode', 'Reason', 'NodeList', 'Start', 'End'] as const;

export const JOB_SECTIONS = {
  submit: 'slurm-sbatch',
  squeue: 'slurm-squeue',
  /** `slurm-scontrol-<job id>` */
  scontrolPrefix: 'slurm-scontrol-',
  sacct: 'slurm-sacct',
  cancel: 'slurm-scancel',
  named: 'slurm-named-jobs',
  workDirs: 'slurm-job-work-dirs',
} as const;

// sbatch reads the batch script on the submission's own stdin: sections keep it.
const SECTION_FUNCTIONS = `${sectionFunction('script')}
${SLURM_COMMAND_FUNCTION}`;

const done = `printf '\\n%s\\n' '${PROBE_DONE_MARKER}'`;

/** `--name=value`, where value is a path on the cluster that may start with `~/`. */
function pathOption(name: string, path: string): string {
  return `${name}=${remotePathExpr(path)}`;
}

/** The parent folder of a path as a shell expression, for `mkdir -p`. */
function parentExpr(path: string): string {
  const parent = path.slice(0, path.lastIndexOf('/')) || '/';
  return remotePathExpr(parent === '~' ? '~' : parent);
}

/** The batch script sbatch reads on its standard input. */
export function batchScript(spec: Pick<SlurmJobSpecParsed, 'script' | 'env'>): string {
  const exports = Object.entries(spec.env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  const body = spec.script.endsWith('\n') ? spec.script : `${spec.script}\n`;
  if (body.startsWith('#!')) {
    const newline = body.indexOf('\n');
    return [body.slice(0, newline), ...exports, body.slice(newline + 1)].join('\n');
  }
  return ['#!/bin/sh', ...exports, body].join('\n');
}

/** sbatch's options for a spec, each one word for sh. */
export function sbatchOptions(spec: SlurmJobSpecParsed): string[] {
  return [
    'sbatch',
    '--parsable',
    shellQuote(`--job-name=${spec.name}`),
    ...(spec.partition ? [shellQuote(`--partition=${spec.partition}`)] : []),
    ...(spec.account ? [shellQuote(`--account=${spec.account}`)] : []),
    ...(spec.qos ? [shellQuote(`--qos=${spec.qos}`)] : []),
    ...(spec.gpus ? [shellQuote(`--gres=gpu:${spec.gpus.type ? `${spec.gpus.type}:` : ''}${spec.gpus.count}`)] : []),
    ...(spec.cpusPerTask ? [`--cpus-per-task=${spec.cpusPerTask}`] : []),
    ...(spec.memoryMiB ? [`--mem=${spec.memoryMiB}M`] : []),
    `--time=${spec.timeLimitMinutes}`,
    spec.requeue ? '--requeue' : '--no-requeue',
    pathOption('--output', spec.outputPath),
    pathOption('--error', spec.errorPath ?? spec.outputPath),
    pathOption('--chdir', spec.workDir),
  ];
}

/**
 * Creates the output folders and the working folder on the shared storage (slurmd does not, and a job whose output
 * cannot be opened fails at once), then submits the batch script given on stdin.
 */
export function submitScript(spec: SlurmJobSpecParsed): string {
  const folders = [...new Set([parentExpr(spec.outputPath), parentExpr(spec.errorPath ?? spec.outputPath), remotePathExpr(spec.workDir)])];
  return `# Servelab Slurm job submission.
${SECTION_FUNCTIONS}
mkdir -p -- ${folders.join(' ')} || exit 1
sl_section ${JOB_SECTIONS.submit} sl_slurm ${sbatchOptions(spec).join(' ')}
${done}
`;
}

/** Job ids joined for `-j`, each checked to be a number. */
export function jobIdList(jobIds: readonly string[]): string {
  for (const id of jobIds) if (!/^\d+$/.test(id)) throw new Error(`"${id}" is not a Slurm job id`);
  return jobIds.join(',');
}

/**
 * squeue for the jobs still in the queue; for each of the others `scontrol -o show job` while slurmctld remembers it;
 * sacct for those it has forgotten. Stops after squeue when slurmctld does not answer (each command would retry).
 */
export function observeScript(jobIds: readonly string[]): string {
  const ids = jobIdList(jobIds);
  return `# Servelab Slurm job states (read-only).
${SECTION_FUNCTIONS}
sl_queue=$(sl_slurm squeue -h -j ${shellQuote(ids)} -o ${shellQuote(SQUEUE_FORMAT)} 2>&1)
sl_rc=$?
printf '\\n${PROBE_MARKER_PREFIX}begin %s\\n%s\\n${PROBE_MARKER_PREFIX}end %s rc=%s\\n' ${JOB_SECTIONS.squeue} "$sl_queue" ${JOB_SECTIONS.squeue} "$sl_rc"
if [ "$sl_rc" != 0 ]; then
  case $sl_queue in *'Invalid job id specified'*) sl_queue= ;; *) ${done}; exit 0 ;; esac
fi
sl_gone=
for sl_id in ${jobIds.map(shellQuote).join(' ')}; do
  case "
$sl_queue" in *"
$sl_id|"*) continue ;; esac
  sl_section ${JOB_SECTIONS.scontrolPrefix}"$sl_id" sl_slurm scontrol -o show job "$sl_id"
  if [ "$sl_rc" != 0 ]; then sl_gone=$sl_gone\${sl_gone:+,}$sl_id; fi
done
if [ -n "$sl_gone" ]; then
  sl_section ${JOB_SECTIONS.sacct} sl_slurm sacct -nP -X -j "$sl_gone" --format=${SACCT_FIELDS.join(',')}
fi
${done}
`;
}

/** scancel for the given jobs; Slurm says so for jobs already over, which is not an error here. */
export function cancelScript(jobIds: readonly string[]): string {
  return `# Servelab Slurm job cancel.
${SECTION_FUNCTIONS}
sl_section ${JOB_SECTIONS.cancel} sl_slurm scancel ${shellQuote(jobIdList(jobIds))}
${done}
`;
}

/** The login user's jobs in the queue, `id|name` per line (the name last: it may contain `|`). */
export function namedJobsScript(): string {
  return `# Servelab Slurm jobs of this user (read-only).
${SECTION_FUNCTIONS}
sl_section ${JOB_SECTIONS.named} sl_slurm squeue -h -u "$(id -un)" -o '%i|%j'
${done}
`;
}

/** The login user's jobs in the queue, `id|working directory` per line (squeue's `%Z`, the directory last). */
export function workDirJobsScript(): string {
  return `# Servelab Slurm jobs of this user by working directory (read-only).
${SECTION_FUNCTIONS}
sl_section ${JOB_SECTIONS.workDirs} sl_slurm squeue -h -u "$(id -un)" -o '%i|%Z'
${done}
`;
}

export const OUTPUT_MARKER = `${PROBE_MARKER_PREFIX}output`;

/**
 * Up to `maxBytes` of a file from byte `offset`, base64 so that no byte is changed on the way, after a line with the
 * file's size: `<marker> size <n>`, or `<marker> missing` when the file does not exist (yet).
 */
export function readOutputScript(path: string, offset: number, maxBytes: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(maxBytes) || maxBytes <= 0) throw new Error('offset and size must be non-negative integers');
  return `# Servelab Slurm job output (read-only).
sl_file=${remotePathExpr(path)}
if [ ! -f "$sl_file" ]; then printf '\\n%s missing\\n' '${OUTPUT_MARKER}'; exit 0; fi
sl_size=$(wc -c < "$sl_file") || exit 1
printf '\\n%s size %s\\n' '${OUTPUT_MARKER}' "$((sl_size + 0))"
tail -c +${offset + 1} "$sl_file" | head -c ${maxBytes} | base64
`;
}
