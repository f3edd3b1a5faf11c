// The read-only script that reads a Slurm cluster from its login node. It is fed to `sh -l -s` (the login profile sets
// PATH and SLURM_CONF, or loads the cluster's module) and prints each command's output between the inventory probe's
// markers (src/core/inventory/probe-script.ts), so the same splitter reads it and profile chatter is ignored.
//
// The machine-readable forms: `scontrol -o` (one `Key=Value` record per line) for partitions and nodes, which every
// Slurm release prints alike. `sinfo --json` exists in 22.05 only with its openapi plugins, `scontrol --json` not at
// all (22.05.8 says "unrecognized option '--json'"), and the JSON layout changes with each plugin version.
// `sacctmgr -nP`: no header, `|` between fields; it fails where accounting is off ("You are not running a supported
// accounting_storage plugin") or not reachable, and the inventory says so rather than failing.
import { shellQuote } from '../../shared/shell-quote';
import { PROBE_DONE_MARKER, sectionFunction } from '../inventory/probe-script';

/** Seconds each Slurm command may take (an unreachable slurmctld or slurmdbd is retried for a long time). */
export const SLURM_COMMAND_TIMEOUT_SECONDS = 30;

/** `sl_slurm COMMAND…`: a Slurm client command, said missing when it is, and stopped after its time. */
export const SLURM_COMMAND_FUNCTION = `sl_slurm() {
  if ! command -v "$1" >/dev/null 2>&1; then echo "$1: command not found"; return 127; fi
  if command -v timeout >/dev/null 2>&1; then timeout ${SLURM_COMMAND_TIMEOUT_SECONDS} "$@"; else "$@"; fi
}`;
/** The whole script: five Slurm commands at worst. */
export const CLUSTER_READ_TIMEOUT_SECONDS = 5 * SLURM_COMMAND_TIMEOUT_SECONDS + 20;

/** Fields asked of `sacctmgr show assoc`, in the order the parser reads them. */
export const ASSOC_FIELDS = ['Cluster', 'Account', 'User', 'Partition', 'QOS', 'DefaultQOS'] as const;
/** Fields asked of `sacctmgr show user`. */
export const USER_FIELDS = ['User', 'DefaultAccount'] as const;

/** Section names, shared with the parser. */
export const CLUSTER_SECTIONS = {
  user: 'slurm-user',
  version: 'slurm-version',
  config: 'slurm-cluster-name',
  partitions: 'slurm-partitions',
  nodes: 'slurm-nodes',
  associations: 'slurm-associations',
  userAccount: 'slurm-user-account',
} as const;

/**
 * The script for one read. `user` (default: the login user, `id -un` on the box) is the account whose associations
 * are listed; it is quoted for the shell.
 */
export function clusterScript(opts: { user?: string } = {}): string {
  const user = opts.user === undefined ? '"$(id -un)"' : shellQuote(opts.user);
  const s = CLUSTER_SECTIONS;
  return `# Servelab Slurm cluster read (read-only).
${sectionFunction('none')}
${SLURM_COMMAND_FUNCTION}
sl_cluster_name() { sl_slurm scontrol show config | sed -n 's/^ClusterName *= *//p'; }
sl_user=${user}
sl_section ${s.user} printf '%s\\n' "$sl_user"
sl_section ${s.version} sl_slurm sinfo --version
sl_section ${s.partitions} sl_slurm scontrol -o show partition
# Without slurmctld each command would wait its ~10 s of retries in turn: the read stops here instead.
if [ "$sl_rc" != 0 ]; then printf '\n%s\n' '${PROBE_DONE_MARKER}'; exit 0; fi
sl_section ${s.config} sl_cluster_name
sl_section ${s.nodes} sl_slurm scontrol -o show node
sl_section ${s.associations} sl_slurm sacctmgr -nP show assoc "user=$sl_user" format=${ASSOC_FIELDS.join(',')}
sl_section ${s.userAccount} sl_slurm sacctmgr -nP show user "$sl_user" format=${USER_FIELDS.join(',')}
printf '\\n%s\\n' '${PROBE_DONE_MARKER}'
`;
}
