import type { CallInput, CallOutput, ErrorInfo, EventPayload } from '../../../shared/contract';
import type { EngineId } from '../../../shared/engines';
import type {
  AddHostInput,
  ConnectionLogEntryView,
  Host,
  HostKeyInfo,
  HostStateEvent,
  SshConfigAliasView,
  UpdateHostInput,
} from '../../../shared/model/host';
import type { Inventory } from '../../../shared/model/inventory';
import type { PromptRequestView } from '../../../shared/model/prompt';
import type { ResultEntry } from '../../../shared/results/result-entry';
import type { LogBuffer } from '../logs/log-buffer';
import type { StudiesSlice } from './studies-slice';
import type { WizardSlice } from './wizard-slice';

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';

/** The outcome of the last inventory read the user started for one host. */
export interface HostRequest {
  loading: boolean;
  error: ErrorInfo | null;
}

/** What the user asked of a host; a host-key decision repeats it once the key is trusted. */
export type HostOperation = 'inventory' | 'connect';

/** A host key as the core presented it, with the hop it belongs to: the target or a jump host on the way. */
export interface PresentedHostKey extends HostKeyInfo {
  role: 'jump' | 'target';
  /** The ~/.ssh/config alias of that hop, when it has one. */
  alias: string | null;
}

/** An unknown host key shown to the user, waiting for accept or cancel. */
export interface HostKeyPrompt {
  hostId: string;
  key: PresentedHostKey;
  retry: HostOperation;
  accepting: boolean;
  error: ErrorInfo | null;
}

/** A hosts:state event with the moment it arrived, so a retry countdown can run from it. */
export interface ReceivedHostState extends HostStateEvent {
  receivedAt: number;
}

/** Whether the user holds the host's connection open (hosts:connect) and whether that call is under way. */
export interface HostHold {
  held: boolean;
  pending: boolean;
}

export interface HostLog {
  /** Oldest first, at most LOG_LIMIT. */
  entries: ConnectionLogEntryView[];
  /** Whether the core's backlog (hosts:connectionLog) has been merged in. */
  status: LoadStatus;
  error: ErrorInfo | null;
}

export interface SshConfigState {
  status: LoadStatus;
  configPath: string | null;
  aliases: SshConfigAliasView[];
  error: ErrorInfo | null;
}

export interface HostsSlice {
  /** As the core last reported them (hosts:list, hosts:changed): the core owns the list. */
  hosts: Host[];
  hostsLoad: { status: LoadStatus; error: ErrorInfo | null };
  /** Latest hosts:state event per host id. */
  connectionByHost: Record<string, ReceivedHostState>;
  holdByHost: Record<string, HostHold>;
  inventoryByHost: Record<string, Inventory>;
  requestByHost: Record<string, HostRequest>;
  /** The last failure of an inventory read or a connect, cleared when the next one starts. */
  errorByHost: Record<string, { error: ErrorInfo; operation: HostOperation }>;
  /** Unknown host keys awaiting a decision, at most one per host; the first is shown. */
  hostKeyPrompts: HostKeyPrompt[];
  logByHost: Record<string, HostLog>;
  sshConfig: SshConfigState;

  loadHosts(): Promise<void>;
  /** Resolves to the stored host; throws the core's ServelabError (BAD_INPUT carries field issues). */
  addHost(input: AddHostInput): Promise<Host>;
  /** Same errors as addHost. */
  updateHost(input: UpdateHostInput): Promise<Host>;
  /** Throws the core's ServelabError when the host could not be removed. */
  removeHost(hostId: string): Promise<void>;
  /** Brings back the built-in demo lab after it was removed; throws the core's ServelabError. */
  restoreDemoLab(): Promise<Host>;
  readInventory(hostId: string): Promise<void>;
  connectHost(hostId: string): Promise<void>;
  disconnectHost(hostId: string): Promise<void>;
  acceptHostKey(hostId: string): Promise<void>;
  dismissHostKeyPrompt(hostId: string): void;
  /** Replaces a changed key after the user's explicit confirmation; throws when the core refuses. */
  replaceHostKey(hostId: string, fingerprint: string): Promise<void>;
  loadConnectionLog(hostId: string): Promise<void>;
  loadSshConfigAliases(): Promise<void>;
  applyHostsChanged(hosts: Host[]): void;
  applyHostState(event: HostStateEvent): void;
  applyHostLog(hostId: string, entry: ConnectionLogEntryView): void;
  /** After the link to the core was down: backlogs may have gaps, so open log panes fetch them again. */
  markLogsStale(): void;
}

