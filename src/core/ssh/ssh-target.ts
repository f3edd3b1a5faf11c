import { existsSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { localSshResolveContext, resolveSshHost, type ResolveHostOptions } from './resolve/resolve-host';
import type { ResolvedSshHost, SshResolveContext, SshResolveRequest } from './resolve/types';
import { resolveWarnings } from './resolve/view';

/**
 * Where and how to reach one SSH server: already resolved (no aliases, `~` expanded). The fields after
 * `password` are what `resolveTarget` fills in as `ssh` resolves the host; left out, they mean: no jump host,
 * only `identityFile`, no agent, keepalive 15 s × 4.
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
  /** The UserKnownHostsFile part of knownHostsFiles ([] for `none`): when it is only /dev/null, accepted keys are kept in memory only. */
  userKnownHostsFiles?: string[];
  /** CertificateFile: OpenSSH user certificates offered with their private keys. */
  certificateFiles?: string[];
  /** ConnectTimeout in seconds (each TCP connect attempt, then the SSH banner and key exchange, with a ProxyCommand too); absent: the caller's timeout. */
  connectTimeoutSeconds?: number | null;
  /** ConnectionAttempts: how many times the TCP connect is tried. */
  connectionAttempts?: number;
  /** What ssh warned about while resolving the host and its jump hosts (see resolveWarnings), for the connection log. */
  resolveWarnings?: string[];
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
  /**
   * A config file the user named; given to ssh as `-F` unless it is ssh's own default; a missing file means no
   * settings. Absent: ssh's own choice (<passwd home>/.ssh/config, then the system-wide file).
   */
  configPath?: string;
  /** The local account as ssh sees it (default: this process's passwd entry and host name, with `env`). */
  context?: SshResolveContext;
  env: NodeJS.ProcessEnv;
  /** How to resolve: `ssh -G` where OpenSSH is installed, else the built-in reader (see resolveSshHost). */
  resolver?: ResolveHostOptions['resolver'];
  sshPath?: string;
}

export const DEFAULT_KEEPALIVE_INTERVAL_SECONDS = 15;
export const DEFAULT_KEEPALIVE_COUNT_MAX = 4;

export { parseJumpHop } from './resolve/jump-hops';

/** What ssh is asked for a host spec: an address next to an alias is the alias's HostName, like `-o HostName=`. */
export function resolveRequestOf(hostSpec: HostSpec, configPath: string | undefined, context: SshResolveContext): SshResolveRequest {
  const name = hostSpec.alias?.trim() || hostSpec.address?.trim();
  if (!name) {
    throw new ServelabError('BAD_INPUT', 'Name the host: an ~/.ssh/config alias or an address.', { issues: [{ path: 'address', message: 'is required' }] });
  }
  const request: SshResolveRequest = { destination: name };
  // ssh reads <home>/.ssh/config and then the system-wide file by itself; -F would skip the system-wide file.
  // Another config that does not exist means no settings (`-F none`), where ssh would refuse a missing -F file.
  if (configPath !== undefined && resolvePath(configPath) !== join(context.home, '.ssh', 'config')) request.configFile = existsSync(configPath) ? configPath : 'none';
  if (hostSpec.alias?.trim() && hostSpec.address?.trim() && hostSpec.address.trim() !== name) request.hostName = hostSpec.address.trim();
  if (hostSpec.user !== undefined) request.user = hostSpec.user;
  if (hostSpec.port !== undefined) request.port = hostSpec.port;
  if (hostSpec.identityFile) request.identityFiles = [hostSpec.identityFile];
  // A saved ProxyJump may be written `a, b` (the host schema trims each hop); ssh's -J takes no spaces.
  if (hostSpec.proxyJump !== undefined && hostSpec.proxyJump.trim() !== '') request.proxyJump = hostSpec.proxyJump.split(',').map((hop) => hop.trim()).join(',');
  return request;
}

/** Resolves a host spec the way `ssh` would (see resolveSshHost): every value, every jump host, with origins. */
export async function resolveHostSpec(hostSpec: HostSpec, opts: ResolveTargetOptions): Promise<ResolvedSshHost> {
  const context = opts.context ?? localSshResolveContext(opts.env);
  const resolveOpts: ResolveHostOptions = {};
  if (opts.resolver) resolveOpts.resolver = opts.resolver;
  if (opts.sshPath) resolveOpts.sshPath = opts.sshPath;
  return resolveSshHost(resolveRequestOf(hostSpec, opts.configPath, context), context, resolveOpts);
}

/**
 * Resolves a host the way `ssh` would (ssh -G where OpenSSH is installed, else the built-in reader) and turns it
 * into what a connection needs: identity files that exist (ssh skips the others), the certificate files as set
 * (missing ones are skipped when the keys are tried), the agent,
 * keepalives, host key options, and the ProxyJump hops, outermost first.
 */
export async function resolveTarget(hostSpec: HostSpec, opts: ResolveTargetOptions): Promise<ResolvedSshTarget> {
  const resolved = await resolveHostSpec(hostSpec, opts);
  const target = targetOf(resolved);
  if (hostSpec.identityFile) target.identityFile = hostSpec.identityFile;
  target.jumps = resolved.proxyJump.map((hop) => targetOf(hop));
  const warnings = resolveWarnings(resolved);
  if (warnings.length > 0) target.resolveWarnings = warnings;
  return target;
}

/** The connection options of one resolved host (or jump host). */
export function targetOf(host: Omit<ResolvedSshHost, 'proxyJump' | 'source'>): ResolvedSshTarget {
  // ServerAliveInterval 0 means ssh sends no keepalive; Servelab always keeps its connections checked.
  const ownKeepalive = host.serverAliveInterval <= 0;
  return {
    host: host.hostname,
    port: host.port,
    user: host.user,
    alias: host.alias,
    jumps: [],
    identityFiles: host.identityFiles.filter((file) => existsSync(file)),
    identitiesOnly: host.identitiesOnly,
    agentSocket: host.identityAgent === 'none' ? null : host.identityAgent,
    keepaliveIntervalSeconds: ownKeepalive ? DEFAULT_KEEPALIVE_INTERVAL_SECONDS : host.serverAliveInterval,
    keepaliveCountMax: ownKeepalive ? DEFAULT_KEEPALIVE_COUNT_MAX : Math.max(1, host.serverAliveCountMax),
    proxyCommand: host.proxyCommand,
    hostKeyAlias: host.hostKeyAlias,
    strictHostKeyChecking: host.strictHostKeyChecking,
    knownHostsFiles: [...host.userKnownHostsFiles, ...host.globalKnownHostsFiles],
    userKnownHostsFiles: host.userKnownHostsFiles,
    // All of them, missing ones too: any CertificateFile at all keeps ssh from trying `<key>-cert.pub` (ssh.c).
    certificateFiles: host.certificateFiles,
    connectTimeoutSeconds: host.connectTimeout,
    connectionAttempts: host.connectionAttempts,
  };
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
