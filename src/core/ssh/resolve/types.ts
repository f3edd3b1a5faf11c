// The one shape a host resolves to, whichever way it was resolved: by asking OpenSSH (`ssh -G`) or by the
// built-in reader of ssh_config(5) for machines without an OpenSSH client. Both paths fill `RawSshOptions`
// (what `ssh -G` prints), and `finishResolution` turns that into a `ResolvedSshHost` the same way for both.

/** What the user asked for, as on ssh's command line. */
export interface SshResolveRequest {
  /** The destination as typed: an alias or an address (no `user@`: that is `user`). */
  destination: string;
  /** `-F FILE`: the only config read. Absent: `~/.ssh/config`, then the system-wide file. */
  configFile?: string;
  /** `-l USER` (or the `user@` of the destination). */
  user?: string;
  /** `-p PORT`. */
  port?: number;
  /** `-i FILE`, in order; tried before the config's IdentityFile. */
  identityFiles?: string[];
  /** `-J HOPS`; `none` turns the config's ProxyJump off. */
  proxyJump?: string;
  /** `-o HostName=…`: a saved host's address that overrides the alias's HostName. */
  hostName?: string;
}

/**
 * The local account and machine, as ssh sees them: `~`, `%d`, `%u`, `%l` come from the passwd entry and the
 * host name, never from $HOME or $USER.
 */
export interface SshResolveContext {
  /** For `${VAR}` and SSH_AUTH_SOCK. */
  env: NodeJS.ProcessEnv;
  localUser: string;
  home: string;
  uid: number;
  /** gethostname(): `%l` (and `%L`, its first label). */
  localHostname: string;
  /** The user's login shell, which runs `Match exec` and ProxyCommand. */
  shell: string;
  /** `/etc/ssh/ssh_config` where it is; read only when no `-F` is given. */
  systemConfigFile: string;
}

/** Where a value was set, when it is known. */
export interface ConfigOrigin {
  file: string;
  line: number;
}

/**
 * The options `ssh -G` prints that Servelab uses, keyword in lower case → the printed words (one entry per
 * printed line for the keywords that repeat: identityfile, certificatefile). Values are exactly as printed:
 * `~` and %-tokens that ssh expands only at connect time are still in them.
 *
 * Convention, for both resolvers: for identityfile/certificatefile each entry is the whole text after the keyword
 * on one printed line; for every other keyword the entries are that text split on single spaces
 * (`text.split(' ')`), so `join(' ')` gives the printed text back (ProxyCommand keeps its spacing). A keyword ssh
 * does not print (no identityagent, proxycommand, proxyjump, hostkeyalias or certificatefile set) is absent.
 */
export interface RawSshOptions {
  values: Map<string, string[]>;
  /** Per keyword (and, for the repeating ones, per line: `identityfile#0`), where it came from. */
  origins: Map<string, ConfigOrigin>;
  /**
   * userknownhostsfile/globalknownhostsfile one entry per file, where the resolver knows them apart (the built-in
   * reader). ssh -G joins the files with single spaces and quotes nothing, so a path with a space cannot be told
   * from two paths in `values`.
   */
  fileLists?: Map<string, string[]>;
  /** What ssh printed on stderr though it succeeded (`Identity file … not accessible`), one line each. */
  warnings?: string[];
}

/** The keywords `RawSshOptions` carries. */
export const RESOLVED_KEYWORDS = [
  'hostname',
  'user',
  'port',
  'identityfile',
  'identitiesonly',
  'identityagent',
  'certificatefile',
  'proxyjump',
  'proxycommand',
  'hostkeyalias',
  'stricthostkeychecking',
  'userknownhostsfile',
  'globalknownhostsfile',
  'connecttimeout',
  'connectionattempts',
  'serveraliveinterval',
  'serveralivecountmax',
  'batchmode',
] as const;

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';

/** One jump host, fully resolved (by its own `ssh -G`, or the built-in reader), outermost first. */
export type ResolvedJumpHost = Omit<ResolvedSshHost, 'proxyJump' | 'source'> & {
  /** The name the hop was given as (`jump1`, `bob@jump1:2200` gives `jump1`). */
  alias: string;
};

/** Everything Servelab decides about a host before connecting. */
export interface ResolvedSshHost {
  /** The destination as given (the alias). */
  alias: string;
  hostname: string;
  port: number;
  user: string;
  /** Every IdentityFile in order, `~`, `${VAR}` and %-tokens expanded; missing files included (they are skipped when connecting). */
  identityFiles: string[];
  identitiesOnly: boolean;
  /** The agent socket path, or `none`. */
  identityAgent: string;
  certificateFiles: string[];
  proxyJump: ResolvedJumpHost[];
  /** The ProxyCommand with its %-tokens expanded, or null. */
  proxyCommand: string | null;
  hostKeyAlias: string | null;
  strictHostKeyChecking: StrictHostKeyChecking;
  userKnownHostsFiles: string[];
  globalKnownHostsFiles: string[];
  /** Seconds, or null for the system's default. */
  connectTimeout: number | null;
  connectionAttempts: number;
  /** Seconds; 0 means ssh sends no keepalive (Servelab then uses its own). */
  serverAliveInterval: number;
  serverAliveCountMax: number;
  batchMode: boolean;
  source: 'ssh -G' | 'built-in';
  /** Field name (`user`, `identityFiles#1`) → where it was set, where known. */
  origins: Record<string, ConfigOrigin>;
  /** What ssh said on stderr though it resolved the host (`Identity file … not accessible`), in its words. */
  warnings?: string[];
}

/** What `servelab ssh resolve --json` prints: exactly these keys, in this order. */
export interface ResolveJson {
  hostname: string;
  port: number;
  user: string;
  identityFiles: string[];
  identitiesOnly: boolean;
  identityAgent: string;
  certificateFiles: string[];
  proxyJump: { user: string; hostname: string; port: number; identityFiles: string[] }[];
  proxyCommand: string | null;
  hostKeyAlias: string | null;
  strictHostKeyChecking: StrictHostKeyChecking;
  userKnownHostsFiles: string[];
  connectTimeout: number | null;
  serverAliveInterval: number;
  serverAliveCountMax: number;
  source: 'ssh -G' | 'built-in';
}

export function resolveJson(host: ResolvedSshHost): ResolveJson {
  return {
    hostname: host.hostname,
    port: host.port,
    user: host.user,
    identityFiles: host.identityFiles,
    identitiesOnly: host.identitiesOnly,
    identityAgent: host.identityAgent,
    certificateFiles: host.certificateFiles,
    proxyJump: host.proxyJump.map((hop) => ({ user: hop.user, hostname: hop.hostname, port: hop.port, identityFiles: hop.identityFiles })),
    proxyCommand: host.proxyCommand,
    hostKeyAlias: host.hostKeyAlias,
    strictHostKeyChecking: host.strictHostKeyChecking,
    userKnownHostsFiles: host.userKnownHostsFiles,
    connectTimeout: host.connectTimeout,
    serverAliveInterval: host.serverAliveInterval,
    serverAliveCountMax: host.serverAliveCountMax,
    source: host.source,
  };
}
