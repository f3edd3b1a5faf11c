import type { Client } from 'ssh2';
import type { SshTarget } from '../ssh/ssh-target';
import type { KnownHostsStore } from '../ssh/known-hosts';
import { openSshClient } from '../ssh/connect';
import { execCollect } from '../ssh/exec';
import { collectInventory, PROBE_TIMEOUT_SECONDS, type CommandRunner } from './collect';
import type { ProbeInventory } from './parse-probe';

/** Runs scripts as `sh -l -s` over an open connection, so the remote login profile's PATH applies. */
export function sshCommandRunner(client: Client, timeoutSeconds = PROBE_TIMEOUT_SECONDS): CommandRunner {
  return {
    run: (script) => execCollect(client, 'sh -l -s', { stdin: script, timeoutSeconds }),
  };
}

/** Connects, inventories the box and always closes the connection. */
export async function collectInventoryOverSsh(
  target: SshTarget,
  opts: { knownHosts: KnownHostsStore; timeoutSeconds: number },
): Promise<ProbeInventory> {
  const client = await openSshClient(target, opts);
  try {
    return await collectInventory(sshCommandRunner(client));
  } finally {
    client.end();
  }
}
