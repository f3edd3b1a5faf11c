import { join } from 'node:path';
import { homedir } from 'node:os';
import { EventBus } from './event-bus';
import { createDispatcher, type CallHandlers, type Dispatch } from './dispatcher';
import { HostStore } from '../hosts/host-store';
import { hostPasswordKey, MemorySecretStore, type SecretStore } from '../secrets/secret-store';
import { KnownHostsStore } from '../ssh/known-hosts';
import { collectInventoryOverSsh } from '../inventory/collect-over-ssh';
import type { SshTarget } from '../ssh/ssh-target';
import { ServelabError, type CallName } from '../../shared/contract';
import type { Host, HostKeyInfo } from '../../shared/model/host';
import { expandHome } from '../util/paths';
import { APP_NAME, APP_VERSION } from './app-identity';

export interface CoreOptions {
  /** Folder for hosts.json, the app's known_hosts and other state. */
  dataDir: string;
  secrets?: SecretStore;
  /** The app's own known_hosts, where accepted keys are written (default: <dataDir>/known_hosts). */
  appKnownHostsFile?: string;
  /** Read-only known_hosts files trusted besides the app's own (default: ~/.ssh/known_hosts). */
  userKnownHostsFiles?: string[];
  /** Seconds before a connection attempt gives up. */
  connectTimeoutSeconds?: number;
  log?: (line: string) => void;
}

export interface Core {
  readonly dispatch: Dispatch;
  readonly events: EventBus;
  /** Direct, typed access for in-process callers such as the CLI. */
  call<N extends CallName>(name: N, input: unknown): Promise<unknown>;
  close(): Promise<void>;
}

type PendingKey = HostKeyInfo & { publicKey: string };

/** Builds the headless core: services, state and the contract's handlers. Runs in plain Node, no Electron. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const log = options.log ?? (() => {});
  const events = new EventBus();
  const secrets = options.secrets ?? new MemorySecretStore();
  const hosts = await HostStore.open(join(options.dataDir, 'hosts.json'));
  const knownHosts = new KnownHostsStore({
    appFile: options.appKnownHostsFile ?? join(options.dataDir, 'known_hosts'),
    readOnlyFiles: options.userKnownHostsFiles ?? [join(homedir(), '.ssh', 'known_hosts')],
  });
  // Keys shown to the user but not yet accepted, by host id: accepting stores exactly the key that was shown.
  const pendingKeys = new Map<string, PendingKey>();

  const broadcastHosts = () => events.emit('hosts:changed', { hosts: hosts.list() });

  async function targetFor(host: Host): Promise<SshTarget> {
    const target: SshTarget = { host: host.address, port: host.port, user: host.user };
    if (host.auth.method === 'key') {
      target.identityFile = expandHome(host.auth.identityFile);
    } else {
      const password = await secrets.get(hostPasswordKey(host.id));
      if (password === null) {
        throw new ServelabError('AUTH_FAILED', `No saved password for ${host.user}@${host.address}; remove the host and add it again with its password.`);
      }
      target.password = password;
    }
    return target;
  }

  const handlers: CallHandlers = {
    'app:info': async () => ({ name: APP_NAME, version: APP_VERSION, dataDir: options.dataDir }),

    'hosts:list': async () => hosts.list(),

    'hosts:add': async (input) => {
      const auth: Host['auth'] =
        input.auth.method === 'key'
          ? { method: 'key', identityFile: input.auth.identityFile }
          : { method: 'password', hasSavedPassword: true };
      const host = await hosts.add({
        label: input.label || `${input.user}@${input.address}`,
        address: input.address,
        port: input.port,
        user: input.user,
        auth,
      });
      if (input.auth.method === 'password') await secrets.set(hostPasswordKey(host.id), input.auth.password);
      broadcastHosts();
      return host;
    },

    'hosts:remove': async ({ hostId }) => {
      const removed = await hosts.remove(hostId);
      if (removed) {
        await secrets.delete(hostPasswordKey(hostId));
        pendingKeys.delete(hostId);
        broadcastHosts();
      }
      return { removed };
    },

    'hosts:inventory': async ({ hostId }) => {
      const host = hosts.get(hostId);
      events.emit('hosts:state', { hostId, state: 'connecting', message: `Connecting to ${host.address}:${host.port}…` });
      try {
        const target = await targetFor(host);
        const inventory = await collectInventoryOverSsh(target, {
          knownHosts,
          timeoutSeconds: options.connectTimeoutSeconds ?? 20,
        });
        events.emit('hosts:state', { hostId, state: 'ready', message: 'Inventory read.' });
        return { ...inventory, hostId };
      } catch (error) {
        if (error instanceof ServelabError && error.code === 'HOST_KEY_UNKNOWN' && error.details) {
          const d = error.details as PendingKey;
          pendingKeys.set(hostId, { host: d.host, port: d.port, keyType: d.keyType, fingerprint: d.fingerprint, publicKey: d.publicKey });
        }
        const message = error instanceof Error ? error.message : String(error);
        events.emit('hosts:state', { hostId, state: 'failed', message });
        throw error;
      }
    },

    'hosts:acceptHostKey': async ({ hostId, fingerprint }) => {
      hosts.get(hostId);
      const pending = pendingKeys.get(hostId);
      if (!pending) {
        throw new ServelabError('NOT_FOUND', 'No host key is waiting for a decision on this host; connect first to see its key.');
      }
      if (pending.fingerprint !== fingerprint) {
        throw new ServelabError('BAD_INPUT', `The key shown (${pending.fingerprint}) is not the one accepted (${fingerprint}); nothing was stored.`, {
          issues: [{ path: 'fingerprint', message: 'does not match the presented host key' }],
        });
      }
      await knownHosts.add({ host: pending.host, port: pending.port, keyType: pending.keyType, publicKey: pending.publicKey });
      pendingKeys.delete(hostId);
      log(`host key ${pending.keyType} ${pending.fingerprint} accepted for [${pending.host}]:${pending.port}`);
      const { publicKey: _omit, ...accepted } = pending;
      return { accepted };
    },
  };

  const dispatch = createDispatcher(handlers, log);

  return {
    dispatch,
    events,
    async call(name, input) {
      const envelope = await dispatch(name, input);
      if (!envelope.ok) throw ServelabError.fromInfo(envelope.error);
      return envelope.data;
    },
    async close() {
      // Connections are per call in this slice; nothing long-lived to close yet.
    },
  };
}
