import { join } from 'node:path';
import { EventBus } from './dispatch/event-bus';
import { createDispatcher, type CallHandlers, type Dispatch } from './dispatch/dispatcher';
import { APP_NAME, APP_VERSION } from './dispatch/app-identity';
import { HostStore } from './hosts/host-store';
import { HostConnections } from './hosts/host-connections';
import { hostHandlers, writeDemoLabIntro } from './hosts/host-handlers';
import { MemorySecretStore, type SecretStore } from './secrets/secret-store';
import { namedSecretKey, passphraseKey, passwordKey } from './secrets/secret-keys';
import { sshSetup } from './ssh/ssh-setup';
import { SshConnectionPool, type ReconnectPolicy } from './ssh/connection-pool';
import { PromptBroker } from './ssh/prompt-broker';
import { ConnectionLog } from './ssh/connection-log';
import type { AuthSecrets, RememberedSecret } from './ssh/auth-plan';
import { JobRegistry } from './jobs/job-registry';
import type { BoxTransport } from './box/box-transport';
import { demoLabHost, type SimboxNode } from './box/demo-lab';
import { ServelabError, type CallName } from '../shared/contract';
import { DEMO_LAB_HOST_ID, isSlurmCluster, type Host } from '../shared/model/host';
import { engineHandlers } from './engines/engine-handlers';
import { modelHandlers } from './engines/model-handlers';
import { secretHandlers } from './secrets/secret-handlers';
import { SecretRefIndex } from './secrets/secret-ref-index';
import { ResultsLibrary } from './results/results-library';
import { benchHandlers } from './bench/bench-handlers';
import type { StudyBox, StudyRunnerDeps } from './study/study-runner';
import { studyHandlers } from './study/study-handlers';
import { ProjectTrust } from './study/project-trust';
import { SaveGrants } from './study/export-target';
import { RecentProjects } from './study/recent-projects';
import { resolveExamplesDir } from './study/examples-path';
import { OpenRequests } from './study/open-requests';
import type { ClusterInventory } from '../shared/model/cluster';

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
  /** The Node.js the simulated tools run on; default: the one running the core (see SimboxNode). */
  simboxNode?: SimboxNode;
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
  /** The last `hosts:cluster` read of a Slurm host since the core started, or null. */
  lastClusterInventory(hostId: string): ClusterInventory | null;
  /** The jobs started through box().jobs(), kept in <dataDir>/jobs.json to re-attach after a restart. */
  jobRegistry(): Promise<JobRegistry>;
  /** What a study run needs of the app: boxes, host names, the keychain, and the results library for its entries. */
  studyDeps(): StudyRunnerDeps;
  /**
   * Project files the system asked to open (a double-click, the command line, a second launch), for the window to
   * take with `app:openRequests`. Only absolute `.servelab` paths are kept; returns those.
   */
  requestOpen(paths: readonly string[]): string[];
  close(): Promise<void>;
}

