/** Client arguments by argparse dest, as `vllm bench serve` holds them (resources/simbox/lib/arrivals.mjs). */
export interface ArrivalArgs {
  request_rate: number;
  burstiness: number;
  ramp_up_strategy?: 'linear' | 'exponential' | null;
  ramp_up_start_rps?: number | null;
  ramp_up_end_rps?: number | null;
}
export class ArrivalError extends Error {
  constructor(where: string, text: string);
  where: string;
  text: string;
}
export function requestRateAt(args: ArrivalArgs, index: number, total: number): number;
export function arrivalSchedule(args: ArrivalArgs, total: number, opts: { version: string; seed: number | string }): { delays: number[]; rates: number[] };
export function rampUpArgsError(args: ArrivalArgs): string | null;
export function rpsChangeEvents(args: ArrivalArgs, rates: number[], stamp: (index: number) => string): { rps: number; timestamp: string }[];
