import type { GpuTopology } from '../model/inventory';

/** One usable GPU of a study's hosts, as the hosts' inventories describe it. */
export interface GpuFacts {
  hostId: string;
  index: string;
  name: string;
  memoryMiB: number;
  computeCapability: string | null;
}

/** What planning and pre-flight know of the hardware: the study's usable GPUs (from the hosts' inventories). */
export interface PlanContext {
  gpus: GpuFacts[];
  /** Each host's GPU link matrix (`nvidia-smi topo -m`), by host id, where its inventory has one. */
  topology?: Readonly<Record<string, GpuTopology>>;
}
