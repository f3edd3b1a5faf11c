import { join } from 'node:path';
import { homedir, userInfo } from 'node:os';
import { EventBus } from './dispatch/event-bus';
import { createDispatcher, type CallHandlers, type Dispatch } from './dispatch/dispatcher';
import { HostStore, type NewHost } from './hosts/host-store';
import { MemorySecretStore, type SecretStore } from './secrets/secret-store';
import { KnownHostsStore } from './ssh/known-hosts';
import { SshConnectionPool, type ConnectionStateEvent, type ReconnectPolicy } from './ssh/connection-pool';
import { PromptBroker } from './ssh/prompt-broker';
import { ConnectionLog } from './ssh/connection-log';
import type { AuthSecrets, RememberedSecret } from './ssh/auth-plan';
import { resolveTarget, type HostSpec, type ResolvedSshTarget } from './ssh/ssh-target';
import { listSshConfigAliases } from './ssh/ssh-config';
import { collectInventory } from './inventory/collect';
import { boxCommandRunner } from './inventory/collect-over-ssh';
import { JobRegistry } from './jobs/job-registry';
import type { BoxTransport } from './box/box-transport';
import { SshBoxTransport } from './box/ssh-box-transport';
import { DEMO_LAB_LABEL, demoLabHost, demoLabPaths, demoLabTransport, prepareDemoBox } from './box/demo-lab';
import type { LocalBoxTransport } from './box/local-box-transport';
import { ServelabError, type CallName } from '../shared/contract';
import { DEMO_LAB_HOST_ID, type Host, type HostKeyInfo, type HostStateEvent } from '../shared/model/host';
import { APP_NAME, APP_VERSION } from './dispatch/app-identity';
import { engineHandlers } from './engines/engine-handlers';
import { modelHandlers } from './engines/model-handlers';
import { secretHandlers } from './secrets/secret-handlers';
import { namedSecretKey, passphraseKey, passwordKey } from './secrets/secret-keys';
import { SecretRefIndex } from './secrets/secret-ref-index';
import { ResultsLibrary } from './results/results-library';
import { benchHandlers } from './bench/bench-handlers';
import type { StudyBox, StudyRunnerDeps } from './study/study-runner';
import { studyHandlers } from './study/study-handlers';
import { RecentProjects } from './study/recent-projects';
import { resolveExamplesDir } from './study/examples-path';

export interface CoreOptions {
  /** Folder for hosts.json, the app's known_hosts and other state. */
  dataDir: string;
  /** Native file dialogs; only the desktop app has them. */
  dialogs?: FileDialogs;
  /** Where the example studies are; default: found beside the app (null: none). */
  examplesDir?: string | null;
  secrets?: SecretStore;
  /** The app's own known_hosts, where accepted keys are written (default: <dataDir>/known_hosts). */
  appKnownHostsFile?: string;
  /** Read-only known_hosts files trusted besides the app's own (default: ~/.ssh/known_hosts). */
  userKnownHostsFiles?: string[];
  /** The OpenSSH client config aliases come from (default: ~/.ssh/config). */
  sshConfigPath?: string;
  /** Environment for ssh-config tokens and the agent socket (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Seconds before one connection attempt gives up. */
  connectTimeoutSeconds?: number;
  /** How long a question to the user (passphrase, 2FA code) waits; null waits for ever. */
  promptTimeoutMs?: number | null;
  reconnect?: Partial<ReconnectPolicy>;
  /**
   * The simulated GPU box's `bin/` folder (see resolveSimboxBinDir in src/core/box/simbox-path.ts). When set, the
   * built-in demo lab is offered: present on first start, restorable after the user removed it.
   */
  simboxBinDir?: string | null;
  log?: (line: string) => void;
}

/** Native save / open dialogs (the desktop app's window); a null path means the user cancelled. */
export interface FileDialogs {
  save(opts: { title: string; defaultName: string; extensions: string[] }): Promise<string | null>;
  open(opts: { title: string; extensions: string[] }): Promise<string | null>;
}

