// The simulated nvidia-smi: byte-for-byte the real H200 captures for the queries the product runs, plus one
// marker line (its only difference), and consistent H100/A100 boxes the product's own parsers read.
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { h200FixtureDir, repoRoot } from '../helpers/repo';
import { GPU_QUERY_FIELDS, GPU_APPS_QUERY_FIELDS, PROBE_SCRIPT } from '../../src/core/inventory/probe-script';
import { parseProbeOutput, SIMULATED_MARKER } from '../../src/core/inventory/parse-probe';
import { parseComputeApps, parseGpuQueryCsv } from '../../src/core/inventory/nvidia-smi';
import { makeBox, type Box } from './helpers';

const capture = (name: string) => readFileSync(join(h200FixtureDir, name), 'utf8');
const publicTopo = (name: string) => readFileSync(join(repoRoot, 'tests', 'fixtures', 'nvidia-smi', 'topo-public', name), 'utf8');
/** topo -m's header without its underline escape codes (\x1b[4m … \x1b[0m). */
const withoutEscapes = (text: string) => text.replaceAll('\x1b[4m', '').replaceAll('\x1b[0m', '');
/** What a terminal shows of topo -m (and what the public captures hold): escape codes gone, tabs at 8 columns. */
function asTerminal(text: string): string {
  return withoutEscapes(text)
    .split('\n')
    .map((line) => {
      let out = '';
      for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - (out.length % 8)) : ch;
      return out;
    })
    .join('\n');
}
const PRODUCT_GPU_QUERY = [`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];
const boxes: Box[] = [];
const box = (o: Parameters<typeof makeBox>[0]) => {
  const b = makeBox(o);
  boxes.push(b);
  return b;
};
afterAll(() => boxes.forEach((b) => b.cleanup()));

/** The marker is one trailing line with no comma, so CSV parsers skip it; everything before it is the capture. */
function splitMarker(out: string): { body: string; marker: string } {
  const lines = out.split('\n');
  expect(lines.pop()).toBe('');
  const marker = lines.pop() ?? '';
  expect(marker.startsWith(`${SIMULATED_MARKER}:`)).toBe(true);
  expect(marker).not.toContain(',');
  return { body: `${lines.join('\n')}\n`, marker };
}

describe('simulated nvidia-smi on a 1-GPU H200 box', () => {
  const b = box({ gpu: 'h200' });

  it('answers the product GPU query exactly like the capture, plus the marker line', () => {
    const r = b.run('nvidia-smi', PRODUCT_GPU_QUERY);
    expect(r.code).toBe(0);
    expect(splitMarker(r.stdout).body).toBe(capture('query-gpu.csv'));
  });

  it('answers the captured header query and the compute-apps query exactly', () => {
    const header = b.run('nvidia-smi', ['--query-gpu=index,name,memory.total,compute_cap', '--format=csv']);
    expect(splitMarker(header.stdout).body).toBe(capture('query-gpu-header.csv'));
    const apps = b.run('nvidia-smi', ['--query-compute-apps=pid,process_name,used_memory', '--format=csv']);
    expect(splitMarker(apps.stdout).body).toBe(capture('apps.csv'));
    const productApps = b.run('nvidia-smi', [`--query-compute-apps=${GPU_APPS_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits']);
    // No process: the real command prints nothing, the simulated one only its marker line.
    expect(productApps.stdout.split('\n').filter((l) => l !== '')).toEqual([expect.stringMatching(new RegExp(`^${SIMULATED_MARKER}:`))]);
  });

  it('prints the plain banner like the capture except its timestamp line', () => {
    const r = b.run('nvidia-smi', []);
    const { body } = splitMarker(r.stdout);
    const [first, ...rest] = body.split('\n');
    const [capFirst, ...capRest] = capture('nvidia-smi.txt').split('\n');
    expect(first).toMatch(/^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} {7}$/);
    expect(capFirst).toMatch(/^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} {7}$/);
    expect(rest.join('\n')).toBe(capRest.join('\n'));
  });

  it('prints topo -m exactly like the capture, plus the marker line', () => {
    const r = b.run('nvidia-smi', ['topo', '-m']);
    expect(r.code).toBe(0);
    expect(splitMarker(r.stdout).body).toBe(capture('topo.txt'));
  });

  it('rejects an unknown field like nvidia-smi (exit 2)', () => {
    const r = b.run('nvidia-smi', ['--query-gpu=index,bogus', '--format=csv']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Field "bogus" is not a valid field to query.');
  });

  it('is detected as simulated by the product inventory probe, whose parsers read it', () => {
    const r = b.run('sh', ['-s'], { input: PROBE_SCRIPT });
    const inv = parseProbeOutput(r.stdout);
    expect(inv.simulated).toBe(true);
    expect(inv.gpuStatus).toBe('ok');
    expect(inv.gpus).toHaveLength(1);
    expect(inv.gpus[0]).toMatchObject({ name: 'NVIDIA H200', memoryTotalMiB: 143771, computeCapability: '9.0', driverVersion: '580.159.04', maxSmClockMHz: 1980 });
    expect(inv.cudaVersion).toBe('13.0');
    expect(inv.tools.uv.present).toBe(true);
  });
});

