import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../tests/helpers/repo';
import { GpuTopologySchema } from '../../shared/model/inventory';
import { connectedSets, nvlinkConnected } from '../../shared/model/gpu-topology';
import { parseTopoMatrix } from './nvidia-smi-topo';
import { parseProbeOutput } from './parse-probe';

// Captures of `nvidia-smi topo -m` from public issues (each folder's README has the URL).
const topo = (box: string) => readFileSync(join(repoRoot, 'tests', 'fixtures', 'nvidia-smi', box, 'topo.txt'), 'utf8');
const eight = ['0', '1', '2', '3', '4', '5', '6', '7'];

describe('parseTopoMatrix', () => {
  it('reads an HGX H100 box: eight GPUs, every pair on 18 NVLinks, the NICs and affinities left aside', () => {
    const t = parseTopoMatrix(topo('h100-8gpu-nv18'));
    expect(t?.gpus).toEqual(eight);
    expect(GpuTopologySchema.parse(t)).toEqual(t);
    expect(t?.links[0]).toEqual(['X', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18', 'NV18']);
    expect(t?.links[7]?.[7]).toBe('X');
  });

  it('reads a capture pasted with spaces and followed by its legend', () => {
    const t = parseTopoMatrix(topo('a100-4gpu-nv4'));
    expect(t).toEqual({ gpus: ['0', '1', '2', '3'], links: [['X', 'NV4', 'NV4', 'NV4'], ['NV4', 'X', 'NV4', 'NV4'], ['NV4', 'NV4', 'X', 'NV4'], ['NV4', 'NV4', 'NV4', 'X']] });
  });

  it('reads a PCIe-only box, and a one-GPU box with the underlined header the driver prints on a terminal', () => {
    const pcie = parseTopoMatrix(topo('rtx4090-8gpu-pcie'));
    expect(pcie?.gpus).toEqual(eight);
    expect(pcie?.links[6]).toEqual(['SYS', 'SYS', 'SYS', 'SYS', 'SYS', 'SYS', 'X', 'SYS']);
    expect(parseTopoMatrix(topo('h200-1gpu'))).toEqual({ gpus: ['0'], links: [['X']] });
  });

  it('gives null for what is not a GPU matrix', () => {
    expect(parseTopoMatrix('')).toBeNull();
    expect(parseTopoMatrix('NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.')).toBeNull();
    // A row cut short (the H100 capture without its last GPU row).
    expect(parseTopoMatrix(topo('h100-8gpu-nv18').replace(/^GPU7.*$/m, ''))).toBeNull();
  });

  it('keeps the matrix in the inventory only when it covers the GPUs listed', () => {
    const probe = (gpuCsvRows: number) =>
      parseProbeOutput(
        [
          '\n@@servelab:begin nvidia-smi-path\n/usr/bin/nvidia-smi\n@@servelab:end nvidia-smi-path rc=0\n',
          `\n@@servelab:begin gpus\n${Array.from({ length: gpuCsvRows }, (_, i) => `${i}, NVIDIA H100 80GB HBM3, GPU-${i}, 81559, 0, 81000, 0, 30, 70, 700, 570.86.15, 9.0, 00000000:0${i}:00.0, 1980`).join('\n')}\n@@servelab:end gpus rc=0\n`,
          `\n@@servelab:begin gpu-topology\n${topo('h100-8gpu-nv18')}\n@@servelab:end gpu-topology rc=0\n`,
        ].join(''),
      );
    expect(probe(8).gpuTopology?.gpus).toEqual(eight);
    expect(probe(4).gpuTopology).toBeUndefined();
  });
});

describe('NVLink-connected GPU sets', () => {
  const h100 = parseTopoMatrix(topo('h100-8gpu-nv18'))!;
  const pcie = parseTopoMatrix(topo('rtx4090-8gpu-pcie'))!;

  it('says whether every pair of a set is on NVLink', () => {
    expect(nvlinkConnected(h100, ['0', '5', '7'])).toBe(true);
    expect(nvlinkConnected(pcie, ['0', '1'])).toBe(false);
    expect(nvlinkConnected(pcie, ['3'])).toBe(true);
    expect(nvlinkConnected(h100, ['0', '8'])).toBe(false);
  });

  it('lists the sets of a size: all of them on NVSwitch, none over PCIe, only among the GPUs offered', () => {
    expect(connectedSets(h100, 4)).toHaveLength(70);
    expect(connectedSets(h100, 8)).toEqual([eight]);
    expect(connectedSets(h100, 2, ['1', '3', '6'])).toEqual([['1', '3'], ['1', '6'], ['3', '6']]);
    expect(connectedSets(pcie, 2)).toEqual([]);
    expect(connectedSets(pcie, 1)).toHaveLength(8);
  });

  it('finds the NVLink pairs of a box whose GPUs are bridged two by two (a marked edge case: A100 PCIe cards with NVLink bridges)', () => {
    const pairs = { gpus: ['0', '1', '2', '3'], links: [['X', 'NV12', 'SYS', 'SYS'], ['NV12', 'X', 'SYS', 'SYS'], ['SYS', 'SYS', 'X', 'NV12'], ['SYS', 'SYS', 'NV12', 'X']] };
    expect(connectedSets(pairs, 2)).toEqual([['0', '1'], ['2', '3']]);
    expect(connectedSets(pairs, 4)).toEqual([]);
  });
});
