// Host name canonicalisation as OpenSSH 9.2 ssh.c does it (resolve_canonicalize, check_follow_cname): numeric
// addresses are normalised whatever the settings; otherwise, with CanonicalizeHostname on (and the host reached
// directly, unless `always`), a name with at most CanonicalizeMaxDots dots is tried with each CanonicalDomains
// suffix, and a CNAME answer replaces it only when CanonicalizePermittedCNAMEs allows.
import { isIPv6 } from 'node:net';
import type { SshDiagnostics } from './diagnostics';
import type { SshOptions } from './options';
import { matchPatternList } from './patterns';

export type LookupHost = (name: string) => Promise<{ canonicalName?: string } | null>;

export const CANONICALISE_NO = 0;
export const CANONICALISE_ALWAYS = 2;

/** inet_aton forms (`127.1`, `0x7f.0.0.1`, `2130706433`) → dotted quad, as glibc's numeric getaddrinfo accepts them. */
function inetAton(s: string): string | null {
  const parts = s.split('.');
  if (parts.length === 0 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) n = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) n = Number(part);
    else return null;
    nums.push(n);
  }
  const last = nums.pop() as number;
  if (nums.some((n) => n > 255)) return null;
  const lastMax = 2 ** (8 * (4 - nums.length)) - 1;
  if (last > lastMax) return null;
  const bytes = [...nums];
  for (let i = 4 - nums.length - 1; i >= 0; i--) bytes.push(Math.floor(last / 2 ** (8 * i)) % 256);
  return bytes.join('.');
}

/** The numeric form getnameinfo(NI_NUMERICHOST) prints for a numeric host, or null when it is a name. */
export function numericAddress(name: string): string | null {
  const v4 = inetAton(name);
  if (v4 !== null) return v4;
  const bare = name.split('%')[0] as string;
  if (isIPv6(bare)) {
    const scope = name.includes('%') ? name.slice(name.indexOf('%')) : '';
    const formatted = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(formatted);
    const out = mapped ? `::ffff:${hexPairToV4(mapped[1] as string, mapped[2] as string)}` : formatted;
    return out + scope;
  }
  return null;
}

function hexPairToV4(a: string, b: string): string {
  const x = parseInt(a, 16);
  const y = parseInt(b, 16);
  return [x >> 8, x & 255, y >> 8, y & 255].join('.');
}

/** ssh.c is_addr_fast: names that can only be addresses. */
export function isAddrFast(name: string): boolean {
  return name.includes('%') || name.includes(':') || /^[0-9.]*$/.test(name);
}

export function isAddr(name: string): boolean {
  return isAddrFast(name) || numericAddress(name) !== null;
}

export function hasPermittedCnames(options: SshOptions): boolean {
  const rules = options.permittedCnames;
  if (rules.length === 1 && rules[0]?.source.toLowerCase() === 'none' && rules[0].target === '') return false;
  return rules.length > 0;
}

/** Whether ssh connects to the host itself (no ProxyCommand, no ProxyJump, not even `ProxyJump none` yet). */
export function isDirect(options: SshOptions): boolean {
  const proxy = options.str('proxycommand');
  return (proxy === undefined || proxy.toLowerCase() === 'none') && options.jump === null;
}

function followCname(options: SshOptions, direct: boolean, name: string, cname: string | undefined): string {
  if (!cname || !hasPermittedCnames(options) || name === cname) return name;
  const mode = options.num('canonicalizehostname') ?? CANONICALISE_NO;
  if (mode === CANONICALISE_NO) return name;
  if (!direct && mode !== CANONICALISE_ALWAYS) return name;
  for (const rule of options.permittedCnames) {
    if (matchPatternList(name, rule.source, true) === 1 && matchPatternList(cname, rule.target, true) === 1) return cname;
  }
  return name;
}

/** resolve_canonicalize: the host name to use and whether an address list was obtained. */
export async function resolveCanonicalize(
  host: string,
  options: SshOptions,
  lookup: LookupHost,
  diag: SshDiagnostics,
): Promise<{ host: string; resolved: boolean }> {
  const numeric = numericAddress(host);
  if (numeric !== null) return { host: numeric.toLowerCase() === host.toLowerCase() ? host : numeric, resolved: true };
  if (isAddrFast(host)) return { host, resolved: false };
  const mode = options.num('canonicalizehostname') ?? CANONICALISE_NO;
  if (mode === CANONICALISE_NO) return { host, resolved: false };
  const direct = isDirect(options);
  if (!direct && mode !== CANONICALISE_ALWAYS) return { host, resolved: false };

  const found = async (fullhost: string): Promise<string | null> => {
    const answer = await lookup(fullhost);
    if (answer === null) return null;
    return followCname(options, direct, fullhost.slice(0, -1), answer.canonicalName);
  };

  if (host.endsWith('.')) {
    const name = await found(host);
    if (name !== null) return { host: name, resolved: true };
  } else {
    const ndots = host.split('.').length - 1;
    if (ndots > (options.num('canonicalizemaxdots') ?? 1)) return { host, resolved: false };
    for (const domain of options.lists.get('canonicaldomains')?.values ?? []) {
      if (domain.toLowerCase() === 'none') break;
      const name = await found(`${host}.${domain}.`);
      if (name !== null) return { host: name, resolved: true };
    }
  }
  if ((options.num('canonicalizefallbacklocal') ?? 1) === 0) diag.fatal(`ssh: Could not resolve host "${host}"`);
  return { host, resolved: false };
}

/** The CNAME step ssh takes when canonicalisation found nothing but CanonicalizePermittedCNAMEs is set. */
export async function followBareCname(host: string, options: SshOptions, lookup: LookupHost, diag: SshDiagnostics): Promise<string> {
  const direct = isDirect(options);
  const mode = options.num('canonicalizehostname') ?? CANONICALISE_NO;
  if (!hasPermittedCnames(options) || !(direct || mode === CANONICALISE_ALWAYS)) return host;
  const answer = await lookup(host);
  if (answer === null) {
    // Only a direct connection fails here; ssh logs the lookup error at that point.
    if (direct) diag.fatal(`ssh: Could not resolve hostname ${host}: Name or service not known`);
    return host;
  }
  return followCname(options, direct, host, answer.canonicalName);
}
