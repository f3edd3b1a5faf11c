import { createHash } from 'node:crypto';
import { ServelabError } from '../../../shared/contract';
import type { SshResolveContext } from './types';

/** The %-tokens ssh expands at connect time, letter → replacement. */
export type TokenValues = Readonly<Record<string, string>>;

export interface ConnectionTokens {
  /** The final host name (%h). */
  hostname: string;
  port: number;
  /** The remote user (%r). */
  user: string;
  /** The destination as typed (%n). */
  hostArg: string;
  hostKeyAlias: string | null;
}

/**
 * The tokens of IdentityFile, CertificateFile and the other path keywords (ssh's DEFAULT_CLIENT_PERCENT_EXPAND_ARGS):
 * `%C` is SHA-1 of %l%h%p%r in hex, `%k` the HostKeyAlias else the destination as typed, `%L` the first label of %l.
 */
export function clientTokens(conn: ConnectionTokens, ctx: Pick<SshResolveContext, 'localHostname' | 'uid' | 'home' | 'localUser'>): TokenValues {
  const port = String(conn.port);
  return {
    C: createHash('sha1').update(ctx.localHostname + conn.hostname + port + conn.user).digest('hex'),
    L: ctx.localHostname.split('.')[0] ?? '',
    i: String(ctx.uid),
    k: conn.hostKeyAlias ?? conn.hostArg,
    l: ctx.localHostname,
    n: conn.hostArg,
    p: port,
    d: ctx.home,
    h: conn.hostname,
    r: conn.user,
    u: ctx.localUser,
  };
}

/** The tokens of ProxyCommand (and so of the ProxyCommand ssh builds from ProxyJump): %h %k %n %p %r. */
export function proxyTokens(conn: ConnectionTokens): TokenValues {
  return { h: conn.hostname, k: conn.hostKeyAlias ?? conn.hostArg, n: conn.hostArg, p: String(conn.port), r: conn.user };
}

function invalid(message: string, keyword: string): ServelabError {
  return new ServelabError('SSH_CONFIG_INVALID', `${keyword}: ${message}`, { details: { keyword } });
}

/**
 * ssh's percent_expand (and, with `env`, percent_dollar_expand): one pass, `%%` is `%`, `${VAR}` the variable's
 * value; an unknown token or an unset variable is ssh's error.
 */
export function expandTokens(value: string, tokens: TokenValues, keyword: string, env?: NodeJS.ProcessEnv): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (env && c === '$' && value[i + 1] === '{') {
      const end = value.indexOf('}', i + 2);
      if (end < 0) throw invalid(`environment variable '${value.slice(i + 2)}' missing closing '}'`, keyword);
      const name = value.slice(i + 2, end);
      if (name === '') throw invalid('zero-length environment variable', keyword);
      const replacement = env[name];
      if (replacement === undefined) throw invalid(`env var \${${name}} has no value`, keyword);
      out += replacement;
      i = end;
      continue;
    }
    if (c !== '%') {
      out += c;
      continue;
    }
    const key = value[++i];
    if (key === undefined) throw invalid('invalid format', keyword);
    if (key === '%') {
      out += '%';
      continue;
    }
    const replacement = tokens[key];
    if (replacement === undefined) throw invalid(`percent_expand: unknown key %${key}`, keyword);
    out += replacement;
  }
  return out;
}

/**
 * ssh's tilde_expand_filename: `~` and `~/…` are the passwd entry's home (not $HOME), `~user/…` that user's home
 * (known here only for the local user).
 */
export function expandTilde(path: string, ctx: Pick<SshResolveContext, 'home' | 'localUser'>, keyword: string): string {
  if (!path.startsWith('~')) return path;
  const rest = path.slice(1);
  const slash = rest.indexOf('/');
  const user = slash < 0 ? rest : rest.slice(0, slash);
  const tail = slash < 0 ? '' : rest.slice(slash).replace(/^\/+/, '');
  if (user !== '' && user !== ctx.localUser) throw invalid(`tilde_expand: No such user ${user}`, keyword);
  const home = ctx.home.endsWith('/') ? ctx.home : `${ctx.home}/`;
  return home + tail;
}
