import { ServelabError } from '../../shared/contract';
import { demoLabBoxOf, type Host, type HostKeyInfo, type HostStateEvent } from '../../shared/model/host';
import type { EventBus } from '../dispatch/event-bus';
import type { SecretStore } from '../secrets/secret-store';
import { passwordKey } from '../secrets/secret-keys';
import type { ConnectionStateEvent, SshConnectionPool } from '../ssh/connection-pool';
import { hostKeyPlace } from '../ssh/known-hosts';
import type { HostSpec, ResolvedSshTarget } from '../ssh/ssh-target';
import type { ResolvedSshHost } from '../ssh/resolve/types';
import type { BoxTransport } from '../box/box-transport';
import type { ClusterInventory } from '../../shared/model/cluster';
import { openBox, type BoxHooks } from '../box/open-box';
import { demoLabHost, demoLabPaths, prepareDemoBox, type SimboxNode } from '../box/demo-lab';
import type { LocalBoxTransport } from '../box/local-box-transport';
import type { HostStore } from './host-store';
import type { ConnectionLog } from '../ssh/connection-log';

/**
 * A host key shown to the user and not yet trusted, with what was wrong with it. `keptInMemory`: the host's
 * UserKnownHostsFile is /dev/null, so an accepted key is kept in memory only.
 */
export type PendingKey = HostKeyInfo & { publicKey: string; problem: 'unknown' | 'changed'; keptInMemory?: boolean };

/** The fields of a host that decide how it is reached over SSH. */
export type HostSshFields = Pick<Host, 'alias' | 'address' | 'user' | 'port' | 'identityFile' | 'proxyJump'>;

export interface HostConnectionsDeps {
  hosts: HostStore;
  pool: SshConnectionPool;
  events: EventBus;
  secrets: SecretStore;
  /** Resolves what a host names as `ssh` would: the OpenSSH config, the jump chain, identities, the agent. */
  resolveTarget(spec: HostSpec): Promise<ResolvedSshTarget>;
  /** The same resolution as ssh reports it, with where each value was set (hosts:resolve). */
  resolveHost(spec: HostSpec): Promise<ResolvedSshHost>;
  /** The app's data folder: the demo lab's box lives in it. */
  dataDir: string;
  /** Where a host's resolution failures and warnings are written (the pool writes the connection's own). */
  connectionLog?: Pick<ConnectionLog, 'write'>;
  /** The simulated GPU box's `bin/` folder; null: this installation has no demo lab. */
  simboxBinDir: string | null;
  /** The Node.js the demo lab's simulated tools run on; default: the one running Servelab. */
  simboxNode?: SimboxNode;
}

function toStateEvent(event: ConnectionStateEvent): HostStateEvent {
  const out: HostStateEvent = { hostId: event.hostId, state: event.state };
  if (event.reason) out.message = event.reason;
  if (event.attempt !== undefined) out.attempt = event.attempt;
  if (event.delayMs !== undefined) out.retryInSeconds = Math.round(event.delayMs / 100) / 10;
  return out;
}

export function hostSpecOf(host: HostSshFields): HostSpec {
  const spec: HostSpec = host.alias ? { alias: host.alias } : { address: host.address };
  if (host.user) spec.user = host.user;
  if (host.port) spec.port = host.port;
  if (host.identityFile) spec.identityFile = host.identityFile;
  if (host.proxyJump) spec.proxyJump = host.proxyJump;
  return spec;
}

/**
 * The live side of the saved hosts: how each one's box is reached (SSH hosts through the pool, the demo lab through
 * local processes), which hosts the user keeps connected, which host keys wait for the user's decision, and the
 * state each host shows. The pool's state changes become `hosts:state` events here.
 */
export class HostConnections {
  /** Hosts the user asked to keep connected (hosts:connect) hold one pool reference each (the demo lab needs none). */
  readonly held = new Set<string>();
  /** Keys shown to the user but not yet trusted, by host id: accepting stores exactly the key that was shown. */
  readonly pendingKeys = new Map<string, PendingKey>();
  /** The last cluster read of each Slurm host (hosts:cluster), in memory only: a cluster changes under its users. */
  readonly clusters = new Map<string, ClusterInventory>();
  /** Each demo box's first setup, by box number, while it runs. */
  private readonly demoPreparing = new Map<number, Promise<void>>();
  /** Errors raised while resolving a host, before the pool saw it: the pool has not logged them. */
  private readonly resolutionErrors = new WeakSet<object>();

  constructor(private readonly deps: HostConnectionsDeps) {
    deps.pool.onState((event) => {
      // A held connection that failed for good (key or auth problem) needs the user: let go of it.
      if (event.state === 'failed' && this.held.delete(event.hostId)) deps.pool.release(event.hostId);
      deps.events.emit('hosts:state', { ...toStateEvent(event), held: this.held.has(event.hostId) });
    });
  }

  isDemo(hostId: string): boolean {
    const listed = this.deps.hosts.list().find((h) => h.id === hostId);
    if (listed) return listed.kind === 'demo';
    // The demo lab's further boxes are demo hosts before their entry is written (on first use).
    return this.hasDemoBox(hostId);
  }

