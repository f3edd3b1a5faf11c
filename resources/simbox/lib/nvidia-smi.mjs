// The simulated `nvidia-smi`: the plain banner, -L, --query-gpu and --query-compute-apps in the real formats
// (the H200 box's captures, byte for byte), plus one marker line so nobody mistakes it for a real GPU.

import { CUDA_VERSION, DRIVER_VERSION } from './catalog.mjs';
import { boxGpus, listGpuProcesses, loadConfig, MARKER_LINE } from './state.mjs';
import { cpuAffinity, linkBetween, numaNode } from './topology.mjs';

const GPU_FIELDS = {
  index: { header: 'index', value: (g) => String(g.index) },
  name: { header: 'name', value: (g) => g.model.name },
  uuid: { header: 'uuid', value: (g) => g.uuid },
  'memory.total': { header: 'memory.total [MiB]', unit: ' MiB', value: (g) => String(g.model.memoryMiB) },
  'memory.used': { header: 'memory.used [MiB]', unit: ' MiB', value: (g) => String(g.usedMiB) },
  'memory.free': { header: 'memory.free [MiB]', unit: ' MiB', value: (g) => String(g.model.memoryMiB - g.model.reservedMiB - g.usedMiB) },
  'memory.reserved': { header: 'memory.reserved [MiB]', unit: ' MiB', value: (g) => String(g.model.reservedMiB) },
  'utilization.gpu': { header: 'utilization.gpu [%]', unit: ' %', value: (g) => String(g.util) },
  'utilization.memory': { header: 'utilization.memory [%]', unit: ' %', value: (g) => String(g.util === 0 ? 0 : Math.round(g.util * 0.6)) },
  'temperature.gpu': { header: 'temperature.gpu', value: (g) => String(g.temp) },
  'power.draw': { header: 'power.draw [W]', unit: ' W', value: (g) => g.power.toFixed(2) },
  'power.limit': { header: 'power.limit [W]', unit: ' W', value: (g) => g.model.powerLimitW.toFixed(2) },
  driver_version: { header: 'driver_version', value: () => DRIVER_VERSION },
  compute_cap: { header: 'compute_cap', value: (g) => g.model.computeCap },
  'pci.bus_id': { header: 'pci.bus_id', value: (g) => g.busId },
  'clocks.max.sm': { header: 'clocks.max.sm [MHz]', unit: ' MHz', value: (g) => String(g.model.maxSmClockMHz) },
  'clocks.sm': { header: 'clocks.current.sm [MHz]', unit: ' MHz', value: (g) => String(g.model.maxSmClockMHz) },
  pstate: { header: 'pstate', value: () => 'P0' },
  persistence_mode: { header: 'persistence_mode', value: () => 'Enabled' },
  count: { header: 'count', value: (g, all) => String(all.length) },
  'fan.speed': { header: 'fan.speed [%]', value: () => '[N/A]' },
  compute_mode: { header: 'compute_mode', value: () => 'Default' },
  'mig.mode.current': { header: 'mig.mode.current', value: () => 'Disabled' },
  vbios_version: { header: 'vbios_version', value: () => '96.00.A5.00.1A' },
  timestamp: { header: 'timestamp', value: () => pyTimestamp(new Date()) },
};
const GPU_ALIASES = {
  gpu_name: 'name',
  gpu_uuid: 'uuid',
  gpu_bus_id: 'pci.bus_id',
  'clocks.current.sm': 'clocks.sm',
  'clocks.max.sm': 'clocks.max.sm',
  'clocks.max.sm_clock': 'clocks.max.sm',
  'temperature.gpu': 'temperature.gpu',
  'memory.total': 'memory.total',
};
const APP_FIELDS = {
  pid: { header: 'pid', value: (p) => String(p.pid) },
  process_name: { header: 'process_name', value: (p) => p.name },
  used_memory: { header: 'used_gpu_memory [MiB]', unit: ' MiB', value: (p) => String(p.memoryMiB) },
  gpu_uuid: { header: 'gpu_uuid', value: (p) => p.gpu.uuid },
  gpu_name: { header: 'gpu_name', value: (p) => p.gpu.model.name },
  gpu_bus_id: { header: 'gpu_bus_id', value: (p) => p.gpu.busId },
  gpu_serial: { header: 'gpu_serial', value: (p) => String(1653724027157 + p.gpu.index) },
};
const APP_ALIASES = { name: 'process_name', used_gpu_memory: 'used_memory' };

