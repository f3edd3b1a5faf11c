import type { Host } from '../../../../shared/model/host';
import { formattingLocale, t } from '../../i18n';

/** "gpu-1:22", with an IPv6 address in brackets as ssh prints it: "[::1]:22"; just the address without a port. */
export function hostPort(address: string, port: number | null): string {
  if (port === null) return address;
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** "ml@gpu-1:22", leaving out what the ssh config or the defaults decide ("gpu-1"). */
export function hostTarget(host: Pick<Host, 'user' | 'address' | 'port'>): string {
  return `${host.user ? `${host.user}@` : ''}${hostPort(host.address, host.port)}`;
}

/** "14:03:07.412": a log line's time of day, to the millisecond. */
export function formatLogTime(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** "4:05" for a countdown in seconds. */
export function formatCountdown(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
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

/** Minutes as hours and minutes, "1:00", "48:30", as Slurm limits are read (its own `days-hours:…` is less plain). */
export function formatHoursMinutes(minutes: number): string {
  return `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;
}