describe('H100 and A100 boxes', () => {
  it('8 x H100 SXM 80GB: sm 9.0, 81559 MiB, distinct UUIDs and bus ids, same formats', () => {
    const b = box({ gpu: 'h100', count: 8 });
    const r = b.run('nvidia-smi', PRODUCT_GPU_QUERY);
    const gpus = parseGpuQueryCsv(r.stdout);
    expect(gpus).toHaveLength(8);
    expect(new Set(gpus.map((g) => g.uuid)).size).toBe(8);
    expect(new Set(gpus.map((g) => g.pciBusId)).size).toBe(8);
    for (const [i, g] of gpus.entries()) {
      expect(g).toMatchObject({ index: i, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559, memoryUsedMiB: 0, computeCapability: '9.0', powerLimitW: 700, driverVersion: '580.159.04' });
      expect((g.memoryFreeMiB ?? 0) + (g.memoryUsedMiB ?? 0)).toBeLessThan(81559);
      expect(g.uuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    const banner = b.run('nvidia-smi', []).stdout;
    expect(banner.match(/NVIDIA H100 80GB HBM3 {10}On {2}\|/g)).toHaveLength(8);
    expect(banner).toContain('|       0MiB /  81559MiB |');
    const lines = banner.split('\n').filter((l) => l.startsWith('|') || l.startsWith('+'));
    for (const l of lines) expect(l).toHaveLength(91);
    const list = b.run('nvidia-smi', ['-L']).stdout.split('\n');
    expect(list[7]).toMatch(/^GPU 7: NVIDIA H100 80GB HBM3 \(UUID: GPU-/);
  });

  it('A100 SXM 80GB: sm 8.0, 81920 MiB, 400 W', () => {
    const b = box({ gpu: 'a100', count: 2 });
    const gpus = parseGpuQueryCsv(b.run('nvidia-smi', PRODUCT_GPU_QUERY).stdout);
    expect(gpus.map((g) => [g.name, g.memoryTotalMiB, g.computeCapability, g.powerLimitW])).toEqual([
      ['NVIDIA A100-SXM4-80GB', 81920, '8.0', 400],
      ['NVIDIA A100-SXM4-80GB', 81920, '8.0', 400],
    ]);
    const selected = b.run('nvidia-smi', ['-i', '1', ...PRODUCT_GPU_QUERY]);
    expect(parseGpuQueryCsv(selected.stdout).map((g) => g.index)).toEqual([1]);
    expect(parseComputeApps(b.run('nvidia-smi', ['--query-compute-apps=gpu_uuid,pid,process_name,used_memory', '--format=csv,noheader,nounits']).stdout)).toEqual([]);
  });

  it('is configured by the simbox CLI as well as by environment variables', () => {
    const b = box({});
    const env = { ...b.env };
    delete env.SERVELAB_SIMBOX_GPU;
    delete env.SERVELAB_SIMBOX_GPU_COUNT;
    expect(b.run('simbox', ['config', '--gpu', 'a100', '--count', '4'], { env }).code).toBe(0);
    const r = b.run('nvidia-smi', ['-L'], { env: { ...env, SERVELAB_SIMBOX_GPU: '', SERVELAB_SIMBOX_GPU_COUNT: '' } });
    expect(r.stdout.split('\n').filter((l) => l.startsWith('GPU '))).toHaveLength(4);
    expect(r.stdout).toContain('NVIDIA A100-SXM4-80GB');
    expect(b.run('simbox', ['config', '--count', '9']).code).toBe(2);
  });
});

describe('topo -m of multi-GPU boxes', () => {
  it('8 x H100 SXM: NV18 between every pair, as the public 8 x H100 capture prints it', () => {
    const out = splitMarker(box({ gpu: 'h100', count: 8 }).run('nvidia-smi', ['topo', '-m']).stdout).body;
    // The same tab-separated layout as the H200 capture: header underlined, an empty field before the GPU NUMA ID.
    expect(out.split('\n')[0]).toBe('\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m');
    expect(out.split('\n')[1]).toBe('GPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0\t\tN/A');
    // The capture is the terminal's text, cut after the legend's PHB line.
    const terminal = asTerminal(out);
    const expected = publicTopo('h100-8gpu-thunderkittens-167.txt');
    expect(terminal.startsWith(expected)).toBe(true);
    // The legend is the H200 capture's.
    expect(out.slice(out.indexOf('\nLegend:'))).toBe(capture('topo.txt').slice(capture('topo.txt').indexOf('\nLegend:')));
  });

  it('8 x A100 SXM4: NV12 between every pair, as the DGX A100 capture prints its GPU columns', () => {
    const rows = asTerminal(splitMarker(box({ gpu: 'a100', count: 8 }).run('nvidia-smi', ['topo', '-m']).stdout).body).split('\n');
    const captured = publicTopo('a100-8gpu-nccl-1505.txt').trimEnd().split('\n');
    // The first nine 8-column fields of each row (the row name and the GPU cells); the real box also has NICs.
    for (const [i, line] of captured.entries()) expect(rows[i]?.slice(0, 72)).toBe(line.slice(0, 72));
  });

  it('boxes of 2 and 4 GPUs are the first GPUs of the 8-GPU host', () => {
    const two = splitMarker(box({ gpu: 'h200', count: 2 }).run('nvidia-smi', ['topo', '-m']).stdout).body.split('\n');
    expect(two.slice(1, 3)).toEqual(['GPU0\t X \tNV18\t0-47,96-143\t0\t\tN/A', 'GPU1\tNV18\t X \t0-47,96-143\t0\t\tN/A']);
    const four = splitMarker(box({ gpu: 'a100', count: 4 }).run('nvidia-smi', ['topo', '-m']).stdout).body.split('\n');
    expect(four[4]).toBe('GPU3\tNV12\tNV12\tNV12\t X \t0-47,96-143\t0\t\tN/A');
  });

  it('a PCIe box (simbox config --topology pcie): pairs on one switch (PIX), NODE within a NUMA node, SYS across', () => {
    const b = box({ gpu: 'h100', count: 8 });
    expect(b.run('simbox', ['config', '--topology', 'pcie']).stdout).toContain('topology: PCIe only');
    const rows = splitMarker(b.run('nvidia-smi', ['topo', '-m']).stdout).body.split('\n');
    expect(rows[1]).toBe('GPU0\t X \tPIX\tNODE\tNODE\tSYS\tSYS\tSYS\tSYS\t0-47,96-143\t0\t\tN/A');
    expect(rows[6]).toBe('GPU5\tSYS\tSYS\tSYS\tSYS\tPIX\t X \tNODE\tNODE\t48-95,144-191\t1\t\tN/A');
    // The same layout as the tab-preserving public capture of a 2-GPU PCIe box.
    const pair = splitMarker(box({ gpu: 'h100', count: 2 }).run('nvidia-smi', ['topo', '-m'], { env: { SERVELAB_SIMBOX_TOPOLOGY: 'pcie' } }).stdout).body;
    const captured = publicTopo('pcie-2gpu-club-3090-1229.txt');
    const shape = (text: string) => withoutEscapes(text).split('\n').map((l) => l.split('\t').map((cell) => (/^(PIX|PHB|NODE|SYS)$/.test(cell) ? '<pcie>' : /^[\d,-]+$/.test(cell) ? '<n>' : cell)).join('\t'));
    expect(shape(pair)).toEqual(shape(captured));
    expect(b.run('simbox', ['config', '--topology', 'nvswitch']).code).toBe(2);
  });
});
