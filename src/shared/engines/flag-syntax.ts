import type { ExtraArgIssue, FlagSpec, FlagTable } from './types';
import { compareVersions } from './version';

/**
 * Reads argv words the way each engine's parser does, to check extra args before launch and to compare commands.
 * - argparse (SGLang): exact names, `--x=v`, and unambiguous prefixes (allow_abbrev is on by default).
 * - vLLM's FlexibleArgumentParser: argparse plus `_` read as `-` in long names, and `--json-flag.key v`
 *   (FlexibleArgumentParser.parse_args in vllm/utils, later vllm/utils/argparse_utils.py).
 * - click (trtllm-serve): exact names, `--x=v` split at the first `=` (click/parser.py _process_opts),
 *   no abbreviations (_match_long_opt raises NoSuchOption with close matches as suggestions).
 */

const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;

export function isFlagWord(word: string): boolean {
  return word.startsWith('-') && word !== '-' && !NEGATIVE_NUMBER.test(word);
}

interface Resolved {
  spec: FlagSpec;
  /** The name as written, before normalisation. */
  written: string;
  attached?: string;
  negated?: boolean;
  /** The word was an unambiguous prefix of this flag. */
  abbreviationOf?: string;
}

type Lookup = { kind: 'found'; resolved: Resolved } | { kind: 'ambiguous'; written: string; candidates: string[] } | { kind: 'unknown'; written: string };

function normalise(table: FlagTable, name: string): string {
  return table.parser === 'vllm-argparse' && name.startsWith('--') ? `--${name.slice(2).replace(/_/g, '-')}` : name;
}

function index(table: FlagTable): Map<string, FlagSpec> {
  const map = new Map<string, FlagSpec>();
  for (const spec of table.flags) for (const name of spec.names) map.set(normalise(table, name), spec);
  return map;
}

const indexCache = new WeakMap<FlagTable, Map<string, FlagSpec>>();
function indexOf(table: FlagTable): Map<string, FlagSpec> {
  let map = indexCache.get(table);
  if (!map) {
    map = index(table);
    indexCache.set(table, map);
  }
  return map;
}

function lookup(table: FlagTable, word: string): Lookup {
  const eq = word.indexOf('=');
  const written = eq > 0 ? word.slice(0, eq) : word;
  const attached = eq > 0 ? word.slice(eq + 1) : undefined;
  const withAttached = (r: Resolved): Lookup => ({ kind: 'found', resolved: attached === undefined ? r : { ...r, attached } });
  const flags = indexOf(table);
  const name = normalise(table, written);

  const exact = flags.get(name);
  if (exact) return withAttached({ spec: exact, written });

  if (table.parser !== 'click') {
    if (name.startsWith('--no-')) {
      const positive = flags.get(`--${name.slice(5)}`);
      if (positive?.arity === 'negatable') return withAttached({ spec: positive, written, negated: true });
    }
    // `--speculative-config.method` sets one key of a JSON-valued flag.
    const dot = name.indexOf('.');
    if (dot > 0) {
      const base = flags.get(name.slice(0, dot));
      if (base?.dotted) return withAttached({ spec: base, written });
    }
    // A two-character short option takes its value attached: `-O3`, `-q` + `fp8` as `-qfp8`.
    if (!name.startsWith('--') && name.length > 2) {
      const short = flags.get(name.slice(0, 2));
      if (short && short.arity !== 'none' && short.arity !== 'negatable') {
        const rest = name.slice(2);
        // `-O.level=3` is a dotted key of -O.
        if (rest.startsWith('.') && short.dotted) return withAttached({ spec: short, written });
        return { kind: 'found', resolved: { spec: short, written: name.slice(0, 2), attached: rest + (attached !== undefined ? `=${attached}` : '') } };
      }
    }
    if (name.startsWith('--')) {
      const candidates = [...new Set([...flags.keys()].filter((k) => k.startsWith(name) && k.startsWith('--')))];
      const specs = new Set(candidates.map((k) => flags.get(k)));
      if (specs.size === 1 && candidates[0] !== undefined) {
        const spec = flags.get(candidates[0]) as FlagSpec;
        return withAttached({ spec, written, abbreviationOf: spec.names[0] as string });
      }
      if (specs.size > 1) return { kind: 'ambiguous', written, candidates: candidates.sort() };
    }
  }
  return { kind: 'unknown', written };
}

