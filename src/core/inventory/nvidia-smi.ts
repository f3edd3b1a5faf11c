import type { Gpu, GpuProcess } from '../../shared/model/inventory';
import { GPU_QUERY_FIELDS } from './probe-script';

/** nvidia-smi prints `[N/A]`, `[Not Supported]`, `[Unknown Error]`… (or bare `N/A`) where it has no value. */
function isMissing(value: string): boolean {
  return value === '' || value === 'N/A' || /^\[.*\]$/.test(value);
}

function text(value: string | undefined): string | null {
  if (value === undefined) return null;
  const v = value.trim();
  return isMissing(v) ? null : v;
}

function number(value: string | undefined): number | null {
  const v = text(value);
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

function integer(value: string | undefined): number | null {
  const v = text(value);
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/**
 * Splits one CSV row into `count` fields where only the field at `freeIndex` may itself hold commas
 * (nvidia-smi does not quote). Returns null when the row has too few fields.
 */
function splitRow(line: string, count: number, freeIndex: number): string[] | null {
  const parts = line.split(',');
  if (parts.length < count) return null;
  const extra = parts.length - count;
  return [...parts.slice(0, freeIndex), parts.slice(freeIndex, freeIndex + extra + 1).join(','), ...parts.slice(freeIndex + extra + 1)].map((p) =>
    p.trim(),
  );
}

/**
 * Parses `nvidia-smi --query-gpu=<GPU_QUERY_FIELDS> --format=csv,noheader,nounits`.
 * Rows that are not GPU rows (warnings, blank lines) are skipped; unknown values become null.
 */
export function parseGpuQueryCsv(output: string): Gpu[] {
  const gpus: Gpu[] = [];
  for (const line of output.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const f = splitRow(line, GPU_QUERY_FIELDS.length, 1);
    if (!f) continue;
    const index = integer(f[0]);
    const name = text(f[1]);
    if (index === null || name === null) continue;
    gpus.push({
      index,
      name,
      uuid: text(f[2]) ?? '',
      // The schema needs a number; a GPU that hides its memory size is reported as 0 rather than dropped.
      memoryTotalMiB: number(f[3]) ?? 0,
      memoryUsedMiB: number(f[4]),
      memoryFreeMiB: number(f[5]),
      utilizationPct: number(f[6]),
      temperatureC: number(f[7]),
      powerDrawW: number(f[8]),
      powerLimitW: number(f[9]),
      driverVersion: text(f[10]),
      computeCapability: text(f[11]),
      pciBusId: text(f[12]),
      maxSmClockMHz: number(f[13]),
    });
  }
  return gpus;
}

/**
 * Parses `nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits`;
 * `gpus` maps each process to its GPU's index.
 */
export function parseComputeApps(output: string, gpus: Pick<Gpu, 'uuid' | 'index'>[] = []): GpuProcess[] {
  const processes: GpuProcess[] = [];
  for (const line of output.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const f = splitRow(line, 4, 2);
    if (!f) continue;
    const gpuUuid = text(f[0]);
    const pid = integer(f[1]);
    if (gpuUuid === null || pid === null) continue;
    processes.push({
      gpuUuid,
      gpuIndex: gpus.find((g) => g.uuid === gpuUuid)?.index ?? null,
      pid,
      processName: text(f[2]) ?? '',
      usedMemoryMiB: number(f[3]),
    });
  }
  return processes;
}

/** "13.0" from the `CUDA Version: 13.0` in plain `nvidia-smi`'s header; null when absent or N/A. */
export function parseCudaVersion(output: string): string | null {
  return /CUDA Version:\s*(\d+(?:\.\d+)*)/.exec(output)?.[1] ?? null;
}

/** "580.159.04" from the `Driver Version: …` in plain `nvidia-smi`'s header. */
export function parseDriverVersion(output: string): string | null {
  return /Driver Version:\s*(\d+(?:\.\d+)*)/.exec(output)?.[1] ?? null;
}