/** Builds the headless core: services, state and the contract's handlers. Runs in plain Node, no Electron. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const log = options.log ?? (() => {});
  const env = options.env ?? process.env;
  const ssh = sshSetup({
    dataDir: options.dataDir,
    env,
    appKnownHostsFile: options.appKnownHostsFile,
    userKnownHostsFiles: options.userKnownHostsFiles,
    sshConfigPath: options.sshConfigPath,
  });
  const { knownHosts } = ssh;
  const events = new EventBus();
  const secrets: SecretStore = options.secrets ?? new MemorySecretStore();
  const hosts = await HostStore.open(join(options.dataDir, 'hosts.json'));
  const results = await ResultsLibrary.open(join(options.dataDir, 'results', 'library.json'));
  if (hosts.problem) log(`hosts: ${hosts.problem}`);
  const simboxBinDir = options.simboxBinDir ?? null;
  if (simboxBinDir) await hosts.ensureBuiltIn(demoLabHost());
  const connectionLog = new ConnectionLog();
  const prompts = new PromptBroker({ timeoutMs: options.promptTimeoutMs === undefined ? 5 * 60_000 : options.promptTimeoutMs, whenNobodyListens: 'wait' });
  const authSecrets: AuthSecrets = {
    passphrase: (identityFile) => secrets.get(passphraseKey(identityFile)),
    remember: async (secret: RememberedSecret, value: string) =>
      secrets.set(secret.kind === 'passphrase' ? passphraseKey(secret.identityFile) : passwordKey(secret), value),
  };
  const pool = new SshConnectionPool({
    knownHosts,
    timeoutSeconds: options.connectTimeoutSeconds ?? 20,
    prompts,
    log: connectionLog,
    secrets: authSecrets,
    ...(options.reconnect ? { reconnect: options.reconnect } : {}),
  });

  const connections = new HostConnections({
    hosts,
    pool,
    events,
    secrets,
    resolveTarget: (spec) => ssh.resolve(spec),
    resolveHost: (spec) => ssh.resolveHost(spec),
    dataDir: options.dataDir,
    simboxBinDir,
    ...(options.simboxNode ? { simboxNode: options.simboxNode } : {}),
    connectionLog,
  });
  // Boxes handed out by box() and not yet released: closing the core releases them.
  const liveBoxes = new Set<BoxTransport>();
  let registryOpening: Promise<JobRegistry> | undefined;

  const isDemo = (hostId: string): boolean => connections.isDemo(hostId);
  if (simboxBinDir && isDemo(DEMO_LAB_HOST_ID)) writeDemoLabIntro(connectionLog);

  function jobRegistry(): Promise<JobRegistry> {
    registryOpening ??= JobRegistry.open(join(options.dataDir, 'jobs.json')).catch((error: unknown) => {
      registryOpening = undefined;
      throw error;
    });
    return registryOpening;
  }

  // Files the user picked in a save dialog: studies:export writes outside the project only to one of these.
  const saveGrants = new SaveGrants();
  const openRequests = new OpenRequests(() => events.emit('app:openRequested', {}));
  const handlers: CallHandlers = {
    'app:openRequests': async () => ({ paths: openRequests.take() }),
    'app:info': async () => ({
      name: APP_NAME,
      version: APP_VERSION,
      dataDir: options.dataDir,
      problems: [
        hosts.problem,
        results.problem,
        (await secrets.problem?.()) ?? null,
        await jobRegistry().then((r) => r.problem, (error: unknown) => (error as Error).message),
      ].filter((p): p is string => p !== null),
    }),

    ...hostHandlers({
      hosts,
      connections,
      pool,
      prompts,
      knownHosts,
      connectionLog,
      secrets,
      events,
      sshConfigPath: ssh.sshConfigPath,
      env,
      hasDemoLab: simboxBinDir !== null,
      log,
    }),

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
      const path = await options.dialogs.save(input);
      return { path, saveHandle: path === null ? null : saveGrants.issue(path) };
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
      trust: new ProjectTrust(options.dataDir),
      exportsDir: join(options.dataDir, 'exports'),
      saveGrants,
    }),
  };

  const dispatch = createDispatcher(handlers, log);

  /** A transport to the host as it is configured (SSH, or local processes for the demo lab), released by its user. */
  const transportOf = async (host: Host): Promise<BoxTransport> => {
    const registry = await jobRegistry();
    let transport: BoxTransport | undefined;
    const onRelease = () => {
      if (transport) liveBoxes.delete(transport);
    };
    try {
      transport = await connections.transportFor(host, { registry, onRelease, onConnectError: (error) => connections.noteFailure(host.id, error) });
    } catch (error) {
      connections.noteFailure(host.id, error);
      throw error;
    }
    liveBoxes.add(transport);
    return transport;
  };

  /** A Slurm cluster's login node, for a study's jobs: submitted, watched and cancelled there, run on compute nodes. */
  const loginBox = async (hostId: string): Promise<BoxTransport> => {
    const host = hosts.get(hostId);
    if (!isSlurmCluster(host)) throw new ServelabError('BAD_INPUT', `${host.label} is not marked as a Slurm cluster's login node.`);
    return transportOf(host);
  };

  const studyDeps = (): StudyRunnerDeps => ({
    box: (hostId) => core.box(hostId) as Promise<StudyBox>,
    loginBox: (hostId) => loginBox(hostId) as Promise<StudyBox>,
    isCluster: (hostId) => {
      const host = hosts.list().find((h) => h.id === hostId);
      return host !== undefined && isSlurmCluster(host);
    },
    clusterInventory: (hostId) => connections.clusters.get(hostId) ?? null,
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
      await connections.ensureDemoBox(hostId);
      const host = hosts.get(hostId);
      // A login node is no GPU box: engines, servers and benchmarks run there only inside a study's batch jobs.
      if (isSlurmCluster(host)) {
        throw new ServelabError(
          'NOT_SUPPORTED',
          `${host.label} is a Slurm cluster's login node: servers and benchmarks run there only as a study's batch jobs, never on the login node itself.`,
        );
      }
      return transportOf(host);
    },
    lastClusterInventory: (hostId) => connections.clusters.get(hostId) ?? null,
    jobRegistry,
    requestOpen: (paths) => openRequests.add(paths),
    async close() {
      prompts.cancelAll();
      connections.held.clear();
      for (const transport of [...liveBoxes]) transport.release();
      await pool.closeAll();
      const registry = await registryOpening?.catch(() => undefined);
      await registry?.flush().catch(() => {});
    },
  };
  return core;
}
