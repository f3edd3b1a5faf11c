// How a CLI command names the host or box it works on. Every command that reaches a host over SSH (inventory,
// engine, bench) takes the same SSH options with the same letters, and reaches it through the core's own wiring
// (sshSetup, acceptingNewKeys, openBox).
import { resolve } from 'node:path';
import type { CliIo } from './cli-io';
import { UsageError } from './command-line';
import { ServelabError } from '../shared/contract';
import { HostAddressSchema, PortSchema, SshUserSchema } from '../shared/model/host';
import { keyTypeLabel } from '../core/ssh/fingerprint';
import { openSshClient } from '../core/ssh/connect';
import { homeOf, sshSetup, type SshSetup } from '../core/ssh/ssh-setup';
import { acceptingNewKeys, type PresentedHostKey } from '../core/ssh/accept-new-keys';
import { parseJumpHop, targetAddress, type HostSpec } from '../core/ssh/ssh-target';
import { knownHostsName, type KnownHostsStore } from '../core/ssh/known-hosts';
import { oneConnection, openBox } from '../core/box/open-box';
import type { BoxTransport } from '../core/box/box-transport';
import { resolveSimboxBinDir } from '../core/box/simbox-path';
import { defaultDataDir, expandHome } from '../core/util/paths';

/** parseArgs options of every command that reaches a host over SSH: a letter means the same in each of them. */
export const SSH_OPTIONS = {
  port: { type: 'string', short: 'p' },
  identity: { type: 'string', short: 'i' },
  jump: { type: 'string', short: 'J' },
  'known-hosts': { type: 'string' },
  'accept-new': { type: 'boolean' },
  'ssh-config': { type: 'string' },
} as const;

export const SSH_OPTIONS_USAGE = `  -p, --port N           SSH port (default: from ~/.ssh/config, else 22)
  -i, --identity FILE    private key, tried before the config's IdentityFile (default: IdentityFile from
                         ~/.ssh/config, else ~/.ssh/id_rsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk)
  -J, --jump HOPS        go through jump hosts, like ssh -J: [user@]host[:port][,…], outermost first;
                         replaces the config's ProxyJump ("none" turns it off)
  --known-hosts FILE     the one known_hosts file to read and, with --accept-new, write
                         (default: the app's known_hosts, plus ~/.ssh/known_hosts read-only)
  --accept-new           trust and store the host key of the box and of each jump host that is not known yet
                         (never a changed key), like StrictHostKeyChecking=accept-new
  --ssh-config FILE      OpenSSH client config to read (default: ~/.ssh/config)`;

/** parseArgs options of the commands that run things on a box (engine, bench): `--demo`, or `--host` over SSH. */
export const BOX_OPTIONS = {
  demo: { type: 'boolean' },
  host: { type: 'string' },
  ...SSH_OPTIONS,
  // The earlier spelling of --port in these commands, kept so existing scripts still run.
  'port-ssh': { type: 'string' },
} as const;

export const BOX_OPTIONS_USAGE = `  --demo                 the built-in demo lab (a simulated H100 box on this machine)
  --host [user@]host     a box over SSH (an address or a ~/.ssh/config alias), reached with:
${SSH_OPTIONS_USAGE}`;

export type BoxValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

export type CliBox = BoxTransport & { release(): void };

/** What the SSH options name: the host, and the config and known_hosts it is resolved and checked with. */
export interface CliSshHost {
  spec: HostSpec;
  /** `ssh.resolve(spec)` is the host as `ssh` would reach it. */
  ssh: SshSetup;
  acceptNew: boolean;
}

/**
 * Reads `[user@]host` (an address or a ~/.ssh/config alias; an IPv6 address may be bracketed) with the SSH
 * options: the port, key and jump hosts given win over the config, as with ssh's -p, -i and -J.
 */
