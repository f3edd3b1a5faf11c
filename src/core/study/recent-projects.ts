import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeFileAtomic } from '../util/atomic-write';

const RecentSchema = z.object({
  path: z.string(),
  name: z.string(),
  /** The study's name in the languages it is translated into, so the list names it in the app's language. */
  names: z.record(z.string(), z.string()).optional(),
  openedAt: z.string(),
});
const MAX_RECENT = 20;

/** Recently opened projects (`recent-projects.json` in the data folder), newest first, for the Studies page. */
export class RecentProjects {
  constructor(private readonly file: string) {}

  async list(): Promise<Array<z.infer<typeof RecentSchema>>> {
    try {
      const parsed = z.array(RecentSchema).safeParse(JSON.parse(await readFile(this.file, 'utf8')));
      return parsed.success ? parsed.data : [];
    } catch {
      // No list yet, or an unreadable one: start afresh rather than fail a page.
      return [];
    }
  }

  async touch(path: string, name: string, names?: Record<string, string>): Promise<void> {
    const rest = (await this.list()).filter((r) => r.path !== path);
    const next = [{ path, name, ...(names ? { names } : {}), openedAt: new Date().toISOString() }, ...rest].slice(0, MAX_RECENT);
    await writeFileAtomic(this.file, `${JSON.stringify(next, null, 1)}\n`);
  }
}
