import type { Configuration } from 'electron-builder';
import type { StandInPackage } from './package-with-standin.mjs';
export interface CheckResult {
  name: string;
  ok: boolean;
  detail?: string;
}
export function importSpecifiers(source: string): string[];
export function verifyPackage(pkg: StandInPackage, options: { policy: NonNullable<Configuration['electronFuses']>; executableName?: string }): Promise<CheckResult[]>;
export const REQUIRED_FUSES: Readonly<Record<string, boolean>>;
export function requiredFuseProblems(policy: Readonly<Record<string, unknown>>): string[];
export function formatResults(results: CheckResult[]): string;
