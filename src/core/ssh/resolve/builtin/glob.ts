// glob(3) as ssh's Include uses it (glibc, GLOB_TILDE, no GLOB_PERIOD): `*`, `?`, `[a-z]`, `[!x]`, `\` escapes,
// a leading `.` only matched literally, `~` from $HOME (glibc's rule for GLOB_TILDE), results sorted in byte
// order (ssh sets only LC_CTYPE, so collation is "C"). Returns [] when nothing matches (GLOB_NOMATCH).
import { readdirSync, lstatSync } from 'node:fs';

export interface GlobContext {
  /** $HOME, else the passwd home: what glibc's GLOB_TILDE uses for a bare `~`. */
  tildeHome: string;
  /** `~user` lookups. */
  userHome: (user: string) => string | null;
}

const MAGIC = /[*?[]/;

export function glob(pattern: string, ctx: GlobContext): string[] {
  const expanded = expandTilde(pattern, ctx);
  if (expanded === null) return [];
  const absolute = expanded.startsWith('/');
  const parts = expanded.split('/');
  let bases = [absolute ? '/' : ''];
  for (let i = absolute ? 1 : 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const last = i === parts.length - 1;
    if (part === '' && !last) continue;
    const next: string[] = [];
    for (const base of bases) {
      if (!MAGIC.test(part)) {
        const path = join(base, unescape(part));
        if (last ? exists(path) : true) next.push(path);
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(base === '' ? '.' : base);
      } catch {
        continue; // an unreadable directory contributes nothing, as in glibc without GLOB_ERR
      }
      const re = componentRegExp(part);
      for (const name of names) if (re.test(name)) next.push(join(base, name));
    }
    bases = next;
  }
  return bases.filter((p) => p !== '' && exists(p)).sort(compareBytes);
}

function join(base: string, name: string): string {
  if (base === '') return name;
  return base.endsWith('/') ? base + name : `${base}/${name}`;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function unescape(part: string): string {
  return part.replace(/\\(.)/g, '$1');
}

function expandTilde(pattern: string, ctx: GlobContext): string | null {
  if (!pattern.startsWith('~')) return pattern;
  const slash = pattern.indexOf('/');
  const user = slash === -1 ? pattern.slice(1) : pattern.slice(1, slash);
  const rest = slash === -1 ? '' : pattern.slice(slash);
  if (user === '') return ctx.tildeHome + rest;
  const home = ctx.userHome(user);
  // glibc leaves an unknown ~user as written.
  return home === null ? pattern : home + rest;
}

/** One path component's pattern as a RegExp (fnmatch without FNM_PERIOD's exceptions: a leading dot is literal). */
export function componentRegExp(part: string): RegExp {
  let re = '';
  let i = 0;
  const leading = true;
  while (i < part.length) {
    const c = part[i] as string;
    if (c === '\\' && i + 1 < part.length) {
      re += escapeRe(part[i + 1] as string);
      i += 2;
    } else if (c === '*') {
      re += i === 0 && leading ? '(?!\\.)[^/]*' : '[^/]*';
      i++;
    } else if (c === '?') {
      re += i === 0 && leading ? '(?!\\.)[^/]' : '[^/]';
      i++;
    } else if (c === '[') {
      const cls = bracket(part, i);
      if (cls === null) {
        re += '\\[';
        i++;
      } else {
        re += (i === 0 ? '(?!\\.)' : '') + cls.re;
        i = cls.end;
      }
    } else {
      re += escapeRe(c);
      i++;
    }
  }
  return new RegExp(`^${re}$`, 's');
}

function bracket(part: string, start: number): { re: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (part[i] === '!' || part[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  while (i < part.length) {
    const c = part[i] as string;
    if (c === ']' && !first) {
      return { re: `[${negate ? '^' : ''}${body}]`, end: i + 1 };
    }
    if (c === '[' && part[i + 1] === ':') {
      const close = part.indexOf(':]', i + 2);
      if (close !== -1) {
        const name = part.slice(i + 2, close);
        const posix: Record<string, string> = {
          alpha: 'a-zA-Z',
          digit: '0-9',
          alnum: 'a-zA-Z0-9',
          upper: 'A-Z',
          lower: 'a-z',
          space: ' \\t\\n\\r\\f\\v',
          punct: '!-\\/:-@\\[-`{-~',
          xdigit: '0-9A-Fa-f',
        };
        body += posix[name] ?? '';
        i = close + 2;
        first = false;
        continue;
      }
    }
    if (c === '\\' && i + 1 < part.length) {
      body += escapeClass(part[i + 1] as string);
      i += 2;
    } else {
      body += c === '-' && !first && part[i + 1] !== ']' ? '-' : escapeClass(c);
      i++;
    }
    first = false;
  }
  return null;
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function escapeClass(c: string): string {
  return c.replace(/[\]\\^-]/g, '\\$&');
}
