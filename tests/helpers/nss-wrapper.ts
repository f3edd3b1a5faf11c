// A local account and machine of a test's own, through Debian's libnss-wrapper: processes started with `env` see a
// passwd entry (name, home under a temp root, /bin/sh), a group, a hosts file and a host name that are not the
// machine's. ssh takes `~`, `%d`, `%u`, `%l` and name resolution from these (never from $HOME or $USER), and so
// do Node's os.userInfo() and os.hostname(). The uid is the real one, so the files stay readable.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NSS_WRAPPER_LIBRARY = '/usr/lib/x86_64-linux-gnu/libnss_wrapper.so';

export interface NssIdentityOptions {
  /** The local user's name (passwd entry). */
  user: string;
  /** gethostname() for every process started with `env`. */
  hostname: string;
  /** Lines of the hosts file: `ADDRESS CANONICAL-NAME [ALIAS…]`. Names not in it do not resolve at all. */
  hosts?: string[];
  /** Prefix of the temp root's folder name. */
  prefix?: string;
}

export interface NssIdentity {
  /** The temp root holding passwd, group, hosts and the home folder. */
  root: string;
  /** The user's home folder (`<root>/home/<user>`), as its passwd entry says. */
  home: string;
  user: string;
  hostname: string;
  uid: number;
  gid: number;
  /** The variables that make a process see this identity (LD_PRELOAD and NSS_WRAPPER_*). */
  env: Record<string, string>;
  remove(): Promise<void>;
}

export function nssWrapperInstalled(): boolean {
  return existsSync(NSS_WRAPPER_LIBRARY);
}

export async function createNssIdentity(opts: NssIdentityOptions): Promise<NssIdentity> {
  if (!nssWrapperInstalled()) throw new Error(`${NSS_WRAPPER_LIBRARY} is missing: install the libnss-wrapper package (.ci/run does)`);
  if (!/^[a-z_][a-z0-9_.-]*$/i.test(opts.user)) throw new Error(`not a user name: ${opts.user}`);
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  const root = await mkdtemp(join(tmpdir(), opts.prefix ?? 'servelab-nss-'));
  const home = join(root, 'home', opts.user);
  await mkdir(home, { recursive: true, mode: 0o755 });
  const env = await writeNssFiles(root, { user: opts.user, home, hostname: opts.hostname, hosts: opts.hosts ?? [] });
  return {
    root,
    home,
    user: opts.user,
    hostname: opts.hostname,
    uid,
    gid,
    env,
    remove: () => rm(root, { recursive: true, force: true }),
  };
}

/**
 * Writes passwd (this process's uid and gid named `user`, with `home` and /bin/sh), group and, when `hosts` is
 * given, a hosts file (then names not in it do not resolve) into `dir`; returns the variables that make a process
 * see them.
 */
export async function writeNssFiles(dir: string, opts: { user: string; home: string; hostname: string; hosts?: string[] }): Promise<Record<string, string>> {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  await mkdir(dir, { recursive: true });
  const passwd = join(dir, 'passwd');
  const group = join(dir, 'group');
  await writeFile(passwd, `${opts.user}:x:${uid}:${gid}:${opts.user}:${opts.home}:/bin/sh\n`);
  await writeFile(group, `${opts.user}:x:${gid}:\n`);
  const env: Record<string, string> = { LD_PRELOAD: NSS_WRAPPER_LIBRARY, NSS_WRAPPER_PASSWD: passwd, NSS_WRAPPER_GROUP: group };
  if (opts.hosts) {
    const hosts = join(dir, 'hosts');
    await writeFile(hosts, opts.hosts.map((line) => `${line}\n`).join(''));
    env.NSS_WRAPPER_HOSTS = hosts;
  }
  env.NSS_WRAPPER_HOSTNAME = opts.hostname;
  return env;
}
