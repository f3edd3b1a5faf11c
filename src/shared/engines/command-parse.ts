/**
 * A serve command as users already run it (`vllm serve …`, `python3 -m sglang.launch_server …`, `trtllm-serve …`,
 * with variables in front, inside `docker run … IMAGE …`, over several `\` lines, with TensorRT-LLM's options YAML
 * inline) read into Servelab's typed configuration: the model and every knob an adapter's knob table maps, read in
 * reverse; every other flag kept verbatim in `extraArgs` and checked against the engine version's own flag table.
 * Building the result back (`commandOfParsed`) gives a command the engine's parser reads the same way.
 */
import { shellCommand, shellQuote } from '../shell-quote';
import { getAdapter } from './adapters';
import {
  canonicalOf,
  configInput,
  groupArgs,
  groupKey,
  knobOfValue,
  knobsOfYaml,
  OPTIONS_FLAG,
  readArgs,
  yamlTwinsOf,
  type Assigned,
  type Group,
  type Source,
} from './command-parse-args';
import { ASSIGNMENT, dockerCall, engineCall, engineOfImageName, GPU_ENV, pipVersion, stripPrefixes, writtenFiles, type ServerCall } from './command-parse-call';
import { parseShell, type ShellWord } from './command-parse-shell';
import { containerCommand } from './docker-run';
import { checkArgs, readFlagWord } from './flag-syntax';
import { FLAG_TABLE_COMMAND, trtllmYamlKeys, versionsWithFlag } from './flag-tables';
import { credentialFlagRefusal, isCredentialFlag } from './credentials';
import { isSecretEnvName, refusedEnvName, ServerConfigSchema, type ServerConfig } from './server-config';
import type { EngineId, KnobName, KnobRow, KnobValue } from './types';
import { inRange } from './version';

export interface ParsedServeCommand {
  engine: EngineId;
  version: string;
  /** Where the version came from: `--engine-version`, a `pip install engine==V` in the snippet, the image tag, or the newest tabled. */
  versionFrom: 'option' | 'command' | 'image' | 'newest';
  /** Typed knobs and the model; unmodelled flags verbatim in `extraArgs`; plain variables in `env`. */
  config: ServerConfig;
  /** Flags (and options-file keys) the version's parser lacks or rejects, each message naming the version. */
  refused: { flag: string; message: string }[];
  warnings: string[];
  /** Names of the variables and flags left out because they carry a credential (never their values), to set up in the keychain instead. */
  credentials: string[];
  /** The `docker run` wrapper: its options (image excluded) and the image. */
  docker?: { image: string; args: string[] };
  /** Options files kept whole (a TensorRT-LLM YAML with settings Servelab does not model), written before the command. */
  files?: { path: string; content: string }[];
  /** The command as the engine's parser reads it (sorted `flag values` lines, the model, env, options-file data): equal for equivalent commands. */
  canonical: string[];
}

/** The schema's refusals of a credential flag or a token-shaped value (credentials.ts). */
const CREDENTIAL_ISSUE = /credential|looks like a token/;

