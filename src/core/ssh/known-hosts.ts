import { readFile, mkdir } from 'node:fs/promises';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { dirname } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { writeFileAtomic } from '../util/atomic-write';
import { fingerprintSha256, keyTypeOf } from './fingerprint';

export { fingerprintSha256, keyTypeOf } from './fingerprint';

export interface KnownHostsOptions {
  /** The app's own known_hosts: read, and the only file `add` writes. */
  appFile: string;
  /** Further known_hosts files that are trusted but never written (e.g. ~/.ssh/known_hosts). */
  readOnlyFiles: string[];
}

export interface ExpectedHostKey {
  keyType: string;
  fingerprint: string;
  file: string;
  line: number;
}

/** An `@cert-authority` line whose host patterns match: the host is meant to be trusted through host certificates. */
export interface CertAuthorityMatch {
  file: string;
  line: number;
  keyType: string;
  fingerprint: string;
}

export type HostKeyCheck =
  | { status: 'known' }
  | { status: 'unknown'; certAuthorities: CertAuthorityMatch[] }
  | { status: 'changed'; expected: ExpectedHostKey[] }
  | { status: 'revoked'; file: string; line: number };

export interface NewKnownHost {
  host: string;
  port: number;
  keyType: string;
  /** The key blob, base64 as in a known_hosts line. */
  publicKey: string;
}

/** One usable line of a known_hosts file. */
export interface KnownHostsEntry {
  file: string;
  line: number;
  marker: 'revoked' | 'cert-authority' | null;
  hosts: string;
  keyType: string;
  key: Buffer;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// What we are willing to write as a host name into a known_hosts line (no spaces, commas or pattern characters).
const WRITABLE_HOST = /^[A-Za-z0-9_.:%-]+$/;

/** The name known_hosts stores for a host: bare on port 22, `[host]:port` otherwise (as OpenSSH writes it). */
export function knownHostsName(host: string, port: number): string {
  const name = host.toLowerCase();
  return port === 22 ? name : `[${name}]:${port}`;
}

/** What names a host's key in known_hosts: its HostKeyAlias when it has one. */
export type HostKeyOwner = { host: string; port: number; hostKeyAlias?: string | null | undefined };

/**
 * Where a host's key is looked up and stored: under its HostKeyAlias as written, with no port (ssh ignores the port
 * then: stored as port 22, which known_hosts writes bare), else under host and port.
 */
export function hostKeyPlace(owner: HostKeyOwner): { host: string; port: number } {
  return owner.hostKeyAlias ? { host: owner.hostKeyAlias, port: 22 } : { host: owner.host, port: owner.port };
}

/** The known_hosts name of a host's key (`alias`, `host`, `[host]:port`): the one name connect, accept-new and the store use. */
export function hostKeyName(owner: HostKeyOwner): string {
  const place = hostKeyPlace(owner);
  return knownHostsName(place.host, place.port);
}

/** Why a key cannot be stored under the host's HostKeyAlias (characters a known_hosts line cannot hold), if so. */
export function hostKeyAliasProblem(owner: HostKeyOwner): ServelabError | undefined {
  const alias = owner.hostKeyAlias;
  if (!alias || WRITABLE_HOST.test(alias)) return undefined;
  return new ServelabError(
    'BAD_INPUT',
    `HostKeyAlias "${alias}" cannot name a host key in known_hosts: Servelab stores keys only under names of letters, digits and . _ - : %. ` +
      `Change the HostKeyAlias of ${owner.host} in the ssh config, or remove it so the key is stored under the host name.`,
    { issues: [{ path: 'hostKeyAlias', message: 'holds characters a known_hosts host name cannot' }], details: { host: owner.host, port: owner.port, hostKeyAlias: alias } },
  );
}

/**
 * OpenSSH known_hosts files: the app's own file plus read-only ones. Matching follows OpenSSH: a key that is
 * listed for the host is known unless a matching `@revoked` line names it; any other key for a host that has
 * entries is a changed key; a host without entries is unknown.
 */
export class KnownHostsStore {
  private readonly appFile: string;
  private readonly readOnlyFiles: string[];
  // Serialises `add` so two accepts in a row cannot lose one another's line; shared with withReadOnlyFiles views.
  private readonly queue: { writes: Promise<void> };

  constructor(opts: KnownHostsOptions, queue?: { writes: Promise<void> }) {
    this.appFile = opts.appFile;
    this.readOnlyFiles = [...opts.readOnlyFiles];
    this.queue = queue ?? { writes: Promise.resolve() };
  }

  get writableFile(): string {
    return this.appFile;
  }

