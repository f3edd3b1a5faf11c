import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { h200FixtureDir } from '../../../tests/helpers/repo';
import { GpuSchema } from '../../shared/model/inventory';
import { parseComputeApps, parseCudaVersion, parseDriverVersion, parseGpuQueryCsv } from './nvidia-smi';

const capture = (name: string) => readFileSync(join(h200FixtureDir, name), 'utf8');

describe('parseGpuQueryCsv', () => {
  it('reads the real H200 capture', () => {
    const gpus = parseGpuQueryCsv(capture('query-gpu.csv'));
    expect(gpus).toEqual([
      {
        index: 0,
        name: 'NVIDIA H200',
        uuid: 'GPU-7a83c607-3a4d-9c92-985a-881af537acf6',
        memoryTotalMiB: 143771,
        memoryUsedMiB: 0,
        memoryFreeMiB: 143156,
        utilizationPct: 0,
        temperatureC: 35,
        powerDrawW: 120.68,
        powerLimitW: 700,
        driverVersion: '580.159.04',
        computeCapability: '9.0',
        pciBusId: '00000000:00:06.0',
        maxSmClockMHz: 1980,
      },
    ]);
    for (const gpu of gpus) expect(GpuSchema.parse(gpu)).toEqual(gpu);
  });

  it('turns [N/A], [Not Supported] and N/A into null and keeps going', () => {
    const out = [
      '0, NVIDIA A100-SXM4-80GB, GPU-aaaa, 81920, 1024, 80896, 12, 41, 95.5, 400.00, 550.54.15, 8.0, 00000000:07:00.0, 1410',
      '1, NVIDIA GeForce RTX 4090, GPU-bbbb, 24564, [N/A], [N/A], [Not Supported], N/A, [Unknown Error], [Not Supported], 550.54.15, 8.9, 00000000:08:00.0, [N/A]',
    ].join('\n');
    const gpus = parseGpuQueryCsv(out);
    expect(gpus).toHaveLength(2);
    expect(gpus[0]).toMatchObject({ name: 'NVIDIA A100-SXM4-80GB', memoryTotalMiB: 81920, computeCapability: '8.0', powerLimitW: 400 });
    expect(gpus[1]).toMatchObject({
      index: 1,
      name: 'NVIDIA GeForce RTX 4090',
      memoryUsedMiB: null,
      memoryFreeMiB: null,
      utilizationPct: null,
      temperatureC: null,
      powerDrawW: null,
      powerLimitW: null,
      maxSmClockMHz: null,
      computeCapability: '8.9',
    });
  });

  it('accepts fields without spaces after commas, CRLF and a name with a comma', () => {
    const out = '0,NVIDIA H100 80GB HBM3,GPU-c,81559,0,81008,0,30,70.1,700.00,570.86.15,9.0,00000000:19:00.0,1980\r\n' +
      '1, Weird, Inc. GPU, GPU-d, 1000, 0, 1000, 0, 30, 10, 20, 1.0, 9.0, 00000000:1A:00.0, 100\r\n';
    const gpus = parseGpuQueryCsv(out);
    expect(gpus.map((g) => g.name)).toEqual(['NVIDIA H100 80GB HBM3', 'Weird, Inc. GPU']);
    expect(gpus[1]).toMatchObject({ uuid: 'GPU-d', memoryTotalMiB: 1000, computeCapability: '9.0', maxSmClockMHz: 100 });
  });

  it('skips blank lines and noise, and returns [] for no GPU', () => {
    expect(parseGpuQueryCsv('')).toEqual([]);
    expect(parseGpuQueryCsv('No devices were found\n')).toEqual([]);
    expect(parseGpuQueryCsv('\nWARNING: infoROM is corrupted at gpu 0000:00:06.0\n' + capture('query-gpu.csv'))).toHaveLength(1);
  });
});

describe('parseComputeApps', () => {
  it('maps processes to GPU indexes and handles [N/A] memory', () => {
    const gpus = [
      { uuid: 'GPU-aaaa', index: 0 },
      { uuid: 'GPU-bbbb', index: 1 },
    ];
    const out = [
      'GPU-aaaa, 4242, /usr/bin/python3, 70112',
      'GPU-bbbb, 99, VLLM::EngineCore, [N/A]',
      'GPU-zzzz, 7, a, b, c.py, 12',
    ].join('\n');
    expect(parseComputeApps(out, gpus)).toEqual([
      { gpuUuid: 'GPU-aaaa', gpuIndex: 0, pid: 4242, processName: '/usr/bin/python3', usedMemoryMiB: 70112 },
      { gpuUuid: 'GPU-bbbb', gpuIndex: 1, pid: 99, processName: 'VLLM::EngineCore', usedMemoryMiB: null },
      { gpuUuid: 'GPU-zzzz', gpuIndex: null, pid: 7, processName: 'a, b, c.py', usedMemoryMiB: 12 },
    ]);
  });

  it('finds nothing in the real capture (no process was running) or in empty output', () => {
    // The capture has only the CSV header line; the probe asks for noheader, which prints nothing.
    expect(parseComputeApps(capture('apps.csv'))).toEqual([]);
    expect(parseComputeApps('')).toEqual([]);
  });
});

describe('nvidia-smi header', () => {
  it('reads CUDA and driver versions from the real capture', () => {
    const text = capture('nvidia-smi.txt');
    expect(parseCudaVersion(text)).toBe('13.0');
    expect(parseDriverVersion(text)).toBe('580.159.04');
  });

  it('returns null when absent', () => {
    expect(parseCudaVersion('| NVIDIA-SMI 535.1   Driver Version: 535.1   CUDA Version: N/A |')).toBeNull();
    expect(parseCudaVersion('')).toBeNull();
    expect(parseDriverVersion('')).toBeNull();
  });
});
