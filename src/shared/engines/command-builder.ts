import type { ServerConfig } from './server-config';
import { KNOB_NAMES, type BuildOptions, type BuiltCommand, type EngineId, type FlagTable, type KnobName, type KnobRow, type KnobValue, type UnsupportedKnob } from './types';
import { inRange } from './version';
import { setPath, toYaml, type YamlValue } from './yaml';
import { canonicalFlag, flagSpecOf } from './flag-syntax';
import { engineRefusals } from './engine-validation';

/** What differs between engines when turning a config into a command; everything knob-specific is in `knobTable`. */
export interface CommandSpec {
  engine: EngineId;
  displayName: string;
  /** Program and subcommand, e.g. `vllm serve`. */
  command: readonly string[];
  /** The model goes after this flag, or right after the command when absent. */
  modelFlag?: string;
  /** `--flag value` (argparse) or `--flag=value`, both of which click also reads. */
  valueStyle: 'separate' | 'equals';
  /** The flag that points at the engine's options file, and the file's name. */
  optionsFile?: { flag: string; fileName: string };
  knobTable: readonly KnobRow[];
  flagTable(version: string): FlagTable;
}

/** Knobs that mean nothing without another one: when the parent is unsupported, so are they. */
const PARENT: Partial<Record<KnobName, KnobName>> = {
  'speculative.draftModel': 'speculative.algorithm',
  'speculative.numSteps': 'speculative.algorithm',
  'speculative.eagleTopK': 'speculative.algorithm',
  'speculative.numDraftTokens': 'speculative.algorithm',
};

export function knobValue(config: ServerConfig, knob: KnobName): KnobValue | undefined {
  if (knob.startsWith('speculative.')) {
    const spec = config.speculative;
    if (!spec) return undefined;
    return spec[knob.slice('speculative.'.length) as keyof typeof spec];
  }
  return config[knob as Exclude<KnobName, `speculative.${string}`>];
}

/** The size a sized switch's group spans: the product of its knobs, each 1 when unset. */
export function sizedSwitchSize(config: ServerConfig, of: readonly KnobName[]): number {
  return of.reduce((product, knob) => product * Number(knobValue(config, knob) ?? 1), 1);
}

/** The first row for `knob` whose version range and condition hold. */
export function selectRow(table: readonly KnobRow[], knob: KnobName, version: string, config?: ServerConfig): KnobRow | undefined {
  const candidates = table.filter((row) => row.knob === knob && inRange(version, row));
  // Without a config, conditions cannot be evaluated: prefer the row that applies in general.
  if (!config) return candidates.find((row) => !row.when) ?? candidates[0];
  return candidates.find((row) => !row.when || row.when.in.includes(knobValue(config, row.when.knob) as KnobValue));
}

interface Piece {
  knob: KnobName;
  words: string[];
  /** Where the value goes instead when the options file holds the same section. */
  yamlTwin?: readonly string[];
  value?: KnobValue;
}

