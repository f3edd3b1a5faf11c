// %-tokens, ${VAR} and ~ as OpenSSH 9.2 expands them (misc.c vdollar_percent_expand, tilde_expand). Failures are
// ssh's own: an unknown %-token or a trailing `%` is fatal; an unset ${VAR} is reported and the expansion fails.
import { readFileSync } from 'node:fs';
import type { SshDiagnostics } from './diagnostics';

export type TokenValues = Partial<Record<string, string>>;

interface ExpandOptions {
  percent?: TokenValues;
  env?: NodeJS.ProcessEnv;
}

/** The expanded string, or null when a ${VAR} has no value (after ssh's error line). Throws on a bad format. */
function expand(s: string, opts: ExpandOptions, diag: SshDiagnostics): string | null {
  let out = '';
  let missing = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (opts.env && c === '$' && s[i + 1] === '{') {
      const start = i + 2;
      const end = s.indexOf('}', start);
      if (end === -1) {
        diag.error(`vdollar_percent_expand: environment variable '${s.slice(start)}' missing closing '}'`);
        throw new ExpandFormatError();
      }
      if (end === start) {
        diag.error('vdollar_percent_expand: zero-length environment variable');
        throw new ExpandFormatError();
      }
      const name = s.slice(start, end);
      const value = opts.env[name];
      if (value === undefined) {
        diag.error(`vdollar_percent_expand: env var \${${name}} has no value`);
        missing = true;
      } else {
        out += value;
      }
      i = end;
      continue;
    }
    if (c !== '%' || !opts.percent) {
      out += c;
      continue;
    }
    i++;
    const key = s[i];
    if (key === '%') {
      out += '%';
      continue;
    }
    if (key === undefined) {
      diag.error('vdollar_percent_expand: invalid format');
      throw new ExpandFormatError();
    }
    const value = opts.percent[key];
    if (value === undefined) {
      diag.error(`vdollar_percent_expand: unknown key %${key}`);
      throw new ExpandFormatError();
    }
    out += value;
  }
  return missing ? null : out;
}

class ExpandFormatError extends Error {}

/** percent_expand(): fatal on any error. */
export function percentExpand(s: string, tokens: TokenValues, diag: SshDiagnostics): string {
  try {
    return expand(s, { percent: tokens }, diag) as string;
  } catch (err) {
    if (err instanceof ExpandFormatError) diag.fatal('percent_expand: failed');
    throw err;
  }
}

/** percent_dollar_expand() as ssh.c default_client_percent_dollar_expand uses it: fatal on any error. */
export function percentDollarExpand(s: string, tokens: TokenValues, env: NodeJS.ProcessEnv, diag: SshDiagnostics): string {
  let result: string | null;
  try {
    result = expand(s, { percent: tokens, env }, diag);
  } catch (err) {
    if (err instanceof ExpandFormatError) diag.fatal('percent_dollar_expand: failed');
    throw err;
  }
  if (result === null) diag.fatal('invalid environment variable expansion');
  return result;
}

/** dollar_expand() as readconf.c uses it to validate IdentityAgent: does it expand cleanly? */
export function dollarExpandIsValid(s: string, env: NodeJS.ProcessEnv, diag: SshDiagnostics): boolean {
  try {
    return expand(s, { env }, diag) !== null;
  } catch (err) {
    if (err instanceof ExpandFormatError) return false;
    throw err;
  }
}

export interface TildeContext {
  home: string;
  /** The passwd file where `~user` is looked up. */
  passwdFile: string;
}

/** misc.c tilde_expand: `~`, `~/path`, `~user/path`; null (after ssh's error line) for an unknown user. */
export function tildeExpand(path: string, ctx: TildeContext, diag: SshDiagnostics): string | null {
  if (!path.startsWith('~')) return path;
  const body = path.slice(1);
  let user: string | null = null;
  let rest: string | null;
  if (body === '') rest = null;
  else if (body.startsWith('/')) {
    const trimmed = body.replace(/^\/+/, '');
    rest = trimmed === '' ? null : trimmed;
  } else {
    const slash = body.indexOf('/');
    if (slash === -1) {
      user = body;
      rest = null;
    } else {
      user = body.slice(0, slash);
      const trimmed = body.slice(slash + 1).replace(/^\/+/, '');
      rest = trimmed === '' ? null : trimmed;
    }
  }
  let dir = ctx.home;
  if (user !== null) {
    const found = passwdHome(user, ctx.passwdFile);
    if (found === null) {
      diag.error(`tilde_expand: No such user ${user}`);
      return null;
    }
    dir = found;
  }
  const slash = dir.length === 0 || !dir.endsWith('/');
  return `${dir}${slash ? '/' : ''}${rest ?? ''}`;
}

/** tilde_expand_filename(): an unknown user ends ssh. */
export function tildeExpandFilename(path: string, ctx: TildeContext, diag: SshDiagnostics): string {
  const out = tildeExpand(path, ctx, diag);
  if (out === null) diag.abort();
  return out;
}

function passwdHome(user: string, passwdFile: string): string | null {
  let text: string;
  try {
    text = readFileSync(passwdFile, 'utf8');
  } catch {
    return null; // no passwd database readable: ssh's getpwnam would fail the same way
  }
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    if (fields[0] === user && fields.length >= 6) return fields[5] as string;
  }
  return null;
}

/** dollar_expand(): the string with ${VAR} expanded, or null when one is unset or the syntax is bad. */
export function dollarExpand(s: string, env: NodeJS.ProcessEnv, diag: SshDiagnostics): string | null {
  try {
    return expand(s, { env }, diag);
  } catch (err) {
    if (err instanceof ExpandFormatError) return null;
    throw err;
  }
}