  /** A further box of the demo lab (box 2 and up) this installation can present, not removed by the user. */
  private hasDemoBox(hostId: string): boolean {
    const box = demoLabBoxOf(hostId);
    return box !== null && box > 1 && this.deps.simboxBinDir !== null && !this.deps.hosts.isRemovedBuiltIn(hostId);
  }

  /** Writes the host entry of a further demo box the first time something uses it. */
  async ensureDemoBox(hostId: string): Promise<void> {
    const box = demoLabBoxOf(hostId);
    if (box === null || !this.hasDemoBox(hostId) || this.deps.hosts.list().some((h) => h.id === hostId)) return;
    await this.deps.hosts.ensureBuiltIn(demoLabHost(new Date(), box));
  }

  stateOf(hostId: string): HostStateEvent {
    const held = this.held.has(hostId);
    return this.isDemo(hostId) ? { hostId, state: held ? 'ready' : 'idle', held } : { ...toStateEvent(this.deps.pool.state(hostId)), held };
  }

  /**
   * Remembers an unknown or changed host key for the dialogs, and reports the failure as the host's state. A key
   * refused under StrictHostKeyChecking yes is not offered for accepting; a HostKeyAlias host's key is offered
   * (and so stored) under the alias.
   */
  noteFailure(hostId: string, error: unknown): void {
    if (error instanceof ServelabError && (error.code === 'HOST_KEY_UNKNOWN' || error.code === 'HOST_KEY_CHANGED') && error.details) {
      const d = error.details as Partial<PendingKey> & { strictHostKeyChecking?: string; hostKeyAlias?: string };
      const offer = d.strictHostKeyChecking !== 'yes';
      if (offer && typeof d.publicKey === 'string' && typeof d.host === 'string' && typeof d.port === 'number' && d.keyType && d.fingerprint) {
        this.pendingKeys.set(hostId, {
          ...hostKeyPlace({ host: d.host, port: d.port, ...(d.hostKeyAlias ? { hostKeyAlias: d.hostKeyAlias } : {}) }),
          keyType: d.keyType,
          fingerprint: d.fingerprint,
          publicKey: d.publicKey,
          ...(d.expectedFingerprint ? { expectedFingerprint: d.expectedFingerprint } : {}),
          problem: error.code === 'HOST_KEY_UNKNOWN' ? 'unknown' : 'changed',
          ...(d.keptInMemory === true ? { keptInMemory: true } : {}),
        });
      }
    }
    if (error instanceof Error && this.resolutionErrors.has(error)) {
      const name = this.deps.hosts.list().find((h) => h.id === hostId);
      this.deps.connectionLog?.write(hostId, 'error', `Resolving ${name?.alias ?? name?.address ?? hostId}: ${error.message}`);
    }
    this.deps.events.emit('hosts:state', { hostId, state: 'failed', message: error instanceof Error ? error.message : String(error), held: this.held.has(hostId) });
  }

  /** The host as `ssh` would reach it. */
  resolve(host: HostSshFields): Promise<ResolvedSshTarget> {
    return this.deps.resolveTarget(hostSpecOf(host)).catch((error: unknown) => {
      if (error instanceof Error) this.resolutionErrors.add(error);
      throw error;
    });
  }

  /** The host as ssh reports it: every value with its origin where known. */
  resolveHost(host: HostSshFields): Promise<ResolvedSshHost> {
    return this.deps.resolveHost(hostSpecOf(host));
  }

  /** The resolved host with its remembered password, if any. */
  async targetFor(host: Host): Promise<ResolvedSshTarget> {
    const target = await this.resolve(host);
    for (const warning of target.resolveWarnings ?? []) this.deps.connectionLog?.write(host.id, 'warn', `Resolving ${host.alias ?? host.address}: ${warning}`);
    // The key kept with the host, else (saved before keys were kept) the one its resolution names.
    const saved = await this.deps.secrets.get(host.passwordKey ?? passwordKey(target));
    if (saved !== null) target.password = saved;
    return target;
  }

  /**
   * How this core reaches the host's box: SSH hosts through the pool (the pooled connection is taken on first use
   * and held until release()), the demo lab through local processes.
   */
  async transportFor(host: Host, hooks: BoxHooks = {}): Promise<BoxTransport> {
    if (host.kind === 'demo') {
      const box = demoLabBoxOf(host.id) ?? 1;
      return openBox({ kind: 'demo', dataDir: this.deps.dataDir, simboxBinDir: this.deps.simboxBinDir, ...(this.deps.simboxNode ? { node: this.deps.simboxNode } : {}), box, prepare: (transport) => this.prepareDemo(transport, box) }, hooks);
    }
    return openBox({ kind: 'ssh', hostId: host.id, target: await this.targetFor(host), connections: this.deps.pool }, hooks);
  }

  /** Sets up the simulated box on first use; concurrent first uses share one setup. */
  private async prepareDemo(transport: LocalBoxTransport, box: number): Promise<void> {
    let preparing = this.demoPreparing.get(box);
    if (!preparing) {
      preparing = prepareDemoBox(transport, demoLabPaths(this.deps.dataDir, box)).finally(() => this.demoPreparing.delete(box));
      this.demoPreparing.set(box, preparing);
    }
    await preparing;
  }
}