export interface Core {
  readonly dispatch: Dispatch;
  readonly events: EventBus;
  /** Direct, typed access for in-process callers such as the CLI. */
  call<N extends CallName>(name: N, input: unknown): Promise<unknown>;
  /**
   * The host's GPU box for in-process features (engines, benchmarks, studies); not part of the contract. SSH
   * hosts go through the connection pool (a failure to connect shows in the host's state, as for any other use),
   * the demo lab through local processes. Jobs started through it are recorded in jobRegistry(). The caller
   * must `release()` it when done; detached jobs outlive that.
   */
  box(hostId: string): Promise<BoxTransport>;
  /** The jobs started through box().jobs(), kept in <dataDir>/jobs.json to re-attach after a restart. */
  jobRegistry(): Promise<JobRegistry>;
  /** What a study run needs of the app: boxes, host names, the keychain, and the results library for its entries. */
  studyDeps(): StudyRunnerDeps;
  close(): Promise<void>;
}

type PendingKey = HostKeyInfo & { publicKey: string; problem: 'unknown' | 'changed' };

function toStateEvent(event: ConnectionStateEvent): HostStateEvent {
  const out: HostStateEvent = { hostId: event.hostId, state: event.state };
  if (event.reason) out.message = event.reason;
  if (event.attempt !== undefined) out.attempt = event.attempt;
  if (event.delayMs !== undefined) out.retryInSeconds = Math.round(event.delayMs / 100) / 10;
  return out;
}

