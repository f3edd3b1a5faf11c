/** Types of scripts/leftover-processes.mjs. */
export interface LeftoverProcess {
  pid: number;
  ppid: number;
  why: string;
  command: string;
  cwd: string | null;
}
export interface LeftoverOptions {
  runId?: string | undefined;
  since?: number;
  prefixes?: string[];
}
export declare const RUN_MARK: string;
export declare const RUN_SINCE: string;
export declare const TEST_TEMP_PREFIXES: string[];
export declare function statOf(pid: number): { state: string; ppid: number; startTicks: number } | null;
export declare function leftoverProcesses(options?: LeftoverOptions): LeftoverProcess[];
export declare function leftoverAfter(waitSeconds: number, options?: LeftoverOptions): Promise<LeftoverProcess[]>;
export declare function describeLeftovers(left: LeftoverProcess[]): string;
