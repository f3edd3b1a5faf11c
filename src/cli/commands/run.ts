import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { CliIo } from '../cli-io';
import { parseSinglePositional, UsageError } from '../command-line';
import { ServelabError } from '../../shared/contract';
import { objectiveOf, trialGpuCount, type StudyDefinition, type Trial } from '../../shared/study/study';
import { studyObjective, trialObjective } from '../../shared/study/objective';
import { createCore } from '../../core/create-core';
import { resolveSimboxBinDir } from '../../core/box/simbox-path';
import { defaultDataDir } from '../../core/util/paths';
import { StudyProject } from '../../core/study/project-store';
import { ProjectTrust, untrustedMessage } from '../../core/study/project-trust';
import { runStudy, type StudyEvent } from '../../core/study/study-runner';
import type { HeldLock } from '../../core/util/lock-file';

export const RUN_USAGE = `Usage: servelab run <project.servelab> [--data-dir DIR] [--quiet]

Runs (or resumes) the study in the project file on its hosts — the app's hosts (\`hosts.json\` in the data folder;
\`demo-lab\` is the built-in simulated box): installs the engines and the benchmark client, prefetches models and
ShareGPT, then runs stage after stage, printing each trial and decision. Finished trials are kept in the project as
they finish; after a kill, the same command resumes without running them again. Ctrl+C cancels and stops every
server it started. Then: \`servelab report <project> --format md|html|csv\`.

  --data-dir DIR   the app's data folder (default: $SERVELAB_DATA_DIR or ~/.config/servelab)
  --quiet          only phases, decisions and the outcome (no trial lines, no logs)
  --trust          accept what a project from elsewhere runs (remote code, env, extra arguments, dataset files)
                   without asking; without it a terminal asks once, and a non-interactive run refuses

A project not written by you here that turns on trustRemoteCode, sets env or extra arguments or names dataset files
is run only once you accept exactly those settings; the answer is kept in the data folder, not in the project.

Exit codes: 0 the study is done, 1 it failed or was cancelled, 2 usage.`;

export interface RunCommandOptions {
  signal?: AbortSignal;
}

