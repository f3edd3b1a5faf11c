import { z } from 'zod';

const num = z.number().nullable();

export const GpuSchema = z.object({
  index: z.number().int(),
  name: z.string(),
  uuid: z.string(),
  memoryTotalMiB: z.number(),
  memoryUsedMiB: num,
  memoryFreeMiB: num,
  utilizationPct: num,
  temperatureC: num,
  powerDrawW: num,
  powerLimitW: num,
  driverVersion: z.string().nullable(),
  /** As nvidia-smi prints it, e.g. "9.0" for Hopper, "8.0" for A100. */
  computeCapability: z.string().nullable(),
  pciBusId: z.string().nullable(),
  maxSmClockMHz: num,
});
export type Gpu = z.infer<typeof GpuSchema>;

export const GpuProcessSchema = z.object({
  gpuUuid: z.string(),
  gpuIndex: z.number().int().nullable(),
  pid: z.number().int(),
  processName: z.string(),
  usedMemoryMiB: num,
});
export type GpuProcess = z.infer<typeof GpuProcessSchema>;

export const GPU_STATUSES = ['ok', 'no-nvidia-smi', 'no-gpu', 'error'] as const;

export const ToolSchema = z.object({ present: z.boolean(), version: z.string().nullable() });

/** How one GPU reaches another, in `nvidia-smi topo -m`'s words: NV# (# bonded NVLinks), PIX, PXB, PHB, NODE, SYS; X is itself. */
export const GpuLinkSchema = z.string().regex(/^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$/, 'is not a link nvidia-smi topo -m prints');

/** The GPU link matrix of one box (`nvidia-smi topo -m`), for choosing NVLink-connected GPUs (gpu-topology.ts). */
export const GpuTopologySchema = z
  .object({
    /** GPU indices in the matrix's order. */
    gpus: z.array(z.string().regex(/^\d+$/)),
    /** `links[i][j]`: how `gpus[i]` reaches `gpus[j]`. */
    links: z.array(z.array(GpuLinkSchema)),
  })
  .refine((t) => t.links.length === t.gpus.length && t.links.every((row) => row.length === t.gpus.length), 'needs one row and one column per GPU');
export type GpuTopology = z.infer<typeof GpuTopologySchema>;

export const InventorySchema = z.object({
  hostId: z.string(),
  collectedAt: z.string(),
  hostname: z.string().nullable(),
  /** True when the box says it is the simulated GPU box: its numbers are never presented as real. */
  simulated: z.boolean(),
  gpuStatus: z.enum(GPU_STATUSES),
  gpuMessage: z.string().nullable(),
  gpus: z.array(GpuSchema),
  gpuProcesses: z.array(GpuProcessSchema),
  /** The GPUs' link matrix; absent when nvidia-smi topo -m could not be read (or in inventories taken before it was asked). */
  gpuTopology: GpuTopologySchema.optional(),
  driverVersion: z.string().nullable(),
  cudaVersion: z.string().nullable(),
  os: z.object({ name: z.string().nullable(), kernel: z.string().nullable(), arch: z.string().nullable() }),
  cpuCount: num,
  memoryTotalMiB: num,
  python: z.object({ version: z.string().nullable() }),
  tools: z.object({ uv: ToolSchema, pip: ToolSchema, docker: ToolSchema }),
  disk: z.object({ path: z.string().nullable(), freeMiB: num, totalMiB: num }),
});
export type Inventory = z.infer<typeof InventorySchema>;

/** "NVIDIA H200 · 143771 MiB · sm 9.0" — the one-line summary used in lists and the CLI. */
export function formatGpuSummary(gpu: Pick<Gpu, 'name' | 'memoryTotalMiB' | 'computeCapability'>): string {
  const parts = [gpu.name, `${gpu.memoryTotalMiB} MiB`];
  if (gpu.computeCapability) parts.push(`sm ${gpu.computeCapability}`);
  return parts.join(' · ');
}
