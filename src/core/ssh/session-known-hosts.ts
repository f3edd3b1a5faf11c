/**
 * Host keys for a target whose UserKnownHostsFile is only `/dev/null` (or `none`): ssh keeps nothing for it, so an
 * accepted key (accept-new or a person's yes) is asked about again on the next connection, and a reused address
 * (spot and ephemeral GPU boxes) never meets a "changed" key. Servelab does not write such keys to its own file
 * either: they are kept in memory, for this process only, and the GlobalKnownHostsFile files are still read, as
 * ssh reads them. Within the process an accepted key is remembered, so a key that changes meanwhile is still refused.
 */
import { fingerprintSha256 } from './fingerprint';
import { KnownHostsStore, knownHostsName, type HostKeyCheck, type NewKnownHost } from './known-hosts';

/** What the log and the errors call the place such keys are kept. */
export const KEPT_IN_MEMORY = 'memory only (UserKnownHostsFile /dev/null), until Servelab exits';

interface KeptKey {
  keyType: string;
  key: Buffer;
}

// Per app known_hosts file, so that separate setups in one process (tests, the CLI's --known-hosts) stay apart.
const keptByAppFile = new Map<string, Map<string, KeptKey[]>>();

/** True when the user known_hosts files keep nothing: none at all, or only /dev/null. */
export function keepsNoHostKeys(userKnownHostsFiles: readonly string[] | undefined): boolean {
  return userKnownHostsFiles !== undefined && userKnownHostsFiles.every((file) => file === '/dev/null');
}

/** The view of `base` for such a target: its global files, plus the keys kept in memory for `base`'s app file. */
export class SessionKnownHosts {
  private readonly files: KnownHostsStore;
  private readonly kept: Map<string, KeptKey[]>;
  readonly writableFile = KEPT_IN_MEMORY;

  constructor(base: KnownHostsStore, globalKnownHostsFiles: readonly string[]) {
    // Reading /dev/null as the app file reads nothing; this view never writes through `files`.
    this.files = new KnownHostsStore({ appFile: '/dev/null', readOnlyFiles: [...globalKnownHostsFiles] });
    let kept = keptByAppFile.get(base.writableFile);
    if (!kept) {
      kept = new Map();
      keptByAppFile.set(base.writableFile, kept);
    }
    this.kept = kept;
  }

  async checkName(name: string, keyType: string, publicKey: Buffer): Promise<HostKeyCheck> {
    const fromFiles = await this.files.checkName(name, keyType, publicKey);
    if (fromFiles.status === 'revoked' || fromFiles.status === 'known') return fromFiles;
    const kept = this.kept.get(name) ?? [];
    if (kept.some((k) => k.keyType === keyType && k.key.equals(publicKey))) return { status: 'known' };
    if (kept.length === 0) return fromFiles;
    const inMemory = kept.map((k) => ({ keyType: k.keyType, fingerprint: fingerprintSha256(k.key), file: KEPT_IN_MEMORY, line: 0 }));
    return { status: 'changed', expected: [...inMemory, ...(fromFiles.status === 'changed' ? fromFiles.expected : [])] };
  }

  /** The CA lines for the host come from the files read (the global ones): nothing in memory is a CA. */
  async certificateAuthoritiesNamed(name: string): ReturnType<KnownHostsStore['certificateAuthoritiesNamed']> {
    return this.files.certificateAuthoritiesNamed(name);
  }

  async knownKeyTypesNamed(name: string): Promise<string[]> {
    const kept = (this.kept.get(name) ?? []).map((k) => k.keyType);
    return [...new Set([...(await this.files.knownKeyTypesNamed(name)), ...kept])];
  }

  async add(entry: NewKnownHost): Promise<void> {
    const name = knownHostsName(entry.host, entry.port);
    const key = Buffer.from(entry.publicKey, 'base64');
    const kept = this.kept.get(name) ?? [];
    if (!kept.some((k) => k.keyType === entry.keyType && k.key.equals(key))) kept.push({ keyType: entry.keyType, key });
    this.kept.set(name, kept);
  }

  /** A person's decision to trust a changed key: the kept keys for that name give way to it. */
  async replace(entry: NewKnownHost): Promise<void> {
    this.kept.delete(knownHostsName(entry.host, entry.port));
    await this.add(entry);
  }
}
