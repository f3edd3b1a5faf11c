import sglangData from '../../../resources/engine-flags/sglang.json';
import trtllmData from '../../../resources/engine-flags/trtllm.json';
import trtllmLlmApiData from '../../../resources/engine-flags/trtllm-llm-api.json';
import vllmBenchData from '../../../resources/engine-flags/vllm-bench.json';
import vllmData from '../../../resources/engine-flags/vllm.json';
import type { EngineId, FlagArity, FlagSpec, FlagTable } from './types';
import { compareVersions, isVersion, nearestKnown } from './version';

/**
 * The engines' command-line flags at each release, as their own parsers define them: read from the generated tables
 * in resources/engine-flags (scripts/flag-tables extracts them from each release's source and records the commit).
 * The validator, the command builder, the wizard and the simulated engines all read these tables, nothing else.
 */

/** A command whose flags are tabled: the three servers, and `vllm bench serve`. */
export const FLAG_TABLE_IDS = ['vllm', 'vllm-bench', 'sglang', 'trtllm'] as const;
export type FlagTableId = (typeof FLAG_TABLE_IDS)[number];

interface RawFlag {
  names: string[];
  arity: string;
  count?: number;
  choices?: string[];
  json?: boolean;
  refused?: string;
  versions: string[];
}

interface RawVersion {
  version: string;
  commit: string;
  ref: string;
  read_from: string;
  exact?: boolean;
  note?: string;
}

interface RawTable {
  engine: string;
  command: string;
  versions: RawVersion[];
  flags: RawFlag[];
}

const RAW: Readonly<Record<FlagTableId, RawTable>> = {
  vllm: vllmData as unknown as RawTable,
  'vllm-bench': vllmBenchData as unknown as RawTable,
  sglang: sglangData as unknown as RawTable,
  trtllm: trtllmData as unknown as RawTable,
};

const PARSER: Readonly<Record<FlagTableId, FlagTable['parser']>> = {
  vllm: 'vllm-argparse',
  'vllm-bench': 'vllm-argparse',
  sglang: 'argparse',
  trtllm: 'click',
};

/** How each engine's command is written, for messages ("vllm serve 0.11.0 does not have …"). */
export const FLAG_TABLE_COMMAND: Readonly<Record<FlagTableId, string>> = {
  vllm: 'vllm serve',
  'vllm-bench': 'vllm bench serve',
  sglang: 'sglang.launch_server',
  trtllm: 'trtllm-serve',
};

const ARITIES: readonly FlagArity[] = ['none', 'negatable', 'one', 'optional', 'many', 'zero-or-more', 'repeatable', 'fixed'];

/** Where a table's source was read, per version: the commit, and whether it is the release tag itself. */
export interface FlagTableSource {
  version: string;
  commit: string;
  ref: string;
  readFrom: string;
  exact: boolean;
  note?: string;
}

/** The versions a table covers, oldest first. */
export function tableVersions(id: FlagTableId): string[] {
  return RAW[id].versions.map((v) => v.version).sort(compareVersions);
}

export function tableSource(id: FlagTableId, version: string): FlagTableSource | undefined {
  const v = RAW[id].versions.find((x) => x.version === version);
  if (!v) return undefined;
  return { version: v.version, commit: v.commit, ref: v.ref, readFrom: v.read_from, exact: v.exact !== false, ...(v.note ? { note: v.note } : {}) };
}

/** The engine versions Servelab has flag tables for (and so can check a command against exactly). */
export function engineVersions(engine: EngineId): string[] {
  return tableVersions(engine);
}

/** The version whose table applies to `version`: itself when tabled, else the newest tabled one not newer, else the oldest. */
export function tabledVersion(id: FlagTableId, version: string): string {
  const known = tableVersions(id);
  if (known.includes(version)) return version;
  return (isVersion(version) ? nearestKnown(version, known) : undefined) ?? (known[known.length - 1] as string);
}

