// Reading a server's argv with its version's flag table, and the adapters' knob tables in reverse (part of
// command-parse.ts).
import { getAdapter } from './adapters';
import { printedText, type ShellWord } from './command-parse-shell';
import { isFlagWord, readFlagWord, type ReadFlag } from './flag-syntax';
import type { EngineId, FlagTable, KnobName, KnobRow, KnobValue } from './types';
import { inRange } from './version';
import { readYaml, type YamlValue } from './yaml';

export interface Group {
  /** Index of the first word in the args. */
  at: number;
  words: ShellWord[];
  flag?: ReadFlag;
  /** The values, the attached one first. */
  values: string[];
}

export function groupArgs(table: FlagTable, args: readonly ShellWord[]): Group[] {
  const groups: Group[] = [];
  let i = 0;
  while (i < args.length) {
    const word = (args[i] as ShellWord).text;
    if (!isFlagWord(word) || (args[i] as ShellWord).procSub !== undefined) {
      groups.push({ at: i, words: [args[i] as ShellWord], values: [word] });
      i++;
      continue;
    }
    const flag = readFlagWord(table, word);
    const values = flag.attached !== undefined ? [flag.attached] : [];
    const spec = flag.spec;
    const arity = flag.negated ? 'none' : spec?.arity;
    let want: number;
    if (arity === 'none' || arity === 'negatable') want = 0;
    else if (arity === 'one' || arity === 'repeatable') want = values.length > 0 ? 0 : 1;
    else if (arity === 'fixed') want = (spec?.count ?? 2) - values.length;
    else if (arity === 'optional') want = values.length > 0 ? 0 : 1;
    else want = Infinity; // many, zero-or-more, or an unknown flag: its words up to the next flag
    let j = i + 1;
    while (j < args.length && values.length - (flag.attached !== undefined ? 1 : 0) < want) {
      const next = args[j] as ShellWord;
      if (isFlagWord(next.text) && next.procSub === undefined) break;
      if (arity === 'optional' && j > i + 1) break;
      values.push(next.text);
      j++;
    }
    groups.push({ at: i, words: args.slice(i, j) as ShellWord[], flag, values });
    i = j;
  }
  return groups;
}

const INT_KNOBS: ReadonlySet<KnobName> = new Set(['tensorParallelSize', 'pipelineParallelSize', 'dataParallelSize', 'expertParallelSize', 'decodeContextParallelSize', 'maxModelLen', 'port', 'maxRunningRequests', 'maxBatchedTokens', 'cudaGraphMaxBatchSize', 'speculative.numSteps', 'speculative.eagleTopK', 'speculative.numDraftTokens']);

/** A flag's value as the typed knob holds it, or undefined when the knob cannot hold it (it then stays verbatim). */
export function knobOfValue(row: KnobRow, raw: string | number | boolean): KnobValue | undefined {
  if (row.values) {
    const back = Object.entries(row.values).find(([, spelled]) => spelled === raw);
    return back?.[0];
  }
  if (typeof raw !== 'string') return INT_KNOBS.has(row.knob) ? (Number.isInteger(raw) ? raw : undefined) : raw;
  if (INT_KNOBS.has(row.knob)) return /^\d+$/.test(raw) ? Number(raw) : undefined;
  if (row.knob === 'gpuMemoryFraction') return /^(\d+\.?\d*|\.\d+)$/.test(raw) ? Number(raw) : undefined;
  return raw;
}

/** A group's words as the parser reads them: canonical name, then values (JSON values with sorted keys). */
export function groupKey(g: Group): { name: string; value: string } {
  if (!g.flag) return { name: 'arg', value: g.values.join(' ') };
  // `--x` and `--no-x` set one value, the last written winning: compare them as one flag.
  if (g.flag.spec?.arity === 'negatable' && g.values.length === 0) return { name: g.flag.spec.names[0] as string, value: g.flag.negated ? 'false' : 'true' };
  const values = g.flag.spec?.dotted && !g.flag.name.includes('.') ? g.values.map(normaliseJson) : g.values;
  return { name: g.flag.name, value: values.join(' ') };
}

function normaliseJson(text: string): string {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text) as unknown));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sortKeys(v)]));
  return value;
}

export const OPTIONS_FLAG = '--extra_llm_api_options';

export interface ReadArgs {
  model?: string;
  modelGroups: Set<Group>;
  groups: Group[];
  /** The options YAML's data and where its text came from. */
  yaml?: { group: Group; data?: { [key: string]: YamlValue }; content?: string; path?: string; error?: string };
}

export function readArgs(engine: EngineId, table: FlagTable, args: readonly ShellWord[], files: ReadonlyMap<string, string>): ReadArgs {
  const groups = groupArgs(table, args);
  const out: ReadArgs = { groups, modelGroups: new Set() };
  if (engine === 'sglang' || engine === 'vllm') {
    for (const g of groups) {
      if (g.flag?.name === (engine === 'sglang' ? '--model-path' : '--model') && g.values.length === 1) {
        out.model = g.values[0];
        out.modelGroups.add(g);
      }
    }
  }
  if (engine === 'vllm' || engine === 'trtllm') {
    const positional = groups.find((g) => !g.flag);
    if (positional) {
      out.model = positional.values[0];
      out.modelGroups.add(positional);
    }
  }
  if (engine === 'trtllm') {
    const g = [...groups].reverse().find((x) => x.flag?.name === OPTIONS_FLAG && x.values.length === 1);
    if (g) {
      const word = g.words[g.words.length - 1] as ShellWord;
      const path = word.procSub === undefined ? (g.values[0] as string) : undefined;
      const content = word.procSub !== undefined ? printedText(word.procSub) : files.get(path as string);
      if (content === undefined) out.yaml = { group: g, ...(path !== undefined ? { path } : { error: `Servelab reads <(echo '…'), <(printf '…') and <(cat <<EOF … EOF) as ${OPTIONS_FLAG}, not ${word.text}` }) };
      else {
        const read = readYaml(content);
        out.yaml = { group: g, content, ...(path !== undefined ? { path } : {}), ...('error' in read ? { error: `the ${OPTIONS_FLAG} YAML: ${read.error}` } : { data: read.value }) };
      }
    }
  }
  return out;
}

