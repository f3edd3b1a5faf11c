// Value syntax shared by many keywords, as OpenSSH 9.2 misc.c parses it: convtime, strtonum, a2port (with the
// services database), valid_domain, [user@]host[:port] and ssh:// URIs.
import { readFileSync } from 'node:fs';

const INT_MAX = 2147483647;

/** misc.c convtime: `90`, `90s`, `1h30m`, `2d`, `1w` → seconds; -1 when invalid. */
export function convtime(s: string): number {
  if (s === '') return -1;
  let total = 0;
  let i = 0;
  while (i < s.length) {
    const m = /^[ \t\n\v\f\r]*([+-]?\d+)/.exec(s.slice(i));
    if (!m) return -1;
    const secs = Number(m[1]);
    if (secs < 0 || secs > INT_MAX) return -1;
    i += m[0].length;
    const unit = s[i];
    let multiplier = 1;
    if (unit !== undefined) {
      i++;
      switch (unit) {
        case 's':
        case 'S':
          break;
        case 'm':
        case 'M':
          multiplier = 60;
          break;
        case 'h':
        case 'H':
          multiplier = 3600;
          break;
        case 'd':
        case 'D':
          multiplier = 86400;
          break;
        case 'w':
        case 'W':
          multiplier = 604800;
          break;
        default:
          return -1;
      }
    }
    if (secs > Math.floor(INT_MAX / multiplier)) return -1;
    const part = secs * multiplier;
    if (total > INT_MAX - part) return -1;
    total += part;
  }
  return total;
}

/** OpenBSD strtonum: a whole decimal number in [min, max], or the reason it is not. */
export function strtonum(s: string, min: number, max: number): { value: number } | { error: 'invalid' | 'too small' | 'too large' } {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)$/.exec(s);
  if (!m) return { error: 'invalid' };
  const value = Number(m[1]);
  if (value < min) return { error: 'too small' };
  if (value > max) return { error: 'too large' };
  return { value };
}

/** misc.c atoi_err: the error word of `integer value %s.`, or the number. */
export function atoiErr(s: string | undefined): { value: number } | { error: string } {
  if (s === undefined || s === '') return { error: 'missing' };
  return strtonum(s, 0, INT_MAX);
}

let services: Map<string, number> | null = null;

function tcpServices(): Map<string, number> {
  if (services) return services;
  services = new Map();
  let text = '';
  try {
    text = readFileSync('/etc/services', 'utf8');
  } catch {
    // Without a services database only numeric ports parse, as with getservbyname failing.
  }
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const [name, portProto, ...aliases] = line.split(/\s+/);
    const m = /^(\d+)\/tcp$/.exec(portProto ?? '');
    if (!name || !m) continue;
    for (const n of [name, ...aliases]) if (!services.has(n)) services.set(n, Number(m[1]));
  }
  return services;
}

/** misc.c a2port: 0–65535 or a tcp service name; -1 otherwise (callers treat ≤ 0 as bad). */
export function a2port(s: string): number {
  const n = strtonum(s, 0, 65535);
  if ('value' in n) return n.value;
  return tcpServices().get(s) ?? -1;
}

/** misc.c valid_domain; the error text ssh prints, or null when valid. */
export function validDomainError(name: string): string | null {
  if (name.length === 0) return 'empty domain name';
  if (!/^[A-Za-z0-9]/.test(name)) return `domain name "${name.slice(0, 100)}" starts with invalid character`;
  let last = '';
  for (let i = 0; i < name.length; i++) {
    const c = (name[i] as string).toLowerCase();
    if (last === '.' && c === '.') return `domain name "${name.slice(0, 100)}" contains consecutive separators`;
    if (c !== '.' && c !== '-' && c !== '_' && !/[a-z0-9]/.test(c)) return `domain name "${name.slice(0, 100)}" contains invalid characters`;
    last = c;
  }
  return null;
}

export function validEnvName(name: string): boolean {
  return /^[A-Za-z0-9_]+$/.test(name);
}

export interface UserHostPort {
  user: string | null;
  host: string;
  port: number;
}

/** misc.c hpdelim2: the host part (brackets kept), the rest, and the delimiter found. */
function hpdelim(s: string): { host: string; rest: string | null; delim: string } | null {
  let i: number;
  if (s.startsWith('[')) {
    const close = s.indexOf(']');
    if (close === -1) return null;
    i = close + 1;
  } else {
    const m = /[:/]/.exec(s);
    i = m ? m.index : s.length;
  }
  const c = s[i];
  if (c === undefined) return { host: s, rest: null, delim: '' };
  if (c === ':' || c === '/') return { host: s.slice(0, i), rest: s.slice(i + 1), delim: c };
  return null;
}

function cleanHostname(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** misc.c parse_user_host_port: `[user@]host[:port]` (port -1 when absent), null when invalid. */
export function parseUserHostPort(s: string): UserHostPort | null {
  let user: string | null = null;
  let rest = s;
  const at = s.lastIndexOf('@');
  if (at !== -1) {
    if (at === 0) return null;
    user = s.slice(0, at);
    rest = s.slice(at + 1);
  }
  const hp = hpdelim(rest);
  if (!hp || hp.delim === '/' || hp.host === '') return null;
  let port = -1;
  if (hp.rest !== null && hp.rest !== '') {
    port = a2port(hp.rest);
    if (port <= 0) return null;
  }
  return { user, host: cleanHostname(hp.host), port };
}

function urldecode(s: string): string | null {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '+') out += ' ';
    else if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 2;
    } else out += c;
  }
  return out;
}

/** misc.c parse_uri("ssh", …) as readconf.c parse_ssh_uri uses it: 'not-uri', 'invalid' or the parts. */
export function parseSshUri(uri: string): UserHostPort | 'not-uri' | 'invalid' {
  if (!uri.startsWith('ssh://')) return 'not-uri';
  let tmp = uri.slice(6);
  let user: string | null = null;
  const at = tmp.indexOf('@');
  if (at !== -1) {
    let info = tmp.slice(0, at);
    const semi = info.indexOf(';');
    if (semi !== -1) info = info.slice(0, semi);
    if (info === '') return 'invalid';
    user = urldecode(info);
    if (user === null) return 'invalid';
    tmp = tmp.slice(at + 1);
  }
  const hp = hpdelim(tmp);
  if (!hp || hp.host === '') return 'invalid';
  const host = cleanHostname(hp.host);
  if (validDomainError(host) !== null) return 'invalid';
  let port = -1;
  let rest = hp.rest;
  let path: string | null = null;
  if (rest !== null && rest !== '') {
    if (hp.delim === ':') {
      const slash = rest.indexOf('/');
      const portText = slash === -1 ? rest : rest.slice(0, slash);
      port = a2port(portText);
      if (port <= 0) return 'invalid';
      rest = slash === -1 ? null : rest.slice(slash + 1);
    }
    if (rest !== null && rest !== '') {
      path = urldecode(rest);
      if (path === null) return 'invalid';
    }
  }
  if (path !== null) return 'invalid';
  return { user, host, port };
}
