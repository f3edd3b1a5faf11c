import { readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { wildcardMatch } from './known-hosts';

/** What ~/.ssh/config says about one host: only the options Servelab uses. */
export interface SshConfigHost {
  /** The real host name (HostName), or the alias itself when the config does not set one. */
  hostName: string;
  user?: string;
  port?: number;
  /** Every IdentityFile that applies, in order, with `~` and %-tokens expanded. */
  identityFiles: string[];
}

export interface ResolveSshConfigOptions {
  /** The config file to read; a missing file means no settings. */
  configPath: string;
  /** The local user name (%u, and %r when the config sets no User). */
  user: string;
  env?: NodeJS.ProcessEnv;
}

const MAX_INCLUDE_DEPTH = 16;

interface Collected {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
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
  const remoteUser = collected.user ?? opts.user;
  const port = collected.port ?? 22;
  const tokens: Record<string, string> = {
    '%': '%',
    h: hostName,
    n: alias,
    p: String(port),
    r: remoteUser,
    u: opts.user,
    d: home,
  };
  const identityFiles = collected.identityFiles
    .filter((file) => file.toLowerCase() !== 'none')
    .map((file) => expandTilde(expandTokens(file, tokens), home));

  const result: SshConfigHost = { hostName, identityFiles };
  if (collected.user !== undefined) result.user = collected.user;
  if (collected.port !== undefined) result.port = collected.port;
  return result;
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
        for (const arg of args) {
          const expanded = expandTilde(arg, state.home);
          const pattern = isAbsolute(expanded) ? expanded : join(state.home, '.ssh', expanded);
          for (const file of globFiles(pattern)) {
            readConfigFile(file, alias, out, { home: state.home, depth: state.depth + 1, active, neverMatch: state.neverMatch || !active });
          }
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

/** ~/.ssh/config of the given home. */
export function defaultSshConfigPath(home: string): string {
  return join(home, '.ssh', 'config');
}
