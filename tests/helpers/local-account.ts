import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SshResolveContext } from '../../src/core/ssh/resolve/types';

/** Debian's libnss-wrapper: a process's own passwd entry and host name, seen by ssh and by Node alike. */
export const NSS_WRAPPER = '/usr/lib/x86_64-linux-gnu/libnss_wrapper.so';
export const hasNssWrapper = existsSync(NSS_WRAPPER);

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
  const gid = process.getgid?.() ?? 0;
  await mkdir(dir, { recursive: true });
  const passwd = join(dir, 'passwd');
  const group = join(dir, 'group');
  await writeFile(passwd, `${opts.user}:x:${uid}:${gid}:${opts.user}:${opts.home}:/bin/sh\n`);
  await writeFile(group, `${opts.user}:x:${gid}:\n`);
  const env = { LD_PRELOAD: NSS_WRAPPER, NSS_WRAPPER_PASSWD: passwd, NSS_WRAPPER_GROUP: group, NSS_WRAPPER_HOSTNAME: opts.hostname };
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
