import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from './known-hosts';
import { resolveHostSpec, resolveTarget, type HostSpec, type ResolvedSshTarget, type ResolveTargetOptions } from './ssh-target';
import type { ResolvedSshHost } from './resolve/types';

/** The home folder `~` stands for on a command line, as a shell expands it: $HOME, else the OS user's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** The home ssh takes ~/.ssh from: the passwd entry's (ssh ignores $HOME), else $HOME where there is no entry. */
export function sshHomeOf(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().homedir || homeOf(env);
  } catch {
    return homeOf(env);
  }
}

export interface SshSetupOptions {
  /** The app's data folder, where its own known_hosts lives. */
  dataDir: string;
  /** For ssh-config tokens, the agent socket and the local user. */
  env: NodeJS.ProcessEnv;
  /** The known_hosts accepted keys are written to (default: <dataDir>/known_hosts). */
  appKnownHostsFile?: string;
  /**
   * Read-only known_hosts files trusted besides it. Default: the config's UserKnownHostsFile and
   * GlobalKnownHostsFile for each host (~/.ssh/known_hosts when nothing resolves them). Given, they replace the
   * config's files for every host (the CLI's `--known-hosts FILE` gives none: that file alone is read).
   */
  userKnownHostsFiles?: string[];
  /** A config file the user named (`-F`). Default: what ssh reads, ~/.ssh/config (passwd home) and the system-wide file. */
  sshConfigPath?: string;
  /** How hosts are resolved (default: `ssh -G` where OpenSSH is installed, else the built-in reader). */
  resolver?: ResolveTargetOptions['resolver'];
}

/** How every front door reaches SSH hosts: the same config, the same trusted keys, the same resolution. */
export interface SshSetup {
  /** The passwd entry's home, as ssh uses it. */
  home: string;
  /** The config file the Hosts page lists aliases from: the one named, else ~/.ssh/config. */
  sshConfigPath: string;
  knownHosts: KnownHostsStore;
  /** A host as `ssh` would reach it: the config's Host blocks, the jump chain, identities, agent and user. */
  resolve(spec: HostSpec): Promise<ResolvedSshTarget>;
  /** The same resolution as ssh reports it (`servelab ssh resolve`, the Hosts page's "resolved as"). */
  resolveHost(spec: HostSpec): Promise<ResolvedSshHost>;
}

/**
 * The SSH defaults of the app and the CLI alike: ~/.ssh/config, and the app's own known_hosts (the only one ever
 * written) beside ~/.ssh/known_hosts read-only.
 */
export function sshSetup(opts: SshSetupOptions): SshSetup {
  // One notion of home for the default config, the default known_hosts and the -F check: ssh's.
  const home = sshHomeOf(opts.env);
  const sshConfigPath = opts.sshConfigPath ?? join(home, '.ssh', 'config');
  const knownHosts = new KnownHostsStore({
    appFile: opts.appKnownHostsFile ?? join(opts.dataDir, 'known_hosts'),
    readOnlyFiles: opts.userKnownHostsFiles ?? [join(home, '.ssh', 'known_hosts')],
  });
  const resolveOpts: ResolveTargetOptions = {
    env: opts.env,
    ...(opts.sshConfigPath !== undefined ? { configPath: opts.sshConfigPath } : {}),
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
  };
  return {
    home,
    sshConfigPath,
    knownHosts,
    resolve: async (spec) => {
      const target = await resolveTarget(spec, resolveOpts);
      const fixedFiles = opts.userKnownHostsFiles;
      if (fixedFiles === undefined) return target;
      // Fixed files replace the config's whole decision, its `UserKnownHostsFile /dev/null` (keys kept in memory
      // only) too: accepted keys go to the app's file.
      const fixed = <T extends ResolvedSshTarget>({ userKnownHostsFiles: _config, ...rest }: T): Omit<T, 'userKnownHostsFiles'> => ({ ...rest, knownHostsFiles: fixedFiles });
      return { ...fixed(target), jumps: target.jumps.map((jump) => fixed(jump)) };
    },
    resolveHost: async (spec) => {
      const host = await resolveHostSpec(spec, resolveOpts);
      const fixedFiles = opts.userKnownHostsFiles;
      if (fixedFiles === undefined) return host;
      // What the connection reads: the files the setup fixed, not the config's.
      const files = { userKnownHostsFiles: [knownHosts.writableFile, ...fixedFiles], globalKnownHostsFiles: [] };
      return { ...host, ...files, proxyJump: host.proxyJump.map((hop) => ({ ...hop, ...files })) };
    },
  };
}