  /**
   * The same app file (and write queue) with other read-only files: a target's UserKnownHostsFile and
   * GlobalKnownHostsFile replace the setup's defaults for that target.
   */
  withReadOnlyFiles(readOnlyFiles: string[]): KnownHostsStore {
    return new KnownHostsStore({ appFile: this.appFile, readOnlyFiles: readOnlyFiles.filter((file) => file !== this.appFile) }, this.queue);
  }

  async check(host: string, port: number, keyType: string, publicKey: Buffer): Promise<HostKeyCheck> {
    return this.checkName(knownHostsName(host, port), keyType, publicKey);
  }

  /** Like check, for a known_hosts name as it is written (`host`, `[host]:port`, or a HostKeyAlias). */
  async checkName(name: string, keyType: string, publicKey: Buffer): Promise<HostKeyCheck> {
    const all = await this.entriesNamed(name);
    const entries = all.filter((e) => e.marker !== 'cert-authority');
    const sameKey = (e: KnownHostsEntry) => e.keyType === keyType && e.key.equals(publicKey);
    const revoked = entries.find((e) => e.marker === 'revoked' && sameKey(e));
    if (revoked) return { status: 'revoked', file: revoked.file, line: revoked.line };
    const hostKeys = entries.filter((e) => e.marker === null);
    if (hostKeys.some(sameKey)) return { status: 'known' };
    if (hostKeys.length === 0) {
      const certAuthorities = all
        .filter((e) => e.marker === 'cert-authority')
        .map((e) => ({ file: e.file, line: e.line, keyType: e.keyType, fingerprint: fingerprintSha256(e.key) }));
      return { status: 'unknown', certAuthorities };
    }
    return {
      status: 'changed',
      expected: hostKeys.map((e) => ({ keyType: e.keyType, fingerprint: fingerprintSha256(e.key), file: e.file, line: e.line })),
    };
  }

  /** The `@cert-authority` lines matching `name`, and the keys `@revoked` lines name for it (a revoked CA refuses). */
  async certificateAuthoritiesNamed(name: string): Promise<{ authorities: KnownHostsEntry[]; revoked: KnownHostsEntry[] }> {
    const entries = await this.entriesNamed(name);
    return { authorities: entries.filter((e) => e.marker === 'cert-authority'), revoked: entries.filter((e) => e.marker === 'revoked') };
  }

  /** Key types already trusted for this host, so the connection can ask the server for one of those first. */
  async knownKeyTypes(host: string, port: number): Promise<string[]> {
    return this.knownKeyTypesNamed(knownHostsName(host, port));
  }

  async knownKeyTypesNamed(name: string): Promise<string[]> {
    const entries = await this.entriesNamed(name);
    return [...new Set(entries.filter((e) => e.marker === null).map((e) => e.keyType))];
  }

  async add(entry: NewKnownHost): Promise<void> {
    const line = formatEntry(entry);
    const next = this.queue.writes.then(() => this.append(line));
    this.queue.writes = next.catch(() => {});
    await next;
  }

