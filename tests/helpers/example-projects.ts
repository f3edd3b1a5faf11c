// The example studies (examples/*.servelab) as finished projects: each example's study run in virtual time by the
// product's study loop on the simulated box's model (tests/helpers/virtual-study.ts), so a report has every stage's
// trials and decisions, the generalisation pass included, as a run on the demo lab would record them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ProjectFileSchema, type ProjectFile } from '../../src/shared/study/study';
import { repoRoot } from './repo';
import { runVirtualStudy } from './virtual-study';

/** The example files' names, in directory order. */
export function exampleFiles(): string[] {
  return readdirSync(join(repoRoot, 'examples'))
    .filter((name) => name.endsWith('.servelab'))
    .sort();
}

/** An example project as shipped (a draft), validated as the app loads it. */
export function exampleProject(file: string): ProjectFile {
  return ProjectFileSchema.parse(JSON.parse(readFileSync(join(repoRoot, 'examples', file), 'utf8')));
}

/** The example with its study run to the end in virtual time (seed 1). */
export function finishedExampleProject(file: string, seed = 1): ProjectFile {
  const project = exampleProject(file);
  const { state } = runVirtualStudy(project.study, { seed });
  // The virtual run leaves the host out; the app records the study's host (the demo lab) on every trial it runs.
  const hostId = project.study.hosts[0]?.hostId;
  const trials = state.trials.map((t) => (t.hostId === undefined && hostId !== undefined ? { ...t, hostId } : t));
  // The virtual clock starts at the epoch, where the run started; the loop records its end.
  return { ...project, state: { ...state, trials, startedAt: state.startedAt ?? new Date(0).toISOString() } };
}
