import { ServelabError } from '../../../shared/contract';
import { splitJumpList } from './jump-hops';
import { clientTokens, expandTilde, expandTokens, proxyTokens, type ConnectionTokens } from './tokens';
import type {
  ConfigOrigin,
  RawSshOptions,
  ResolvedJumpHost,
  ResolvedSshHost,
  SshResolveContext,
  SshResolveRequest,
  StrictHostKeyChecking,
} from './types';

/** Resolves one jump host through the same path as its destination; `depth` counts the hops already taken. */
export type ResolveHop = (request: SshResolveRequest, depth: number) => Promise<ResolvedSshHost>;

// Bounds ProxyJump chains, including loops where a jump host's own ProxyJump leads back.
export const MAX_JUMP_HOPS = 8;

const FIELD_OF_KEYWORD: Readonly<Record<string, string>> = {
  hostname: 'hostname',
  user: 'user',
  port: 'port',
  identitiesonly: 'identitiesOnly',
  identityagent: 'identityAgent',
  proxyjump: 'proxyJump',
  proxycommand: 'proxyCommand',
  hostkeyalias: 'hostKeyAlias',
  stricthostkeychecking: 'strictHostKeyChecking',
  userknownhostsfile: 'userKnownHostsFiles',
  globalknownhostsfile: 'globalKnownHostsFiles',
  connecttimeout: 'connectTimeout',
  connectionattempts: 'connectionAttempts',
  serveraliveinterval: 'serverAliveInterval',
  serveralivecountmax: 'serverAliveCountMax',
  batchmode: 'batchMode',
};

function tooLong(forHost: string): ServelabError {
  return new ServelabError('BAD_INPUT', `The ProxyJump chain for ${forHost} is longer than ${MAX_JUMP_HOPS} hops or loops back on itself.`, {
    issues: [{ path: 'proxyJump', message: 'too many hops' }],
  });
}

function whole(keyword: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isFinite(value)) throw new ServelabError('SSH_CONFIG_INVALID', `${keyword}: "${text}" is not a number.`, { details: { keyword } });
  return value;
}

function strictness(text: string | undefined): StrictHostKeyChecking {
  switch (text?.toLowerCase()) {
    case 'true':
    case 'yes':
      return 'yes';
    case 'false':
    case 'no':
    case 'off':
      return 'no';
    case 'accept-new':
      return 'accept-new';
    default:
      return 'ask';
  }
}

/** IdentityAgent as ssh uses it: `SSH_AUTH_SOCK` (and unset) is that variable, `$VAR` another one, else a path. */
function agentSocket(value: string | undefined, env: NodeJS.ProcessEnv): string {
  if (value === undefined || value === 'SSH_AUTH_SOCK') return env.SSH_AUTH_SOCK || 'none';
  if (value.toLowerCase() === 'none') return 'none';
  if (value.startsWith('$')) return env[value.slice(1)] || 'none';
  return value;
}

// Where a new file starts in ssh -G's known-hosts line: an absolute path, `~`, a drive, a UNC path or
// Win32-OpenSSH's placeholder for %ProgramData%.
const STARTS_A_PATH = /^(\/|~|[A-Za-z]:[\\/]|\\\\|__PROGRAMDATA__)/;

/**
 * Win32-OpenSSH prints its system folder as `__PROGRAMDATA__\ssh` and resolves the placeholder only when it opens
 * the file (its config.h); Servelab opens the files itself.
 */
function programData(file: string, env: NodeJS.ProcessEnv): string {
  if (!file.startsWith('__PROGRAMDATA__')) return file;
  return (env.ProgramData ?? env.PROGRAMDATA ?? 'C:\\ProgramData') + file.slice('__PROGRAMDATA__'.length);
}

/**
 * ssh -G prints userknownhostsfile/globalknownhostsfile as the files joined by single spaces, unquoted
 * (`/tmp/a b/kh /tmp/c` for `"/tmp/a b/kh" /tmp/c`). A word that does not start a path continues the one before.
 */
export function splitKnownHostsLine(text: string): string[] {
  const files: string[] = [];
  for (const word of text.split(' ')) {
    if (word === '') continue;
    if (files.length > 0 && !STARTS_A_PATH.test(word)) files[files.length - 1] += ` ${word}`;
    else files.push(word);
  }
  return files;
}

/**
 * Turns what `ssh -G` (or the built-in reader) printed into what ssh does at connect time: IdentityFile and
 * CertificateFile with `~`, `${VAR}` and the %-tokens expanded, ProxyCommand with its tokens, the agent socket,
 * and each ProxyJump hop resolved by its own resolution, outermost first.
 */