function toSpec(raw: RawFlag): FlagSpec {
  const arity = raw.arity as FlagArity;
  if (!ARITIES.includes(arity)) throw new Error(`flag table: unknown arity ${raw.arity} for ${raw.names[0]}`);
  return {
    names: raw.names,
    arity,
    ...(raw.count !== undefined ? { count: raw.count } : {}),
    ...(raw.choices ? { choices: raw.choices } : {}),
    ...(raw.json ? { dotted: true } : {}),
    ...(raw.refused ? { refused: raw.refused } : {}),
  };
}

const cache = new Map<string, FlagTable>();

/** The flags `id`'s parser accepts at `version` (the table of `tabledVersion(id, version)`). */
export function flagTableAt(id: FlagTableId, version: string): FlagTable {
  const at = tabledVersion(id, version);
  const key = `${id}@${at}`;
  let table = cache.get(key);
  if (!table) {
    const flags = RAW[id].flags.filter((f) => f.versions.includes(at)).map(toSpec);
    table = { id, parser: PARSER[id], version: at, flags };
    cache.set(key, table);
  }
  return table;
}

/** The tabled versions that have a flag of this name (any of its spellings), oldest first; empty when none has it. */
export function versionsWithFlag(id: FlagTableId, name: string): string[] {
  const versions = new Set<string>();
  for (const f of RAW[id].flags) if (f.names.includes(name)) for (const v of f.versions) versions.add(v);
  return [...versions].sort(compareVersions);
}

/** A flag as `servelab engine flags --json` prints it. */
export interface PrintedFlag {
  names: string[];
  arity: Exclude<FlagArity, 'fixed'> | 'fixed';
  count?: number;
  choices?: string[];
}

export function printedFlags(id: FlagTableId, version: string): PrintedFlag[] {
  return flagTableAt(id, version).flags.map((f) => ({
    names: [...f.names],
    arity: f.arity,
    ...(f.count !== undefined ? { count: f.count } : {}),
    ...(f.choices ? { choices: [...f.choices] } : {}),
  }));
}

interface RawYamlKey {
  names: string[];
  type: string;
  choices?: string[];
  status?: string;
  alias_of?: string;
  versions: string[];
}

/** The top-level keys TensorRT-LLM's LLM-API options YAML (`--extra_llm_api_options`) accepts at `version`. */
export function trtllmYamlKeys(version: string): { name: string; type: string; choices?: string[] }[] {
  const raw = (trtllmLlmApiData as unknown as { versions: RawVersion[]; flags: RawYamlKey[] });
  const known = raw.versions.map((v) => v.version).sort(compareVersions);
  const at = known.includes(version) ? version : ((isVersion(version) ? nearestKnown(version, known) : undefined) ?? (known[known.length - 1] as string));
  return raw.flags
    .filter((k) => k.versions.includes(at) && !(k.names[0] as string).startsWith('_'))
    .map((k) => ({ name: k.names[0] as string, type: k.type, ...(k.choices ? { choices: k.choices } : {}) }));
}

/** The flags of `id` at `version` whose names start with `prefix` (`--max-n` → `--max-num-seqs`, …), best first. */
export function suggestFlags(id: FlagTableId, version: string, prefix: string, limit = 8): { name: string; arity: FlagArity; choices?: readonly string[] }[] {
  if (!prefix.startsWith('-') || prefix.length < 2) return [];
  const out: { name: string; arity: FlagArity; choices?: readonly string[] }[] = [];
  const normalised = PARSER[id] === 'vllm-argparse' && prefix.startsWith('--') ? `--${prefix.slice(2).replace(/_/g, '-')}` : prefix;
  for (const spec of flagTableAt(id, version).flags) {
    const name = spec.names.find((n) => n.startsWith(normalised));
    if (name && name !== prefix) out.push({ name, arity: spec.arity, ...(spec.choices ? { choices: spec.choices } : {}) });
  }
  return out.sort((a, b) => a.name.length - b.name.length || a.name.localeCompare(b.name)).slice(0, limit);
}
