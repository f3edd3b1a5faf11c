// The concrete Host aliases of a config, for the host picker: every `Host` name without wildcards or negation, in
// file order with Includes followed (each file once), each with the HostName, User, Port and ProxyJump a
// connection to it would start from. Read with the same lexer, patterns and Include rules as the resolver, but
// synchronously and without running anything: only Host blocks and `Match all` apply, and bad lines are skipped
// (resolving the host reports them).
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { glob } from './glob';
import { lexLine } from './lexer';
import { formatJump, parseJump } from './jump';
import { asciiLower, matchPattern } from './patterns';
import { isAddr } from './canonicalise';
import { a2port } from './values';

export interface ConfigAlias {
  alias: string;
  hostName: string;
  user?: string;
  port?: number;
  proxyJump?: string;
}

interface AliasReadContext {
  /** `~` for Include (glob(3) takes $HOME). */
  home: string;
  seen: Set<string>;
}

const MAX_DEPTH = 16;

function readLines(path: string): string[] | null {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch {
    return null; // a missing or unreadable file lists nothing
  }
}

function includePaths(args: string[], home: string): string[] {
  return args.flatMap((arg) => glob(!isAbsolute(arg) && !arg.startsWith('~') ? `~/.ssh/${arg}` : arg, { tildeHome: home, userHome: () => null }));
}

function collectAliases(path: string, ctx: AliasReadContext, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH || ctx.seen.has(path)) return;
  ctx.seen.add(path);
  for (const raw of readLines(path) ?? []) {
    const lexed = lexLine(raw);
    if (lexed.kind !== 'directive') continue;
    if (lexed.keyword === 'host') {
      for (const pattern of lexed.args) if (pattern !== '' && !/[*?!]/.test(pattern)) out.push(pattern);
    } else if (lexed.keyword === 'include') {
      for (const file of includePaths(lexed.args, ctx.home)) collectAliases(file, ctx, depth + 1, out);
    }
  }
}

interface Collected {
  hostName?: string;
  user?: string;
  port?: number;
  jump?: string;
  proxyCommand?: boolean;
}

function collectOptions(path: string, alias: string, home: string, state: { active: boolean }, neverMatch: boolean, depth: number, out: Collected): void {
  if (depth > MAX_DEPTH) return;
  for (const raw of readLines(path) ?? []) {
    const lexed = lexLine(raw);
    if (lexed.kind !== 'directive') continue;
    const { keyword, args } = lexed;
    const first = args[0];
    switch (keyword) {
      case 'host': {
        state.active = false;
        if (neverMatch) break;
        for (const arg of args) {
          const negated = arg.startsWith('!');
          if (matchPattern(alias, negated ? arg.slice(1) : arg)) {
            if (negated) {
              state.active = false;
              break;
            }
            state.active = true;
          }
        }
        break;
      }
      case 'match':
        state.active = !neverMatch && args.length >= 1 && first?.toLowerCase() === 'all';
        break;
      case 'include': {
        const outer = state.active;
        for (const file of includePaths(args, home)) {
          collectOptions(file, alias, home, state, neverMatch || !outer, depth + 1, out);
          state.active = outer;
        }
        break;
      }
      case 'hostname':
        if (state.active && out.hostName === undefined && first) out.hostName = first;
        break;
      case 'user':
        if (state.active && out.user === undefined && first) out.user = first;
        break;
      case 'port':
        if (state.active && out.port === undefined && first && a2port(first) > 0) out.port = a2port(first);
        break;
      case 'proxycommand':
        if (state.active && out.jump === undefined) out.proxyCommand = true;
        break;
      case 'proxyjump':
        if (state.active && out.jump === undefined && !out.proxyCommand) out.jump = lexed.rest.replace(/^[ \t=]+/, '');
        break;
    }
  }
}

function jumpText(value: string): string | undefined {
  if (value.toLowerCase() === 'none') return undefined;
  const spec = parseJump(value, false);
  return spec === null ? undefined : formatJump(spec);
}

export function listConfigAliases(configPath: string, home: string): ConfigAlias[] {
  const names: string[] = [];
  collectAliases(configPath, { home, seen: new Set() }, 0, names);
  return [...new Set(names)].map((alias) => {
    const collected: Collected = {};
    collectOptions(configPath, alias, home, { active: true }, false, 0, collected);
    const expanded = collected.hostName !== undefined ? collected.hostName.replace(/%([%h])/g, (_m, t: string) => (t === 'h' ? alias : '%')) : alias;
    const entry: ConfigAlias = { alias, hostName: isAddr(expanded) ? expanded : asciiLower(expanded) };
    if (collected.user !== undefined) entry.user = collected.user;
    if (collected.port !== undefined) entry.port = collected.port;
    const jump = collected.jump !== undefined ? jumpText(collected.jump) : undefined;
    if (jump !== undefined) entry.proxyJump = jump;
    return entry;
  });
}
