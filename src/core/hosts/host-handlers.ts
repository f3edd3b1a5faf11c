import { ServelabError } from '../../shared/contract';
import { DEMO_LAB_HOST_ID, isSlurmCluster, type HostKeyInfo } from '../../shared/model/host';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { EventBus } from '../dispatch/event-bus';
import type { SecretStore } from '../secrets/secret-store';
import { passwordKey } from '../secrets/secret-keys';
import type { KnownHostsStore } from '../ssh/known-hosts';
import { KEPT_IN_MEMORY, SessionKnownHosts } from '../ssh/session-known-hosts';
import type { SshConnectionPool } from '../ssh/connection-pool';
import type { PromptBroker } from '../ssh/prompt-broker';
import type { ConnectionLog } from '../ssh/connection-log';
import { listSshConfigAliases } from '../ssh/ssh-config';
import { resolvedHostView } from '../ssh/resolve/view';
import { collectInventory } from '../inventory/collect';
import { boxCommandRunner } from '../inventory/collect-over-ssh';
import { readClusterInventory } from '../cluster/read-cluster';
import type { BoxTransport } from '../box/box-transport';
import { DEMO_LAB_LABEL, demoLabHost } from '../box/demo-lab';
import { noDemoLabError } from '../box/open-box';
import type { HostStore, NewHost } from './host-store';
import type { HostConnections, HostSshFields, PendingKey } from './host-connections';

export interface HostHandlerDeps {
  hosts: HostStore;
  connections: HostConnections;
  pool: SshConnectionPool;
  prompts: PromptBroker;
  knownHosts: KnownHostsStore;
  connectionLog: ConnectionLog;
  secrets: SecretStore;
  events: EventBus;
  /** The OpenSSH client config that aliases are listed from, and its environment for tokens. */
  sshConfigPath: string;
  env: NodeJS.ProcessEnv;
  /** Whether this installation ships the simulated GPU box, so the demo lab can be restored. */
  hasDemoLab: boolean;
  log(line: string): void;
}

type HostCalls = Pick<
  CallHandlers,
  | 'hosts:list'
  | 'hosts:add'
  | 'hosts:update'
  | 'hosts:remove'
  | 'hosts:sshConfigAliases'
  | 'hosts:resolve'
  | 'hosts:restoreDemoLab'
  | 'hosts:connect'
  | 'hosts:disconnect'
  | 'hosts:states'
  | 'hosts:connectionLog'
  | 'hosts:inventory'
  | 'hosts:cluster'
  | 'hosts:acceptHostKey'
  | 'hosts:replaceHostKey'
  | 'prompts:pending'
  | 'prompts:answer'
  | 'prompts:cancel'
>;

/** The demo lab's first lines in its connection log: what it is, and that its numbers are simulated. */
export function writeDemoLabIntro(connectionLog: ConnectionLog): void {
  connectionLog.write(
    DEMO_LAB_HOST_ID,
    'info',
    `${DEMO_LAB_LABEL}: a simulated GPU box (Servelab simbox) run as local processes on this machine, no SSH and no host key. ` +
      'Its numbers come from a performance model, never from a real GPU.',
  );
}

/**
 * The hosts and prompts calls: saved hosts and their remembered passwords, connections the user holds, host keys
 * to accept or replace, the inventory, and the questions for a person the SSH code asks. The connection log and
 * the prompts are streamed as `hosts:log` and `prompts:*` events from here on.
 */
