import { hostname, userInfo } from 'node:os';
import { ServelabError } from '../../../shared/contract';
import { builtInRawOptions } from './builtin/index';
import { finishResolution } from './finish';
import { RESOLVE_TIMEOUT_MS } from './process-group';
import { sshRefusal } from './refusal';
import { findOpenSsh, openSshRawOptions, REPEATING_KEYWORDS } from './openssh';
import type { RawSshOptions, ResolvedSshHost, SshResolveContext, SshResolveRequest } from './types';

export type ResolverChoice = 'auto' | 'ssh -G' | 'built-in';

export interface ResolveHostOptions {
  /** `auto` (the default): `ssh -G` where an OpenSSH client is found, else the built-in reader. */
  resolver?: ResolverChoice;
  /** The OpenSSH client to ask (default: found on PATH). */
  sshPath?: string;
  /** How long `ssh -G` may take (a Match exec can hang). */
  timeoutMs?: number;
}

/** The local account and machine as ssh sees them: the passwd entry and gethostname(), not $HOME or $USER. */
export function localSshResolveContext(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): SshResolveContext {
  const account = userInfo();
  const systemConfigFile = platform === 'win32' ? `${env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData'}\\ssh\\ssh_config` : '/etc/ssh/ssh_config';
  return {
    env,
    localUser: account.username,
    home: account.homedir,
    uid: account.uid,
    localHostname: hostname(),
    shell: account.shell ?? (platform === 'win32' ? (env.ComSpec ?? 'cmd.exe') : '/bin/sh'),
    systemConfigFile,
  };
}

/** Which way to resolve: the caller's choice, else env SERVELAB_SSH_RESOLVER, else ssh -G where it is installed. */
function chooseResolver(ctx: SshResolveContext, opts: ResolveHostOptions): { kind: 'ssh -G'; sshPath: string } | { kind: 'built-in' } {
  let choice: ResolverChoice = opts.resolver ?? 'auto';
  if (choice === 'auto') {
    const forced = ctx.env.SERVELAB_SSH_RESOLVER?.trim().toLowerCase();
    if (forced === 'built-in' || forced === 'builtin') choice = 'built-in';
    else if (forced === 'ssh' || forced === 'ssh -g') choice = 'ssh -G';
  }
  if (choice === 'built-in') return { kind: 'built-in' };
  const sshPath = opts.sshPath ?? findOpenSsh(ctx.env);
  if (sshPath) return { kind: 'ssh -G', sshPath };
  if (choice === 'ssh -G') throw new ServelabError('NOT_SUPPORTED', 'No OpenSSH client (ssh) was found on PATH to resolve hosts with ssh -G.');
  return { kind: 'built-in' };
}

/**
 * Where `ssh -G` agrees with the built-in reader, the reader's file and line say where the value was set
 * (ssh -G names no origins). Best effort: without the reader, or where they differ, no origin.
 */
async function borrowOrigins(raw: RawSshOptions, request: SshResolveRequest, ctx: SshResolveContext): Promise<void> {
  let reader: RawSshOptions;
  try {
    // ssh -G has already run the config's Match exec commands: they are not run a second time for origins
    // (a value that depends on one may then differ, and borrows nothing).
    reader = await builtInRawOptions(request, ctx, { runExec: async () => false });
  } catch {
    return;
  }
  for (const [keyword, files] of reader.fileLists ?? []) {
    // The reader's files, joined, are ssh's line: then they say where one path with a space ends.
    if (files.join(' ') === raw.values.get(keyword)?.join(' ')) (raw.fileLists ??= new Map()).set(keyword, files);
  }
  for (const [keyword, values] of raw.values) {
    const theirs = reader.values.get(keyword);
    if (!theirs) continue;
    if (REPEATING_KEYWORDS.has(keyword)) {
      values.forEach((value, index) => {
        const origin = reader.origins.get(`${keyword}#${index}`);
        if (theirs[index] === value && origin) raw.origins.set(`${keyword}#${index}`, origin);
      });
    } else {
      const origin = reader.origins.get(keyword);
      if (origin && theirs.join(' ') === values.join(' ')) raw.origins.set(keyword, origin);
    }
  }
}

/**
 * The built-in reader within a time limit: its `Match exec` commands are stopped at the deadline, and a
 * resolution that still has no answer then (a name lookup that hangs) fails. Its refusals are classed as ssh's.
 */
async function boundedBuiltIn(request: SshResolveRequest, ctx: SshResolveContext, timeoutMs: number): Promise<RawSshOptions> {
  let timer: NodeJS.Timeout | undefined;
  // A little later than the exec deadline, so that a Match exec that hangs is the reason given.
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ServelabError('TIMEOUT', `Resolving ${request.destination} with the built-in reader took longer than ${timeoutMs / 1000} s (a Match exec in the config that does not finish?).`, {
            details: { host: request.destination },
          }),
        ),
      timeoutMs + 500,
    );
  });
  try {
    return await Promise.race([builtInRawOptions(request, ctx, { execDeadline: Date.now() + timeoutMs }), expired]);
  } catch (error) {
    if (error instanceof ServelabError && error.code === 'SSH_CONFIG_INVALID') throw sshRefusal(error.message, request, error.details ?? {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves a host the way `ssh` does: by asking the OpenSSH client (`ssh -G`) where it is installed, else with
 * the built-in reader; each ProxyJump hop through the same path.
 */
export async function resolveSshHost(request: SshResolveRequest, ctx: SshResolveContext, opts: ResolveHostOptions = {}): Promise<ResolvedSshHost> {
  const resolver = chooseResolver(ctx, opts);
  const resolveAt = async (req: SshResolveRequest, depth: number): Promise<ResolvedSshHost> => {
    if (resolver.kind === 'built-in') {
      const raw = await boundedBuiltIn(req, ctx, opts.timeoutMs ?? RESOLVE_TIMEOUT_MS);
      return finishResolution(raw, req, ctx, 'built-in', resolveAt, depth);
    }
    const raw = await openSshRawOptions(req, ctx, resolver.sshPath, opts.timeoutMs);
    await borrowOrigins(raw, req, ctx);
    return finishResolution(raw, req, ctx, 'ssh -G', resolveAt, depth);
  };
  return resolveAt(request, 0);
}
