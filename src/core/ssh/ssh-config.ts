import { readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { wildcardMatch } from './known-hosts';
import { listConfigAliases } from './resolve/builtin/aliases';

/** What ~/.ssh/config says about one host: only the options Servelab uses. */
export interface SshConfigHost {
  /** The real host name (HostName), or the alias itself when the config does not set one. */
  hostName: string;
  user?: string;
  port?: number;
  /** Every IdentityFile that applies, in order, with `~`, `${VAR}` and %-tokens expanded. */
  identityFiles: string[];
  identitiesOnly?: boolean;
  /** `none`, `SSH_AUTH_SOCK`, `$VAR` as written; otherwise a socket path with `~` and tokens expanded. */
  identityAgent?: string;
  /** The ProxyJump value with its %-tokens expanded, or `none`. Set only when it comes before any ProxyCommand. */
  proxyJump?: string;
  /** A ProxyCommand that takes precedence (Servelab never runs it; the caller reports it). */
  proxyCommand?: string;
  serverAliveInterval?: number;
  serverAliveCountMax?: number;
}

export interface ResolveSshConfigOptions {
  /** The config file to read; a missing file means no settings. */
  configPath: string;
  /** The local user name (%u, and %r when neither the caller nor the config sets a user). */
  user: string;
  env?: NodeJS.ProcessEnv;
  /** The remote user given by the caller (like `ssh user@host`): wins over User for %r. */
  remoteUser?: string;
  /** The port given by the caller (like `ssh -p`): wins over Port for %p. */
  port?: number;
}

const MAX_INCLUDE_DEPTH = 16;

interface Collected {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
  identitiesOnly?: boolean;
  identityAgent?: string;
  proxy?: { kind: 'jump' | 'command'; value: string };
  serverAliveInterval?: number;
  serverAliveCountMax?: number;
}

/**
 * A small reader of OpenSSH client config for one host: Host blocks (`*`, `?`, `!negation`), first value wins,
 * IdentityFile accumulates, Include (relative to ~/.ssh, with globs). `Match` blocks are skipped (only `Match all`
 * applies), so nothing in the config is ever executed.
 */
export function resolveSshConfigHost(alias: string, opts: ResolveSshConfigOptions): SshConfigHost {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  const collected: Collected = { identityFiles: [] };
  readConfigFile(opts.configPath, alias, collected, { home, depth: 0, active: true, neverMatch: false });

  const hostName = collected.hostName ? expandTokens(collected.hostName, { '%': '%', h: alias, n: alias }) : alias;
  const remoteUser = opts.remoteUser ?? collected.user ?? opts.user;
  const port = opts.port ?? collected.port ?? 22;
  const local = localHostName();
  const tokens: Record<string, string> = {
    '%': '%',
    h: hostName,
    n: alias,
    p: String(port),
    r: remoteUser,
    u: opts.user,
    d: home,
    l: local,
    L: local.split('.')[0] ?? local,
    i: String(typeof process.getuid === 'function' ? process.getuid() : 0),
    k: hostName,
  };
  const expandPath = (value: string) => expandTilde(expandEnv(expandTokens(value, tokens), env), home);
  const identityFiles = collected.identityFiles.filter((file) => file.toLowerCase() !== 'none').map(expandPath);

  const result: SshConfigHost = { hostName, identityFiles };
  if (collected.user !== undefined) result.user = collected.user;
  if (collected.port !== undefined) result.port = collected.port;
  if (collected.identitiesOnly !== undefined) result.identitiesOnly = collected.identitiesOnly;
  if (collected.identityAgent !== undefined) {
    const agent = collected.identityAgent;
    result.identityAgent = agent.toLowerCase() === 'none' ? 'none' : agent === 'SSH_AUTH_SOCK' || agent.startsWith('$') ? agent : expandPath(agent);
  }
  if (collected.proxy?.kind === 'jump') {
    const value = collected.proxy.value;
    result.proxyJump = value.toLowerCase() === 'none' ? 'none' : expandTokens(value, { '%': '%', h: hostName, n: alias, p: String(port), r: remoteUser });
  } else if (collected.proxy?.kind === 'command' && collected.proxy.value.toLowerCase() !== 'none') {
    result.proxyCommand = collected.proxy.value;
  }
  if (collected.serverAliveInterval !== undefined) result.serverAliveInterval = collected.serverAliveInterval;
  if (collected.serverAliveCountMax !== undefined) result.serverAliveCountMax = collected.serverAliveCountMax;
  return result;
}

/** A concrete `Host` alias of the config (no wildcard, no negation), with what it resolves to. */
export interface SshConfigAlias {
  alias: string;
  hostName: string;
  user?: string;
  port?: number;
  proxyJump?: string;
}

/**
 * The aliases a user can pick from the config, in the order they appear (Includes followed), each once,
 * resolved like a connection to it would start (the built-in ssh_config reader's lexer, patterns and Include rules;
 * nothing in the config is run).
 */
export function listSshConfigAliases(configPath: string, opts: { user?: string; env?: NodeJS.ProcessEnv } = {}): SshConfigAlias[] {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  return listConfigAliases(configPath, home);
}

interface ReadState {
  home: string;
  depth: number;
  active: boolean;
  /** Set for files included from a block that does not apply: nothing in them may apply either. */
  neverMatch: boolean;
}

function readConfigFile(path: string, alias: string, out: Collected, state: ReadState): void {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  let active = state.active;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const parsed = splitDirective(line);
    if (!parsed) continue;
    const { keyword, args } = parsed;
    switch (keyword) {
      case 'host':
        active = !state.neverMatch && hostPatternsMatch(args, alias);
        break;
      case 'match':
        active = !state.neverMatch && args.length === 1 && args[0]?.toLowerCase() === 'all';
        break;
      case 'include':
        if (state.depth >= MAX_INCLUDE_DEPTH) break;
        for (const file of includedFiles(args, state.home)) {
          readConfigFile(file, alias, out, { home: state.home, depth: state.depth + 1, active, neverMatch: state.neverMatch || !active });
        }
        break;
      case 'hostname':
        if (active && out.hostName === undefined && args[0]) out.hostName = args[0];
        break;
      case 'user':
        if (active && out.user === undefined && args[0]) out.user = args[0];
        break;
      case 'port':
        if (active && out.port === undefined && args[0] && /^\d+$/.test(args[0])) {
          const port = Number(args[0]);
          if (port >= 1 && port <= 65535) out.port = port;
        }
        break;
      case 'identityfile':
        if (active && args[0]) out.identityFiles.push(args[0]);
        break;
      case 'identitiesonly':
        if (active && out.identitiesOnly === undefined && args[0]) {
          const flag = parseFlag(args[0]);
          if (flag !== undefined) out.identitiesOnly = flag;
        }
        break;
      case 'identityagent':
        if (active && out.identityAgent === undefined && args[0]) out.identityAgent = args[0];
        break;
      // Whichever of ProxyJump and ProxyCommand comes first wins, as in OpenSSH.
      case 'proxyjump':
        if (active && out.proxy === undefined && args.length > 0) out.proxy = { kind: 'jump', value: args.join('') };
        break;
      case 'proxycommand':
        if (active && out.proxy === undefined && args.length > 0) out.proxy = { kind: 'command', value: args.join(' ') };
        break;
      case 'serveraliveinterval':
        if (active && out.serverAliveInterval === undefined && args[0] && /^\d+$/.test(args[0])) out.serverAliveInterval = Number(args[0]);
        break;
      case 'serveralivecountmax':
        if (active && out.serverAliveCountMax === undefined && args[0] && /^\d+$/.test(args[0])) out.serverAliveCountMax = Number(args[0]);
        break;
    }
  }
}