export async function runRun(args: string[], io: CliIo, opts: RunCommandOptions = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseSinglePositional(args, { 'data-dir': { type: 'string' }, quiet: { type: 'boolean' }, trust: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, { missing: 'name the project file', noun: 'project file' });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`servelab run: ${error.message}\n\n${RUN_USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(`${RUN_USAGE}\n`);
    return 0;
  }
  const given = resolve(io.cwd, parsed.positional);
  // One project, one name: a symlink to a running project is that project (its data folder is the real one's).
  const path = await realpath(given).catch(() => given);
  const dataDir = typeof parsed.values['data-dir'] === 'string' ? resolve(io.cwd, parsed.values['data-dir']) : defaultDataDir(io.env);
  const quiet = parsed.values.quiet === true;

  let project: StudyProject;
  let runLock: HeldLock;
  try {
    project = await StudyProject.open(path);
    // Refused before anything starts when another process runs this study.
    runLock = await project.lockRun();
  } catch (error) {
    io.stderr(`servelab run: ${(error as Error).message}\n`);
    return 1;
  }
  // A shared project is executable configuration; run it only once its settings were accepted here.
  const trust = new ProjectTrust(dataDir);
  const check = await trust.check(path, project.file.study);
  if (!check.trusted) {
    let accepted = parsed.values.trust === true;
    if (!accepted && process.stdin.isTTY && process.stderr.isTTY && !opts.signal) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        accepted = /^y(es)?$/i.test((await rl.question(`${untrustedMessage(check, 'answer y to run it')}\nRun it? [y/N] `)).trim());
      } finally {
        rl.close();
      }
    }
    if (!accepted) {
      await runLock.release();
      io.stderr(`servelab run: ${untrustedMessage(check, 'run again with --trust to accept them')}\n`);
      return 1;
    }
    await trust.trust(path, check.hash);
  }
  const core = await createCore({ dataDir, env: io.env, simboxBinDir: resolveSimboxBinDir(), log: (line) => (quiet ? undefined : io.stderr(`[core] ${line}\n`)) }).catch(
    async (error: unknown) => {
      await runLock.release();
      throw error;
    },
  );
  const controller = new AbortController();
  const onSignal = () => {
    io.stderr('servelab: cancelling — stopping every server this run started…\n');
    controller.abort(new ServelabError('CANCELLED', 'Cancelled.'));
  };
  if (opts.signal) opts.signal.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  const study = project.file.study;
  const counted = new Map<string, Trial['status']>();
  const print = (event: StudyEvent) => {
    switch (event.kind) {
      case 'phase':
        io.stderr(`== ${event.text}\n`);
        break;
      case 'decision':
        io.stderr(`→ ${event.decision.stageId}: ${event.decision.reason}\n`);
        break;
      case 'trial': {
        const t = event.trial;
        if (counted.get(t.id) === t.status) break;
        counted.set(t.id, t.status);
        if (quiet || t.status === 'planned') break;
        const detail = trialDetail(study, t);
        const done = [...counted.values()].filter((s) => s === 'done' || s === 'failed' || s === 'rejected').length;
        io.stderr(`[${String(done).padStart(3)}/${String(counted.size).padEnd(3)}] ${t.status.padEnd(8)} ${t.id}${detail}\n`);
        break;
      }
      case 'log':
      case 'gpu':
        break;
      case 'state':
        break;
    }
  };
  try {
    const state = await runStudy(project, core.studyDeps(), { signal: controller.signal, onEvent: print, runLock });
    if (state.status === 'done' && state.recommendation) {
      io.stdout(`Recommended (${state.recommendation.engine} ${state.recommendation.version}):\n  ${state.recommendation.command}\n`);
      io.stdout(`Report: servelab report ${parsed.positional} --format md   (or html, csv)\n`);
      return 0;
    }
    io.stderr(`servelab run: the study ${state.status === 'cancelled' ? 'was cancelled' : 'failed'}${state.message ? `: ${state.message}` : ''}\n`);
    return 1;
  } finally {
    opts.signal?.removeEventListener('abort', onSignal);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await core.close();
    await runLock.release();
  }
}

/**
 * What a trial's progress line says after its id: its objective's measured number (and its GPUs when several), the
 * number the decision compares when the study compares per GPU or on a budget, or why it did not run, or where it runs.
 */
export function trialDetail(study: StudyDefinition, t: Trial): string {
  const objective = objectiveOf(study.goal.kind);
  const based = studyObjective(study.goal);
  const value = t.result?.result.metrics[objective.metric];
  const digits = objective.metric === 'mean_latency_s' ? 3 : 1;
  if (t.status === 'done' && typeof value === 'number') {
    const gpus = trialGpuCount(study, t);
    const onBasis = based.basis !== 'server' ? trialObjective(study, t) : null;
    return ` ${objective.label} ${value.toFixed(digits)} ${objective.unit}${gpus > 1 ? ` on ${gpus} GPUs` : ''}${onBasis !== null ? `; ${based.label} ${onBasis.toFixed(digits)} ${based.unit}` : ''}`;
  }
  if (t.status === 'failed' || t.status === 'rejected') return ` — ${t.rejectReason ?? t.error ?? ''}`;
  const job = t.slurmJob;
  if (job) {
    const gpus = t.gpus && t.gpus.length > 0 ? ` GPU ${t.gpus.join(',')}` : '';
    if (job.node !== undefined && job.state === 'RUNNING') return ` in Slurm job ${job.jobId} on ${job.node}${gpus}`;
    return ` in Slurm job ${job.jobId}${job.state ? `: ${job.state}${job.reason ? ` (${job.reason})` : ''}` : ''}`;
  }
  return t.hostId ? ` on ${t.hostId} GPU ${t.gpus?.join(',') ?? ''}` : '';
}
