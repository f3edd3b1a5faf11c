import { homedir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from './known-hosts';
import { resolveHostSpec, resolveTarget, type HostSpec, type ResolvedSshTarget, type ResolveTargetOptions } from './ssh-target';
import type { ResolvedSshHost } from './resolve/types';

/** The home folder `~` stands for: $HOME, else the OS user's. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
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
  /** The OpenSSH client config aliases and ProxyJump come from (default: ~/.ssh/config). */
  sshConfigPath?: string;
  /** How hosts are resolved (default: `ssh -G` where OpenSSH is installed, else the built-in reader). */
  resolver?: ResolveTargetOptions['resolver'];
}

/** How every front door reaches SSH hosts: the same config, the same trusted keys, the same resolution. */
export interface SshSetup {
  home: string;
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
  const home = homeOf(opts.env);
  const sshConfigPath = opts.sshConfigPath ?? join(home, '.ssh', 'config');
  const knownHosts = new KnownHostsStore({
    appFile: opts.appKnownHostsFile ?? join(opts.dataDir, 'known_hosts'),
    readOnlyFiles: opts.userKnownHostsFiles ?? [join(home, '.ssh', 'known_hosts')],
  });
  const resolveOpts: ResolveTargetOptions = { configPath: sshConfigPath, env: opts.env, ...(opts.resolver ? { resolver: opts.resolver } : {}) };
  return {
    home,
    sshConfigPath,
    knownHosts,
    resolve: async (spec) => {
      const target = await resolveTarget(spec, resolveOpts);
      const fixedFiles = opts.userKnownHostsFiles;
      if (fixedFiles === undefined) return target;
      return { ...target, knownHostsFiles: fixedFiles, jumps: target.jumps.map((jump) => ({ ...jump, knownHostsFiles: fixedFiles })) };
    },
    resolveHost: (spec) => resolveHostSpec(spec, resolveOpts),
  };
}
