// `Match` lines as OpenSSH 9.2 readconf.c match_cfg_line evaluates them: criteria ANDed left to right, `!` negates
// one, `all` stands alone, `canonical`/`final` hold on the second pass (and `final` asks for one), `exec` runs only
// while every earlier criterion held, through $SHELL (else /bin/sh) with its %-tokens expanded.
import { createHash } from 'node:crypto';
import type { SshDiagnostics } from './diagnostics';
import type { SshOptions } from './options';
import { matchHostname, matchPatternList } from './patterns';
import { percentExpand } from './tokens';

export interface MatchEnvironment {
  options: SshOptions;
  diag: SshDiagnostics;
  /** The host the config is read for (Host lines match it): the destination, or the final host name. */
  host: string;
  originalHost: string;
  localUser: string;
  home: string;
  uid: number;
  localHostname: string;
  defaultPort: number;
  wantFinalPass: boolean;
  /** `false` for a non-zero exit; throws ExecAbnormalExit for a signal. */
  runExec: (command: string) => Promise<boolean>;
}

/** A `Match exec` command that ended by a signal: ssh stops there. */
export class ExecAbnormalExit extends Error {}

/** $SHELL cannot be run: ssh stops with this message. */
export class ShellNotExecutable extends Error {}

/** readconf.c ssh_connection_hash: %C. */
export function connectionHash(thisHost: string, host: string, port: string, user: string): string {
  return createHash('sha1').update(thisHost).update(host).update(port).update(user).digest('hex');
}

/** misc.c strdelim over the Match arguments (quotes and one `=` separate, as for the keyword). */
function* criteriaTokens(rest: string): Generator<string> {
  let s: string | null = rest;
  const ws = ' \t\r\n';
  while (s !== null) {
    let i = 0;
    while (i < s.length && !(ws + '"=').includes(s[i] as string)) i++;
    if (i === s.length) {
      yield s;
      return;
    }
    if (s[i] === '"') {
      const close = s.indexOf('"', i + 1);
      if (close === -1) return;
      const token: string = s.slice(0, i) + s.slice(i + 1, close);
      s = skip(s, close + 1);
      yield token;
      continue;
    }
    const wasEquals = s[i] === '=';
    const token: string = s.slice(0, i);
    s = skip(s, i + 1);
    if (s.startsWith('=') && !wasEquals) s = skip(s, 1);
    yield token;
  }
  function skip(str: string, from: number): string {
    let j = from;
    while (j < str.length && ws.includes(str[j] as string)) j++;
    return str.slice(j);
  }
}

/** 1 when the block applies, 0 when not, -1 after an error line (the caller adds "Bad Match condition"). */
export async function evaluateMatch(env: MatchEnvironment, rest: string, finalPass: boolean, file: string, linenum: number): Promise<-1 | 0 | 1> {
  const { options, diag } = env;
  const port = options.num('port') ?? env.defaultPort;
  const ruser = options.str('user') ?? env.localUser;
  const hostnameOption = options.str('hostname');
  let host: string;
  if (finalPass) host = hostnameOption ?? env.host;
  else if (hostnameOption !== undefined) host = percentExpand(hostnameOption, { h: env.host }, diag);
  else host = env.host;

  const tokens = criteriaTokens(rest);
  const nextToken = (): string | undefined => {
    const r = tokens.next();
    return r.done ? undefined : r.value;
  };
  let result: 0 | 1 = 1;
  let attributes = 0;
  for (let oattrib = nextToken(); oattrib !== undefined && oattrib !== ''; oattrib = nextToken()) {
    if (oattrib.startsWith('#')) break;
    const negate = oattrib.startsWith('!');
    const written = negate ? oattrib.slice(1) : oattrib;
    const attrib = written.toLowerCase();
    if (attrib === 'all') {
      const arg = nextToken();
      if (attributes > 1 || (arg !== undefined && arg !== '' && !arg.startsWith('#'))) {
        diag.error(`${file} line ${linenum}: '${oattrib}' cannot be combined with other Match attributes`);
        return -1;
      }
      if (result) result = negate ? 0 : 1;
      return result;
    }
    attributes++;
    if (attrib === 'canonical' || attrib === 'final') {
      if (attrib === 'final') env.wantFinalPass = true;
      if (finalPass === negate) result = 0;
      continue;
    }
    const arg = nextToken();
    if (arg === undefined || arg === '' || arg.startsWith('#')) {
      diag.error(`Missing Match criteria for ${written}`);
      return -1;
    }
    let matched: boolean;
    switch (attrib) {
      case 'host':
        matched = matchHostname(host, arg) === 1;
        break;
      case 'originalhost':
        matched = matchHostname(env.originalHost, arg) === 1;
        break;
      case 'user':
        matched = matchPatternList(ruser, arg, false) === 1;
        break;
      case 'localuser':
        matched = matchPatternList(env.localUser, arg, false) === 1;
        break;
      case 'exec': {
        const thisHost = env.localHostname;
        const shortHost = thisHost.split('.')[0] as string;
        const portStr = String(port);
        const keyAlias = options.str('hostkeyalias') ?? host;
        const cmd = percentExpand(
          arg,
          {
            C: connectionHash(thisHost, host, portStr, ruser),
            L: shortHost,
            d: env.home,
            h: host,
            k: keyAlias,
            l: thisHost,
            n: env.originalHost,
            p: portStr,
            r: ruser,
            u: env.localUser,
            i: String(env.uid),
          },
          diag,
        );
        // Skipped when an earlier criterion already failed.
        if (result !== 1) continue;
        try {
          matched = await env.runExec(cmd);
        } catch (err) {
          if (err instanceof ExecAbnormalExit) diag.fatal(`${file} line ${linenum}: match exec '${cmd.slice(0, 100)}' error`);
          if (err instanceof ShellNotExecutable) diag.fatal(err.message);
          throw err;
        }
        break;
      }
      default:
        diag.error(`Unsupported Match attribute ${written}`);
        return -1;
    }
    if (matched === negate) result = 0;
  }
  if (attributes === 0) {
    diag.error('One or more attributes required for Match');
    return -1;
  }
  return result;
}