export interface PromptsSlice {
  /** Questions from the core waiting for the user, oldest first; the first is shown. */
  prompts: PromptRequestView[];
  /** Why the last answer to a question was refused, by request id. */
  promptErrors: Record<string, ErrorInfo>;
  loadPendingPrompts(): Promise<void>;
  answerPrompt(requestId: string, answers: string[], remember: boolean): Promise<void>;
  cancelPrompt(requestId: string): Promise<void>;
  applyPromptRequest(prompt: PromptRequestView): void;
  applyPromptSettled(requestId: string): void;
}

export type AppInfo = CallOutput<'app:info'>;

export interface AppSlice {
  appInfo: AppInfo | null;
  loadAppInfo(): Promise<void>;
}

export type Theme = 'light' | 'dark';

/** The workbench's pages, as the navigation rail names them. */
export type PageId = 'hosts' | 'engines' | 'studies' | 'results';

export interface UiSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
  /** The UI language, a code with a file in `i18n/` ("en", "tr"). */
  locale: string;
  setLocale(locale: string): void;
  page: PageId;
  showPage(page: PageId): void;
  /** A tab of the open project asked for from outside it (Export report… opens the report); seq tells repeats apart. */
  studyTabRequest: { tab: StudyTabId; seq: number } | null;
  requestStudyTab(tab: StudyTabId): void;
  /** The open project took the request. */
  clearStudyTabRequest(): void;
}

/** The tabs of an open project. */
export type StudyTabId = 'plan' | 'run' | 'results' | 'recommendation' | 'report';

export type InstalledEngine = CallOutput<'engines:list'>[number];
export type InstallPhase = EventPayload<'engines:progress'>['phase'];
export type ServerState = EventPayload<'servers:state'>['state'];
export type LogVerdictView = NonNullable<EventPayload<'servers:state'>['classification']>;
export type StopResult = CallOutput<'servers:stop'>;

export interface InstalledList {
  status: LoadStatus;
  items: InstalledEngine[];
  error: ErrorInfo | null;
}

/** One install the user started, as its events reported it. */
export interface InstallJob {
  jobId: string;
  hostId: string;
  engine: EngineId | null;
  version: string | null;
  phase: InstallPhase | null;
  percent: number | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  done: { ok: boolean; skipped: boolean; message: string } | null;
}

/** One server the user launched, as servers:state and servers:log reported it. */
export interface ServerRun {
  serverId: string;
  hostId: string;
  engine: EngineId;
  version: string;
  port: number;
  command: string;
  state: ServerState;
  classification: LogVerdictView | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  stop: StopResult | null;
  stopping: boolean;
  stopError: ErrorInfo | null;
}

export type EngineMode = InstalledEngine['mode'];
export type SecretEntry = CallOutput<'secrets:list'>[number];
export type ServerOnBox = CallOutput<'servers:onBox'>[number];

/** Names of the stored secrets (never their values), as secrets:list last answered. */
export interface SecretsList {
  status: LoadStatus;
  items: SecretEntry[];
  error: ErrorInfo | null;
}

/** One model prefetch the user started, as models:progress and models:done reported it. */
export interface PrefetchJob {
  jobId: string;
  hostId: string;
  model: string | null;
  done: number;
  total: number | null;
  /** The newest progress line (a file name). */
  line: string | null;
  outcome: { ok: boolean; message: string; localPath: string | null } | null;
}

/** servers:onBox per host: every server recorded on the box, whoever launched it. */
export interface ServersOnBoxList {
  status: LoadStatus;
  items: ServerOnBox[];
  error: ErrorInfo | null;
}

/** A stop of a server from its record on the box, by server id. */
export interface BoxServerStop {
  stopping: boolean;
  result: StopResult | null;
  error: ErrorInfo | null;
}