export function buildCommand(spec: CommandSpec, config: ServerConfig, version: string, options: BuildOptions = {}): BuiltCommand {
  const pieces: Piece[] = [];
  const unsupported: UnsupportedKnob[] = [];
  const env: Record<string, string> = {};
  const yaml: { [key: string]: YamlValue } = {};
  const json = new Map<string, Record<string, KnobValue>>();
  const jsonFlags: string[] = [];
  const handled = new Set<KnobName>();
  const failed = new Set<KnobName>();
  const option = (flag: string, value: string) => (spec.valueStyle === 'equals' ? [`${flag}=${value}`] : [flag, value]);
  const label = `${spec.displayName} ${version}`;
  const table = spec.flagTable(version);
  // What the engine's own validation refuses in a command its parser accepts (speculative set-ups, attention
  // backends): such a knob is reported, never written.
  const refusals = engineRefusals(spec.engine, config, version);

  for (const row of spec.knobTable) {
    if (handled.has(row.knob)) continue;
    if (selectRow(spec.knobTable, row.knob, version, config) !== row) continue;
    handled.add(row.knob);
    const raw = knobValue(config, row.knob);
    if (raw === undefined) continue;
    const parent = PARENT[row.knob];
    if (parent && failed.has(parent)) {
      unsupported.push({ knob: row.knob, reason: `${parent} is not supported here, so neither is ${row.knob}` });
      failed.add(row.knob);
      continue;
    }
    const refusal = refusals.find((r) => r.knob === row.knob);
    if (refusal) {
      unsupported.push(refusal);
      failed.add(row.knob);
      continue;
    }
    const target = row.to;
    if (target.kind === 'unsupported') {
      unsupported.push({ knob: row.knob, reason: target.reason });
      failed.add(row.knob);
      continue;
    }
    let value: KnobValue = raw;
    if (row.values) {
      const mapped = row.values[String(raw)];
      if (mapped === undefined) {
        unsupported.push({ knob: row.knob, reason: `"${String(raw)}" has no equivalent in ${label} (it knows ${Object.keys(row.values).join(', ')})` });
        failed.add(row.knob);
        continue;
      }
      value = mapped;
    }
    // A flag the engine's parser lacks at this version, or a value outside its choices, would be refused at launch.
    const flag = target.kind === 'option' ? flagSpecOf(table, target.flag) : undefined;
    if (target.kind === 'option' && !flag) {
      unsupported.push({ knob: row.knob, reason: `${label} has no ${target.flag} (its parser does not define it)` });
      failed.add(row.knob);
      continue;
    }
    const choices = row.choices ?? flag?.choices;
    if (choices && !choices.includes(String(value))) {
      unsupported.push({ knob: row.knob, reason: `"${String(value)}" is not accepted by ${label}; choices: ${choices.join(', ')}` });
      failed.add(row.knob);
      continue;
    }
    switch (target.kind) {
      case 'option':
        pieces.push({ knob: row.knob, words: option(target.flag, String(value)), value, ...(target.yamlTwin ? { yamlTwin: target.yamlTwin } : {}) });
        break;
      case 'switch': {
        const words = value === true ? target.on : target.off;
        if (words && words.length > 0) pieces.push({ knob: row.knob, words: [...words] });
        break;
      }
      case 'env':
        env[target.name] = String(value);
        break;
      case 'yaml':
        setPath(yaml, target.path, value);
        break;
      case 'yaml-switch':
        if (value === true) setPath(yaml, target.path, target.on as YamlValue);
        break;
      case 'sized-switch': {
        const size = sizedSwitchSize(config, target.of);
        if (value === 1) break;
        if (value !== size) {
          unsupported.push({ knob: row.knob, reason: target.reason });
          failed.add(row.knob);
        } else if (target.on.length > 0) pieces.push({ knob: row.knob, words: [...target.on] });
        break;
      }
      case 'json': {
        if (!json.has(target.flag)) {
          json.set(target.flag, {});
          jsonFlags.push(target.flag);
        }
        (json.get(target.flag) as Record<string, KnobValue>)[target.key] = value;
        break;
      }
    }
  }

  for (const knob of KNOB_NAMES) {
    if (knobValue(config, knob) === undefined) continue;
    if (!handled.has(knob)) unsupported.push({ knob, reason: `${label} has no setting for ${knob}` });
  }
  for (const refusal of refusals) if (!unsupported.some((u) => u.knob === refusal.knob)) unsupported.push(refusal);

  // The options file replaces whole sections of what the flags set, so a flag whose section the file holds moves into it.
  for (const piece of pieces) {
    if (piece.yamlTwin && piece.value !== undefined && piece.yamlTwin[0] !== undefined && piece.yamlTwin[0] in yaml) {
      setPath(yaml, piece.yamlTwin, piece.value);
      piece.words = [];
    }
  }

  const argv: string[] = [...spec.command];
  if (spec.modelFlag) argv.push(...option(spec.modelFlag, config.model));
  else argv.push(config.model);
  for (const piece of pieces) argv.push(...piece.words);
  for (const flag of jsonFlags) argv.push(...option(flag, JSON.stringify(json.get(flag))));

  const built: BuiltCommand = { argv, env, secretEnv: [], unsupported, warnings: [] };
  if (Object.keys(yaml).length > 0) {
    if (!spec.optionsFile) throw new Error(`${spec.engine} has knobs mapped to an options file but no options file`);
    const path = options.filesDir ? `${options.filesDir.replace(/\/+$/, '')}/${spec.optionsFile.fileName}` : spec.optionsFile.fileName;
    argv.push(...option(spec.optionsFile.flag, path));
    built.extraFiles = [{ path, content: toYaml(yaml) }];
  }

  built.warnings.push(...duplicateFlagWarnings(spec, version, argv.slice(spec.command.length), config.extraArgs));
  argv.push(...config.extraArgs);

  // User env first; what the typed knobs need wins, since the knob is the explicit choice.
  const plainEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.env)) {
    if (typeof value === 'string') plainEnv[name] = value;
    else built.secretEnv.push({ name, secretRef: value.secretRef });
  }
  for (const name of Object.keys(env)) {
    if (name in plainEnv && plainEnv[name] !== env[name]) built.warnings.push(`env ${name} is replaced by the typed config's value "${env[name]}"`);
  }
  built.env = { ...plainEnv, ...env };
  return built;
}

/** A flag the typed config wrote and the extra args write again: the parser keeps the last one, so say so. */
function duplicateFlagWarnings(spec: CommandSpec, version: string, typed: readonly string[], extra: readonly string[]): string[] {
  const table = spec.flagTable(version);
  const names = (words: readonly string[]) =>
    new Set(words.filter((w) => w.startsWith('-') && !/^-\d/.test(w)).map((w) => canonicalFlag(table, w.split('=')[0] as string)));
  const typedNames = names(typed);
  const warnings: string[] = [];
  for (const name of names(extra)) {
    if (typedNames.has(name)) warnings.push(`${name} is set by the typed config and again in extra args; ${spec.displayName} keeps the last one (the extra args')`);
  }
  return warnings;
}