/** A command substitution in a value: the shell would run it. */
const SUBSTITUTION = /\$\(|`/;


// ---------- the entry points ----------

export function parseServeCommand(text: string, options: { engineVersion?: string } = {}): ParsedServeCommand | { error: string } {
  const parsed = parse(text, options);
  if ('error' in parsed) return parsed;
  // The rebuilt command must read the same; a difference is a defect worth showing, not hiding.
  const again = parse(commandOfParsed(parsed), { engineVersion: parsed.version });
  if ('error' in again) parsed.warnings.push(`the rebuilt command cannot be read back: ${again.error}`);
  else if (JSON.stringify(again.canonical) !== JSON.stringify(parsed.canonical)) {
    const lost = parsed.canonical.filter((l) => !again.canonical.includes(l));
    const added = again.canonical.filter((l) => !parsed.canonical.includes(l));
    parsed.warnings.push(`the rebuilt command differs from the pasted one: ${[...lost.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)].join('; ')}`);
  }
  return parsed;
}

function parse(text: string, options: { engineVersion?: string }): ParsedServeCommand | { error: string } {
  // No shell word can carry one, and the rebuilt command could not be quoted.
  if (text.includes('\0')) return { error: 'cannot read the command: it holds a NUL character' };
  const shell = parseShell(text);
  if ('error' in shell) return { error: `cannot read the command: ${shell.error}` };
  const warnings: string[] = [];
  const credentials = new Set<string>();
  const env: Record<string, string> = {};
  let call: ServerCall | undefined;
  for (const c of shell.commands) {
    const w = c.words;
    if (w[0]?.text === 'export') {
      if (call) continue;
      for (const x of w.slice(1)) {
        const m = ASSIGNMENT.exec(x.text);
        if (m) env[m[1] as string] = m[2] as string;
      }
      continue;
    }
    const local: Record<string, string> = {};
    const words = stripPrefixes(w, local);
    const docker = dockerCall(words, warnings);
    if (docker && 'error' in docker) return docker;
    const direct = docker ? undefined : engineCall(words);
    if (docker || direct) {
      if (call) {
        warnings.push('the text holds more than one server command; the first is read');
        break;
      }
      call = docker ?? { ...(direct as { engine: EngineId; args: ShellWord[] }), env: {} };
      Object.assign(env, local, call.env);
      for (const name of call.credentials ?? []) credentials.add(name);
    }
  }
  if (!call) return { error: 'no vllm serve, python3 -m sglang.launch_server or trtllm-serve command found' };
  const { engine } = call;
  const adapter = getAdapter(engine);
  const display = adapter.displayName;
  const files = writtenFiles(shell.commands);

  let version: string;
  let versionFrom: ParsedServeCommand['versionFrom'];
  const fromPip = pipVersion(shell.commands, engine);
  if (options.engineVersion !== undefined) [version, versionFrom] = [options.engineVersion, 'option'];
  else if (fromPip !== undefined) [version, versionFrom] = [fromPip, 'command'];
  else if (call.docker?.version !== undefined) [version, versionFrom] = [call.docker.version, 'image'];
  else [version, versionFrom] = [adapter.knownVersions[adapter.knownVersions.length - 1] as string, 'newest'];
  if (versionFrom === 'newest' && call.docker) warnings.push(`Servelab cannot tell the ${display} version of the image ${call.docker.image} from its tag; the command is read as ${version}'s`);
  const label = `${display} ${version}`;
  const table = adapter.flagTable(version);
  if (table.version !== version) warnings.push(`${label} is not a version Servelab has the flags of; the command is checked against ${table.version}'s`);

  for (const word of call.args) if (word.dollar && !word.substitution) warnings.push(`${word.text} is kept as written: Servelab does not expand shell variables`);

  // Variables Servelab will not set from a project, or that hold credentials, are left out.
  for (const name of Object.keys(env)) {
    const refusal = refusedEnvName(name);
    if (refusal !== undefined) warnings.push(`${name} is left out: ${refusal}`);
    else if (GPU_ENV.has(name)) warnings.push(`${name}=${env[name]} is left out: Servelab chooses the GPUs from the study's hosts`);
    else if (isSecretEnvName(name)) {
      warnings.push(`${name} holds a credential: its value is left out (give it as a secret reference)`);
      credentials.add(name);
    } else if (SUBSTITUTION.test(env[name] as string)) warnings.push(`${name} is left out: its value runs a command, and Servelab never runs pasted text (set the value itself)`);
    else continue;
    delete env[name];
  }

  const read = readArgs(engine, table, call.args, files);
  if (read.model === undefined) {
    const positional = engine === 'sglang' ? read.groups.find((g) => !g.flag) : undefined;
    return { error: positional ? `SGLang takes the model as --model-path, not as the bare argument ${positional.values[0]}` : `the ${display} command names no model` };
  }
  const modelWords = [...read.modelGroups].flatMap((g) => g.words);
  if (modelWords.some((w) => w.substitution)) return { error: `the model is the output of a command (${modelWords.map((w) => w.text).join(' ')}); Servelab never runs pasted text: write the model itself` };
  if (read.modelGroups.size > 1) {
    // vllm serve's positional model_tag replaces --model (ServeSubcommand.cmd in vllm/entrypoints/cli/serve.py).
    const flagged = [...read.modelGroups].find((g) => g.flag);
    if (flagged) warnings.push(`${flagged.words.map((w) => w.text).join(' ')} is not used: ${display} serves the positional model ${read.model}`);
  }
  const rows = adapter.knobTable.filter((r) => inRange(version, r));
  const yamlTwins = yamlTwinsOf(engine, table, version);
  const refused: ParsedServeCommand['refused'] = [];
  const dropped = new Set<Group>();
  for (const g of read.groups) {
    if (read.modelGroups.has(g)) continue;
    const written = g.flag ? g.flag.written : 'an argument';
    const spec = g.flag?.spec;
    if (spec?.arity === 'negatable' && read.groups.some((later) => later.at > g.at && later.flag?.spec === spec)) {
      // `--no-x … --x`: the last one decides; kept, the earlier one would be rebuilt after a typed `--x` and win.
      warnings.push(`${written} is set again later; ${display} keeps the last one`);
      dropped.add(g);
    } else if (g.words.some((w) => w.substitution)) {
      // Launching it would pass the text itself, quoted; the pasted command meant the command's output.
      refused.push({ flag: written, message: `${g.words.map((w) => w.text).join(' ')} takes its value from a command; Servelab never runs pasted text: write the value itself` });
      dropped.add(g);
    } else if (g.flag && g.values.length > 0 && isCredentialFlag(g.flag.spec?.names[0] ?? g.flag.name)) {
      // Also when abbreviated (`--api-ke`) or spelled with `_`, which the schema's spelling check does not resolve. Name the flag, never the value.
      warnings.push(`${written} is left out: ${credentialFlagRefusal(engine, g.flag.spec?.names[0] ?? g.flag.name)}`);
      credentials.add(g.flag.spec?.names[0] ?? g.flag.name);
      dropped.add(g);
    } else if (g.words.some((w) => w.procSub !== undefined) && !(read.yaml && g === read.yaml.group && read.yaml.data !== undefined)) {
      // Passed on, it would be the literal text `<(…)`; an unreadable options YAML is refused below.
      if (!(read.yaml && g === read.yaml.group)) refused.push({ flag: written, message: `${written}: Servelab reads a <( … ) only as TensorRT-LLM's ${OPTIONS_FLAG} YAML; give a file path instead` });
      dropped.add(g);
    }
  }
  // The command as read, before knobs take variables out of `env`; what is left out as a credential leaves it too.
  const envAsRead = { ...env };

  // Each flag group that a knob row writes, read back into the knob; the last copy of a flag wins, as in the parser.
  const knobs = new Map<KnobName, Assigned>();
  const consumed = new Set<Group>(read.modelGroups);
  const assign = (knob: KnobName, value: KnobValue, source: Source) => {
    const before = knobs.get(knob);
    if (before?.source.kind === 'group') warnings.push(`${before.source.group.words.map((w) => w.text).join(' ')} is set again later; ${display} keeps the last one`);
    knobs.set(knob, { value, source });
  };
  const wordsKey = (words: readonly string[]) => {
    const gs = groupArgs(table, words.map((text) => ({ text })));
    return gs.length === 1 ? JSON.stringify(groupKey(gs[0] as Group)) : undefined;
  };
  /** Switches whose size is read once every other knob is (vLLM's --enable-expert-parallel spans TP × DP). */
  const sizedSwitches: { row: KnobRow; group: Group }[] = [];
  for (const g of read.groups) {
    if (consumed.has(g) || dropped.has(g) || !g.flag?.spec || (read.yaml && g === read.yaml.group)) continue;
    const key = JSON.stringify(groupKey(g));
    let matched = false;
    for (const row of rows) {
      if (!matched && row.to.kind === 'sized-switch' && row.to.on.length > 0 && wordsKey(row.to.on) === key) {
        sizedSwitches.push({ row, group: g });
        matched = true;
      }
      if (row.to.kind === 'switch') {
        for (const [words, value] of [[row.to.on, true], [row.to.off, false]] as const) {
          if (!matched && words && words.length > 0 && wordsKey(words) === key) {
            assign(row.knob, value, { kind: 'group', group: g });
            matched = true;
          }
        }
      }
    }
    if (matched) {
      if (!sizedSwitches.some((x) => x.group === g)) consumed.add(g);
      continue;
    }
    const option = rows.find((r) => r.to.kind === 'option' && readFlagWord(table, r.to.flag).name === g.flag?.name);
    if (option && g.values.length === 1) {
      const value = knobOfValue(option, g.values[0] as string);
      if (value !== undefined) {
        assign(option.knob, value, { kind: 'group', group: g });
        consumed.add(g);
      }
      continue;
    }
    const jsonRows = rows.filter((r) => r.to.kind === 'json' && readFlagWord(table, r.to.flag).name === g.flag?.name);
    if (jsonRows.length > 0 && g.values.length === 1) {
      let data: unknown;
      try {
        data = JSON.parse(g.values[0] as string);
      } catch {
        continue;
      }
      if (!data || typeof data !== 'object' || Array.isArray(data)) continue;
      const read = Object.entries(data as Record<string, unknown>).map(([key, raw]) => {
        const row = jsonRows.find((r) => r.to.kind === 'json' && r.to.key === key);
        const value = row && (typeof raw === 'string' || typeof raw === 'number') ? knobOfValue(row, raw) : undefined;
        return row && value !== undefined ? { knob: row.knob, value } : undefined;
      });
      if (read.every((x) => x !== undefined)) {
        for (const x of read) assign(x.knob, x.value, { kind: 'group', group: g });
        consumed.add(g);
      }
    }
  }
  for (const row of rows) {
    if (row.to.kind !== 'env') continue;
    const value = env[row.to.name];
    const knob = value !== undefined ? knobOfValue(row, value) : undefined;
    if (value !== undefined && knob !== undefined && !knobs.has(row.knob)) {
      assign(row.knob, knob, { kind: 'env', name: row.to.name, value });
      delete env[row.to.name];
    }
  }

  // TensorRT-LLM's options YAML: keys the version lacks are refused; a file of mapped keys becomes knobs, any other is kept whole.
  let keptFile: { path: string; content: string } | undefined;
  if (read.yaml) {
    const { group } = read.yaml;
    if (read.yaml.error !== undefined) refused.push({ flag: OPTIONS_FLAG, message: `${read.yaml.error} (${label})` });
    else if (read.yaml.data === undefined) warnings.push(`${OPTIONS_FLAG} ${read.yaml.path}: Servelab cannot see that file; it is passed as written and must exist where the server runs`);
    else {
      const data = read.yaml.data;
      const keys = new Set(trtllmYamlKeys(version).map((k) => k.name));
      for (const key of Object.keys(data)) {
        if (!keys.has(key)) refused.push({ flag: `${OPTIONS_FLAG}: ${key}`, message: `${key} is not a key of ${label}'s ${OPTIONS_FLAG} YAML` });
      }
      // TensorRT-LLM reads a flag whose section the file holds from the file alone (update_llm_args_with_extra_dict).
      for (const g of read.groups) {
        const twin = g.flag ? yamlTwins.get(g.flag.name) : undefined;
        if (!twin || !((twin[0] as string) in data)) continue;
        warnings.push(`${g.words.map((w) => w.text).join(' ')} is left out: ${display} takes ${twin[0]} from the ${OPTIONS_FLAG} YAML instead`);
        const knob = [...knobs].find(([, a]) => a.source.kind === 'group' && a.source.group === g)?.[0];
        if (knob) knobs.delete(knob);
        consumed.add(g);
      }
      const fromYaml = knobsOfYaml(rows, data);
      if (fromYaml) {
        for (const [knob, value] of fromYaml) assign(knob, value, { kind: 'yaml' });
        consumed.add(group);
      } else {
        keptFile = { path: read.yaml.path ?? 'extra_llm_api_options.yaml', content: read.yaml.content as string };
        warnings.push(`the ${OPTIONS_FLAG} YAML holds settings Servelab does not model; it is kept whole as ${keptFile.path}, which must exist where the server runs`);
      }
    }
  }

  readSizedSwitches(rows, knobs, sizedSwitches, { assign, consumed, dropped, warnings, display });

  // Build, and move back to the verbatim arguments every knob the schema or the adapter does not take.
  const revert = (knob: KnobName) => {
    const assigned = knobs.get(knob);
    if (!assigned) return;
    knobs.delete(knob);
    if (assigned.source.kind === 'group') {
      const { group } = assigned.source;
      if (![...knobs.values()].some((a) => a.source.kind === 'group' && a.source.group === group)) consumed.delete(group);
    } else if (assigned.source.kind === 'env') env[assigned.source.name] = assigned.source.value;
    else if (assigned.source.kind === 'implied') return;
    else if (read.yaml) {
      for (const [k, a] of [...knobs]) if (a.source.kind === 'yaml') knobs.delete(k);
      consumed.delete(read.yaml.group);
      keptFile = { path: read.yaml.path ?? 'extra_llm_api_options.yaml', content: read.yaml.content as string };
      warnings.push(`the ${OPTIONS_FLAG} YAML is kept whole as ${keptFile.path}: ${knob} from it does not fit the typed settings`);
    }
  };
  let config: ServerConfig | undefined;
  for (let round = 0; round < 50 && !config; round++) {
    const extraGroups = read.groups.filter((g) => !consumed.has(g) && !dropped.has(g));
    const extraArgs = extraGroups.flatMap((g) => {
      if (keptFile && read.yaml && g === read.yaml.group) return g.flag?.attached !== undefined ? [`${OPTIONS_FLAG}=${keptFile.path}`] : [OPTIONS_FLAG, keptFile.path];
      return g.words.map((w) => w.text);
    });
    const check = ServerConfigSchema.safeParse(configInput(read.model, knobs, extraArgs, env));
    if (!check.success) {
      let progressed = false;
      for (const issue of check.error.issues) {
        const [head, second] = issue.path.map(String);
        if (head === 'model') return { error: `the model ${read.model} ${issue.message}` };
        if (head === 'extraArgs') {
          const index = Number(second);
          let offset = 0;
          const group = extraGroups.find((g) => (offset += g.words.length) > index);
          if (group && !dropped.has(group)) {
            // Name the flag, never the value: the value may be the credential.
            warnings.push(`${group.flag ? group.flag.written : 'an argument'} is left out: ${issue.message}`);
            // The schema refuses extra arguments for a credential flag or a token-shaped value.
            if (group.flag && CREDENTIAL_ISSUE.test(issue.message)) credentials.add(group.flag.spec?.names[0] ?? group.flag.name);
            dropped.add(group);
            progressed = true;
          }
        } else if (head === 'env' && second !== undefined) {
          warnings.push(`${second} is left out: ${issue.message}`);
          if (CREDENTIAL_ISSUE.test(issue.message)) credentials.add(second);
          delete env[second];
          delete envAsRead[second];
          progressed = true;
        } else if (head === 'speculative') {
          for (const knob of [...knobs.keys()]) if (knob.startsWith('speculative.')) revert(knob);
          progressed = true;
        } else if (head !== undefined && knobs.has(head as KnobName)) {
          revert(head as KnobName);
          progressed = true;
        }
      }
      if (!progressed) return { error: `the command does not make a valid configuration: ${check.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}` };
      continue;
    }
    const built = adapter.buildArgv(check.data, version);
    if (built.unsupported.length > 0) {
      for (const u of built.unsupported) revert(u.knob);
      if (built.unsupported.every((u) => !knobs.has(u.knob))) continue;
    }
    config = check.data;
  }
  if (!config) return { error: 'the command could not be read into a configuration' };

  for (const g of read.groups) {
    if (consumed.has(g) && g.flag?.abbreviationOf) warnings.push(`${g.flag.written} is read as ${g.flag.abbreviationOf}; write the full name, a later flag could make it ambiguous`);
  }
  for (const issue of checkArgs(table, config.extraArgs, { program: FLAG_TABLE_COMMAND[engine], versionsWith: (name) => versionsWithFlag(engine, name) })) {
    if (issue.severity === 'warning') {
      warnings.push(issue.message);
      continue;
    }
    const unknown = /^unknown flag: (\S+)(?: \((.*)\))?$/.exec(issue.message);
    if (unknown) {
      const elsewhere = unknown[2]?.replace(/^.* does not have it: /, '');
      refused.push({ flag: unknown[1] as string, message: `${unknown[1]} is not a flag of ${label}${elsewhere ? `: ${elsewhere}` : ''}` });
    } else refused.push({ flag: issue.arg, message: `${issue.message} (${label})` });
  }

  const parsed: ParsedServeCommand = {
    engine,
    version,
    versionFrom,
    config,
    refused,
    warnings,
    credentials: [...credentials],
    ...(call.docker ? { docker: { image: call.docker.image, args: call.docker.args } } : {}),
    ...(keptFile ? { files: [keptFile] } : {}),
    canonical: canonicalOf({ ...read, groups: read.groups.filter((g) => !dropped.has(g)) }, envAsRead, yamlTwins),
  };
  return parsed;
}

