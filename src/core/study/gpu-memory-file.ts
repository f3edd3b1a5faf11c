import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { downsampleGpuSamples, GpuMemorySampleSchema, type GpuMemorySample } from '../../shared/study/gpu-memory';
import { readJsonLines } from '../util/json-lines';

/**
 * `<name>.servelab-data/gpu-memory.jsonl`: one sample per line, appended in order. A line cut short by a crash or
 * otherwise unreadable is skipped when read.
 */
export class GpuMemoryFile {
  private queue: Promise<void> = Promise.resolve();
  private reported = false;

  constructor(
    readonly path: string,
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  append(sample: GpuMemorySample): void {
    const line = `${JSON.stringify(sample)}\n`;
    this.queue = this.queue
      .then(async () => {
        await mkdir(dirname(this.path), { recursive: true });
        await appendFile(this.path, line, { encoding: 'utf8', mode: 0o644 });
      })
      .catch((error: unknown) => {
        if (this.reported) return;
        this.reported = true;
        this.onError(error as Error);
      });
  }

  flush(): Promise<void> {
    return this.queue;
  }
}

/** Every readable sample of the file (none when it does not exist), thinned to at most `limit` per GPU. */
export async function readGpuMemorySamples(path: string, limit?: number): Promise<GpuMemorySample[]> {
  const samples: GpuMemorySample[] = [];
  for (const value of await readJsonLines(path)) {
    const parsed = GpuMemorySampleSchema.safeParse(value);
    if (parsed.success) samples.push(parsed.data);
  }
  return downsampleGpuSamples(samples, limit);
}
