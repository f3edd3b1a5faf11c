import type { Host } from '../../../../shared/model/host';
import { formattingLocale, t } from '../../i18n';

/** "gpu-1:22", with an IPv6 address in brackets as ssh prints it: "[::1]:22". */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** "ml@gpu-1:22". */
export function hostTarget(host: Pick<Host, 'user' | 'address' | 'port'>): string {
  return `${host.user}@${hostPort(host.address, host.port)}`;
}

function formatNumber(value: number, maximumFractionDigits: number): string {
  return new Intl.NumberFormat(formattingLocale(), { maximumFractionDigits }).format(value);
}

/** MiB as the largest unit that keeps the number readable: "512 MiB", "139.8 GiB", "1.2 TiB". */
export function formatMiB(mib: number): string {
  if (Math.abs(mib) < 1024) return t('units.mib', { value: formatNumber(mib, 0) });
  if (Math.abs(mib) < 1024 * 1024) return t('units.gib', { value: formatNumber(mib / 1024, 1) });
  return t('units.tib', { value: formatNumber(mib / (1024 * 1024), 2) });
}

export function formatOptional<T>(value: T | null | undefined, format: (value: T) => string): string {
  return value === null || value === undefined ? t('inventory.unknown') : format(value);
}

export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(formattingLocale(), { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Share of used memory in whole percent, 0–100, or null when unknown. */
export function usedPercent(usedMiB: number | null, totalMiB: number): number | null {
  if (usedMiB === null || !(totalMiB > 0)) return null;
  return Math.min(100, Math.max(0, Math.round((usedMiB / totalMiB) * 100)));
}
