import { canonicalFlag, checkArgs, flagSpecOf } from './flag-syntax';
import { credentialArgIssues } from './server-config';
import { inRange } from './version';
import { sglangAdapter } from './sglang';
import { trtllmAdapter } from './trtllm';
import type { EngineAdapter, EngineId, ExtraArgIssue } from './types';
import { FLAG_TABLE_COMMAND, versionsWithFlag } from './flag-tables';
import { vllmAdapter } from './vllm';

export const ENGINE_ADAPTERS: Readonly<Record<EngineId, EngineAdapter>> = {
  vllm: vllmAdapter,
  sglang: sglangAdapter,
  trtllm: trtllmAdapter,
};

export function getAdapter(engine: EngineId): EngineAdapter {
  return ENGINE_ADAPTERS[engine];
}


export interface ExtraArgsCheck {
  /** True when neither the engine's parser nor Servelab would refuse the command. */
  ok: boolean;
  issues: ExtraArgIssue[];
  /** The version whose flag table was used (the nearest tabled one, for a version Servelab has no table for). */
  checkedAgainst: string;
}

/**
 * Checks the free-form argv tail before launch: a name the engine's CLI does not have at `version` is an error
 * ("unknown flag: --x"), so the UI can refuse the launch instead of spending a GPU start on it. Servelab also refuses
 * credentials (`--hf-token …`, `--api-key …`, token-shaped words) and flags it writes itself (`--host`,
 * `--port`, the model, and every typed knob's flag, with the typed field to use instead).
 */
export function validateExtraArgs(engine: EngineId, version: string, args: readonly string[]): ExtraArgsCheck {
  const syntax = extraArgsSyntax(engine, version, args);
  const table = getAdapter(engine).flagTable(version);
  const canonical = (word: string) => canonicalFlag(table, word);
  const policy: ExtraArgIssue[] = [...credentialArgIssues(engine, args, canonical), ...managedFlagIssues(engine, version, args)].map((i) => ({
    index: i.index,
    arg: args[i.index] as string,
    severity: 'error',
    message: i.message,
  }));
  const issues = [...syntax.issues, ...policy].sort((a, b) => a.index - b.index);
  return { ok: !issues.some((i) => i.severity === 'error'), issues, checkedAgainst: syntax.checkedAgainst };
}

/** Flags Servelab writes itself, outside the typed knobs: the model. */
const APP_MANAGED: Readonly<Record<EngineId, readonly string[]>> = { vllm: ['--model'], sglang: ['--model-path'], trtllm: [] };

/**
 * The flags the typed config writes at `version` (canonical name → the typed field), and the app-managed ones. The
 * parser keeps the last copy, so one in extra args would silently override the typed value; `--host`/`--port` would
 * also expose the server or make readiness and the stop checks watch the wrong port.
 */
export function managedFlags(engine: EngineId, version: string): Map<string, string> {
  const adapter = getAdapter(engine);
  const table = adapter.flagTable(version);
  const out = new Map<string, string>();
  for (const flag of APP_MANAGED[engine]) if (flagSpecOf(table, flag)) out.set(canonicalFlag(table, flag), 'model');
  for (const row of adapter.knobTable) {
    if (!inRange(version, row)) continue;
    if (row.to.kind === 'option') {
      if (flagSpecOf(table, row.to.flag)) out.set(canonicalFlag(table, row.to.flag), row.knob);
    } else if (row.to.kind === 'switch' || row.to.kind === 'sized-switch') {
      // Only plain switches: `-O3` is a value of -O, whose other values the typed knob does not cover.
      for (const word of [...(row.to.on ?? []), ...(row.to.kind === 'switch' ? (row.to.off ?? []) : [])]) {
        const spec = flagSpecOf(table, word);
        if (spec && (spec.arity === 'none' || spec.arity === 'negatable')) out.set(canonicalFlag(table, word), row.knob);
      }
    }
  }
  return out;
}

function managedFlagIssues(engine: EngineId, version: string, args: readonly string[]): { index: number; message: string }[] {
  const managed = managedFlags(engine, version);
  const table = getAdapter(engine).flagTable(version);
  const out: { index: number; message: string }[] = [];
  args.forEach((word, i) => {
    if (!word.startsWith('-') || /^-\d/.test(word)) return;
    const name = canonicalFlag(table, word.includes('=') ? (word.slice(0, word.indexOf('=')) as string) : word);
    const knob = managed.get(name);
    if (knob === undefined) return;
    const written = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
    const message =
      knob === 'port'
        ? `${written} is set by Servelab (the port readiness and the stop checks watch); set the port field instead of passing it in the extra arguments`
        : knob === 'host'
          ? `${written} is set by Servelab (the server listens on the box's 127.0.0.1 unless the host field says otherwise); set the host field instead of passing it in the extra arguments`
          : knob === 'model'
            ? `${written} is set by Servelab from the model field; set the model there instead of in the extra arguments`
            : `${written} duplicates the typed setting ${knob}; set ${knob} instead (a copy in the extra arguments would silently override it)`;
    out.push({ index: i, message });
  });
  return out;
}

/** The parser's reading alone (unknown names, missing values, choices), without what Servelab refuses on top. */
export function extraArgsSyntax(engine: EngineId, version: string, args: readonly string[]): ExtraArgsCheck {
  const adapter = getAdapter(engine);
  const table = adapter.flagTable(version);
  const issues = checkArgs(table, args, { program: FLAG_TABLE_COMMAND[engine], versionsWith: (name) => versionsWithFlag(engine, name) });
  if (table.version !== version && args.length > 0) {
    issues.unshift({
      index: -1,
      arg: '',
      severity: 'warning',
      message: `${adapter.displayName} ${version} is not a version Servelab has the flags of; they are checked against ${table.version}'s`,
    });
  }
  return { ok: !issues.some((i) => i.severity === 'error'), issues, checkedAgainst: table.version };
}
