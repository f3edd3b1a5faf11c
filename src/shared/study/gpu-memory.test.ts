import { describe, expect, it } from 'vitest';
import { clusterNodePlace, downsampleGpuSamples, gpuPlaceLabel, gpuPlaceOf, type GpuMemorySample } from './gpu-memory';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const sample = (hostId: string, s: number, used: number[]): GpuMemorySample => ({ hostId, at: at(s), gpus: used.map((u, index) => ({ index, usedMiB: u, totalMiB: 81559 })) });

describe('downsampleGpuSamples', () => {
  it('keeps a short series as it is, in time order', () => {
    const samples = [sample('a', 4, [1]), sample('a', 2, [2]), sample('b', 3, [3])];
    expect(downsampleGpuSamples(samples, 10)).toEqual([sample('a', 2, [2]), sample('b', 3, [3]), sample('a', 4, [1])]);
  });

  it('thins each host to the limit on its own and keeps every GPU’s peak', () => {
    const a = Array.from({ length: 1000 }, (_, i) => sample('a', i * 2, [i === 333 ? 70000 : 100, i === 500 ? 60000 : 5]));
    const b = Array.from({ length: 50 }, (_, i) => sample('b', i * 2 + 1, [i]));
    const out = downsampleGpuSamples([...a, ...b], 100);
    const fromA = out.filter((s) => s.hostId === 'a');
    expect(fromA).toHaveLength(100);
    expect(out.filter((s) => s.hostId === 'b')).toHaveLength(50);
    expect(Math.max(...fromA.map((s) => s.gpus[0]!.usedMiB))).toBe(70000);
    expect(Math.max(...fromA.map((s) => s.gpus[1]!.usedMiB))).toBe(60000);
    expect(fromA.map((s) => s.at)).toEqual([...fromA.map((s) => s.at)].sort());
    expect(fromA[0]!.at >= at(0) && fromA.at(-1)!.at <= at(1998)).toBe(true);
    for (let i = 1; i < out.length; i++) expect(out[i]!.at >= out[i - 1]!.at).toBe(true);
  });
});

describe('GPU places', () => {
  it("are a box's host, or a cluster job's node of its host, named by the host's label and the node", () => {
    const label = (id: string) => (id === 'hpc' ? 'HPC login' : id);
    expect(gpuPlaceOf({ hostId: 'demo-lab' })).toBe('demo-lab');
    expect(gpuPlaceOf({})).toBeNull();
    const place = gpuPlaceOf({ hostId: 'hpc', slurmJob: { node: 'gpu2' } }) as string;
    expect(place).toBe(clusterNodePlace('hpc', 'gpu2'));
    expect(gpuPlaceLabel(place, label)).toBe('HPC login · gpu2');
    expect(gpuPlaceLabel('demo-lab', label)).toBe('demo-lab');
    // A pending job has no node yet: its trial is still the cluster host's.
    expect(gpuPlaceOf({ hostId: 'hpc', slurmJob: {} })).toBe('hpc');
  });
});
