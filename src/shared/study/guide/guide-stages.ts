import { joinArgs, splitArgs } from '../../engines/argv-text';
import type { ServerConfig } from '../../engines/server-config';
import type { EngineId } from '../../engines/types';
import type { TextBlock } from '../../results/parse-bench-text';
import type { GuideItem, GuideSection } from './guide-structure';
import { readServeCommand, type ServeRead } from './serve-command';

/**
 * What a section of a guide ran: each server command with the results printed under it. One command may stand for
 * several configurations: the guide prints one command and several blocks, each labelled with the flags that changed
 * (`# --speculative-num-steps 2 …`) or with a value of one of the command's flags (`# flashinfer` under
 * `--attention-backend triton`). Each such block gets the configuration its label says.
 */

export interface GuideRun {
  /** The command as printed, and the command this run's configuration corresponds to. */
  printed: string;
  command: string;
  line: number;
  read: ServeRead | { error: string };
  block?: TextBlock;
  label?: string;
  failure?: { error: string; line: number };
  /** Label text that names no configuration (it describes the workload, "BS=1"). */
  workloadLabel?: string;
}

export interface SectionRuns {
  runs: GuideRun[];
  /** Blocks with no command before them in their section. */
  orphans: TextBlock[];
}

/** The flag words of a label such as `--max_num_tokens=16384` or `--speculative-num-steps 2 --speculative-eagle-topk 4`. */
function flagNamesOf(words: readonly string[]): Set<string> {
  return new Set(words.filter((w) => w.startsWith('--')).map((w) => (w.includes('=') ? w.slice(0, w.indexOf('=')) : w)));
}

/** The command's words without the named flags (and the value after each, when it is not itself a flag). */
function withoutFlags(words: readonly string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const name = w.includes('=') ? w.slice(0, w.indexOf('=')) : w;
    if (!names.has(name)) {
      out.push(w);
      continue;
    }
    if (!w.includes('=') && i + 1 < words.length && !(words[i + 1] as string).startsWith('-')) i++;
  }
  return out;
}

/** The command a labelled block was run with. */
function commandForLabel(command: string, label: string | undefined, groupFlags: ReadonlySet<string>): { command: string; workloadLabel?: string } {
  if (label === undefined) return { command };
  const labelWords = splitArgs(label).words;
  const words = splitArgs(command).words;
  if (labelWords[0]?.startsWith('--')) return { command: joinArgs([...withoutFlags(words, groupFlags), ...labelWords]) };
  // A bare value: the value of whichever flag of the command has one of the group's bare labels as its value.
  if (labelWords.length === 1) {
    const valueAt = words.findIndex((w, i) => i > 0 && (words[i - 1] as string).startsWith('--') && groupFlags.has(`value:${w}`));
    if (valueAt > 0) {
      const next = [...words];
      next[valueAt] = labelWords[0] as string;
      return { command: joinArgs(next) };
    }
  }
  return { command, workloadLabel: label };
}

export function runsOfSection(section: GuideSection, versions: Partial<Record<EngineId, string>>): SectionRuns {
  const runs: GuideRun[] = [];
  const orphans: TextBlock[] = [];
  const items = section.items;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as GuideItem;
    if (item.kind === 'block') {
      orphans.push(item.block);
      continue;
    }
    if (item.kind !== 'command' || item.program !== 'server') continue;
    // The command's results: the blocks and failures up to the next server command.
    const results: GuideItem[] = [];
    let j = i + 1;
    for (; j < items.length; j++) {
      const next = items[j] as GuideItem;
      if (next.kind === 'command' && next.program === 'server') break;
      if (next.kind === 'block' || next.kind === 'failure') results.push(next);
    }
    const labels = results.flatMap((r) => (r.kind === 'block' && r.label !== undefined ? [r.label] : []));
    const groupFlags = flagNamesOf(labels.flatMap((l) => splitArgs(l).words));
    for (const l of labels) if (!l.startsWith('-') && splitArgs(l).words.length === 1) groupFlags.add(`value:${l}`);
    const base = { printed: item.text, line: item.line };
    if (results.length === 0) runs.push({ ...base, command: item.text, read: readServeCommand(item.text, versions) });
    for (const r of results) {
      if (r.kind === 'failure') {
        runs.push({ ...base, command: item.text, read: readServeCommand(item.text, versions), failure: { error: r.error, line: r.line } });
      } else if (r.kind === 'block') {
        const { command, workloadLabel } = commandForLabel(item.text, r.label, groupFlags);
        runs.push({
          ...base,
          command,
          read: readServeCommand(command, versions),
          block: r.block,
          ...(r.label !== undefined ? { label: r.label } : {}),
          ...(workloadLabel !== undefined ? { workloadLabel } : {}),
        });
      }
    }
    i = j - 1;
  }
  return { runs, orphans };
}

/** Settings of a config that differ from `base` (model, extra args and env included), as a flat record. */
export function settingsOf(config: ServerConfig): Record<string, unknown> {
  const { host: _h, port: _p, extraArgs, env, ...rest } = config;
  const out: Record<string, unknown> = { ...rest };
  if (extraArgs && extraArgs.length > 0) out.extraArgs = extraArgs;
  if (env && Object.keys(env).length > 0) out.env = env;
  return out;
}

/** Equal as JSON with keys in any order. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
