import { ServelabError } from '../../shared/contract';
import { hostKeyAliasProblem, hostKeyName, hostKeyPlace, type KnownHostsStore } from './known-hosts';
import { SessionKnownHosts } from './session-known-hosts';
import type { SshTarget } from './ssh-target';

/** An unknown host key as HOST_KEY_UNKNOWN's details present it. */
export interface PresentedHostKey {
  host: string;
  port: number;
  keyType: string;
  publicKey: string;
  fingerprint: string;
  /** HostKeyAlias: the key is stored under this name (without the port, as ssh does) instead of host:port. */
  hostKeyAlias?: string;
  /** The hop's UserKnownHostsFile is /dev/null: the key is kept in memory only, as ssh keeps none. */
  keptInMemory?: boolean;
}

export interface AcceptNewOptions {
  /** Store unknown keys (StrictHostKeyChecking=accept-new); false lets HOST_KEY_UNKNOWN through as it is. */
  acceptNew: boolean;
  /** Told of each key stored, as `[host]:port` known_hosts names it, before the connection starts again. */
  onAccepted?: (key: PresentedHostKey, name: string) => void;
}

/**
 * The CLI's `--accept-new` (like `ssh -o StrictHostKeyChecking=accept-new`, it wins over the config): a target
 * whose own StrictHostKeyChecking is accept-new needs none of this, openSshHop stores its keys as it meets them.
 *
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
      const unstorable = hostKeyAliasProblem(key);
      if (unstorable) throw unstorable;
      const place = hostKeyPlace(key);
      const name = hostKeyName(key);
      // Each hop's key is stored once; meeting it as unknown again means it was not kept, so stop rather than loop.
      if (accepted.has(`${name} ${key.keyType}`) || accepted.size >= hops) throw error;
      accepted.add(`${name} ${key.keyType}`);
      await (key.keptInMemory ? new SessionKnownHosts(knownHosts, []) : knownHosts).add({ ...place, keyType: key.keyType, publicKey: key.publicKey });
      opts.onAccepted?.(key, name);
    }
  }
}