function pyTimestamp(d) {
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** ctime()-style date, as in the banner's first line ("Sun Nov 29 15:46:11 2026"). */
function bannerDate(d) {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n) => String(n).padStart(2, '0');
  return `${days[d.getDay()]} ${months[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${d.getFullYear()}`;
}

const rj = (s, w) => String(s).padStart(w, ' ');
const lj = (s, w) => String(s).padEnd(w, ' ');

/** The box's GPUs with what is in use now. */
function snapshot(env) {
  const config = loadConfig(env);
  const gpus = boxGpus(config);
  const procs = [];
  for (const g of gpus) {
    g.usedMiB = 0;
    g.util = 0;
    g.power = g.idlePowerW;
    g.temp = g.idleTempC;
  }
  for (const p of listGpuProcesses(env)) {
    for (const idx of p.gpus ?? []) {
      const g = gpus[idx];
      if (!g) continue;
      g.usedMiB += p.memoryMiB;
      // A process that holds memory keeps the GPU out of its deepest idle state.
      g.power = Math.round((g.idlePowerW + 21.37) * 100) / 100;
      g.temp = g.idleTempC + 4;
      procs.push({ pid: p.pid, name: p.name, memoryMiB: p.memoryMiB, gpu: g, type: 'C' });
    }
  }
  for (const g of gpus) g.usedMiB = Math.min(g.usedMiB, g.model.memoryMiB - g.model.reservedMiB);
  return { config, gpus, procs };
}

function parseFormat(value) {
  const parts = value.split(',').map((s) => s.trim());
  if (parts[0] !== 'csv') return null;
  return { header: !parts.includes('noheader'), units: !parts.includes('nounits') };
}

function query(kind, fieldsText, formatText, rows, all) {
  const table = kind === 'gpu' ? GPU_FIELDS : APP_FIELDS;
  const aliases = kind === 'gpu' ? GPU_ALIASES : APP_ALIASES;
  const fields = [];
  for (const raw of fieldsText.split(',')) {
    const name = raw.trim();
    const key = table[name] ? name : aliases[name];
    if (!key || !table[key]) return { code: 2, out: `Field "${name}" is not a valid field to query.\n\n` };
    fields.push(table[key]);
  }
  const fmt = parseFormat(formatText ?? '');
  if (!fmt) return { code: 2, out: `"${formatText ?? ''}" is not a valid format.\nSee 'nvidia-smi -h' for more information.\n` };
  const lines = [];
  if (fmt.header) lines.push(fields.map((f) => f.header).join(', '));
  for (const row of rows) lines.push(fields.map((f) => f.value(row, all) + (fmt.units && f.unit ? f.unit : '')).join(', '));
  lines.push(MARKER_LINE);
  return { code: 0, out: `${lines.join('\n')}\n` };
}

function banner(gpus, procs, now) {
  const top = '+-----------------------------------------------------------------------------------------+';
  const sep = '+-----------------------------------------+------------------------+----------------------+';
  const lines = [
    `${bannerDate(now)}       `,
    top,
    `| NVIDIA-SMI ${DRIVER_VERSION}             Driver Version: ${DRIVER_VERSION}     CUDA Version: ${CUDA_VERSION}     |`,
    sep,
    '| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |',
    '| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |',
    '|                                         |                        |               MIG M. |',
    '|=========================================+========================+======================|',
  ];
  for (const g of gpus) {
    lines.push(`|${rj(g.index, 4)}  ${lj(g.model.name, 31)}On  |   ${g.busId} Off |${rj('0', 21)} |`);
    lines.push(
      `| N/A${rj(`${g.temp}C`, 6)}${rj('P0', 6)}${rj(`${Math.floor(g.power)}W`, 16)} / ${rj(`${g.model.powerLimitW}W`, 5)} |${rj(`${g.usedMiB}MiB`, 11)} / ${rj(`${g.model.memoryMiB}MiB`, 9)} |${rj(`${g.util}%`, 8)}${rj('Default', 13)} |`,
    );
    lines.push(`|${' '.repeat(41)}|${' '.repeat(24)}|${rj('Disabled', 21)} |`);
    lines.push(sep);
  }
  lines.push('', top);
  lines.push(`| Processes:${' '.repeat(78)}|`);
  lines.push('|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |');
  lines.push('|        ID   ID                                                               Usage      |');
  lines.push('|=========================================================================================|');
  if (procs.length === 0) lines.push(`|  No running processes found${' '.repeat(61)}|`);
  for (const p of procs) {
    const name = p.name.length > 36 ? `...${p.name.slice(-33)}` : p.name;
    lines.push(`|${rj(p.gpu.index, 5)}${rj('N/A', 6)}${rj('N/A', 5)}${rj(p.pid, 16)}${rj(p.type, 7)}   ${lj(name, 36)}${rj(`${p.memoryMiB}MiB`, 10)} |`);
  }
  lines.push(top);
  lines.push(MARKER_LINE);
  return `${lines.join('\n')}\n`;
}

