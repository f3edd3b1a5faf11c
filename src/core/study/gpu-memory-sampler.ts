import type { BoxTransport } from '../box/box-transport';
import type { GpuMemorySample, GpuMemoryReading } from '../../shared/study/gpu-memory';

/** The query each sample runs on a host; `nounits` leaves bare MiB numbers. */
export const GPU_MEMORY_QUERY = 'nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits';

export const GPU_SAMPLE_INTERVAL_MS = 2000;
const SAMPLE_TIMEOUT_SECONDS = 15;

/**
 * Parses the output of {@link GPU_MEMORY_QUERY}: one `index, used, total` row per GPU. Anything else — warnings
 * nvidia-smi prints first, `[N/A]` or `[Not Supported]` values, a header, a cut-off row — is skipped, never thrown.
 */
export function parseGpuMemoryCsv(output: string): GpuMemoryReading[] {
  const readings: GpuMemoryReading[] = [];
  const seen = new Set<number>();
  for (const line of output.split(/\r?\n/)) {
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length !== 3 || !fields.every((f) => /^\d{1,9}$/.test(f))) continue;
    const [index, usedMiB, totalMiB] = fields.map(Number) as [number, number, number];
    if (index > 255 || totalMiB === 0 || usedMiB > totalMiB || seen.has(index)) continue;
    seen.add(index);
    readings.push({ index, usedMiB, totalMiB });
  }
  return readings;
}

export interface GpuSamplerHost {
  hostId: string;
  box: Pick<BoxTransport, 'run'>;
}

export interface GpuMemorySamplerOptions {
  hosts: GpuSamplerHost[];
  onSample: (sample: GpuMemorySample) => void;
  intervalMs?: number;
  now?: () => Date;
}

/**
 * Samples every host's GPU memory every `intervalMs` while started. Each host has its own loop: the next sample is
 * taken `intervalMs` after the previous one began (or right after it ended when it took longer), so samples of one
 * host never overlap; a host that fails a sample (unreachable, no nvidia-smi, unparseable output) is just skipped
 * that round. `stop()` ends the loops, aborts the samples in flight and resolves when they have ended.
 */
export class GpuMemorySampler {
  private readonly controller = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private started = false;

  constructor(private readonly opts: GpuMemorySamplerOptions) {}

  start(): void {
    if (this.started || this.controller.signal.aborted) return;
    this.started = true;
    for (const host of this.opts.hosts) this.loops.push(this.loop(host));
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await Promise.all(this.loops);
  }

  private async loop(host: GpuSamplerHost): Promise<void> {
    const { signal } = this.controller;
    const interval = this.opts.intervalMs ?? GPU_SAMPLE_INTERVAL_MS;
    while (!signal.aborted) {
      const began = Date.now();
      await this.sampleOnce(host);
      const wait = Math.max(0, interval - (Date.now() - began));
      await sleep(wait, signal);
    }
  }

  private async sampleOnce(host: GpuSamplerHost): Promise<void> {
    const { signal } = this.controller;
    try {
      const at = (this.opts.now ?? (() => new Date()))().toISOString();
      const result = await host.box.run(`${GPU_MEMORY_QUERY}\n`, { timeoutSeconds: SAMPLE_TIMEOUT_SECONDS, signal });
      if (signal.aborted || result.code !== 0) return;
      const gpus = parseGpuMemoryCsv(result.stdout);
      if (gpus.length === 0) return;
      this.opts.onSample({ hostId: host.hostId, at, gpus });
    } catch {
      // A failed sample is a gap in the chart, not a failure of the study.
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
