import { ServelabError } from '../../shared/contract';
import { knownHostsName, type KnownHostsStore } from './known-hosts';
import type { SshTarget } from './ssh-target';

/** An unknown host key as HOST_KEY_UNKNOWN's details present it. */
export interface PresentedHostKey {
  host: string;
  port: number;
  keyType: string;
  publicKey: string;
  fingerprint: string;
}

export interface AcceptNewOptions {
  /** Store unknown keys (StrictHostKeyChecking=accept-new); false lets HOST_KEY_UNKNOWN through as it is. */
  acceptNew: boolean;
  /** Told of each key stored, as `[host]:port` known_hosts names it, before the connection starts again. */
  onAccepted?: (key: PresentedHostKey, name: string) => void;
}

/**
 * Runs `connect` (a connection through the target's hops, and whatever it does on it); with acceptNew, each unknown
 * host key (jump hosts first, as the connection meets them) is stored and `connect` started again, until every hop
 * is known. A changed or revoked key is never stored: that failure, like any other, goes to the caller.
 */
export async function acceptingNewKeys<T>(target: SshTarget, knownHosts: KnownHostsStore, opts: AcceptNewOptions, connect: () => Promise<T>): Promise<T> {
  const accepted = new Set<string>();
  const hops = (target.jumps?.length ?? 0) + 1;
  for (;;) {
    try {
      return await connect();
    } catch (error) {
      if (!(opts.acceptNew && error instanceof ServelabError && error.code === 'HOST_KEY_UNKNOWN')) throw error;
      const key = error.details as unknown as PresentedHostKey;
      const name = knownHostsName(key.host, key.port);
      // Each hop's key is stored once; meeting it as unknown again means it was not kept, so stop rather than loop.
      if (accepted.has(`${name} ${key.keyType}`) || accepted.size >= hops) throw error;
      accepted.add(`${name} ${key.keyType}`);
      await knownHosts.add({ host: key.host, port: key.port, keyType: key.keyType, publicKey: key.publicKey });
      opts.onAccepted?.(key, name);
    }
  }
}
