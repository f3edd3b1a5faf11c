import { readVersionedFile } from '../util/versioned-file';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HostSchema, type Host } from '../../shared/model/host';
import { ServelabError } from '../../shared/contract';
import { writeFileAtomic } from '../util/atomic-write';
import { withLock } from '../util/lock-file';

export const HOSTS_FILE_VERSION = 3;

const HostsFileSchema = z.object({
  schemaVersion: z.literal(HOSTS_FILE_VERSION),
  hosts: z.array(HostSchema),
  /** Ids of built-in hosts (the demo lab) the user removed: they stay away until restored. */
  removedBuiltIns: z.array(z.string()).default([]),
});

/** Version 1 hosts carried their auth method; version 2 resolves auth like OpenSSH and may name an ssh alias. */
const V1HostSchema = z.object({
  id: z.string(),
  label: z.string(),
  address: z.string(),
  port: z.number().int(),
  user: z.string(),
  auth: z.discriminatedUnion('method', [
    z.object({ method: z.literal('key'), identityFile: z.string() }),
    z.object({ method: z.literal('password'), hasSavedPassword: z.boolean() }),
  ]),
  createdAt: z.string(),
});
const V1FileSchema = z.object({ schemaVersion: z.literal(1), hosts: z.array(V1HostSchema) });

