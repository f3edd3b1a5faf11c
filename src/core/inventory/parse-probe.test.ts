import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { h200FixtureDir } from '../../../tests/helpers/repo';
import { InventorySchema } from '../../shared/model/inventory';
import { parseDfPk, parseMemTotalMiB, parseOsRelease, parseProbeOutput, parseVersionAfter, probeCompleted, splitProbeSections } from './parse-probe';

const capture = (name: string) => readFileSync(join(h200FixtureDir, name), 'utf8');
const ProbeInventorySchema = InventorySchema.omit({ hostId: true });
const now = new Date('2026-11-29T15:46:12.000Z');

/** One section as the probe prints it (a newline always precedes the end marker). */
function section(name: string, output: string, rc = 0): string {
  return `\n@@servelab:begin ${name}\n${output}\n@@servelab:end ${name} rc=${rc}\n`;
}

const UBUNTU_OS_RELEASE = [
  'PRETTY_NAME="Ubuntu 24.04.2 LTS"',
  'NAME="Ubuntu"',
  'VERSION_ID="24.04"',
  'VERSION="24.04.2 LTS (Noble Numbat)"',
  'ID=ubuntu',
].join('\n');

/** The facts every box has, modelled on the H200 box of the captures (16 cores, 125 GiB, uv, pip 24.0, no docker). */
function commonSections(): string {
  return [
    section('hostname', 'h200-box'),
    section('os-release', UBUNTU_OS_RELEASE),
    section('kernel', 'Linux 6.8.0-51-generic'),
    section('arch', 'x86_64'),
    section('cpus', '16'),
    section('meminfo', 'MemTotal:       131072000 kB'),
    section('python', 'Python 3.12.3'),
    section('pip', 'pip 24.0 from /home/ubuntu/venv/lib/python3.12/site-packages/pip (python 3.12)'),
    section('uv', 'uv 0.9.7'),
    section('docker', '', 127),
    section('disk', 'Filesystem     1024-blocks      Used Available Capacity Mounted on\n/dev/vda1      2031322048 412345678 1618976370      21% /'),
  ].join('');
}

function h200Output(): string {
  return [
    // What a chatty login profile might print before the script starts.
    'Welcome to Ubuntu 24.04.2 LTS\n * Documentation:  https://help.ubuntu.com\n@@servelab:end gpus rc=9\n',
    section('home', '/home/ubuntu'),
    section('nvidia-smi-path', '/usr/bin/nvidia-smi'),
    section('gpus', capture('query-gpu.csv')),
    section('gpu-apps', ''),
    section('nvidia-smi', capture('nvidia-smi.txt')),
    section('gpu-topology', capture('topo.txt')),
    commonSections(),
    '\n@@servelab:done\n',
  ].join('');
}

describe('splitProbeSections', () => {
  it('keeps only text between matching markers', () => {
    const sections = splitProbeSections('noise\n' + section('a', 'one\ntwo') + 'more noise\n' + section('b', '', 3) + '@@servelab:begin c\ncut');
    expect(sections.get('a')).toEqual({ output: 'one\ntwo', rc: 0 });
    expect(sections.get('b')).toEqual({ output: '', rc: 3 });
    expect(sections.get('c')).toEqual({ output: 'cut', rc: null });
    expect(sections.size).toBe(3);
  });

  it('knows whether the probe finished', () => {
    expect(probeCompleted(h200Output())).toBe(true);
    expect(probeCompleted(section('home', '/root'))).toBe(false);
  });
});

