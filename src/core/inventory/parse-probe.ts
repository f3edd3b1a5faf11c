import type { Inventory } from '../../shared/model/inventory';
import { parseComputeApps, parseCudaVersion, parseDriverVersion, parseGpuQueryCsv } from './nvidia-smi';
import { NVIDIA_SMI_TIMEOUT_SECONDS, PROBE_DONE_MARKER, PROBE_MARKER_PREFIX } from './probe-script';
import { parseTopoMatrix } from './nvidia-smi-topo';

export type ProbeInventory = Omit<Inventory, 'hostId'>;

export interface ProbeSection {
  /** What the command printed (stdout and stderr together), without the markers. */
  output: string;
  /** Exit status; null when the end marker never came. */
  rc: number | null;
}

/** The simulated GPU box prints this in its nvidia-smi output so its numbers are never taken for real ones. */
export const SIMULATED_MARKER = 'SERVELAB-SIMULATED';

const BEGIN = new RegExp(`^${escapeRegExp(PROBE_MARKER_PREFIX)}begin (\\S+)\\s*$`);
const END = new RegExp(`^${escapeRegExp(PROBE_MARKER_PREFIX)}end (\\S+) rc=(\\d+)\\s*$`);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Cuts the probe's stdout into its named sections; text outside the markers (login-shell noise) is dropped. */
export function splitProbeSections(stdout: string): Map<string, ProbeSection> {
  const sections = new Map<string, ProbeSection>();
  let current: { name: string; lines: string[] } | null = null;
  const close = (rc: number | null) => {
    if (!current) return;
    sections.set(current.name, { output: current.lines.join('\n').replace(/\s+$/, ''), rc });
    current = null;
  };
  for (const line of stdout.split(/\r?\n/)) {
    const begin = BEGIN.exec(line);
    if (begin) {
      close(null);
      current = { name: begin[1] as string, lines: [] };
      continue;
    }
    const end = END.exec(line);
    if (end && current && end[1] === current.name) {
      close(Number(end[2]));
      continue;
    }
    if (current) current.lines.push(line);
  }
  close(null);
  return sections;
}

/** Whether the probe ran to its last line. */
export function probeCompleted(stdout: string): boolean {
  return stdout.split(/\r?\n/).some((line) => line.trim() === PROBE_DONE_MARKER);
}

/** The section's text when its command succeeded, else null. */
function ok(sections: Map<string, ProbeSection>, name: string): string | null {
  const s = sections.get(name);
  return s && s.rc === 0 ? s.output : null;
}

function firstLine(output: string | null): string | null {
  const line = output
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  return line ?? null;
}