/** Builds the headless core: services, state and the contract's handlers. Runs in plain Node, no Electron. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const home = env.HOME || homedir();
  const sshConfigPath = options.sshConfigPath ?? join(home, '.ssh', 'config');
  const events = new EventBus();
  const secrets = options.secrets ?? new MemorySecretStore();
  const hosts = await HostStore.open(join(options.dataDir, 'hosts.json'));
  const results = await ResultsLibrary.open(join(options.dataDir, 'results', 'library.json'));
  if (hosts.problem) log(`hosts: ${hosts.problem}`);
  const simboxBinDir = options.simboxBinDir ?? null;
  if (simboxBinDir) await hosts.ensureBuiltIn(demoLabHost());
  const knownHosts = new KnownHostsStore({
    appFile: options.appKnownHostsFile ?? join(options.dataDir, 'known_hosts'),
    readOnlyFiles: options.userKnownHostsFiles ?? [join(home, '.ssh', 'known_hosts')],
  });
  const connectionLog = new ConnectionLog();
  const prompts = new PromptBroker({ timeoutMs: options.promptTimeoutMs === undefined ? 5 * 60_000 : options.promptTimeoutMs, whenNobodyListens: 'wait' });
  const authSecrets: AuthSecrets = {
    passphrase: (identityFile) => secrets.get(passphraseKey(identityFile)),
    remember: async (secret: RememberedSecret, value: string) => {
      await secrets.set(secret.kind === 'passphrase' ? passphraseKey(secret.identityFile) : passwordKey(secret), value);
    },
  };
  const pool = new SshConnectionPool({
    knownHosts,
    timeoutSeconds: options.connectTimeoutSeconds ?? 20,
    prompts,
    log: connectionLog,
    secrets: authSecrets,
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
  });

  // Keys shown to the user but not yet trusted, by host id: accepting stores exactly the key that was shown.
  const pendingKeys = new Map<string, PendingKey>();
  // Hosts the user asked to keep connected (hosts:connect) hold one pool reference each (the demo lab needs none).
  const held = new Set<string>();
  // Boxes handed out by box() and not yet released: closing the core releases them.
  const liveBoxes = new Set<BoxTransport>();
  let registryOpening: Promise<JobRegistry> | undefined;
  let demoPreparing: Promise<void> | undefined;

  const isDemo = (hostId: string): boolean => hosts.list().some((h) => h.id === hostId && h.kind === 'demo');

  const stateOf = (hostId: string): HostStateEvent =>
    isDemo(hostId)
      ? { hostId, state: held.has(hostId) ? 'ready' : 'idle', held: held.has(hostId) }
      : { ...toStateEvent(pool.state(hostId)), held: held.has(hostId) };

  const demoIntro = () =>
    connectionLog.write(
      DEMO_LAB_HOST_ID,
      'info',
      `${DEMO_LAB_LABEL}: a simulated GPU box (Servelab simbox) run as local processes on this machine, no SSH and no host key. ` +
        'Its numbers come from a performance model, never from a real GPU.',
    );
  if (simboxBinDir && isDemo(DEMO_LAB_HOST_ID)) demoIntro();

  pool.onState((event) => {
    // A held connection that failed for good (key or auth problem) needs the user: let go of it.
    if (event.state === 'failed' && held.delete(event.hostId)) pool.release(event.hostId);
    events.emit('hosts:state', { ...toStateEvent(event), held: held.has(event.hostId) });
  });
  connectionLog.subscribe((hostId, entry) => events.emit('hosts:log', { hostId, entry }));
  prompts.onRequest((prompt) =>
    events.emit('prompts:request', {
      requestId: prompt.id,
      hostId: prompt.hostId,
      kind: prompt.kind,
      title: prompt.title,
      message: prompt.message,
      prompts: prompt.prompts,
      allowRemember: prompt.remember ?? false,
      expiresAt: prompt.expiresAt,
    }),
  );
  prompts.onSettled((settled) => events.emit('prompts:settled', { requestId: settled.id, hostId: settled.hostId, outcome: settled.outcome }));

  const broadcastHosts = () => events.emit('hosts:changed', { hosts: hosts.list() });

  function specOf(host: Pick<Host, 'alias' | 'address' | 'user' | 'port' | 'identityFile' | 'proxyJump'>): HostSpec {
    const spec: HostSpec = host.alias ? { alias: host.alias } : { address: host.address };
    if (host.user) spec.user = host.user;
    if (host.port) spec.port = host.port;
    if (host.identityFile) spec.identityFile = host.identityFile;
    if (host.proxyJump) spec.proxyJump = host.proxyJump;
    return spec;
  }

  function resolve(host: Pick<Host, 'alias' | 'address' | 'user' | 'port' | 'identityFile' | 'proxyJump'>): ResolvedSshTarget {
    return resolveTarget(specOf(host), { configPath: sshConfigPath, env, home, localUser: env.USER || env.LOGNAME || userInfo().username });
  }

  async function targetFor(host: Host): Promise<ResolvedSshTarget> {
    const target = resolve(host);
    const saved = await secrets.get(passwordKey(target));
    if (saved !== null) target.password = saved;
    return target;
  }

  /** Remembers an unknown or changed host key for the dialogs, and reports the failure as the host's state. */
  function noteFailure(hostId: string, error: unknown): void {
    if (error instanceof ServelabError && (error.code === 'HOST_KEY_UNKNOWN' || error.code === 'HOST_KEY_CHANGED') && error.details) {
      const d = error.details as Partial<PendingKey>;
      if (typeof d.publicKey === 'string' && typeof d.host === 'string' && typeof d.port === 'number' && d.keyType && d.fingerprint) {
        pendingKeys.set(hostId, {
          host: d.host,
          port: d.port,
          keyType: d.keyType,
          fingerprint: d.fingerprint,
          publicKey: d.publicKey,
          ...(d.expectedFingerprint ? { expectedFingerprint: d.expectedFingerprint } : {}),
          problem: error.code === 'HOST_KEY_UNKNOWN' ? 'unknown' : 'changed',
        });
      }
    }
    events.emit('hosts:state', { hostId, state: 'failed', message: error instanceof Error ? error.message : String(error), held: held.has(hostId) });
  }

  function jobRegistry(): Promise<JobRegistry> {
    registryOpening ??= JobRegistry.open(join(options.dataDir, 'jobs.json')).catch((error: unknown) => {
      registryOpening = undefined;
      throw error;
    });
    return registryOpening;
  }

  function demoTransport(extra: { registry?: JobRegistry; onRelease?: () => void }): LocalBoxTransport {
    if (!simboxBinDir) {
      throw new ServelabError('NOT_SUPPORTED', 'The demo lab needs the simulated GPU box shipped with Servelab (resources/simbox), and this installation has none.');
    }
    return demoLabTransport({ dataDir: options.dataDir, simboxBinDir, ...extra });
  }

  /** Sets up the simulated box on first use; concurrent first uses share one setup. */
  async function prepareDemo(transport: LocalBoxTransport): Promise<void> {
    demoPreparing ??= prepareDemoBox(transport, demoLabPaths(options.dataDir)).finally(() => {
      demoPreparing = undefined;
    });
    await demoPreparing;
  }

  /**
   * How this core reaches the host's box: SSH hosts through the pool (the pooled connection is taken on first use
   * and held until release()), the demo lab through local processes.
   */
  async function transportFor(
    host: Host,
    extra: { registry?: JobRegistry; onConnectError?: (error: unknown) => void; onRelease?: () => void } = {},
  ): Promise<BoxTransport> {
    if (host.kind === 'demo') {
      const transport = demoTransport(extra);
      try {
        await prepareDemo(transport);
      } catch (error) {
        transport.release();
        throw error;
      }
      return transport;
    }
    return new SshBoxTransport({ hostId: host.id, pool, target: await targetFor(host), ...extra });
  }

  function refuseForDemo(hostId: string, what: string): void {
    if (isDemo(hostId)) throw new ServelabError('NOT_SUPPORTED', `${DEMO_LAB_LABEL} runs on this machine without SSH: it has no ${what}.`);
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

  const hostInfo = ({ publicKey: _key, problem: _problem, ...info }: PendingKey): HostKeyInfo => info;

  async function rememberPassword(fields: Pick<Host, 'alias' | 'address' | 'user' | 'port' | 'identityFile' | 'proxyJump'>, password: string) {
    await secrets.set(passwordKey(resolve(fields)), password);
  }

  const handlers: CallHandlers = {
    'app:info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      dataDir: options.dataDir,
      problems: [hosts.problem, results.problem].filter((p): p is string => p !== null),
    }),

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
        hasSavedPassword: input.password !== undefined,
      };
      // Resolve now, as `ssh` would, so a wrong alias or ProxyJump is reported before anything is saved.
      const target = resolve(fields);
      if (fields.alias) fields.address = target.host;
      fields.label = input.label || (fields.alias ?? `${target.user}@${target.host}`);
      if (input.password !== undefined) await rememberPassword(fields, input.password);
      const host = await hosts.add(fields);
      broadcastHosts();
      return host;
    },

    'hosts:update': async ({ hostId, password, forgetPassword, ...patch }) => {
      const existing = hosts.get(hostId);
      if (existing.kind === 'demo') {
        const given = { ...patch, password, forgetPassword };
        const sshFields = (['address', 'port', 'user', 'identityFile', 'proxyJump', 'password', 'forgetPassword'] as const).filter((key) => given[key] !== undefined);
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
      for (const key of ['label', 'address', 'port', 'user', 'identityFile', 'proxyJump'] as const) {
        if (patch[key] !== undefined) (changes as Record<string, unknown>)[key] = patch[key];
      }
      const next = { ...existing, ...changes };
      const target = resolve(next);
      if (next.alias) changes.address = target.host;
      if (forgetPassword) {
        await secrets.delete(passwordKey(resolve(existing)));
        changes.hasSavedPassword = false;
      }
      if (password !== undefined) {
        await rememberPassword(next, password);
        changes.hasSavedPassword = true;
      }
      const updated = await hosts.update(hostId, changes);
      // The next connection must use the new settings.
      if (held.delete(hostId)) pool.release(hostId);
      pendingKeys.delete(hostId);
      broadcastHosts();
      return updated;
    },

    'hosts:remove': async ({ hostId }) => {
      const existing = hosts.list().find((h) => h.id === hostId);
      const removed = await hosts.remove(hostId);
      if (removed && existing) {
        // A remembered password goes too, unless another host still logs in with it.
        if (existing.hasSavedPassword) {
          const keyOf = (h: Host): string | null => {
            try {
              return passwordKey(resolve(h));
            } catch {
              return null;
            }
          };
          const key = keyOf(existing);
          if (key && !hosts.list().some((h) => h.hasSavedPassword && keyOf(h) === key)) await secrets.delete(key);
        }
        if (held.delete(hostId) && existing.kind === 'ssh') pool.release(hostId);
        prompts.cancelAll(hostId);
        connectionLog.clear(hostId);
        pendingKeys.delete(hostId);
        broadcastHosts();
      }
      return { removed };
    },

    'hosts:sshConfigAliases': async () => {
      const aliases = listSshConfigAliases(sshConfigPath, { env });
      return {
        configPath: sshConfigPath,
        aliases: aliases.map((a) => ({ alias: a.alias, hostName: a.hostName, user: a.user ?? null, port: a.port ?? null, proxyJump: a.proxyJump ?? null })),
      };
    },

    'hosts:restoreDemoLab': async () => {
      if (!simboxBinDir) {
        throw new ServelabError('NOT_SUPPORTED', 'The demo lab needs the simulated GPU box shipped with Servelab (resources/simbox), and this installation has none.');
      }
      const wasListed = isDemo(DEMO_LAB_HOST_ID);
      const host = await hosts.restoreBuiltIn(demoLabHost());
      if (!wasListed) {
        demoIntro();
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
          events.emit('hosts:state', stateOf(hostId));
        }
        return stateOf(hostId);
      }
      if (!held.has(hostId)) {
        try {
          await pool.acquire(hostId, await targetFor(host));
          held.add(hostId);
        } catch (error) {
          noteFailure(hostId, error);
          throw error;
        }
      }
      return stateOf(hostId);
    },

    'hosts:disconnect': async ({ hostId }) => {
      const host = hosts.get(hostId);
      if (held.delete(hostId) && host.kind === 'ssh') pool.release(hostId);
      const state = stateOf(hostId);
      events.emit('hosts:state', state);
      return state;
    },

    'hosts:states': async () => hosts.list().map((h) => stateOf(h.id)),

    'hosts:connectionLog': async ({ hostId }) => {
      hosts.get(hostId);
      return { entries: connectionLog.entries(hostId) };
    },

    'hosts:inventory': async ({ hostId }) => {
      const host = hosts.get(hostId);
      let transport: BoxTransport | undefined;
      try {
        transport = await transportFor(host);
        if (host.kind === 'demo') connectionLog.write(hostId, 'info', 'Reading the simulated box (local processes, no SSH).');
        const inventory = await collectInventory(boxCommandRunner(transport));
        // The pool reports SSH states; the demo lab's state only changes here, e.g. back from an earlier failure.
        if (host.kind === 'demo') events.emit('hosts:state', stateOf(hostId));
        return { ...inventory, hostId };
      } catch (error) {
        noteFailure(hostId, error);
        throw error;
      } finally {
        transport?.release();
      }
    },

    'hosts:acceptHostKey': async ({ hostId, fingerprint }) => {
      refuseForDemo(hostId, 'host key to accept');
      const pending = takePendingKey(hostId, fingerprint, 'unknown');
      await knownHosts.add({ host: pending.host, port: pending.port, keyType: pending.keyType, publicKey: pending.publicKey });
      connectionLog.write(hostId, 'info', `Host key ${pending.keyType} ${pending.fingerprint} of ${pending.host}:${pending.port} accepted and saved.`);
      log(`host key ${pending.keyType} ${pending.fingerprint} accepted for [${pending.host}]:${pending.port}`);
      return { accepted: hostInfo(pending) };
    },

    'hosts:replaceHostKey': async ({ hostId, fingerprint }) => {
      refuseForDemo(hostId, 'host key to replace');
      const pending = takePendingKey(hostId, fingerprint, 'changed');
      await knownHosts.replace({ host: pending.host, port: pending.port, keyType: pending.keyType, publicKey: pending.publicKey });
      connectionLog.write(
        hostId,
        'warn',
        `Host key of ${pending.host}:${pending.port} replaced by ${pending.keyType} ${pending.fingerprint} at the user's explicit request` +
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
        allowRemember: p.remember ?? false,
        expiresAt: p.expiresAt,
      })),

    'prompts:answer': async ({ requestId, answers, remember }) => ({ accepted: prompts.answer(requestId, { answers, remember }) }),

    'prompts:cancel': async ({ requestId }) => ({ cancelled: prompts.cancel(requestId) }),

    // Secret env of a server config lives under its own keychain prefix, so a config cannot name an SSH password.
    ...engineHandlers({
      events,
      box: (hostId) => core.box(hostId),
      resolveSecret: (ref) => secrets.get(namedSecretKey(ref)),
      checkDockerAllowed: (hostId) => {
        if (isDemo(hostId)) {
          throw new ServelabError('BAD_INPUT', 'The demo lab has no docker: it simulates a box with Python environments only. Use the default mode, or a GPU box over SSH that has docker.', {
            issues: [{ path: 'mode', message: 'docker mode is not available on the demo lab' }],
          });
        }
      },
    }),
    // Named secrets (hf-token, …) are stored under that same prefix; their names are listed in secret-refs.json.
    ...secretHandlers({ secrets, index: new SecretRefIndex(join(options.dataDir, 'secret-refs.json')) }),
    ...modelHandlers({ events, box: (hostId) => core.box(hostId), resolveSecret: (ref) => secrets.get(namedSecretKey(ref)) }),
    ...benchHandlers({
      events,
      box: (hostId) => core.box(hostId),
      results,
      runsDir: join(options.dataDir, 'runs'),
      isDemo,
      hostLabel: (hostId) => hosts.list().find((h) => h.id === hostId)?.label ?? hostId,
    }),
    'dialogs:saveFile': async (input) => {
      if (!options.dialogs) throw new ServelabError('NOT_SUPPORTED', 'File dialogs exist only in the desktop app.');
      return { path: await options.dialogs.save(input) };
    },
    'dialogs:openFile': async (input) => {
      if (!options.dialogs) throw new ServelabError('NOT_SUPPORTED', 'File dialogs exist only in the desktop app.');
      return { path: await options.dialogs.open(input) };
    },
    ...studyHandlers({
      events,
      runner: () => studyDeps(),
      examplesDir: options.examplesDir !== undefined ? options.examplesDir : resolveExamplesDir(),
      recent: new RecentProjects(join(options.dataDir, 'recent-projects.json')),
    }),
  };

  const dispatch = createDispatcher(handlers, log);

  const studyDeps = (): StudyRunnerDeps => ({
    box: (hostId) => core.box(hostId) as Promise<StudyBox>,
    isDemo,
    hostLabel: (hostId) => hosts.list().find((h) => h.id === hostId)?.label ?? hostId,
    resolveSecret: (ref) => secrets.get(namedSecretKey(ref)),
    onResult: (entry) => {
      void results
        .add([{ kind: entry.kind, status: entry.status, title: entry.title, ...(entry.error ? { error: entry.error } : {}), ...(entry.command ? { command: entry.command } : {}), ...(entry.logTail ? { logTail: entry.logTail } : {}), result: entry.result }])
        .then(() => events.emit('results:changed', {}))
        .catch((error: unknown) => log(`results library: ${(error as Error).message}`));
    },
  });

  const core: Core = {
    dispatch,
    events,
    studyDeps,
    async call(name, input) {
      const envelope = await dispatch(name, input);
      if (!envelope.ok) throw ServelabError.fromInfo(envelope.error);
      return envelope.data;
    },
    async box(hostId) {
      const host = hosts.get(hostId);
      const registry = await jobRegistry();
      let transport: BoxTransport | undefined;
      const onRelease = () => {
        if (transport) liveBoxes.delete(transport);
      };
      try {
        transport = await transportFor(host, { registry, onRelease, onConnectError: (error) => noteFailure(hostId, error) });
      } catch (error) {
        noteFailure(hostId, error);
        throw error;
      }
      liveBoxes.add(transport);
      return transport;
    },
    jobRegistry,
    async close() {
      prompts.cancelAll();
      held.clear();
      for (const transport of [...liveBoxes]) transport.release();
      await pool.closeAll();
      const registry = await registryOpening?.catch(() => undefined);
      await registry?.flush().catch(() => {});
    },
  };
  return core;
}