export function cliSshHost(hostArg: string, values: BoxValues, io: CliIo): CliSshHost {
  const env = io.env;
  const home = homeOf(env);
  const path = (value: string) => resolve(io.cwd, expandHome(value, home));
  const at = hostArg.lastIndexOf('@');
  const user = at > 0 ? hostArg.slice(0, at) : undefined;
  let host = at >= 0 ? hostArg.slice(at + 1) : hostArg;
  if (/^\[.*\]$/.test(host)) host = host.slice(1, -1);
  const hostCheck = HostAddressSchema.safeParse(host);
  if (!hostCheck.success) throw new UsageError(`host "${host}" ${hostCheck.error.issues[0]?.message ?? 'is not valid'}.`);
  if (user !== undefined && !SshUserSchema.safeParse(user).success) throw new UsageError(`user "${user}" is not a valid user name.`);

  // Looked up in the config's Host blocks whether it is an alias or an address, as ssh does.
  const spec: HostSpec = { alias: hostCheck.data };
  if (user !== undefined) spec.user = user;
  if (text(values.port) !== undefined && text(values['port-ssh']) !== undefined) throw new UsageError('give --port or --port-ssh (its earlier spelling), not both.');
  const port = text(values.port) ?? text(values['port-ssh']);
  if (port !== undefined) {
    const portCheck = PortSchema.safeParse(/^\d+$/.test(port) ? Number(port) : NaN);
    if (!portCheck.success) throw new UsageError(`--port ${port}: must be a whole number 1–65535.`);
    spec.port = portCheck.data;
  }
  const identity = text(values.identity);
  if (identity !== undefined) spec.identityFile = path(identity);
  const jump = text(values.jump);
  if (jump !== undefined) spec.proxyJump = checkJump(jump);

  const knownHostsFile = text(values['known-hosts']);
  const sshConfig = text(values['ssh-config']);
  const ssh = sshSetup({
    dataDir: defaultDataDir(env),
    env,
    // A known_hosts file given is the only one read and written.
    ...(knownHostsFile ? { appKnownHostsFile: path(knownHostsFile), userKnownHostsFiles: [] } : {}),
    ...(sshConfig ? { sshConfigPath: path(sshConfig) } : {}),
  });
  return { spec, ssh, acceptNew: values['accept-new'] === true };
}

/** OpenSSH's warning for a host key stored under accept-new. */
export function acceptedKeyWarning(key: PresentedHostKey, name: string, knownHosts: KnownHostsStore): string {
  return `Warning: Permanently added '${name}' (${keyTypeLabel(key.keyType)} ${key.fingerprint}) to the list of known hosts (${knownHosts.writableFile}).\n`;
}

/** Opens the box the options name; a box over SSH is connected (and its new keys accepted) before this returns. */
export async function openCliBox(values: BoxValues, io: CliIo): Promise<CliBox> {
  if (values.demo) {
    if (values.host !== undefined) throw new UsageError('give either --demo or --host, not both.');
    const ssh = Object.keys({ ...SSH_OPTIONS, 'port-ssh': null }).find((name) => values[name] !== undefined);
    if (ssh) throw new UsageError(`--${ssh} is an SSH option and applies to --host only: the demo lab is reached without SSH.`);
    return openBox({ kind: 'demo', dataDir: defaultDataDir(io.env), simboxBinDir: resolveSimboxBinDir() });
  }
  if (typeof values.host !== 'string') throw new UsageError('name the box: --demo or --host [user@]host.');
  const { spec, ssh, acceptNew } = cliSshHost(values.host, values, io);
  const target = await ssh.resolve(spec);
  const { knownHosts } = ssh;
  // One connection for the command's lifetime; the transport only needs a provider and a release.
  const opening = acceptingNewKeys(target, knownHosts, { acceptNew, onAccepted: (key, name) => io.stderr(acceptedKeyWarning(key, name, knownHosts)) }, () =>
    openSshClient(target, { knownHosts, timeoutSeconds: 20 }),
  ).catch((error: unknown) => {
    if (acceptNew || !(error instanceof ServelabError && error.code === 'HOST_KEY_UNKNOWN')) throw error;
    const key = error.details as unknown as PresentedHostKey;
    throw new ServelabError(
      'HOST_KEY_UNKNOWN',
      `The host key of ${knownHostsName(key.host, key.port)} is not known (${keyTypeLabel(key.keyType)} ${key.fingerprint}). If that fingerprint is right, run the same command with --accept-new to store it and continue.`,
      { details: error.details ?? {} },
    );
  });
  opening.catch(() => {});
  await opening;
  return openBox({ kind: 'ssh', hostId: targetAddress(target), target, connections: oneConnection(opening) });
}

/** `-J` as ssh takes it: `none`, or `[user@]host[:port]` hops (also `ssh://…`) separated by commas. */
function checkJump(value: string): string {
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === 'none') return 'none';
  const hops = trimmed.split(',').map((hop) => hop.trim());
  for (const hop of hops) {
    let parsed;
    try {
      parsed = parseJumpHop(hop, 'the box');
    } catch (error) {
      throw new UsageError(`--jump ${value}: ${(error as Error).message}`);
    }
    if (!HostAddressSchema.safeParse(parsed.name).success || (parsed.user !== undefined && !SshUserSchema.safeParse(parsed.user).success)) {
      throw new UsageError(`--jump ${value}: hop "${hop}" is not [user@]host[:port].`);
    }
  }
  return hops.join(',');
}

function text(value: BoxValues[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