/** PRETTY_NAME from /etc/os-release, else NAME and VERSION. */
export function parseOsRelease(output: string): string | null {
  const values = new Map<string, string>();
  for (const line of output.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let value = (m[2] as string).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    values.set(m[1] as string, value.replace(/\\(["'$`\\])/g, '$1'));
  }
  const pretty = values.get('PRETTY_NAME');
  if (pretty) return pretty;
  const name = values.get('NAME');
  if (!name) return null;
  const version = values.get('VERSION');
  return version ? `${name} ${version}` : name;
}

/** MiB from the `MemTotal:   131912345 kB` line of /proc/meminfo. */
export function parseMemTotalMiB(output: string): number | null {
  const m = /MemTotal:\s*(\d+)\s*kB/i.exec(output);
  return m ? Math.floor(Number(m[1]) / 1024) : null;
}

/** Free and total MiB of the file system from `df -Pk PATH`. */
export function parseDfPk(output: string): { freeMiB: number; totalMiB: number } | null {
  for (const line of output.split('\n').reverse()) {
    // Filesystem 1024-blocks Used Available Capacity Mounted-on; names and mount points may hold spaces.
    const m = /^(.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+%|-)\s+(.+)$/.exec(line.trim());
    if (m) return { totalMiB: Math.floor(Number(m[2]) / 1024), freeMiB: Math.floor(Number(m[4]) / 1024) };
  }
  return null;
}

/** The first version-looking token after `prefix` (e.g. "Python 3.12.3" → "3.12.3"). */
export function parseVersionAfter(output: string, prefix: RegExp): string | null {
  const m = new RegExp(`${prefix.source}\\s*v?(\\d+(?:\\.\\d+)*(?:[-+.][0-9A-Za-z.]+)?)`, 'i').exec(output);
  if (m) return (m[1] as string).replace(/[,.]$/, '');
  return /(\d+\.\d+(?:\.\d+)?)/.exec(output)?.[1] ?? null;
}

function tool(sections: Map<string, ProbeSection>, name: string, prefix: RegExp, presentWhen: 'ran' | 'succeeded'): { present: boolean; version: string | null } {
  const s = sections.get(name);
  if (!s || s.rc === null) return { present: false, version: null };
  if (s.rc === 0) return { present: true, version: parseVersionAfter(s.output, prefix) };
  // rc 127: not on PATH. For `python3 -m pip` any failure means pip is missing; for a program, it exists but failed.
  return { present: presentWhen === 'ran' && s.rc !== 127, version: null };
}

function gpuFailureMessage(section: { output: string; rc: number | null }): string {
  if (section.rc === 124) return `nvidia-smi did not answer within ${NVIDIA_SMI_TIMEOUT_SECONDS} s; the NVIDIA driver may be hung.`;
  const text = section.output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
  if (text === '') return `nvidia-smi failed with exit code ${section.rc ?? 'unknown'}.`;
  return text.length > 500 ? `${text.slice(0, 497)}…` : text;
}

/** Turns the probe's stdout into an inventory. Never throws: what the box does not say is null. */
const sameMembers = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

export function parseProbeOutput(stdout: string, opts: { now?: Date } = {}): ProbeInventory {
  const sections = splitProbeSections(stdout);

  const smiPath = sections.get('nvidia-smi-path');
  const gpuSection = sections.get('gpus');
  const smiOutputs = ['gpus', 'gpu-apps', 'nvidia-smi'].map((n) => sections.get(n)?.output ?? '');
  const simulated = smiOutputs.some((o) => o.includes(SIMULATED_MARKER));
  const header = sections.get('nvidia-smi')?.output ?? '';

  let gpuStatus: Inventory['gpuStatus'];
  let gpuMessage: string | null = null;
  let gpus: Inventory['gpus'] = [];
  if (!smiPath || smiPath.rc !== 0 || !gpuSection) {
    gpuStatus = 'no-nvidia-smi';
    gpuMessage = 'nvidia-smi was not found on the PATH of the login shell: no NVIDIA driver is installed, or its tools are not on PATH.';
  } else if (/No devices were found/i.test(gpuSection.output)) {
    gpuStatus = 'no-gpu';
    gpuMessage = 'nvidia-smi found no NVIDIA GPU on this box.';
  } else if (gpuSection.rc !== 0) {
    gpuStatus = 'error';
    gpuMessage = gpuFailureMessage(gpuSection);
  } else {
    gpus = parseGpuQueryCsv(gpuSection.output);
    if (gpus.length === 0) {
      gpuStatus = 'no-gpu';
      gpuMessage = 'nvidia-smi lists no GPU on this box.';
    } else {
      gpuStatus = 'ok';
    }
  }

  const apps = gpuStatus === 'ok' ? ok(sections, 'gpu-apps') : null;
  const topo = gpuStatus === 'ok' ? ok(sections, 'gpu-topology') : null;
  // A matrix that does not cover exactly the GPUs listed (MIG, a GPU that fell off the bus) is left out, not guessed.
  const topology = topo === null ? null : parseTopoMatrix(topo);
  const gpuTopology = topology && sameMembers(topology.gpus, gpus.map((g) => String(g.index))) ? topology : undefined;
  const cpus = firstLine(ok(sections, 'cpus'));
  const disk = ok(sections, 'disk');
  const diskSpace = disk === null ? null : parseDfPk(disk);
  const osRelease = ok(sections, 'os-release');
  const meminfo = ok(sections, 'meminfo');
  const python = ok(sections, 'python');

  return {
    collectedAt: (opts.now ?? new Date()).toISOString(),
    hostname: firstLine(ok(sections, 'hostname')),
    simulated,
    gpuStatus,
    gpuMessage,
    gpus,
    gpuProcesses: apps === null ? [] : parseComputeApps(apps, gpus),
    ...(gpuTopology ? { gpuTopology } : {}),
    driverVersion: gpus[0]?.driverVersion ?? parseDriverVersion(header),
    cudaVersion: parseCudaVersion(header),
    os: {
      name: osRelease === null ? null : parseOsRelease(osRelease),
      kernel: firstLine(ok(sections, 'kernel')),
      arch: firstLine(ok(sections, 'arch')),
    },
    cpuCount: cpus !== null && /^\d+$/.test(cpus) ? Number(cpus) : null,
    memoryTotalMiB: meminfo === null ? null : parseMemTotalMiB(meminfo),
    python: { version: python === null ? null : parseVersionAfter(python, /Python/) },
    tools: {
      uv: tool(sections, 'uv', /uv/, 'ran'),
      pip: tool(sections, 'pip', /pip/, 'succeeded'),
      docker: tool(sections, 'docker', /version/, 'ran'),
    },
    disk: {
      path: firstLine(ok(sections, 'home')),
      freeMiB: diskSpace?.freeMiB ?? null,
      totalMiB: diskSpace?.totalMiB ?? null,
    },
  };
}