/**
 * Sized switches, read once the sizes they span are: a switch's size is the product of its knobs (1 when unset). A
 * switch with words spanning one GPU changes nothing and is left out; one without words is implied where its
 * condition holds (TensorRT-LLM's attention DP spans the TP group).
 */
function readSizedSwitches(
  rows: readonly KnobRow[],
  knobs: Map<KnobName, Assigned>,
  written: readonly { row: KnobRow; group: Group }[],
  out: { assign: (knob: KnobName, value: KnobValue, source: Source) => void; consumed: Set<Group>; dropped: Set<Group>; warnings: string[]; display: string },
): void {
  const sizeOf = (of: readonly KnobName[]) => of.reduce((product, knob) => product * Number(knobs.get(knob)?.value ?? 1), 1);
  for (const { row, group } of written) {
    if (row.to.kind !== 'sized-switch') continue;
    const size = sizeOf(row.to.of);
    if (size > 1) {
      out.assign(row.knob, size, { kind: 'group', group });
      out.consumed.add(group);
    } else {
      out.warnings.push(`${group.words.map((w) => w.text).join(' ')} is left out: ${out.display} applies it only when ${row.to.of.join(' × ')} is more than 1`);
      out.dropped.add(group);
    }
  }
  for (const row of rows) {
    if (row.to.kind !== 'sized-switch' || row.to.on.length > 0 || row.to.of.length === 0 || !row.when || knobs.has(row.knob)) continue;
    const { when } = row;
    const condition = knobs.get(when.knob)?.value;
    if (condition === undefined || !when.in.includes(condition)) continue;
    const size = sizeOf(row.to.of);
    if (size > 1) out.assign(row.knob, size, { kind: 'implied' });
  }
}

