export interface JournalEvent {
  event: string;
  at: string;
  /** The line's time in seconds. */
  t: number;
  [field: string]: unknown;
}
export interface BenchTrial {
  id: string;
  stageId: string;
  serverKey: string;
  label: string;
  warmup?: { seconds: number };
}
export interface LaunchReasonLine {
  kind: string;
  trials?: string[];
  stageIds?: string[];
  earlier?: string[];
}
export function parseJournal(text: string): JournalEvent[];
export function passFigures(
  events: JournalEvent[],
  trials: BenchTrial[],
  opts: { stageId: string; slots: number },
): {
  wallSeconds: number;
  idealSeconds: number;
  ratio: number;
  launchSeconds: number[];
  benchSeconds: number[];
  heldSeconds: number[];
  servers: { serverKey: string; hostId: string; gpus: string[]; from: number; ready: number; to: number }[];
};
export function reasonWords(reason: LaunchReasonLine | undefined): string;
export function launchFigures(
  events: JournalEvent[],
  trials: BenchTrial[],
): { launches: number; configs: number; relaunches: { serverKey: string; label: string; trials: string[]; reason: LaunchReasonLine | undefined; words: string }[] };
