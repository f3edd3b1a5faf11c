import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HostSchema, type Host } from '../../shared/model/host';
import { ServelabError, fieldIssues, describeIssues } from '../../shared/contract';
import { writeFileAtomic } from '../util/atomic-write';

const HostsFileSchema = z.object({ schemaVersion: z.literal(1), hosts: z.array(HostSchema) });
const CURRENT_VERSION = 1;

/** The hosts the user added, persisted as versioned JSON in the data folder. Never holds a secret. */
export class HostStore {
  private hosts: Host[] = [];

  private constructor(private readonly path: string) {}

  static async open(path: string): Promise<HostStore> {
    const store = new HostStore(path);
    await store.load();
    return store;
  }

  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ServelabError('BAD_INPUT', `${this.path} is not valid JSON (${(error as Error).message}); it was left untouched.`);
    }
    const version = (json as { schemaVersion?: unknown } | null)?.schemaVersion;
    if (typeof version === 'number' && version > CURRENT_VERSION) {
      throw new ServelabError('NOT_SUPPORTED', `${this.path} was written by a newer Servelab (schemaVersion ${version}); this version reads up to ${CURRENT_VERSION}.`);
    }
    const parsed = HostsFileSchema.safeParse(json);
    if (!parsed.success) {
      throw new ServelabError('BAD_INPUT', `${this.path} is damaged: ${describeIssues(fieldIssues(parsed.error))}; it was left untouched.`);
    }
    this.hosts = parsed.data.hosts;
  }

  list(): Host[] {
    return this.hosts.map((h) => ({ ...h }));
  }

  get(id: string): Host {
    const host = this.hosts.find((h) => h.id === id);
    if (!host) throw new ServelabError('NOT_FOUND', `No host with id "${id}".`);
    return { ...host };
  }

  async add(fields: Omit<Host, 'id' | 'createdAt'>): Promise<Host> {
    const host: Host = { ...fields, id: randomUUID(), createdAt: new Date().toISOString() };
    this.hosts = [...this.hosts, host];
    await this.save();
    return { ...host };
  }

  async remove(id: string): Promise<boolean> {
    const before = this.hosts.length;
    this.hosts = this.hosts.filter((h) => h.id !== id);
    if (this.hosts.length === before) return false;
    await this.save();
    return true;
  }

  private async save(): Promise<void> {
    const body = JSON.stringify({ schemaVersion: CURRENT_VERSION, hosts: this.hosts }, null, 2) + '\n';
    await writeFileAtomic(this.path, body);
  }
}
