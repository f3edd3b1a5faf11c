import { readFile } from 'node:fs/promises';

/**
 * The values of a JSON Lines file that an app appends to (a journal, samples), oldest first: none when the file does
 * not exist, and a line that does not parse (the torn last line of a process killed while writing it) skipped.
 */
export async function readJsonLines(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const values: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      // A torn last line after a crash.
    }
  }
  return values;
}
