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
}
