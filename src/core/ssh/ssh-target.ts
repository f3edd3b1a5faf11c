import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { ServelabError } from '../../shared/contract';
import { resolveSshConfigHost } from './ssh-config';

/**
 * Where and how to reach one SSH server: already resolved (no aliases, `~` expanded). The fields after
 * `password` are what `resolveTarget` fills in from ~/.ssh/config; left out, they mean: no jump host, only
 * `identityFile`, no agent, keepalive 15 s × 4.
 */
export interface SshTarget {
  host: string;
  port: number;
  user: string;
  identityFile?: string;
  /** Passphrase for an encrypted identity file. */
  passphrase?: string;
  password?: string;
  /** The name the user gave (ssh-config alias or address), for messages. */
  alias?: string;
  /** Jump hosts to go through, outermost first (ProxyJump). Each is itself resolved and has no jumps of its own. */
  jumps?: SshTarget[];
  /** Private keys to try in order (IdentityFile); `identityFile`, when set, is tried first. */
  identityFiles?: string[];
  /** Offer only the keys named by identityFiles, also from the agent (IdentitiesOnly). */
  identitiesOnly?: boolean;
  /** The ssh-agent socket; null (or absent) means do not use an agent. */
  agentSocket?: string | null;
  keepaliveIntervalSeconds?: number;
  keepaliveCountMax?: number;
  /** ProxyCommand, tokens already expanded: run locally through the user's shell, the connection over its stdin/stdout. */
  proxyCommand?: string | null;
  /** HostKeyAlias: the name the host key is looked up and stored under instead of host:port. */
  hostKeyAlias?: string | null;
  /** StrictHostKeyChecking; absent means `ask`. `no` is treated as `ask` (with a warning): never a silent accept. */
  strictHostKeyChecking?: 'yes' | 'no' | 'ask' | 'accept-new';
  /** UserKnownHostsFile and GlobalKnownHostsFile, read only (Servelab writes only its own file). Absent: the setup's defaults. */
  knownHostsFiles?: string[];
  /** CertificateFile: OpenSSH user certificates offered with their private keys. */
  certificateFiles?: string[];
  /** ConnectTimeout in seconds (the TCP connect, per attempt); absent: the caller's timeout. */
  connectTimeoutSeconds?: number | null;
  /** ConnectionAttempts: how many times the TCP connect is tried. */
  connectionAttempts?: number;
}

/** A target as resolveTarget returns it: every option decided. */
export interface ResolvedSshTarget extends SshTarget {
  alias: string;
  jumps: ResolvedSshTarget[];
  identityFiles: string[];
  identitiesOnly: boolean;
  agentSocket: string | null;
  keepaliveIntervalSeconds: number;
  keepaliveCountMax: number;
}

/** What a user or a saved host names: an ssh-config alias, or an address with optional overrides. */
export interface HostSpec {
  alias?: string;
  address?: string;
  user?: string;
  port?: number;
  identityFile?: string;
  /** Like `ssh -J`: wins over the config's ProxyJump; `none` turns it off. */
  proxyJump?: string;
}

export interface ResolveTargetOptions {
  /** The OpenSSH client config to read (usually ~/.ssh/config); a missing file means no settings. */
  configPath: string;
  env: NodeJS.ProcessEnv;
  home: string;
  /** The local user name (%u, and the remote user when nothing else sets one). Default: $USER, else the OS user. */
  localUser?: string;
}

export const DEFAULT_KEEPALIVE_INTERVAL_SECONDS = 15;
export const DEFAULT_KEEPALIVE_COUNT_MAX = 4;
// OpenSSH's default identities, in its order; only the ones that exist are tried.
const DEFAULT_IDENTITY_NAMES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk'];
// Bounds ProxyJump chains, including loops where a jump host's own ProxyJump leads back.
const MAX_JUMPS = 8;

/**
 * Resolves a host the way `ssh` would: the config's Host blocks for the alias (or address), explicit fields
 * winning over the config (like `ssh -l/-p/-i`), default identities when none is configured, the agent from
 * IdentityAgent else SSH_AUTH_SOCK, and ProxyJump hops each resolved through the config themselves.
 */
export function resolveTarget(hostSpec: HostSpec, opts: ResolveTargetOptions): ResolvedSshTarget {
  const name = hostSpec.alias?.trim() || hostSpec.address?.trim();
  if (!name) {
    throw new ServelabError('BAD_INPUT', 'Name the host: an ~/.ssh/config alias or an address.', { issues: [{ path: 'address', message: 'is required' }] });
  }
  return resolveHop({ ...hostSpec, name }, opts, 0, true);
}

interface HopSpec extends HostSpec {
  /** The name looked up in the config's Host blocks. */
  name: string;
}

