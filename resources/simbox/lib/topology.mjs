// How the box's GPUs are wired to each other, as `nvidia-smi topo -m` reports it, and what a link of each kind moves:
// the simulated servers cost their collectives (tensor-parallel all-reduce, expert all-to-all, pipeline sends) on the
// slowest link between the GPUs they use, so a set of GPUs joined by NVLink serves faster than one that is not.
//
// Two wirings: `nvlink` (the default, an SXM board: every pair joined by the same bonded NVLinks, NV18 on H100/H200
// and NV12 on A100, as in the real 8-GPU captures of tests/fixtures/nvidia-smi/README.md) and `pcie` (PCIe cards, no
// NVLink: GPUs 2k and 2k+1 share a PCIe switch (PIX), GPUs of the same half of the box share a NUMA node (NODE), the
// rest cross the CPUs' interconnect (SYS)).

/** The wirings `simbox config --topology` accepts. */
export const TOPOLOGIES = ['nvlink', 'pcie'];

/**
 * Per-direction bandwidth (GB/s) and per-collective latency (s) of each link kind. NVLink: H100/H200 SXM 900 GB/s and
 * A100 SXM 600 GB/s of bidirectional NVLink bandwidth (NVIDIA's H100 and A100 datasheets), half of it each way.
 * PCIe: Gen5 x16 (H100/H200) and Gen4 x16 (A100) move 64 and 32 GB/s each way at most; peer-to-peer through one
 * switch reaches about 80% of that, through the host bridge about half, across sockets about a third.
 */
const NVLINK_GBS = { h100: 450, h200: 450, a100: 300 };
const PCIE_GBS = { h100: 64, h200: 64, a100: 32 };
const PCIE_SHARE = { PIX: 0.8, NODE: 0.5, SYS: 0.33 };

/** The box's wiring: simbox.json `topology`, else NVLink. */
export function boxTopology(config) {
  return config.topology === 'pcie' ? 'pcie' : 'nvlink';
}

/** The `topo -m` cell between GPUs a and b of the box (' X ' for a GPU with itself). */
export function linkBetween(config, a, b) {
  if (a === b) return ' X ';
  if (boxTopology(config) === 'nvlink') return config.gpuModel.key === 'a100' ? 'NV12' : 'NV18';
  if (Math.floor(a / 2) === Math.floor(b / 2)) return 'PIX';
  return numaNode(config, a) === numaNode(config, b) ? 'NODE' : 'SYS';
}

/**
 * The NUMA node of a GPU. A 1-GPU box is the captured H200 host (one node, CPUs 0-15); a larger box is the 8 x H100
 * host of the ThunderKittens#167 capture (GPUs 0-3 on node 0, CPUs 0-47,96-143; GPUs 4-7 on node 1, CPUs
 * 48-95,144-191), of which a box of N GPUs has the first N.
 */
export function numaNode(config, index) {
  return config.count <= 1 ? 0 : index < 4 ? 0 : 1;
}

export function cpuAffinity(config, index) {
  if (config.count <= 1) return '0-15';
  return numaNode(config, index) === 0 ? '0-47,96-143' : '48-95,144-191';
}

/**
 * What the collectives of a server on `gpus` (box indices) run over: the slowest link among them. `busGBs`: the
 * bandwidth one GPU sends at; `latencyS`: the fixed cost of one collective call (NVLink: a one-shot custom
 * all-reduce, about 8 us; PCIe: NCCL's ring through the host, tens of us).
 */
export function interconnectOf(config, gpus) {
  const key = config.gpuModel.key;
  if (gpus.length <= 1) return { link: null, busGBs: NVLINK_GBS[key] ?? 450, latencyS: 0 };
  let worst = null;
  for (const a of gpus) {
    for (const b of gpus) {
      if (a >= b) continue;
      const link = linkBetween(config, a, b);
      const rank = link.startsWith('NV') ? 0 : link === 'PIX' ? 1 : link === 'NODE' ? 2 : 3;
      if (!worst || rank > worst.rank) worst = { link, rank };
    }
  }
  if (worst.link.startsWith('NV')) return { link: worst.link, busGBs: NVLINK_GBS[key] ?? 450, latencyS: 8e-6 };
  return { link: worst.link, busGBs: (PCIE_GBS[key] ?? 64) * PCIE_SHARE[worst.link], latencyS: worst.link === 'PIX' ? 25e-6 : 40e-6 };
}
