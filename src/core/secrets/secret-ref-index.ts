import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write';

export interface SecretRefEntry {
  ref: string;
  setAt?: string;
}

const IndexFileSchema = z.object({
  schemaVersion: z.literal(1),
  refs: z.array(z.object({ ref: z.string(), setAt: z.string().optional() })),
});

/**
 * The names of the secrets the user stored (never their values), with when each was set: the keychain store can
 * only get, set and delete by key, so the list lives beside it in the data folder. Written atomically; a damaged
 * file reads as empty (the values stay in the keychain and setting a name again lists it again).
 */
export class SecretRefIndex {
  private entries: Map<string, SecretRefEntry> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  async list(): Promise<SecretRefEntry[]> {
    return [...(await this.load()).values()].sort((a, b) => a.ref.localeCompare(b.ref));
  }

  async has(ref: string): Promise<boolean> {
    return (await this.load()).has(ref);
  }

  async add(ref: string, setAt: string): Promise<void> {
    const entries = await this.load();
    entries.set(ref, { ref, setAt });
    await this.save(entries);
  }

  /** Returns whether the name was listed. */
  async remove(ref: string): Promise<boolean> {
    const entries = await this.load();
    if (!entries.delete(ref)) return false;
    await this.save(entries);
    return true;
  }

  private async load(): Promise<Map<string, SecretRefEntry>> {
    if (this.entries) return this.entries;
    let parsed: z.infer<typeof IndexFileSchema> | undefined;
    try {
      const check = IndexFileSchema.safeParse(JSON.parse(await readFile(this.file, 'utf8')));
      if (check.success) parsed = check.data;
    } catch {
      // Missing or unreadable: no names yet.
    }
    this.entries = new Map((parsed?.refs ?? []).map((e) => [e.ref, e]));
    return this.entries;
  }

  private save(entries: Map<string, SecretRefEntry>): Promise<void> {
    const text = `${JSON.stringify({ schemaVersion: 1, refs: [...entries.values()] }, null, 2)}\n`;
    // One write at a time, in call order, so the last change wins on disk as in memory.
    this.writing = this.writing.catch(() => {}).then(() => writeFileAtomic(this.file, text, 0o600));
    return this.writing;
  }
}