function resolveHop(spec: HopSpec, opts: ResolveTargetOptions, depth: number, ownJumpsApply: boolean): ResolvedSshTarget {
  const localUser = opts.localUser ?? (opts.env.USER || opts.env.LOGNAME || userInfo().username);
  const config = resolveSshConfigHost(spec.name, {
    configPath: opts.configPath,
    user: localUser,
    env: { ...opts.env, HOME: opts.home },
    ...(spec.user !== undefined ? { remoteUser: spec.user } : {}),
    ...(spec.port !== undefined ? { port: spec.port } : {}),
  });

  // An address given next to an alias is where the alias really lives (it overrides HostName).
  const host = spec.alias && spec.address ? spec.address.trim() : config.hostName;
  const user = spec.user ?? config.user ?? localUser;
  const port = spec.port ?? config.port ?? 22;

  const configured = [...(spec.identityFile ? [spec.identityFile] : []), ...config.identityFiles];
  const identityFiles = configured.length > 0 ? unique(configured) : defaultIdentities(opts.home);

  let agentSocket: string | null;
  const agent = config.identityAgent;
  if (agent === undefined || agent === 'SSH_AUTH_SOCK') agentSocket = opts.env.SSH_AUTH_SOCK || null;
  else if (agent === 'none') agentSocket = null;
  else if (agent.startsWith('$')) agentSocket = opts.env[agent.slice(1)] || null;
  else agentSocket = agent;

  const keepaliveIntervalSeconds = config.serverAliveInterval && config.serverAliveInterval > 0 ? config.serverAliveInterval : DEFAULT_KEEPALIVE_INTERVAL_SECONDS;
  const keepaliveCountMax = config.serverAliveCountMax && config.serverAliveCountMax > 0 ? config.serverAliveCountMax : DEFAULT_KEEPALIVE_COUNT_MAX;

  let jumps: ResolvedSshTarget[] = [];
  if (ownJumpsApply) {
    if (spec.proxyJump !== undefined && spec.proxyJump.trim() !== '') {
      if (spec.proxyJump.trim().toLowerCase() !== 'none') jumps = resolveJumpChain(spec.proxyJump.trim(), spec.name, opts, depth);
    } else if (config.proxyCommand !== undefined) {
      throw new ServelabError(
        'NOT_SUPPORTED',
        `~/.ssh/config gives ${spec.name} a ProxyCommand (${config.proxyCommand}); Servelab never runs commands from the config. Use ProxyJump instead.`,
        { details: { host: spec.name, proxyCommand: config.proxyCommand } },
      );
    } else if (config.proxyJump !== undefined && config.proxyJump !== 'none') {
      jumps = resolveJumpChain(config.proxyJump, spec.name, opts, depth);
    }
  }

  const target: ResolvedSshTarget = {
    host,
    port,
    user,
    alias: spec.name,
    jumps,
    identityFiles,
    identitiesOnly: config.identitiesOnly ?? false,
    agentSocket,
    keepaliveIntervalSeconds,
    keepaliveCountMax,
  };
  if (spec.identityFile) target.identityFile = spec.identityFile;
  return target;
}

/**
 * `a,b,c` hops, outermost first. Like `ssh -J`, the first hop is reached with its own config (its own
 * ProxyJump included); later hops are reached through the previous one, so their ProxyJump is ignored.
 */
function resolveJumpChain(value: string, forHost: string, opts: ResolveTargetOptions, depth: number): ResolvedSshTarget[] {
  const hops = value.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
  const chain: ResolvedSshTarget[] = [];
  hops.forEach((hop, index) => {
    if (depth + chain.length + 1 > MAX_JUMPS) {
      throw new ServelabError('BAD_INPUT', `The ProxyJump chain for ${forHost} is longer than ${MAX_JUMPS} hops or loops back on itself.`, {
        issues: [{ path: 'proxyJump', message: 'too many hops' }],
      });
    }
    const parsed = parseJumpHop(hop, forHost);
    const resolved = resolveHop(parsed, opts, depth + chain.length + 1, index === 0);
    chain.push(...resolved.jumps, { ...resolved, jumps: [] });
  });
  if (chain.length > MAX_JUMPS) {
    throw new ServelabError('BAD_INPUT', `The ProxyJump chain for ${forHost} is longer than ${MAX_JUMPS} hops or loops back on itself.`, {
      issues: [{ path: 'proxyJump', message: 'too many hops' }],
    });
  }
  return chain;
}

/** `[user@]host[:port]`, `[user@][v6addr][:port]` or `ssh://[user@]host[:port]`. */
export function parseJumpHop(hop: string, forHost = 'this host'): HopSpec {
  let rest = hop.startsWith('ssh://') ? hop.slice('ssh://'.length).replace(/\/$/, '') : hop;
  const bad = () =>
    new ServelabError('BAD_INPUT', `ProxyJump hop "${hop}" for ${forHost} is not [user@]host[:port].`, { issues: [{ path: 'proxyJump', message: 'is not [user@]host[:port]' }] });
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at === 0) throw bad();
  if (at > 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let name: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (bracketed) {
    name = bracketed[1] as string;
    portText = bracketed[2];
  } else if ((rest.match(/:/g) ?? []).length === 1) {
    [name, portText] = rest.split(':') as [string, string];
  } else {
    name = rest;
  }
  if (!name || /\s/.test(name)) throw bad();
  const spec: HopSpec = { name };
  if (user !== undefined) spec.user = user;
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw bad();
    spec.port = port;
  }
  return spec;
}

function defaultIdentities(home: string): string[] {
  return DEFAULT_IDENTITY_NAMES.map((name) => join(home, '.ssh', name)).filter((file) => existsSync(file));
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

/** `user@host:port`, the way messages name a target. */
export function targetAddress(target: Pick<SshTarget, 'user' | 'host' | 'port'>): string {
  return `${target.user}@${target.host}:${target.port}`;
}

/** The alias when there is one, with the address it stands for. */
export function targetLabel(target: SshTarget): string {
  const address = targetAddress(target);
  return target.alias && target.alias !== target.host ? `${target.alias} (${address})` : address;
}

/** Identifies one connection: the hop itself plus every hop it is reached through. */
export function connectionKey(target: SshTarget): string {
  const chain = [...(target.jumps ?? []), target].map(targetAddress);
  return chain.reverse().join(' via ');
}