function heredoc(path: string, content: string): string {
  let delimiter = 'EOF';
  while (content.split('\n').includes(delimiter)) delimiter += '_';
  return `cat > ${shellQuote(path)} <<'${delimiter}'\n${content.endsWith('\n') ? content : `${content}\n`}${delimiter}`;
}

/** The equivalent command line, every word through the one quoting function: options files as here-documents, variables in front (or `-e` for docker), then the server. */
export function commandOfParsed(parsed: ParsedServeCommand): string {
  const built = getAdapter(parsed.engine).buildArgv(parsed.config, parsed.version);
  const lines = [...(parsed.files ?? []), ...(built.extraFiles ?? [])].map((f) => heredoc(f.path, f.content));
  if (parsed.docker) {
    const envArgs = Object.entries(built.env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    // Only the engine's own image has the server as its entrypoint; any other image is given the whole command.
    const own = engineOfImageName(parsed.docker.image)?.engine === parsed.engine;
    lines.push(shellCommand(['docker', 'run', ...parsed.docker.args, ...envArgs, parsed.docker.image, ...(own ? containerCommand(parsed.engine, built.argv) : built.argv)]));
  } else {
    const env = Object.entries(built.env).map(([name, value]) => `${name}=${shellQuote(value)}`);
    lines.push([...env, shellCommand(built.argv)].join(' '));
  }
  return lines.join('\n');
}

