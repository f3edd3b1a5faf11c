// What `ssh -G` prints for the keywords Servelab uses, after readconf.c fill_default_options and the expansions
// ssh.c main applies before dump_client_config (OpenSSH 9.2): identityfile/certificatefile/proxycommand/
// proxyjump stay as written; identityagent and userknownhostsfile are printed with ~, %-tokens and ${VAR} expanded.
import type { ConfigOrigin, RawSshOptions } from '../types';
import { formatJump } from './jump';
import type { SshOptions } from './options';
import { asciiLower } from './patterns';

/** readconf.c fill_default_options: the seven default identities, when none is configured. */
export const DEFAULT_IDENTITY_FILES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk', 'id_xmss', 'id_dsa'].map((f) => `~/.ssh/${f}`);
export const DEFAULT_USER_KNOWN_HOSTS = ['~/.ssh/known_hosts', '~/.ssh/known_hosts2'];
export const DEFAULT_GLOBAL_KNOWN_HOSTS = ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'];

/** readconf.c fmt_intarg for StrictHostKeyChecking: the first name of each value in multistate_strict_hostkey. */
const STRICT_NAMES = ['false', 'true', 'ask', 'accept-new'];

export interface DumpInput {
  options: SshOptions;
  host: string;
  user: string;
  port: number;
  userKnownHostsFiles: string[];
  identityAgent: string | undefined;
}

export function dumpResolved(input: DumpInput): RawSshOptions {
  const { options } = input;
  const values = new Map<string, string[]>();
  const origins = new Map<string, ConfigOrigin>();
  const line = (keyword: string, text: string, origin?: ConfigOrigin): void => {
    values.set(keyword, text.split(' '));
    if (origin) origins.set(keyword, origin);
  };
  const flag = (option: string, fallback: number): string => ((options.num(option) ?? fallback) === 0 ? 'no' : 'yes');

  line('hostname', input.host, options.origin('hostname'));
  line('user', input.user, options.origin('user'));
  line('port', String(input.port), options.origin('port'));

  const identities = options.identityFiles;
  values.set('identityfile', identities.map((f) => f.path));
  identities.forEach((f, i) => f.origin && origins.set(`identityfile#${i}`, f.origin));
  if (options.certificateFiles.length > 0) {
    values.set('certificatefile', options.certificateFiles.map((f) => f.path));
    options.certificateFiles.forEach((f, i) => f.origin && origins.set(`certificatefile#${i}`, f.origin));
  }

  line('identitiesonly', flag('identitiesonly', 0), options.origin('identitiesonly'));
  if (input.identityAgent !== undefined) line('identityagent', input.identityAgent, options.origin('identityagent'));

  const jump = options.jump;
  if (jump !== null && jump.spec !== 'none') {
    line('proxyjump', formatJump(jump.spec), jump.origin);
  } else {
    const proxy = options.str('proxycommand');
    if (proxy !== undefined && proxy.toLowerCase() !== 'none') line('proxycommand', proxy, options.origin('proxycommand'));
  }

  const alias = options.str('hostkeyalias');
  if (alias !== undefined) line('hostkeyalias', asciiLower(alias), options.origin('hostkeyalias'));
  line('stricthostkeychecking', STRICT_NAMES[options.num('stricthostkeychecking') ?? 2] ?? 'UNKNOWN', options.origin('stricthostkeychecking'));

  const userHosts = options.lists.get('userknownhostsfile');
  line('userknownhostsfile', input.userKnownHostsFiles.length === 0 ? 'none' : input.userKnownHostsFiles.join(' '), userHosts?.origin);
  const globalHosts = options.lists.get('globalknownhostsfile');
  const globalList = globalHosts?.values ?? DEFAULT_GLOBAL_KNOWN_HOSTS;
  line('globalknownhostsfile', globalList.length === 1 && globalList[0]?.toLowerCase() === 'none' ? 'none' : globalList.join(' '), globalHosts?.origin);
  const fileLists = new Map<string, string[]>([
    ['userknownhostsfile', [...input.userKnownHostsFiles]],
    ['globalknownhostsfile', [...globalList]],
  ]);

  const timeout = options.num('connecttimeout');
  line('connecttimeout', timeout === undefined ? 'none' : String(timeout), options.origin('connecttimeout'));
  line('connectionattempts', String(options.num('connectionattempts') ?? 1), options.origin('connectionattempts'));
  // Debian's keep-alive patch: in batch mode the unset interval defaults to 300 seconds.
  const batch = options.num('batchmode') ?? 0;
  line('serveraliveinterval', String(options.num('serveraliveinterval') ?? (batch === 1 ? 300 : 0)), options.origin('serveraliveinterval'));
  line('serveralivecountmax', String(options.num('serveralivecountmax') ?? 3), options.origin('serveralivecountmax'));
  line('batchmode', batch === 0 ? 'no' : 'yes', options.origin('batchmode'));
  return { values, origins, fileLists };
}