/** Version 2 hosts were all SSH hosts; version 3 says how each is reached (`kind`), for the built-in demo lab. */
const V2HostSchema = z.object({
  id: z.string(),
  label: z.string(),
  alias: z.string().nullable(),
  address: z.string(),
  port: z.number().int().nullable(),
  user: z.string().nullable(),
  identityFile: z.string().nullable(),
  proxyJump: z.string().nullable(),
  hasSavedPassword: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const V2FileSchema = z.object({ schemaVersion: z.literal(2), hosts: z.array(V2HostSchema) });

/** Each step takes the file of version N to N+1; a failed parse names the field of the version it expected. */
const MIGRATIONS: Record<number, (json: unknown) => unknown> = {
  1: (json) => {
    const v1 = V1FileSchema.parse(json);
    return {
      schemaVersion: 2,
      hosts: v1.hosts.map((h) => ({
        id: h.id,
        label: h.label,
        alias: null,
        address: h.address,
        port: h.port,
        user: h.user,
        identityFile: h.auth.method === 'key' ? h.auth.identityFile : null,
        proxyJump: null,
        hasSavedPassword: h.auth.method === 'password' && h.auth.hasSavedPassword,
        createdAt: h.createdAt,
        updatedAt: h.createdAt,
      })),
    };
  },
  2: (json) => {
    const v2 = V2FileSchema.parse(json);
    return { schemaVersion: 3, hosts: v2.hosts.map((h) => ({ ...h, kind: 'ssh' })), removedBuiltIns: [] };
  },
};

export type NewHost = Omit<Host, 'id' | 'createdAt' | 'updatedAt'>;

/**
 * The hosts the user added, persisted as versioned JSON in the data folder (never a secret). A damaged file or
 * one from a newer version is left untouched: the store then refuses changes with the reason, so nothing is
 * overwritten, and the rest of the app keeps working. Built-in hosts (kind other than `ssh`) have fixed ids; one
 * the user removed is remembered as removed, so it only comes back when restored. Every change re-reads the file
 * under `hosts.json.lock` before writing it, so processes sharing the data folder never drop each other's hosts.
 */
export class HostStore {
  private hosts: Host[] = [];
  private removedBuiltIns: string[] = [];
  /** Why the file could not be read; while set, nothing is written. */
  private loadProblem: string | null = null;

  private constructor(private readonly path: string) {}

  static async open(path: string): Promise<HostStore> {
    const store = new HostStore(path);
    try {
      await store.load();
    } catch (error) {
      store.loadProblem = error instanceof Error ? error.message : String(error);
    }
    return store;
  }

  /** The reason hosts.json could not be read, or null. */
  get problem(): string | null {
    return this.loadProblem;
  }

  private async load(opts: { migrate: boolean } = { migrate: true }): Promise<void> {
    const read = await readVersionedFile(this.path, { version: HOSTS_FILE_VERSION, schema: HostsFileSchema, migrations: MIGRATIONS });
    if (!read) return;
    this.hosts = read.data.hosts;
    this.removedBuiltIns = read.data.removedBuiltIns;
    if (opts.migrate && read.fileVersion < HOSTS_FILE_VERSION) await withLock(`${this.path}.lock`, () => this.save());
  }

  list(): Host[] {
    return this.hosts.map((h) => ({ ...h }));
  }

  get(id: string): Host {
    const host = this.hosts.find((h) => h.id === id);
    if (!host) throw new ServelabError('NOT_FOUND', `No host with id "${id}".`);
    return { ...host };
  }

  async add(fields: NewHost): Promise<Host> {
    const now = new Date().toISOString();
    const host: Host = { ...fields, id: randomUUID(), createdAt: now, updatedAt: now };
    await this.change(() => {
      this.hosts = [...this.hosts, host];
    });
    return { ...host };
  }

  async update(id: string, patch: Partial<NewHost>): Promise<Host> {
    let updated: Host | undefined;
    await this.change(() => {
      const existing = this.get(id);
      updated = { ...existing, ...patch, id, createdAt: existing.createdAt, updatedAt: new Date().toISOString() };
      this.hosts = this.hosts.map((h) => (h.id === id ? (updated as Host) : h));
    });
    return { ...(updated as Host) };
  }

  async remove(id: string): Promise<boolean> {
    let removed = false;
    await this.change(() => {
      const existing = this.hosts.find((h) => h.id === id);
      if (!existing) return false;
      this.hosts = this.hosts.filter((h) => h.id !== id);
      if (existing.kind !== 'ssh' && !this.removedBuiltIns.includes(id)) this.removedBuiltIns = [...this.removedBuiltIns, id];
      removed = true;
      return true;
    });
    return removed;
  }

  /** True when the user removed this built-in host (and did not restore it). */
  isRemovedBuiltIn(id: string): boolean {
    return this.removedBuiltIns.includes(id);
  }

  /**
   * Adds a built-in host with its fixed id on first start, unless it is there already or the user removed it.
   * Returns the host in the store, or null. A store that cannot be written adds nothing.
   */
  async ensureBuiltIn(host: Host): Promise<Host | null> {
    const present = this.hosts.find((h) => h.id === host.id);
    if (present) return { ...present };
    if (this.loadProblem || this.isRemovedBuiltIn(host.id)) return null;
    let result: Host | null = null;
    await this.change(() => {
      const now = this.hosts.find((h) => h.id === host.id);
      if (now) {
        result = { ...now };
        return false;
      }
      if (this.isRemovedBuiltIn(host.id)) return false;
      this.hosts = [...this.hosts, { ...host }];
      result = { ...host };
      return true;
    });
    return result;
  }

  /** Brings a built-in host back after the user removed it; the one already there is returned as is. */
  async restoreBuiltIn(host: Host): Promise<Host> {
    let result: Host = { ...host };
    await this.change(() => {
      const present = this.hosts.find((h) => h.id === host.id);
      const wasRemoved = this.isRemovedBuiltIn(host.id);
      this.removedBuiltIns = this.removedBuiltIns.filter((id) => id !== host.id);
      if (present) {
        result = { ...present };
        return wasRemoved;
      }
      this.hosts = [...this.hosts, { ...host }];
      return true;
    });
    return result;
  }

  /**
   * One change, as a read-modify-write under `hosts.json.lock`: the file is read again first, so a host another
   * process (the app, the CLI) added meanwhile is kept. `apply` returns false when there is nothing to write.
   */
  private async change(apply: () => boolean | void): Promise<void> {
    this.assertWritable();
    await withLock(`${this.path}.lock`, async () => {
      try {
        await this.load({ migrate: false });
      } catch (error) {
        this.loadProblem = error instanceof Error ? error.message : String(error);
        this.assertWritable();
      }
      if (apply() === false) return;
      await this.save();
    });
  }

  private assertWritable(): void {
    if (this.loadProblem) {
      throw new ServelabError('NOT_SUPPORTED', `Hosts cannot be changed until ${this.path} is fixed or moved away: ${this.loadProblem}`);
    }
  }

  private async save(): Promise<void> {
    const body = JSON.stringify({ schemaVersion: HOSTS_FILE_VERSION, hosts: this.hosts, removedBuiltIns: this.removedBuiltIns }, null, 2) + '\n';
    await writeFileAtomic(this.path, body);
  }
}