/**
 * `topo -m`: the H200 capture's layout (tab-separated, the header underlined with escape codes, an empty field before
 * the GPU NUMA ID), one cell per GPU pair from the box's wiring (topology.mjs); multi-GPU rows as in the public 8-GPU
 * captures of tests/fixtures/nvidia-smi/topo-public/.
 */
function topo(config, gpus) {
  const n = gpus.length;
  const head = ['', ...gpus.map((g) => `GPU${g.index}`), 'CPU Affinity', 'NUMA Affinity', 'GPU NUMA ID'];
  const lines = [`\t\x1b[4m${head.slice(1).join('\t')}\x1b[0m`];
  for (const g of gpus) {
    const cells = gpus.map((h) => linkBetween(config, g.index, h.index));
    lines.push(`GPU${g.index}\t${cells.join('\t')}\t${cpuAffinity(config, g.index)}\t${numaNode(config, g.index)}\t\tN/A`);
  }
  lines.push(
    '',
    'Legend:',
    '',
    '  X    = Self',
    '  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)',
    '  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node',
    '  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)',
    '  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)',
    '  PIX  = Connection traversing at most a single PCIe bridge',
    '  NV#  = Connection traversing a bonded set of # NVLinks',
  );
  if (n === 0) return '';
  lines.push(MARKER_LINE);
  return `${lines.join('\n')}\n`;
}

/** Runs `nvidia-smi args…`; returns {code, out, err}. */
export function nvidiaSmi(args, env = process.env, now = new Date()) {
  const opts = {};
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^(--[a-z-]+)=(.*)$/.exec(a);
    const key = m ? m[1] : a;
    const takesValue = ['--query-gpu', '--query-compute-apps', '--format', '-i', '--id'].includes(key);
    if (takesValue) opts[key] = m ? m[2] : args[++i];
    else rest.push(a);
  }
  const { config, gpus, procs } = snapshot(env);
  let selected = gpus;
  const id = opts['-i'] ?? opts['--id'];
  if (id !== undefined) {
    selected = [];
    for (const item of String(id).split(',')) {
      const g = /^\d+$/.test(item) ? gpus[Number(item)] : gpus.find((x) => x.uuid === item || x.busId === item);
      if (!g) return { code: 6, out: `No devices were found\n`, err: '' };
      selected.push(g);
    }
  }
  if (opts['--query-gpu'] !== undefined) {
    const r = query('gpu', opts['--query-gpu'], opts['--format'], selected, gpus);
    return { code: r.code, out: r.out, err: '' };
  }
  if (opts['--query-compute-apps'] !== undefined) {
    const rows = procs.filter((p) => selected.includes(p.gpu));
    const r = query('apps', opts['--query-compute-apps'], opts['--format'], rows, gpus);
    return { code: r.code, out: r.out, err: '' };
  }
  if (rest[0] === '-L' || rest[0] === '--list-gpus') {
    return { code: 0, out: `${selected.map((g) => `GPU ${g.index}: ${g.model.name} (UUID: ${g.uuid})`).join('\n')}\n${MARKER_LINE}\n`, err: '' };
  }
  if (rest[0] === 'topo' && (rest[1] === '-m' || rest[1] === '--matrix')) return { code: 0, out: topo(config, selected), err: '' };
  if (rest.length === 0) {
    return { code: 0, out: banner(selected, procs.filter((p) => selected.includes(p.gpu)), now), err: '' };
  }
  if (rest[0] === '-h' || rest[0] === '--help') {
    return { code: 0, out: `NVIDIA System Management Interface -- v${DRIVER_VERSION}\n\n${MARKER_LINE}\nSimulated options: (none) | -L | -i ID | --query-gpu=FIELDS --format=csv[,noheader][,nounits] | --query-compute-apps=FIELDS --format=... | topo -m\n`, err: '' };
  }
  return { code: 2, out: `Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n`, err: '' };
}

export function main(argv) {
  const r = nvidiaSmi(argv);
  process.stdout.write(r.out);
  if (r.err) process.stderr.write(r.err);
  process.exitCode = r.code;
}
