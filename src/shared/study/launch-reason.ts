import type { Trial } from './study';

/**
 * Why the runner launches a server configuration, journalled with each launch (`launching`): the runner starts one
 * server per distinct configuration of a step and stops it when the step's trials are measured, so a configuration is
 * launched again only when a later step (the generalisation pass, more repeats, another stage) has trials for it, or
 * when its trials were left unfinished by an interrupted or cancelled run.
 */
export type LaunchReason =
  | { kind: 'first' }
  /** Trials an earlier run left running or cancelled: their server was stopped then, and they run again. */
  | { kind: 'rerun-interrupted'; trials: string[] }
  /** The configuration served `earlier` trials in an earlier step; its server was stopped when that step ended. */
  | { kind: 'later-step'; stageIds: string[]; earlier: string[] };

/**
 * The reason for launching `group` (trials of one configuration). `trials` is the study's state before the launch;
 * `interrupted`, the trials this run found unfinished from an earlier run.
 */
export function launchReason(group: readonly Trial[], trials: readonly Trial[], interrupted: ReadonlySet<string>): LaunchReason {
  const rerun = group.filter((t) => interrupted.has(t.id)).map((t) => t.id);
  if (rerun.length > 0) return { kind: 'rerun-interrupted', trials: rerun };
  const serverKey = group[0]?.serverKey;
  const inGroup = new Set(group.map((t) => t.id));
  const earlier = trials.filter((t) => t.serverKey === serverKey && !inGroup.has(t.id) && (t.status === 'done' || t.status === 'failed') && t.serverId !== undefined).map((t) => t.id);
  if (earlier.length === 0) return { kind: 'first' };
  return { kind: 'later-step', stageIds: [...new Set(group.map((t) => t.stageId))], earlier };
}
