// ProxyJump / -J values as the ssh this reader stands in for parses and prints them (readconf.c parse_jump and
// dump_client_config, OpenSSH 9.2p1 with Debian's backport of upstream readconf.c 1.411).
import type { JumpSpec } from './options';
import { parseSshUri, parseUserHostPort } from './values';

/**
 * readconf.c parse_jump as this build has it: a comment and everything after the first blank are dropped (its
 * `ssh -G` prints `proxyjump a` for `ProxyJump a b`), hops are read from the last one back, each an ssh:// URI or
 * [user@]host[:port]; only the last hop is kept apart, the earlier ones stay as written. `strict` (-J) also refuses
 * shell metacharacters in host and user names.
 */
export function parseJump(s: string, strict: boolean, onError?: (message: string) => void): JumpSpec | null {
  let orig = s;
  const hash = orig.indexOf('#');
  if (hash !== -1) orig = orig.slice(0, hash);
  orig = orig.replace(/[ \t\r\n]+$/, '');
  const ws = orig.search(/[ \t]/);
  if (ws !== -1) orig = orig.slice(0, ws);
  const hops = orig.split(',');
  let last: JumpSpec | null = null;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    const uri = parseSshUri(hop);
    if (uri === 'invalid') return null;
    const parsed = uri === 'not-uri' ? parseUserHostPort(hop) : uri;
    if (parsed === null) return null;
    if (strict && !validHostname(parsed.host)) {
      onError?.(`parse_jump: invalid hostname "${parsed.host}"`);
      return null;
    }
    if (strict && parsed.user !== null && !validRemoteUser(parsed.user)) {
      onError?.(`parse_jump: invalid username "${parsed.user}"`);
      return null;
    }
    if (last === null) last = { user: parsed.user, host: parsed.host, port: parsed.port, extra: null };
  }
  if (last === null) return null;
  const comma = orig.lastIndexOf(',');
  if (comma !== -1) last.extra = orig.slice(0, comma);
  return last;
}

/** readconf.c ssh_valid_hostname (for -J). */
export function validHostname(s: string): boolean {
  if (s.startsWith('-')) return false;
  // eslint-disable-next-line no-control-regex
  return !/['`"$\\;&<>|(){},\s\x00-\x1f\x7f]/.test(s);
}

/** readconf.c ssh_valid_ruser (for -J). */
export function validRemoteUser(s: string): boolean {
  if (s.startsWith('-')) return false;
  // eslint-disable-next-line no-control-regex
  if (/['`";&<>|(){}\x00-\x1f\x7f]/.test(s)) return false;
  if (/\s-/.test(s)) return false;
  return !s.endsWith('\\');
}

/** How `ssh -G` prints a jump: earlier hops as written, then [user@]host[:port], numeric hosts in brackets. */
export function formatJump(spec: JumpSpec): string {
  const numeric = spec.host.includes(':') || /^[0-9.]*$/.test(spec.host);
  return (
    (spec.extra !== null ? `${spec.extra},` : '') +
    (spec.user !== null ? `${spec.user}@` : '') +
    (numeric ? `[${spec.host}]` : spec.host) +
    (spec.port > 0 ? `:${spec.port}` : '')
  );
}