describe('parseProbeOutput', () => {
  it('turns the real H200 captures into a full inventory', () => {
    const inventory = parseProbeOutput(h200Output(), { now });
    expect(ProbeInventorySchema.parse(inventory)).toEqual(inventory);
    expect(inventory).toMatchObject({
      collectedAt: '2026-11-29T15:46:12.000Z',
      hostname: 'h200-box',
      simulated: false,
      gpuStatus: 'ok',
      gpuMessage: null,
      gpuProcesses: [],
      driverVersion: '580.159.04',
      cudaVersion: '13.0',
      os: { name: 'Ubuntu 24.04.2 LTS', kernel: 'Linux 6.8.0-51-generic', arch: 'x86_64' },
      cpuCount: 16,
      memoryTotalMiB: 128000,
      python: { version: '3.12.3' },
      tools: { uv: { present: true, version: '0.9.7' }, pip: { present: true, version: '24.0' }, docker: { present: false, version: null } },
      disk: { path: '/home/ubuntu', totalMiB: 1983712, freeMiB: 1581031 },
    });
    expect(inventory.gpus).toHaveLength(1);
    // topo.txt as the driver printed it, underlined header and all.
    expect(inventory.gpuTopology).toEqual({ gpus: ['0'], links: [['X']] });
    expect(inventory.gpus[0]).toMatchObject({
      name: 'NVIDIA H200',
      memoryTotalMiB: 143771,
      memoryFreeMiB: 143156,
      computeCapability: '9.0',
      driverVersion: '580.159.04',
      powerLimitW: 700,
      maxSmClockMHz: 1980,
    });
  });

  it('reports a box without nvidia-smi and still gives the rest', () => {
    const out = section('home', '/root') + section('nvidia-smi-path', '', 127) + commonSections() + '\n@@servelab:done\n';
    const inventory = parseProbeOutput(out, { now });
    expect(ProbeInventorySchema.parse(inventory)).toEqual(inventory);
    expect(inventory.gpuStatus).toBe('no-nvidia-smi');
    expect(inventory.gpuMessage).toMatch(/nvidia-smi was not found/);
    expect(inventory.gpus).toEqual([]);
    expect(inventory.driverVersion).toBeNull();
    expect(inventory.cudaVersion).toBeNull();
    expect(inventory.cpuCount).toBe(16);
    expect(inventory.os.name).toBe('Ubuntu 24.04.2 LTS');
  });

  it('reports the driver failure message when nvidia-smi cannot reach the driver', () => {
    const failure =
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.";
    const out =
      section('nvidia-smi-path', '/usr/bin/nvidia-smi') +
      section('gpus', `${failure}\n`, 9) +
      section('gpu-apps', failure, 9) +
      section('nvidia-smi', failure, 9) +
      commonSections();
    const inventory = parseProbeOutput(out, { now });
    expect(ProbeInventorySchema.parse(inventory)).toEqual(inventory);
    expect(inventory.gpuStatus).toBe('error');
    expect(inventory.gpuMessage).toBe(failure);
    expect(inventory.gpus).toEqual([]);
    expect(inventory.hostname).toBe('h200-box');
  });

  it('says when nvidia-smi hung', () => {
    const out = section('nvidia-smi-path', '/usr/bin/nvidia-smi') + section('gpus', '', 124) + commonSections();
    const inventory = parseProbeOutput(out, { now });
    expect(inventory.gpuStatus).toBe('error');
    expect(inventory.gpuMessage).toMatch(/did not answer within 30 s/);
  });

  it('reports zero GPUs as no-gpu', () => {
    const out = section('nvidia-smi-path', '/usr/bin/nvidia-smi') + section('gpus', 'No devices were found', 6) + commonSections();
    const inventory = parseProbeOutput(out, { now });
    expect(inventory.gpuStatus).toBe('no-gpu');
    expect(inventory.gpus).toEqual([]);
    const empty = parseProbeOutput(section('nvidia-smi-path', '/usr/bin/nvidia-smi') + section('gpus', ''), { now });
    expect(empty.gpuStatus).toBe('no-gpu');
  });

  it('flags the simulated box', () => {
    const out = h200Output().replace('NVIDIA-SMI 580.159.04', 'NVIDIA-SMI 580.159.04 SERVELAB-SIMULATED');
    expect(parseProbeOutput(out, { now }).simulated).toBe(true);
  });

  it('lists compute processes against their GPU', () => {
    const out = h200Output().replace(
      section('gpu-apps', ''),
      section('gpu-apps', 'GPU-7a83c607-3a4d-9c92-985a-881af537acf6, 1234, VLLM::EngineCore, 130000'),
    );
    expect(parseProbeOutput(out, { now }).gpuProcesses).toEqual([
      { gpuUuid: 'GPU-7a83c607-3a4d-9c92-985a-881af537acf6', gpuIndex: 0, pid: 1234, processName: 'VLLM::EngineCore', usedMemoryMiB: 130000 },
    ]);
  });

  it('gives nulls rather than throwing on empty or garbage output', () => {
    for (const out of ['', 'bash: sh: command not found', section('cpus', 'many') + section('meminfo', 'nope')]) {
      const inventory = parseProbeOutput(out, { now });
      expect(ProbeInventorySchema.parse(inventory)).toEqual(inventory);
      expect(inventory.cpuCount).toBeNull();
      expect(inventory.memoryTotalMiB).toBeNull();
      expect(inventory.tools.uv).toEqual({ present: false, version: null });
    }
  });

  it('tells a failing tool from a missing one', () => {
    const out = section('uv', 'error: something', 2) + section('pip', '/usr/bin/python3: No module named pip', 1) + section('docker', 'Docker version 28.2.2, build e6534b4');
    const { tools } = parseProbeOutput(out, { now });
    expect(tools.uv).toEqual({ present: true, version: null });
    expect(tools.pip).toEqual({ present: false, version: null });
    expect(tools.docker).toEqual({ present: true, version: '28.2.2' });
  });
});

describe('small parsers', () => {
  it('reads os-release', () => {
    expect(parseOsRelease(UBUNTU_OS_RELEASE)).toBe('Ubuntu 24.04.2 LTS');
    expect(parseOsRelease('NAME="Rocky Linux"\nVERSION="9.4 (Blue Onyx)"')).toBe('Rocky Linux 9.4 (Blue Onyx)');
    expect(parseOsRelease('garbage')).toBeNull();
  });

  it('reads MemTotal and df -Pk', () => {
    expect(parseMemTotalMiB('MemTotal:       24683656 kB')).toBe(24105);
    expect(parseMemTotalMiB('')).toBeNull();
    expect(parseDfPk('Filesystem 1024-blocks Used Available Capacity Mounted on\nmy fs 2048 1024 1024 50% /mnt/my disk')).toEqual({ totalMiB: 2, freeMiB: 1 });
    expect(parseDfPk('df: /nope: No such file or directory')).toBeNull();
  });

  it('reads tool versions', () => {
    expect(parseVersionAfter('uv 0.5.11 (c4d0caa 2024-12-19)', /uv/)).toBe('0.5.11');
    expect(parseVersionAfter('Python 3.13.0rc1', /Python/)).toBe('3.13.0');
    expect(parseVersionAfter('podman version 4.3.1', /version/)).toBe('4.3.1');
    expect(parseVersionAfter('Docker version 27.3.1, build ce12230', /version/)).toBe('27.3.1');
  });
});
