// The options one resolution collects, with OpenSSH's rule that the first value obtained wins
// (readconf.c: "only sets those values that have not already been set"). Values keep where they came from.
import type { ConfigOrigin } from '../types';

export interface FileEntry {
  path: string;
  /** readconf.c identity_file_userprovided: 1 for -i, SSHCONF_USERCONF (2) for a user config, 0 for the system one. */
  userProvided: number;
  origin?: ConfigOrigin;
}

export interface JumpSpec {
  user: string | null;
  host: string;
  port: number;
  /** Every hop before the last one, as written. */
  extra: string | null;
}

export interface PermittedCname {
  source: string;
  target: string;
}

export class SshOptions {
  private readonly scalars = new Map<string, { value: string | number; origin?: ConfigOrigin }>();
  readonly identityFiles: FileEntry[] = [];
  readonly certificateFiles: FileEntry[] = [];
  readonly lists = new Map<string, { values: string[]; origin?: ConfigOrigin }>();
  readonly permittedCnames: PermittedCname[] = [];
  jump: { spec: JumpSpec | 'none'; origin?: ConfigOrigin } | null = null;

  has(option: string): boolean {
    return this.scalars.has(option);
  }

  get(option: string): string | number | undefined {
    return this.scalars.get(option)?.value;
  }

  str(option: string): string | undefined {
    const v = this.scalars.get(option)?.value;
    return typeof v === 'string' ? v : undefined;
  }

  num(option: string): number | undefined {
    const v = this.scalars.get(option)?.value;
    return typeof v === 'number' ? v : undefined;
  }

  origin(option: string): ConfigOrigin | undefined {
    return this.scalars.get(option)?.origin;
  }

  /** Sets the option unless it already has a value. */
  setFirst(option: string, value: string | number, origin?: ConfigOrigin): void {
    if (!this.scalars.has(option)) this.scalars.set(option, origin ? { value, origin } : { value });
  }

  /** Replaces a value (ssh does this only for HostName before its final pass). */
  replace(option: string, value: string | number, origin?: ConfigOrigin): void {
    this.scalars.set(option, origin ? { value, origin } : { value });
  }

  setListFirst(option: string, values: string[], origin?: ConfigOrigin): void {
    if (!this.lists.has(option)) this.lists.set(option, origin ? { values, origin } : { values });
  }

  /** readconf.c add_identity_file / add_certificate_file: a path already listed with the same provenance is skipped. */
  addFile(list: FileEntry[], entry: FileEntry): void {
    if (list.some((e) => e.userProvided === entry.userProvided && e.path === entry.path)) return;
    list.push(entry);
  }
}
