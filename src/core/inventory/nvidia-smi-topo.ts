import { ANSI } from '../../shared/engines/log-lines';
import { GpuLinkSchema, type GpuTopology } from '../../shared/model/inventory';

/**
 * Reads the GPU-to-GPU part of `nvidia-smi topo -m`: a header row of column names (GPU0 … GPUn, then NICs and the
 * affinity columns), then one row per GPU whose first n cells are its links ("X" for itself). Cells are separated by
 * tabs as printed, or by spaces as pasted; the header may be underlined with ANSI escapes (the driver does so on a
 * terminal). Anything that is not such a matrix gives null, never a guess.
 */

const GPU_NAME = /^GPU(\d+)$/;
const isLink = (cell: string | undefined) => cell !== undefined && GpuLinkSchema.safeParse(cell).success;

export function parseTopoMatrix(text: string): GpuTopology | null {
  const rows = text
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((line) => line.trim().split(/\s+/).filter((cell) => cell !== ''));
  const headerAt = rows.findIndex((cells) => GPU_NAME.test(cells[0] ?? '') && !isLink(cells[1]));
  if (headerAt < 0) return null;
  const header = rows[headerAt] as string[];
  const gpus: string[] = [];
  for (const cell of header) {
    const m = GPU_NAME.exec(cell);
    if (!m) break;
    gpus.push(m[1] as string);
  }
  const links: string[][] = [];
  for (const [i, gpu] of gpus.entries()) {
    const row = rows.slice(headerAt + 1).find((cells) => cells[0] === `GPU${gpu}`);
    const cells = row?.slice(1, 1 + gpus.length);
    if (!cells || cells.length < gpus.length || !cells.every(isLink) || cells[i] !== 'X') return null;
    links.push(cells);
  }
  return { gpus, links };
}