/** `Keyword value…` or `Keyword=value…`; values may be double-quoted. */
function splitDirective(line: string): { keyword: string; args: string[] } | null {
  const m = /^([A-Za-z][A-Za-z0-9]*)\s*(?:=\s*|\s+)(.*)$/.exec(line);
  if (!m) return null;
  const args: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  const rest = m[2] as string;
  for (let match = re.exec(rest); match; match = re.exec(rest)) {
    const value = match[1] ?? match[2] ?? '';
    if (match[2]?.startsWith('#')) break;
    args.push(value);
  }
  return { keyword: (m[1] as string).toLowerCase(), args };
}

function hostPatternsMatch(patterns: string[], alias: string): boolean {
  const host = alias.toLowerCase();
  let matched = false;
  for (const pattern of patterns) {
    const p = pattern.toLowerCase();
    if (p.startsWith('!')) {
      if (wildcardMatch(host, p.slice(1))) return false;
    } else if (wildcardMatch(host, p)) {
      matched = true;
    }
  }
  return matched;
}

function includedFiles(args: string[], home: string): string[] {
  const files: string[] = [];
  for (const arg of args) {
    const expanded = expandTilde(arg, home);
    const pattern = isAbsolute(expanded) ? expanded : join(home, '.ssh', expanded);
    files.push(...globFiles(pattern));
  }
  return files;
}

function parseFlag(value: string): boolean | undefined {
  const v = value.toLowerCase();
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  return undefined;
}

/** `${VAR}` references, as OpenSSH expands them in IdentityFile and IdentityAgent; unset ones become empty. */
function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => env[name] ?? '');
}

function localHostName(): string {
  try {
    return hostname();
  } catch {
    return 'localhost';
  }
}

function expandTilde(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/** OpenSSH %-tokens; unknown tokens are left as written. */
function expandTokens(value: string, tokens: Record<string, string>): string {
  return value.replace(/%(.)/g, (whole, token: string) => tokens[token] ?? whole);
}

/** Files matching an absolute path whose components may hold `*` and `?`, sorted like glob(3). */
function globFiles(pattern: string): string[] {
  const parts = pattern.split('/').filter((p) => p !== '');
  let candidates = ['/'];
  for (const part of parts) {
    const next: string[] = [];
    for (const base of candidates) {
      if (!/[*?]/.test(part)) {
        next.push(join(base, part));
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(base);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (name.startsWith('.') && !part.startsWith('.')) continue;
        if (wildcardMatch(name, part)) next.push(join(base, name));
      }
    }
    candidates = next;
  }
  return candidates.filter((file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