/** The flag a name (any of its spellings) stands for in `table`, if it has one. */
export function flagSpecOf(table: FlagTable, name: string): FlagSpec | undefined {
  return indexOf(table).get(normalise(table, name));
}

/** The canonical name of a flag word (`--tp` → `--tp-size`), or the word's own name when unknown. */
export function canonicalFlag(table: FlagTable, word: string): string {
  const found = lookup(table, word);
  if (found.kind === 'found') return found.resolved.negated ? `--no-${(found.resolved.spec.names[0] as string).slice(2)}` : (found.resolved.spec.names[0] as string);
  return normalise(table, found.written);
}

/**
 * Rewrites a command's words so that two spellings the parser reads the same compare equal:
 * aliases become the canonical name and `--x=v` becomes `--x v`.
 */
export function canonicalizeArgv(table: FlagTable, words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    if (!isFlagWord(word)) {
      out.push(word);
      continue;
    }
    const found = lookup(table, word);
    if (found.kind !== 'found' || found.resolved.spec.dotted) {
      out.push(word);
      continue;
    }
    out.push(canonicalFlag(table, word));
    if (found.resolved.attached !== undefined) out.push(found.resolved.attached);
  }
  return out;
}

function spelledElsewhere(table: FlagTable, written: string): string | undefined {
  if (!written.startsWith('--')) return undefined;
  const flags = indexOf(table);
  const body = written.slice(2);
  for (const candidate of [`--${body.replace(/-/g, '_')}`, `--${body.replace(/_/g, '-')}`]) {
    if (candidate !== written && flags.has(normalise(table, candidate))) return (flags.get(normalise(table, candidate)) as FlagSpec).names[0];
  }
  return undefined;
}

export interface CheckOptions {
  /** The command as the user writes it, for messages (`vllm serve`). */
  program: string;
  /** The tabled versions that have a flag of this name, for saying where a missing flag exists. */
  versionsWith?: (name: string) => readonly string[];
}

function quoted(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(', ');
}

/** Where a flag the table lacks does exist, in words: "it is in 0.11.1 and later", "it is only in 0.11.0". */
function whereElse(version: string, versions: readonly string[]): string | undefined {
  if (versions.length === 0) return undefined;
  const newer = versions.filter((v) => compareVersions(v, version) > 0);
  const older = versions.filter((v) => compareVersions(v, version) < 0);
  const span = (vs: readonly string[]) => (vs.length === 1 ? (vs[0] as string) : `${vs[0]}–${vs[vs.length - 1]}`);
  if (older.length === 0) return `it was added in ${newer[0]}`;
  if (newer.length === 0) return `it was removed after ${older[older.length - 1]}`;
  return `it is in ${span(versions)} but not in this version`;
}

/**
 * Checks extra args against the engine's flag table at its version, the way the engine's parser would read them:
 * an unknown name, a value outside the flag's choices, a missing value or a refused flag is an error (with the
 * versions that do have a missing flag); an abbreviation is a warning, since a later flag can make it ambiguous.
 */
