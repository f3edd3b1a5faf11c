import type { GpuTopology } from './inventory';

/**
 * Which of a box's GPUs talk over NVLink, read from its `nvidia-smi topo -m` matrix: a tensor-parallel group wants
 * every pair of its GPUs on NVLink (its all-reduces run every layer); over PCIe (PIX … SYS) NCCL still runs, slower.
 */

/** Bonded NVLinks between two GPUs as the matrix says them ("NV18" → 18), 0 for a PCIe path or itself. */
export function nvlinkCount(link: string | undefined): number {
  const m = /^NV(\d+)$/.exec(link ?? '');
  return m ? Number(m[1]) : 0;
}

/** How GPU `a` reaches GPU `b` (indices as nvidia-smi numbers them), or undefined when either is not in the matrix. */
export function linkBetween(topology: GpuTopology, a: string, b: string): string | undefined {
  const i = topology.gpus.indexOf(a);
  const j = topology.gpus.indexOf(b);
  return i < 0 || j < 0 ? undefined : topology.links[i]?.[j];
}

/** True when every pair of these GPUs is on NVLink (one GPU alone is); false when one is not in the matrix. */
export function nvlinkConnected(topology: GpuTopology, gpuIndices: readonly string[]): boolean {
  if (gpuIndices.some((g) => !topology.gpus.includes(g))) return false;
  for (let i = 0; i < gpuIndices.length; i++) {
    for (let j = i + 1; j < gpuIndices.length; j++) if (nvlinkCount(linkBetween(topology, gpuIndices[i] as string, gpuIndices[j] as string)) === 0) return false;
  }
  return true;
}

/**
 * Every set of `size` GPUs (among `among`, default all) whose pairs are all on NVLink, each in the matrix's order and
 * the sets in lexicographic order: `connectedSets(t, 4)` on an NVSwitch box of 8 gives all 70 quadruples, on a box of
 * NVLink pairs only the pairs for size 2 and nothing for 4.
 */
export function connectedSets(topology: GpuTopology, size: number, among: readonly string[] = topology.gpus): string[][] {
  const candidates = topology.gpus.filter((g) => among.includes(g));
  const out: string[][] = [];
  const grow = (chosen: string[], from: number) => {
    if (chosen.length === size) {
      out.push([...chosen]);
      return;
    }
    for (let k = from; k <= candidates.length - (size - chosen.length); k++) {
      const g = candidates[k] as string;
      if (chosen.every((c) => nvlinkCount(linkBetween(topology, c, g)) > 0)) grow([...chosen, g], k + 1);
    }
  };
  if (size >= 1) grow([], 0);
  return out;
}
