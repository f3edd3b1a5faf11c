import type { Client } from 'ssh2';
import type { SshTarget } from '../ssh/ssh-target';
import { openSshClient, type OpenSshClientOptions } from '../ssh/connect';
import { execCollect } from '../ssh/exec';
import { collectInventory, PROBE_TIMEOUT_SECONDS, type CommandRunner } from './collect';
import type { ProbeInventory } from './parse-probe';
import type { BoxTransport } from '../box/box-transport';

/** Runs scripts as `sh -l -s` over an open connection, so the remote login profile's PATH applies. */
export function sshCommandRunner(client: Client, timeoutSeconds = PROBE_TIMEOUT_SECONDS): CommandRunner {
  return {
    run: (script) => execCollect(client, 'sh -l -s', { stdin: script, timeoutSeconds }),
  };
}

/**
 * Connects (through the target's jump hosts, with whatever prompts, log and secrets the caller passes on),
 * inventories the box and always closes the connection.
 */
export async function collectInventoryOverSsh(target: SshTarget, opts: OpenSshClientOptions): Promise<ProbeInventory> {
  const client = await openSshClient(target, opts);
  try {
    return await collectInventory(sshCommandRunner(client));
  } finally {
    client.end();
  }
}

/** Runs the probe through any box transport (SSH or local) as `sh -l -s`. */
export function boxCommandRunner(box: Pick<BoxTransport, 'run'>, timeoutSeconds = PROBE_TIMEOUT_SECONDS): CommandRunner {
  return {
    run: (script) => box.run(script, { timeoutSeconds }),
  };
}