export function checkArgs(table: FlagTable, args: readonly string[], options: CheckOptions): ExtraArgIssue[] {
  const { program } = options;
  const version = table.version;
  const issues: ExtraArgIssue[] = [];
  const error = (index: number, message: string) => issues.push({ index, arg: args[index] as string, severity: 'error', message });
  const warn = (index: number, message: string) => issues.push({ index, arg: args[index] as string, severity: 'warning', message });
  // The flag still waiting for its values: how many it has, and how many it needs (min) or takes at most (max).
  let pending: { index: number; name: string; spec?: FlagSpec; min: number; max: number; taken: number } | undefined;

  const closePending = () => {
    if (pending && pending.taken < pending.min) {
      const need = pending.min === 1 ? (pending.max === 1 ? 'one argument' : 'at least one argument') : `${pending.min} arguments`;
      error(pending.index, `argument ${pending.name}: expected ${need}`);
    }
    pending = undefined;
  };
  const checkChoice = (index: number, name: string, spec: FlagSpec | undefined, value: string) => {
    if (spec?.choices && !spec.choices.includes(value)) error(index, `argument ${name}: invalid choice: '${value}' (choose from ${quoted(spec.choices)})`);
  };

  args.forEach((word, i) => {
    if (!isFlagWord(word)) {
      if (pending) {
        pending.taken++;
        checkChoice(i, pending.name, pending.spec, word);
        if (pending.taken >= pending.max) pending = undefined;
        return;
      }
      error(i, `unexpected argument: ${word} (not the value of a flag)`);
      return;
    }
    closePending();
    if (word === '--') {
      error(i, 'unexpected "--": everything after it would be read as positional arguments');
      return;
    }
    const found = lookup(table, word);
    if (found.kind === 'ambiguous') {
      error(i, `ambiguous option: ${found.written} could match ${found.candidates.join(', ')}`);
      pending = { index: i, name: found.written, min: 0, max: Infinity, taken: 1 };
      return;
    }
    if (found.kind === 'unknown') {
      const other = spelledElsewhere(table, found.written);
      const elsewhere = other ? undefined : whereElse(version, options.versionsWith?.(normalise(table, found.written)) ?? []);
      const why = other ? ` (${program} spells it ${other})` : elsewhere ? ` (${program} ${version} does not have it: ${elsewhere})` : '';
      error(i, `unknown flag: ${found.written}${why}`);
      // Its arity is unknown: the words after it are taken as its values rather than reported again.
      pending = { index: i, name: found.written, min: 0, max: Infinity, taken: 1 };
      return;
    }
    const { spec, attached, abbreviationOf, negated } = found.resolved;
    const name = spec.names[0] as string;
    if (spec.refused) {
      error(i, `${found.resolved.written}: ${spec.refused}`);
      return;
    }
    if (abbreviationOf) warn(i, `${found.resolved.written} is read as ${abbreviationOf}; write the full name, a later flag could make it ambiguous`);
    const arity = negated ? 'none' : spec.arity;
    if (arity === 'none' || arity === 'negatable') {
      if (attached !== undefined && !spec.dotted) error(i, `argument ${found.resolved.written}: ignored explicit argument '${attached}'`);
      return;
    }
    const [min, max] =
      arity === 'one' || arity === 'repeatable' ? [1, 1] : arity === 'optional' ? [0, 1] : arity === 'many' ? [1, Infinity] : arity === 'zero-or-more' ? [0, Infinity] : [spec.count ?? 2, spec.count ?? 2];
    if (attached !== undefined) {
      // A dotted key (`--speculative-config.method=eagle`) sets one key of the JSON value: its value is not a choice.
      if (!spec.dotted || !found.resolved.written.includes('.')) checkChoice(i, name, spec, attached);
      if (max > 1) pending = { index: i, name, spec, min: min - 1, max: max - 1, taken: 0 };
      return;
    }
    pending = { index: i, name, spec, min, max, taken: 0 };
  });
  closePending();
  return issues;
}

/** One flag word as the engine's parser reads it: its canonical name, spec (when known) and an attached value. */
export interface ReadFlag {
  /** Canonical name (`--tp` → `--tp-size`), `--no-x` for a negated switch, a dotted key as written; the normalised word when unknown. */
  name: string;
  written: string;
  spec?: FlagSpec;
  attached?: string;
  negated?: boolean;
  /** An unambiguous prefix of a longer name (argparse abbreviation). */
  abbreviationOf?: string;
  ambiguous?: readonly string[];
}

export function readFlagWord(table: FlagTable, word: string): ReadFlag {
  const found = lookup(table, word);
  if (found.kind === 'ambiguous') return { name: normalise(table, found.written), written: found.written, ambiguous: found.candidates };
  if (found.kind === 'unknown') return { name: normalise(table, found.written), written: found.written };
  const { spec, written, attached, negated, abbreviationOf } = found.resolved;
  const canonical = spec.names[0] as string;
  const dottedKey = spec.dotted && written.includes('.') ? normalise(table, written) : undefined;
  const name = dottedKey ?? (negated ? `--no-${canonical.slice(2)}` : canonical);
  return {
    name,
    written,
    spec,
    ...(attached !== undefined ? { attached } : {}),
    ...(negated ? { negated } : {}),
    ...(abbreviationOf ? { abbreviationOf } : {}),
  };
}
