// The engines' generated flag tables (resources/engine-flags/*.json, written by scripts/flag-tables from each
// release's source): which flags a simulated engine's parser accepts at the installed version, with their spellings,
// arity and choices, and how that version's parser behaves. The packaged app ships resources/ whole, so the tables sit
// next to the simbox there too.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { versionCompare } from './version.mjs';

const TABLE_DIR = fileURLToPath(new URL('../../engine-flags/', import.meta.url));
const cache = new Map();

/** One table: 'vllm', 'vllm-bench', 'sglang', 'trtllm' or 'trtllm-llm-api'. */
export function loadTable(id) {
  let table = cache.get(id);
  if (!table) {
    const path = `${TABLE_DIR}${id}.json`;
    try {
      table = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`simbox: the engine flag table ${path} cannot be read (${err.message}); the simbox needs resources/engine-flags next to it`, { cause: err });
    }
    cache.set(id, table);
  }
  return table;
}

/** The versions a table covers, oldest first. */
export function tableVersions(id) {
  return loadTable(id)
    .versions.map((v) => v.version)
    .sort(versionCompare);
}

/** The tabled version that applies to `version`: itself, else the newest tabled one not newer, else the oldest. */
export function tabledVersion(id, version) {
  const known = tableVersions(id);
  if (known.includes(version)) return version;
  const older = known.filter((v) => versionCompare(v, version) <= 0);
  return older.length > 0 ? older[older.length - 1] : known[0];
}

/** The table's entries for the version that applies to `version`. */
export function flagsAt(id, version) {
  const at = tabledVersion(id, version);
  return loadTable(id).flags.filter((f) => f.versions.includes(at));
}

/** The text before the source note of a recorded message ("vllm: error: unrecognized arguments: %s   (Lib/…)"). */
const messageOf = (text) => (typeof text === 'string' ? text.split(/ {3}\(/)[0] : null);
/** The message of a recorded error line without its "<prog>: error: " ("unrecognized arguments: %s"). */
const bodyOf = (text) => {
  const line = messageOf(text);
  const i = line ? line.indexOf(': error: ') : -1;
  return i >= 0 ? line.slice(i + ': error: '.length) : null;
};

/**
 * The parser behaviour recorded for that version (each version's `parser` header): prog (from the recorded error
 * lines), whether `_` and `-` are interchangeable, whether unambiguous prefixes are accepted, and the error formats.
 * (vLLM's headers write every line with the top-level prog `vllm`; CPython reports an invalid choice or an ambiguous
 * prefix from the subcommand's parser, `vllm serve`, and only leftover arguments from the top-level one, so the
 * simbox takes the message formats from the headers and the prog from the parser that raises.)
 */
export function parserAt(id, version) {
  const at = tabledVersion(id, version);
  const p = loadTable(id).versions.find((v) => v.version === at).parser;
  const unknown = messageOf(p.unknown_flag_error);
  const allowAbbrev = Array.isArray(p.allow_abbrev) ? p.allow_abbrev[0] === true : p.allow_abbrev === true;
  return {
    version: at,
    prog: unknown ? unknown.split(': error: ')[0] : null,
    underscoreDash: typeof p.underscore_dash === 'string' && p.underscore_dash.startsWith('yes'),
    allowAbbrev,
    // Python %-formats of argparse's messages, as recorded (CPython 3.11.7 Lib/argparse.py).
    messages: {
      unrecognized: bodyOf(p.unknown_flag_error),
      ambiguous: bodyOf(p.ambiguous_abbrev_error),
      invalidChoice: bodyOf(p.invalid_choice_error),
    },
    optimizationFlag: p.optimization_flag ?? null,
    raw: p,
  };
}