export interface EnginesSlice {
  /** engines:list per host: the core reads the markers on the box. */
  installedByHost: Record<string, InstalledList>;
  installJobs: Record<string, InstallJob>;
  servers: Record<string, ServerRun>;
  secretsList: SecretsList;
  prefetchJobs: Record<string, PrefetchJob>;
  serversOnBox: Record<string, ServersOnBoxList>;
  boxStops: Record<string, BoxServerStop>;
  loadInstalled(hostId: string): Promise<void>;
  /** Resolves to the job id; throws the core's ServelabError when the install could not start. */
  installEngine(input: CallInput<'engines:install'>): Promise<string>;
  /** Throws the core's ServelabError when the engine could not be removed. */
  removeEngine(input: CallInput<'engines:remove'>): Promise<void>;
  /** Resolves to the server id; throws the core's ServelabError when the launch was refused. */
  launchServer(input: CallInput<'servers:launch'>): Promise<string>;
  stopServer(serverId: string): Promise<void>;
  applyInstallProgress(event: EventPayload<'engines:progress'>): void;
  applyInstallLog(event: EventPayload<'engines:log'>): void;
  applyInstallDone(event: EventPayload<'engines:done'>): void;
  applyServerLog(event: EventPayload<'servers:log'>): void;
  applyServerState(event: EventPayload<'servers:state'>): void;
  loadSecrets(): Promise<void>;
  /** Stores the value in the keychain and lists the names again; throws the core's ServelabError. */
  setSecret(ref: string, value: string): Promise<void>;
  /** Throws the core's ServelabError when the secret could not be removed. */
  removeSecret(ref: string): Promise<void>;
  /** Resolves to the job id; throws the core's ServelabError when the prefetch was refused. */
  startPrefetch(input: CallInput<'models:prefetch'>): Promise<string>;
  applyModelProgress(event: EventPayload<'models:progress'>): void;
  applyModelDone(event: EventPayload<'models:done'>): void;
  loadServersOnBox(hostId: string): Promise<void>;
  /** Stops a server from its record on the box (one another session or the CLI launched), then lists the box again. */
  stopServerOnBox(hostId: string, serverId: string): Promise<void>;
}

export type ImportResultsOutput = CallOutput<'results:import'>;

export interface ResultsSlice {
  /** The results library as the core last listed it, oldest first. */
  results: ResultEntry[];
  resultsLoad: { status: LoadStatus; error: ErrorInfo | null };
  /** The entry whose details are open on the Results page. */
  selectedResultId: string | null;
  loadResults(): Promise<void>;
  /** Sends the files in as few calls as the link allows and merges the answers; throws the core's ServelabError. */
  importResultFiles(files: { name: string; text: string }[]): Promise<ImportResultsOutput>;
  /** Throws the core's ServelabError when nothing could be removed. */
  removeResults(ids: string[]): Promise<void>;
  selectResult(id: string | null): void;
  /** Opens the Results page with this entry's details. */
  showResult(id: string): void;
  /** results:changed: reloads the list if it was ever loaded. */
  applyResultsChanged(): void;
}

/** One benchmark the user started, as its events reported it. */
export interface BenchRun {
  runId: string;
  hostId: string;
  serverId: string;
  /** describeWorkload of what was sent. */
  workload: string;
  done: number;
  total: number | null;
  /** The streamed log; appended in place as events arrive (LogView subscribes to it). */
  log: LogBuffer;
  cancelling: boolean;
  outcome: { ok: boolean; message: string; entryId: string | null } | null;
}

export interface BenchSlice {
  benchRuns: Record<string, BenchRun>;
  /** The newest run per server id. */
  latestBenchByServer: Record<string, string>;
  /** Resolves to the run id; throws the core's ServelabError when the run was refused. */
  startBenchmark(input: CallInput<'bench:run'>): Promise<string>;
  cancelBenchmark(runId: string): Promise<void>;
  applyBenchProgress(event: EventPayload<'bench:progress'>): void;
  applyBenchLog(event: EventPayload<'bench:log'>): void;
  applyBenchDone(event: EventPayload<'bench:done'>): void;
}

export type AppState = HostsSlice & PromptsSlice & AppSlice & UiSlice & EnginesSlice & ResultsSlice & BenchSlice & StudiesSlice & WizardSlice;
export type { LoadedList, OpenStudy, RecentStudy, StudiesSlice, StudyExample, StudyNotice, StudyPlan, StudyStatus } from './studies-slice';
export type { LeaveChoice, WizardSession, WizardSlice } from './wizard-slice';