  /**
   * Trusts a new key for a host whose key changed, on the person's explicit decision: the app's own file loses
   * every line for that host (plain or hashed) and gains the new key. Read-only files such as ~/.ssh/known_hosts
   * are left as they are; a matching key in any file makes the host known.
   */
  async replace(entry: NewKnownHost): Promise<void> {
    const line = formatEntry(entry);
    const name = knownHostsName(entry.host, entry.port);
    const next = this.queue.writes.then(async () => {
      const entries = await readEntries(this.appFile);
      const dropLines = new Set(entries.filter((e) => e.marker === null && hostFieldMatches(e.hosts, name)).map((e) => e.line));
      let existing = '';
      try {
        existing = await readFile(this.appFile, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const kept = existing.split(/\r?\n/).filter((l, i) => !dropLines.has(i + 1) && l.length > 0);
      await mkdir(dirname(this.appFile), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.appFile, [...kept, line].join('\n') + '\n', 0o600);
    });
    this.queue.writes = next.catch(() => {});
    await next;
  }

  private async append(line: string): Promise<void> {
    let existing = '';
    try {
      existing = await readFile(this.appFile, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (existing.split(/\r?\n/).some((l) => l.trim() === line)) return;
    if (existing.length > 0 && !existing.endsWith('\n')) existing += '\n';
    await mkdir(dirname(this.appFile), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.appFile, `${existing}${line}\n`, 0o600);
  }

  /** Every line (cert-authority ones included) whose host field names `name`. */
  private async entriesNamed(name: string): Promise<KnownHostsEntry[]> {
    const result: KnownHostsEntry[] = [];
    for (const file of [this.appFile, ...this.readOnlyFiles]) {
      for (const entry of await readEntries(file)) {
        if (hostFieldMatches(entry.hosts, name)) result.push(entry);
      }
    }
    return result;
  }
}

function formatEntry(entry: NewKnownHost): string {
  if (!WRITABLE_HOST.test(entry.host)) {
    throw new ServelabError('BAD_INPUT', `"${entry.host}" cannot be written to known_hosts as a host name.`, {
      issues: [{ path: 'host', message: 'is not a plain host name or address' }],
    });
  }
  if (!Number.isInteger(entry.port) || entry.port < 1 || entry.port > 65535) {
    throw new ServelabError('BAD_INPUT', `Port ${entry.port} is not 1–65535.`, { issues: [{ path: 'port', message: 'must be 1–65535' }] });
  }
  if (!BASE64.test(entry.publicKey)) {
    throw new ServelabError('BAD_INPUT', 'The host key is not base64.', { issues: [{ path: 'publicKey', message: 'is not base64' }] });
  }
  let blobType: string;
  try {
    blobType = keyTypeOf(Buffer.from(entry.publicKey, 'base64'));
  } catch (error) {
    throw new ServelabError('BAD_INPUT', `The host key is not an SSH public key: ${(error as Error).message}.`, {
      issues: [{ path: 'publicKey', message: 'is not an SSH public key' }],
    });
  }
  if (blobType !== entry.keyType) {
    throw new ServelabError('BAD_INPUT', `The host key is a ${blobType} key, not ${entry.keyType}.`, {
      issues: [{ path: 'keyType', message: `does not match the key (${blobType})` }],
    });
  }
  return `${knownHostsName(entry.host, entry.port)} ${entry.keyType} ${entry.publicKey}`;
}

async function readEntries(file: string): Promise<KnownHostsEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new ServelabError('INTERNAL', `Cannot read known hosts file ${file}: ${(error as Error).message}`);
  }
  return parseKnownHosts(text, file);
}

/** Parses known_hosts text; lines it cannot understand (old RSA1 keys, bad base64) are skipped like OpenSSH does. */
export function parseKnownHosts(text: string, file: string): KnownHostsEntry[] {
  const entries: KnownHostsEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fields = trimmed.split(/\s+/);
    let marker: KnownHostsEntry['marker'] = null;
    if (fields[0]?.startsWith('@')) {
      const name = fields.shift();
      if (name === '@revoked') marker = 'revoked';
      else if (name === '@cert-authority') marker = 'cert-authority';
      else return;
    }
    const [hosts, keyType, keyText] = fields;
    if (!hosts || !keyType || !keyText || /^\d+$/.test(keyType) || !BASE64.test(keyText)) return;
    const key = Buffer.from(keyText, 'base64');
    entries.push({ file, line: index + 1, marker, hosts, keyType, key });
  });
  return entries;
}

/**
 * Whether a known_hosts host field (comma-separated patterns or one `|1|salt|hash`) names `name`.
 * A matching negated pattern excludes the line even when another pattern matches, as in OpenSSH.
 */
export function hostFieldMatches(field: string, name: string): boolean {
  const lowered = name.toLowerCase();
  if (field.startsWith('|')) return hashedHostMatches(field, lowered);
  let positive = false;
  for (const pattern of field.split(',')) {
    if (pattern === '') continue;
    if (pattern.startsWith('!')) {
      if (wildcardMatch(lowered, pattern.slice(1).toLowerCase())) return false;
    } else if (wildcardMatch(lowered, pattern.toLowerCase())) {
      positive = true;
    }
  }
  return positive;
}

function hashedHostMatches(field: string, name: string): boolean {
  const parts = field.split('|');
  // "|1|salt|hash" splits into ['', '1', salt, hash].
  if (parts.length !== 4 || parts[1] !== '1' || !parts[2] || !parts[3]) return false;
  const salt = Buffer.from(parts[2], 'base64');
  const expected = Buffer.from(parts[3], 'base64');
  const actual = createHmac('sha1', salt).update(name).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** OpenSSH's `*` (any run of characters) and `?` (exactly one) wildcards; everything else literal. */
export function wildcardMatch(text: string, pattern: string): boolean {
  let t = 0;
  let p = 0;
  let starP = -1;
  let starT = 0;
  while (t < text.length) {
    const pc = pattern[p];
    if (pc === '*') {
      starP = p++;
      starT = t;
    } else if (pc !== undefined && (pc === '?' || pc === text[t])) {
      p++;
      t++;
    } else if (starP >= 0) {
      p = starP + 1;
      t = ++starT;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A hashed host field for `name`, as `ssh-keygen -H` writes it; used to build test fixtures. */
export function hashKnownHostsName(name: string, salt: Buffer): string {
  const hash = createHmac('sha1', salt).update(name.toLowerCase()).digest('base64');
  return `|1|${salt.toString('base64')}|${hash}`;
}