/** The command as the engine's parser reads it, for comparing two spellings. */
export function canonicalOf(read: ReadArgs, env: Readonly<Record<string, string>>, yamlTwins: ReadonlyMap<string, readonly string[]>): string[] {
  const last = new Map<string, string>();
  const repeated: string[] = [];
  let yaml: { [key: string]: YamlValue } | undefined = read.yaml?.data ? (JSON.parse(JSON.stringify(read.yaml.data)) as { [key: string]: YamlValue }) : undefined;
  for (const g of read.groups) {
    if (read.modelGroups.has(g)) continue;
    if (read.yaml && g === read.yaml.group && read.yaml.data) continue;
    const { name, value } = groupKey(g);
    if (g.flag?.spec?.arity === 'repeatable' || !g.flag) repeated.push(`${name} ${value}`);
    else last.set(name, value);
  }
  // The options file replaces whole sections the flags set (TensorRT-LLM's update_llm_args_with_extra_dict).
  for (const [flag, path] of yamlTwins) {
    const value = last.get(flag);
    if (value === undefined) continue;
    last.delete(flag);
    const section = path[0] as string;
    if (yaml && section in yaml) continue;
    yaml = yaml ?? {};
    const parsed = Number(value);
    yaml[section] = { [path[1] as string]: Number.isFinite(parsed) && value.trim() !== '' ? parsed : value };
  }
  const lines = [`model ${read.model ?? ''}`, ...[...last].map(([k, v]) => (v === '' ? k : `${k} ${v}`)), ...repeated, ...Object.entries(env).map(([k, v]) => `env ${k}=${v}`)];
  if (yaml) lines.push(`yaml ${JSON.stringify(sortKeys(yaml))}`);
  return lines.sort();
}

export function yamlTwinsOf(engine: EngineId, table: FlagTable, version: string): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const row of getAdapter(engine).knobTable) {
    if (row.to.kind === 'option' && row.to.yamlTwin && inRange(version, row)) out.set(readFlagWord(table, row.to.flag).name, row.to.yamlTwin);
  }
  return out;
}

// ---------- the knobs, read in reverse ----------

/** Where a knob's value was read; `implied`: no word of its own, the other knobs fix it (a sized switch without words). */
export type Source = { kind: 'group'; group: Group } | { kind: 'env'; name: string; value: string } | { kind: 'yaml' } | { kind: 'implied' };

export interface Assigned {
  value: KnobValue;
  source: Source;
}

function yamlLeaves(data: { [key: string]: YamlValue }, prefix: string[] = []): { path: string[]; value: YamlValue }[] {
  const out: { path: string[]; value: YamlValue }[] = [];
  for (const [key, value] of Object.entries(data)) {
    const path = [...prefix, key];
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) out.push(...yamlLeaves(value, path));
    else out.push({ path, value });
  }
  return out;
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The knobs an options YAML sets, or undefined when it holds anything the knob table does not map. */
export function knobsOfYaml(rows: readonly KnobRow[], data: { [key: string]: YamlValue }): Map<KnobName, KnobValue> | undefined {
  const knobs = new Map<KnobName, KnobValue>();
  const leaves = yamlLeaves(data);
  const algorithm = leaves.find((l) => samePath(l.path, ['speculative_config', 'decoding_type']))?.value;
  const spelled = rows.find((r) => r.knob === 'speculative.algorithm' && r.values)?.values ?? {};
  for (const leaf of leaves) {
    const row = rows.find((r) => {
      const path = r.to.kind === 'yaml' || r.to.kind === 'yaml-switch' ? r.to.path : r.to.kind === 'option' ? r.to.yamlTwin : undefined;
      if (!path || !samePath(path, leaf.path)) return false;
      // numSteps is num_nextn_predict_layers for MTP and max_draft_len otherwise.
      return r.when?.knob !== 'speculative.algorithm' || r.when.in.some((v) => spelled[String(v)] === algorithm);
    });
    if (!row) return undefined;
    if (row.to.kind === 'yaml-switch') {
      if (JSON.stringify(leaf.value) !== JSON.stringify(row.to.on)) return undefined;
      knobs.set(row.knob, true);
      continue;
    }
    if (leaf.value === null || typeof leaf.value === 'object') return undefined;
    const value = knobOfValue(row, leaf.value);
    if (value === undefined) return undefined;
    knobs.set(row.knob, value);
  }
  return knobs;
}

export function configInput(model: string, knobs: ReadonlyMap<KnobName, Assigned>, extraArgs: string[], env: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = { model };
  const speculative: Record<string, unknown> = {};
  for (const [knob, { value }] of knobs) {
    if (knob.startsWith('speculative.')) speculative[knob.slice('speculative.'.length)] = value;
    else input[knob] = value;
  }
  if (Object.keys(speculative).length > 0) input.speculative = speculative;
  input.extraArgs = extraArgs;
  input.env = env;
  return input;
}
