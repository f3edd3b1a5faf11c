export class UsageError extends Error {
  text: string;
  code: number;
}
export interface TableEntry {
  names: string[];
  arity: string;
  count?: number;
  choices?: string[];
  json?: boolean;
  refused?: string;
}
export interface Action {
  optionStrings: string[];
  dest: string;
  [key: string]: unknown;
}
export function tableAction(entry: TableEntry, extra?: { type?: string; required?: boolean; noneChoice?: boolean }): Action;
export function formatUsage(prog: string, actions: Action[], positionals?: Action[], columns?: number): string;
export interface Parsed {
  values: Record<string, unknown>;
  given: Set<string>;
}
export function parseArgparse(
  parser: { prog: string; usage?: string; actions: Action[]; positionals?: { dest: string; nargs?: string | number | null }[]; allowAbbrev?: boolean; helpText?: string; parent?: { prog: string; usage: string } },
  argv: string[],
): Parsed;
export function parseClick(cmd: { path: string; usageTail: string; actions: Action[]; arguments?: string[]; helpText?: string }, argv: string[]): Parsed;