export function hostHandlers(deps: HostHandlerDeps): HostCalls {
  const { hosts, connections, pool, prompts, knownHosts, connectionLog, secrets, events, log } = deps;
  const { held, pendingKeys } = connections;

  connectionLog.subscribe((hostId, entry) => events.emit('hosts:log', { hostId, entry }));
  prompts.onRequest((prompt) =>
    events.emit('prompts:request', {
      requestId: prompt.id,
      hostId: prompt.hostId,
      kind: prompt.kind,
      title: prompt.title,
      message: prompt.message,
      prompts: prompt.prompts,
      ...(prompt.about ? { about: prompt.about } : {}),
      allowRemember: prompt.remember ?? false,
      expiresAt: prompt.expiresAt,
    }),
  );
  prompts.onSettled((settled) => events.emit('prompts:settled', { requestId: settled.id, hostId: settled.hostId, outcome: settled.outcome }));

  const broadcastHosts = () => events.emit('hosts:changed', { hosts: hosts.list() });

  function refuseForDemo(hostId: string, what: string): void {
    if (connections.isDemo(hostId)) throw new ServelabError('NOT_SUPPORTED', `${DEMO_LAB_LABEL} runs on this machine without SSH: it has no ${what}.`);
  }

  function takePendingKey(hostId: string, fingerprint: string, problem: PendingKey['problem']): PendingKey {
    hosts.get(hostId);
    const pending = pendingKeys.get(hostId);
    if (!pending || pending.problem !== problem) {
      throw new ServelabError(
        'NOT_FOUND',
        problem === 'unknown'
          ? 'No new host key is waiting for a decision on this host; connect first to see its key.'
          : 'No changed host key is waiting for a decision on this host; connect first to see the new key.',
      );
    }
    if (pending.fingerprint !== fingerprint) {
      throw new ServelabError('BAD_INPUT', `The key shown (${pending.fingerprint}) is not the one confirmed (${fingerprint}); nothing was stored.`, {
        issues: [{ path: 'fingerprint', message: 'does not match the presented host key' }],
      });
    }
    pendingKeys.delete(hostId);
    return pending;
  }

  const hostInfo = ({ publicKey: _key, problem: _problem, keptInMemory: _inMemory, ...info }: PendingKey): HostKeyInfo => info;
  // A host whose UserKnownHostsFile is /dev/null keeps accepted keys in memory only, as ssh keeps none.
  const storeFor = (pending: PendingKey) => (pending.keptInMemory ? new SessionKnownHosts(knownHosts, []) : knownHosts);
  const keptWhere = (pending: PendingKey) => (pending.keptInMemory ? `kept in ${KEPT_IN_MEMORY}` : 'saved');

  /** Saves the password and returns its keychain key, to be kept with the host. */
  async function rememberPassword(fields: HostSshFields, password: string): Promise<string> {
    const key = passwordKey(await connections.resolve(fields));
    await secrets.set(key, password);
    return key;
  }

  return {
    'hosts:list': async () => hosts.list(),

    'hosts:add': async (input) => {
      const fields: NewHost = {
        kind: 'ssh',
        label: '',
        alias: input.alias ?? null,
        address: input.address ?? input.alias ?? '',
        port: input.port ?? null,
        user: input.user ?? null,
        identityFile: input.identityFile ?? null,
        proxyJump: input.proxyJump ?? null,
        scheduler: input.scheduler ?? null,
        hasSavedPassword: input.password !== undefined,
      };
      // Resolve now, as `ssh` would, so a wrong alias or ProxyJump is reported before anything is saved.
      const target = await connections.resolve(fields);
      if (fields.alias) fields.address = target.host;
      fields.label = input.label || (fields.alias ?? `${target.user}@${target.host}`);
      if (input.password !== undefined) fields.passwordKey = await rememberPassword(fields, input.password);
      const host = await hosts.add(fields);
      broadcastHosts();
      return host;
    },

    'hosts:update': async ({ hostId, password, forgetPassword, ...patch }) => {
      const existing = hosts.get(hostId);
      if (existing.kind === 'demo') {
        const given = { ...patch, password, forgetPassword };
        const sshFields = (['address', 'port', 'user', 'identityFile', 'proxyJump', 'scheduler', 'password', 'forgetPassword'] as const).filter((key) => given[key] !== undefined);
        if (sshFields.length > 0) {
          throw new ServelabError('BAD_INPUT', `${DEMO_LAB_LABEL} is reached without SSH: only its label can change.`, {
            issues: sshFields.map((path) => ({ path, message: 'does not apply to the demo lab' })),
          });
        }
        const updated = patch.label === undefined ? existing : await hosts.update(hostId, { label: patch.label });
        broadcastHosts();
        return updated;
      }
      const changes: Partial<NewHost> = {};
      for (const key of ['label', 'address', 'port', 'user', 'identityFile', 'proxyJump', 'scheduler'] as const) {
        if (patch[key] !== undefined) (changes as Record<string, unknown>)[key] = patch[key];
      }
      const next = { ...existing, ...changes };
      const target = await connections.resolve(next);
      if (next.alias) changes.address = target.host;
      if (forgetPassword) {
        await secrets.delete(existing.passwordKey ?? passwordKey(await connections.resolve(existing)));
        changes.hasSavedPassword = false;
        changes.passwordKey = null;
      }
      if (password !== undefined) {
        changes.passwordKey = await rememberPassword(next, password);
        changes.hasSavedPassword = true;
      }
      const updated = await hosts.update(hostId, changes);
      // The next connection must use the new settings.
      if (held.delete(hostId)) pool.release(hostId);
      pendingKeys.delete(hostId);
      // What was read may be of another cluster, or the host is no longer one.
      connections.clusters.delete(hostId);
      broadcastHosts();
      return updated;
    },

    'hosts:remove': async ({ hostId }) => {
      const existing = hosts.list().find((h) => h.id === hostId);
      const removed = await hosts.remove(hostId);
      if (removed && existing) {
        // A remembered password goes too, unless another host still logs in with it.
        // Only the removed host may be resolved (ssh never runs another host's Match exec): the others are
        // compared by the key kept with them. One saved before keys were kept might share it: then it stays.
        if (existing.hasSavedPassword) {
          let key = existing.passwordKey ?? null;
          if (key === null) {
            try {
              key = passwordKey(await connections.resolve(existing));
            } catch {
              key = null;
            }
          }
          const others = hosts.list().filter((h) => h.hasSavedPassword);
          const mayShare = others.some((h) => h.passwordKey == null || h.passwordKey === key);
          if (key !== null && !mayShare) await secrets.delete(key);
        }
        if (held.delete(hostId) && existing.kind === 'ssh') pool.release(hostId);
        prompts.cancelAll(hostId);
        connectionLog.clear(hostId);
        pendingKeys.delete(hostId);
        connections.clusters.delete(hostId);
        broadcastHosts();
      }
      return { removed };
    },

    'hosts:sshConfigAliases': async () => {
      const aliases = listSshConfigAliases(deps.sshConfigPath, { env: deps.env });
      return {
        configPath: deps.sshConfigPath,
        aliases: aliases.map((a) => ({ alias: a.alias, hostName: a.hostName, user: a.user ?? null, port: a.port ?? null, proxyJump: a.proxyJump ?? null })),
      };
    },

    'hosts:resolve': async ({ hostId }) => {
      const host = hosts.get(hostId);
      if (host.kind !== 'ssh') throw new ServelabError('NOT_SUPPORTED', `${DEMO_LAB_LABEL} runs on this machine without SSH: there is no SSH host to resolve.`);
      return resolvedHostView(await connections.resolveHost(host));
    },

    'hosts:restoreDemoLab': async () => {
      if (!deps.hasDemoLab) throw noDemoLabError();
      const wasListed = connections.isDemo(DEMO_LAB_HOST_ID);
      const host = await hosts.restoreBuiltIn(demoLabHost());
      if (!wasListed) {
        writeDemoLabIntro(connectionLog);
        broadcastHosts();
      }
      return host;
    },

    'hosts:connect': async ({ hostId }) => {
      const host = hosts.get(hostId);
      if (host.kind === 'demo') {
        if (!held.has(hostId)) {
          held.add(hostId);
          connectionLog.write(hostId, 'info', 'Nothing to connect to: the demo lab is local. Ready.');
          events.emit('hosts:state', connections.stateOf(hostId));
        }
        return connections.stateOf(hostId);
      }
      if (!held.has(hostId)) {
        try {
          await pool.acquire(hostId, await connections.targetFor(host));
          held.add(hostId);
        } catch (error) {
          connections.noteFailure(hostId, error);
          throw error;
        }
      }
      return connections.stateOf(hostId);
    },

    'hosts:disconnect': async ({ hostId }) => {
      const host = hosts.get(hostId);
      if (held.delete(hostId) && host.kind === 'ssh') pool.release(hostId);
      const state = connections.stateOf(hostId);
      events.emit('hosts:state', state);
      return state;
    },

    'hosts:states': async () => hosts.list().map((h) => connections.stateOf(h.id)),

    'hosts:connectionLog': async ({ hostId }) => {
      hosts.get(hostId);
      return { entries: connectionLog.entries(hostId) };
    },

    'hosts:inventory': async ({ hostId }) => {
      const host = hosts.get(hostId);
      let transport: BoxTransport | undefined;
      try {
        transport = await connections.transportFor(host);
        if (host.kind === 'demo') connectionLog.write(hostId, 'info', 'Reading the simulated box (local processes, no SSH).');
        const inventory = await collectInventory(boxCommandRunner(transport));
        // The pool reports SSH states; the demo lab's state only changes here, e.g. back from an earlier failure.
        if (host.kind === 'demo') events.emit('hosts:state', connections.stateOf(hostId));
        return { ...inventory, hostId };
      } catch (error) {
        connections.noteFailure(hostId, error);
        throw error;
      } finally {
        transport?.release();
      }
    },

    'hosts:cluster': async ({ hostId }) => {
      const host = hosts.get(hostId);
      if (!isSlurmCluster(host)) {
        throw new ServelabError(
          'NOT_SUPPORTED',
          `${host.label} is not marked as a Slurm cluster's login node: edit the host and mark it as a Slurm cluster to read its partitions and GPUs.`,
        );
      }
      let transport: BoxTransport | undefined;
      try {
        transport = await connections.transportFor(host);
        connectionLog.write(hostId, 'info', 'Reading the Slurm cluster (sinfo, scontrol, sacctmgr) on the login node.');
        const cluster = await readClusterInventory(transport);
        connections.clusters.set(hostId, cluster);
        return cluster;
      } catch (error) {
        connections.noteFailure(hostId, error);
        throw error;
      } finally {
        transport?.release();
      }
    },

    'hosts:acceptHostKey': async ({ hostId, fingerprint }) => {
      refuseForDemo(hostId, 'host key to accept');
      const pending = takePendingKey(hostId, fingerprint, 'unknown');
      await storeFor(pending).add({ host: pending.host, port: pending.port, keyType: pending.keyType, publicKey: pending.publicKey });
      connectionLog.write(hostId, 'info', `Host key ${pending.keyType} ${pending.fingerprint} of ${pending.host}:${pending.port} accepted and ${keptWhere(pending)}.`);
      log(`host key ${pending.keyType} ${pending.fingerprint} accepted for [${pending.host}]:${pending.port}`);
      return { accepted: hostInfo(pending) };
    },

    'hosts:replaceHostKey': async ({ hostId, fingerprint }) => {
      refuseForDemo(hostId, 'host key to replace');
      const pending = takePendingKey(hostId, fingerprint, 'changed');
      await storeFor(pending).replace({ host: pending.host, port: pending.port, keyType: pending.keyType, publicKey: pending.publicKey });
      connectionLog.write(
        hostId,
        'warn',
        `Host key of ${pending.host}:${pending.port} replaced by ${pending.keyType} ${pending.fingerprint} at the user's explicit request` +
          (pending.keptInMemory ? `, kept in ${KEPT_IN_MEMORY}` : '') +
          (pending.expectedFingerprint ? ` (was ${pending.expectedFingerprint}).` : '.'),
      );
      log(`host key for [${pending.host}]:${pending.port} replaced with ${pending.fingerprint}`);
      return { replaced: hostInfo(pending) };
    },

    'prompts:pending': async () =>
      prompts.pending().map((p) => ({
        requestId: p.id,
        hostId: p.hostId,
        kind: p.kind,
        title: p.title,
        message: p.message,
        prompts: p.prompts,
        ...(p.about ? { about: p.about } : {}),
        allowRemember: p.remember ?? false,
        expiresAt: p.expiresAt,
      })),

    'prompts:answer': async ({ requestId, answers, remember }) => ({ accepted: prompts.answer(requestId, { answers, remember }) }),

    'prompts:cancel': async ({ requestId }) => ({ cancelled: prompts.cancel(requestId) }),
  };
}
