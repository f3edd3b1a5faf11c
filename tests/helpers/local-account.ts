import { nssWrapperInstalled, writeNssFiles } from './nss-wrapper';
import type { SshResolveContext } from '../../src/core/ssh/resolve/types';

/** Debian's libnss-wrapper: a process's own passwd entry and host name, seen by ssh and by Node alike. */
export const hasNssWrapper = nssWrapperInstalled();

export interface LocalAccount {
  user: string;
  home: string;
  hostname: string;
  /** The environment that gives a child process (ssh, the CLI) this account instead of the real one. */
  env: Record<string, string>;
  /** The same account as the resolver sees it, for code running in this process. */
  context(extraEnv?: NodeJS.ProcessEnv): SshResolveContext;
}

/**
 * A local account of its own for a test: a passwd entry for this process's uid naming `user` with `home`, and
 * `hostname` as gethostname(). ssh takes `~`, `%d`, `%u` and `%l` from these, never from $HOME or $USER.
 */
export async function fakeLocalAccount(dir: string, opts: { user: string; home: string; hostname: string }): Promise<LocalAccount> {
  const uid = process.getuid?.() ?? 0;
  const env = await writeNssFiles(dir, opts);
  return {
    ...opts,
    env,
    context: (extraEnv = {}) => ({
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...extraEnv, ...env },
      localUser: opts.user,
      home: opts.home,
      uid,
      localHostname: opts.hostname,
      shell: '/bin/sh',
      systemConfigFile: '/etc/ssh/ssh_config',
    }),
  };
}