export async function finishResolution(
  raw: RawSshOptions,
  request: SshResolveRequest,
  ctx: SshResolveContext,
  source: ResolvedSshHost['source'],
  resolveHop: ResolveHop,
  depth = 0,
): Promise<ResolvedSshHost> {
  const all = (keyword: string): string[] => raw.values.get(keyword) ?? [];
  const one = (keyword: string): string | undefined => {
    const values = all(keyword);
    return values.length > 0 ? values.join(' ') : undefined;
  };

  const hostname = one('hostname') ?? request.hostName ?? request.destination;
  const user = one('user') ?? request.user ?? ctx.localUser;
  const port = whole('port', one('port'), request.port ?? 22);
  const hostKeyAliasText = one('hostkeyalias');
  const hostKeyAlias = hostKeyAliasText === undefined || hostKeyAliasText.toLowerCase() === 'none' ? null : hostKeyAliasText;
  const conn: ConnectionTokens = { hostname, port, user, hostArg: request.destination, hostKeyAlias };
  const tokens = clientTokens(conn, ctx);

  const origins: Record<string, ConfigOrigin> = {};
  for (const [key, origin] of raw.origins) {
    const field = FIELD_OF_KEYWORD[key];
    if (field) origins[field] = origin;
  }

  // `IdentityFile none` stands for no file; the others are expanded as ssh does before loading them.
  const expandFiles = (keyword: string, field: string): string[] => {
    const files: string[] = [];
    all(keyword).forEach((file, index) => {
      if (file.toLowerCase() === 'none') return;
      const origin = raw.origins.get(`${keyword}#${index}`);
      if (origin) origins[`${field}#${files.length}`] = origin;
      files.push(expandTokens(expandTilde(file, ctx, keyword), tokens, keyword, ctx.env));
    });
    return files;
  };
  const identityFiles = expandFiles('identityfile', 'identityFiles');
  const certificateFiles = expandFiles('certificatefile', 'certificateFiles');

  const knownHostsFiles = (keyword: string): string[] =>
    (raw.fileLists?.get(keyword) ?? splitKnownHostsLine(one(keyword) ?? ''))
      .filter((file) => file !== '' && file.toLowerCase() !== 'none')
      .map((file) => expandTilde(programData(file, ctx.env), ctx, keyword));

  const proxyCommandText = one('proxycommand');
  const proxyJumpText = one('proxyjump');
  let proxyCommand: string | null = null;
  let proxyJump: ResolvedJumpHost[] = [];
  if (proxyJumpText !== undefined && proxyJumpText.toLowerCase() !== 'none') {
    // ssh builds `ssh [-l user] [-p port] [-J earlier hops] [-F file] -W '[%h]:%p' lasthop` and expands the
    // ProxyCommand tokens in all of it: `%r@jump` is the destination's user.
    const expanded = expandTokens(proxyJumpText, proxyTokens(conn), 'proxyjump');
    const { last, before } = splitJumpList(expanded, request.destination);
    if (depth + 1 > MAX_JUMP_HOPS) throw tooLong(request.destination);
    const hopRequest: SshResolveRequest = { destination: last.name };
    if (request.configFile !== undefined) hopRequest.configFile = request.configFile;
    if (last.user !== undefined) hopRequest.user = last.user;
    if (last.port !== undefined) hopRequest.port = last.port;
    if (before !== undefined) hopRequest.proxyJump = before;
    const hop = await resolveHop(hopRequest, depth + 1).catch((error: unknown) => {
      // ssh's words are about the jump host: say so, and for which host.
      if (!(error instanceof ServelabError)) throw error;
      throw new ServelabError(error.code, `resolving jump host ${last.name} for ${request.destination}: ${error.message}`, {
        ...(error.details ? { details: error.details } : {}),
        ...(error.issues ? { issues: error.issues } : {}),
      });
    });
    const { proxyJump: hopChain, source: _source, ...hopHost } = hop;
    proxyJump = [...hopChain, hopHost];
    if (proxyJump.length + depth > MAX_JUMP_HOPS) throw tooLong(request.destination);
  } else if (proxyCommandText !== undefined && proxyCommandText.toLowerCase() !== 'none') {
    proxyCommand = expandTokens(proxyCommandText, proxyTokens(conn), 'proxycommand');
  }

  const connectTimeoutText = one('connecttimeout');
  return {
    alias: request.destination,
    hostname,
    port,
    user,
    identityFiles,
    identitiesOnly: one('identitiesonly') === 'yes',
    identityAgent: agentSocket(one('identityagent'), ctx.env),
    certificateFiles,
    proxyJump,
    proxyCommand,
    hostKeyAlias,
    strictHostKeyChecking: strictness(one('stricthostkeychecking')),
    userKnownHostsFiles: knownHostsFiles('userknownhostsfile'),
    globalKnownHostsFiles: knownHostsFiles('globalknownhostsfile'),
    connectTimeout: connectTimeoutText === undefined || connectTimeoutText === 'none' ? null : whole('connecttimeout', connectTimeoutText, 0),
    connectionAttempts: whole('connectionattempts', one('connectionattempts'), 1),
    serverAliveInterval: whole('serveraliveinterval', one('serveraliveinterval'), 0),
    serverAliveCountMax: whole('serveralivecountmax', one('serveralivecountmax'), 3),
    batchMode: one('batchmode') === 'yes',
    source,
    origins,
    ...(raw.warnings && raw.warnings.length > 0 ? { warnings: raw.warnings } : {}),
  };
}
