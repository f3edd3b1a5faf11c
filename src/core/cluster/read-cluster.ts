import { ServelabError } from '../../shared/contract';
import type { ClusterInventory } from '../../shared/model/cluster';
import type { BoxTransport } from '../box/box-transport';
import { probeCompleted } from '../inventory/parse-probe';
import { CLUSTER_READ_TIMEOUT_SECONDS, clusterScript } from './cluster-script';
import { parseClusterOutput } from './parse-cluster';

export interface ReadClusterOptions {
  /** Whose accounts and QOS to list; default the login user. */
  user?: string;
  now?: Date;
  signal?: AbortSignal;
}

/**
 * Reads partitions, nodes, GPUs, time limits and the user's accounts/QOS from a Slurm cluster's login node, in one
 * `sh -l -s` run through the host's transport (SSH, or this machine). Fails with REMOTE_COMMAND_FAILED when the
 * script was cut short or sinfo/scontrol could not answer; a cluster without accounting still reads.
 */
export async function readClusterInventory(box: Pick<BoxTransport, 'run' | 'hostId'>, opts: ReadClusterOptions = {}): Promise<ClusterInventory> {
  const result = await box.run(clusterScript(opts.user === undefined ? {} : { user: opts.user }), {
    timeoutSeconds: CLUSTER_READ_TIMEOUT_SECONDS,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (!probeCompleted(result.stdout)) {
    const stderr = result.stderr.trim().split('\n').slice(-5).join(' | ');
    throw new ServelabError(
      'REMOTE_COMMAND_FAILED',
      `Reading the Slurm cluster did not run to the end (exit code ${result.code ?? 'none'})` +
        (stderr ? `: ${stderr.slice(0, 500)}` : '; the login shell may not be POSIX sh compatible.'),
      { details: { code: result.code } },
    );
  }
  return parseClusterOutput(result.stdout, { hostId: box.hostId, ...(opts.now ? { now: opts.now } : {}) });
}
