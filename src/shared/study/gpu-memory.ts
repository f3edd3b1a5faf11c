// GPU memory over time while a study runs: what one sample of one host says, and how a long series is thinned.
import { z } from 'zod';

export const GpuMemoryReadingSchema = z.object({
  index: z.number().int().min(0),
  usedMiB: z.number().min(0),
  totalMiB: z.number().min(0),
});

export const GpuMemorySampleSchema = z.object({
  hostId: z.string(),
  /** ISO time the sample was asked for. */
  at: z.string(),
  gpus: z.array(GpuMemoryReadingSchema),
});

export type GpuMemoryReading = z.infer<typeof GpuMemoryReadingSchema>;

/** Between a cluster host's id and a node's name in a GPU place: no host id (a UUID, `demo-lab…`) holds it. */
const NODE_SEPARATOR = '#';

/** The GPUs of a cluster's compute node, as samples and charts name them: each node has its own GPU 0. */
export function clusterNodePlace(hostId: string, node: string): string {
  return `${hostId}${NODE_SEPARATOR}${node}`;
}

/** Where a trial's GPUs are: its host, or on a Slurm cluster its job's node of that host; null before it is placed. */
export function gpuPlaceOf(trial: { hostId?: string | undefined; slurmJob?: { node?: string | undefined } | undefined }): string | null {
  if (trial.hostId === undefined) return null;
  return trial.slurmJob?.node !== undefined ? clusterNodePlace(trial.hostId, trial.slurmJob.node) : trial.hostId;
}

/** A GPU place as the reader knows it: the host's label, and a cluster node's name after it. */
export function gpuPlaceLabel(place: string, hostLabel: (hostId: string) => string): string {
  const at = place.indexOf(NODE_SEPARATOR);
  return at < 0 ? hostLabel(place) : `${hostLabel(place.slice(0, at))} · ${place.slice(at + 1)}`;
}
export type GpuMemorySample = z.infer<typeof GpuMemorySampleSchema>;

/** How many points per GPU a chart gets at most, from a file or a live stream. */
export const GPU_SAMPLES_PER_GPU_LIMIT = 2000;

/**
 * At most `limit` samples per host, in time order. A longer series is cut into `limit` runs of neighbouring samples,
 * each reduced to one sample at its middle time holding the highest use of each GPU in the run, so a short peak
 * (the moment a server loads its weights) survives the thinning.
 */
export function downsampleGpuSamples(samples: readonly GpuMemorySample[], limit: number = GPU_SAMPLES_PER_GPU_LIMIT): GpuMemorySample[] {
  const byHost = new Map<string, GpuMemorySample[]>();
  for (const sample of samples) {
    const list = byHost.get(sample.hostId) ?? [];
    list.push(sample);
    byHost.set(sample.hostId, list);
  }
  const out: GpuMemorySample[] = [];
  for (const [hostId, list] of byHost) {
    list.sort((a, b) => a.at.localeCompare(b.at));
    if (list.length <= limit) {
      out.push(...list);
      continue;
    }
    for (let bucket = 0; bucket < limit; bucket++) {
      const from = Math.floor((bucket * list.length) / limit);
      const to = Math.floor(((bucket + 1) * list.length) / limit);
      const run = list.slice(from, to);
      if (run.length === 0) continue;
      const peak = new Map<number, { usedMiB: number; totalMiB: number }>();
      for (const sample of run) {
        for (const gpu of sample.gpus) {
          const seen = peak.get(gpu.index);
          if (!seen || gpu.usedMiB > seen.usedMiB) peak.set(gpu.index, { usedMiB: gpu.usedMiB, totalMiB: gpu.totalMiB });
        }
      }
      out.push({
        hostId,
        at: run[Math.floor(run.length / 2)]!.at,
        gpus: [...peak.entries()].sort(([a], [b]) => a - b).map(([index, g]) => ({ index, ...g })),
      });
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at));
}
