/**
 * A serve command as users already run it (`vllm serve …`, `python3 -m sglang.launch_server …`, `trtllm-serve …`,
 * with variables in front, inside `docker run … IMAGE …`, over several `\` lines, with TensorRT-LLM's options YAML
 * inline) read into Servelab's typed configuration: the model and every knob an adapter's knob table maps, read in
 * reverse; every other flag kept verbatim in `extraArgs` and checked against the engine version's own flag table.
 * Building the result back (`commandOfParsed`) gives a command the engine's parser reads the same way.
 */
import { joinArgs } from './argv-text';
import { getAdapter } from './adapters';
import { parseShell, printedText, type ShellWord, type SimpleCommand } from './command-parse-shell';
import { containerCommand, DOCKER_ENGINES } from './docker-run';
import { checkArgs, isFlagWord, readFlagWord, type ReadFlag } from './flag-syntax';
import { FLAG_TABLE_COMMAND, trtllmYamlKeys, versionsWithFlag } from './flag-tables';
import { isSecretEnvName, refusedEnvName, ServerConfigSchema, type ServerConfig } from './server-config';
import { ENGINE_IDS, type EngineId, type FlagTable, type KnobName, type KnobRow, type KnobValue } from './types';
import { inRange, isVersion } from './version';
import { readYaml, type YamlValue } from './yaml';

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
  /** The `docker run` wrapper: its options (image excluded) and the image. */
  docker?: { image: string; args: string[] };
  /** Options files kept whole (a TensorRT-LLM YAML with settings Servelab does not model), written before the command. */
  files?: { path: string; content: string }[];
  /** The command as the engine's parser reads it (sorted `flag values` lines, the model, env, options-file data): equal for equivalent commands. */
  canonical: string[];
}

const DISPLAY: Record<EngineId, string> = { vllm: 'vLLM', sglang: 'SGLang', trtllm: 'TensorRT-LLM' };

// ---------- finding the server command ----------

interface ServerCall {
  engine: EngineId;
  /** The words after the program (and its subcommand). */
  args: ShellWord[];
  /** vLLM's `api_server` module and the vLLM image take the model as `--model`. */
  env: Record<string, string>;
  docker?: { image: string; args: string[]; version?: string };
}

const PREFIX_PROGRAMS = new Set(['nohup', 'exec', 'time', 'command']);

function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** The engine and its arguments when `words` (after variables and wrappers) start one of the three servers. */
function engineCall(words: readonly ShellWord[]): { engine: EngineId; args: ShellWord[] } | undefined {
  const w = words.map((x) => x.text);
  const program = baseName(w[0] ?? '');
  if (program === 'vllm' && w[1] === 'serve') return { engine: 'vllm', args: words.slice(2) };
  if (program === 'trtllm-serve') return { engine: 'trtllm', args: words.slice(w[1] === 'serve' ? 2 : 1) };
  if (/^python(\d+(\.\d+)?)?$/.test(program) && w[1] === '-m') {
    const module = w[2];
    if (module === 'vllm.entrypoints.openai.api_server') return { engine: 'vllm', args: words.slice(3) };
    if (module === 'sglang.launch_server') return { engine: 'sglang', args: words.slice(3) };
    if (module === 'tensorrt_llm.commands.serve') return { engine: 'trtllm', args: words.slice(w[3] === 'serve' ? 4 : 3) };
  }
  return undefined;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;

/** Strips `A=B` assignments, `env`, `sudo -E`, `nohup`… from the front; the variables are the server's. */
function stripPrefixes(words: readonly ShellWord[], env: Record<string, string>): ShellWord[] {
  let i = 0;
  for (;;) {
    const w = words[i]?.text;
    if (w === undefined) return [];
    const m = ASSIGNMENT.exec(w);
    if (m) {
      env[m[1] as string] = m[2] as string;
      i++;
    } else if (w === 'env' || w === 'sudo') {
      i++;
      while (words[i] !== undefined && (words[i] as ShellWord).text.startsWith('-')) i++;
    } else if (PREFIX_PROGRAMS.has(w)) i++;
    else if (w === 'uv' && words[i + 1]?.text === 'run') {
      i += 2;
      while (words[i] !== undefined && (words[i] as ShellWord).text.startsWith('-')) i++;
    } else return words.slice(i);
  }
}

// docker run options that take no value (docker/cli `run` and `create` flags).
const DOCKER_SWITCHES = new Set(['--rm', '--detach', '--interactive', '--tty', '--init', '--privileged', '--publish-all', '--read-only', '--no-healthcheck', '--oom-kill-disable', '--sig-proxy', '--quiet', '--help', '--disable-content-trust', '--use-api-socket']);

function imageVersion(engine: EngineId, tag: string): string | undefined {
  const body = DOCKER_ENGINES[engine].tagOf('') === 'v' ? tag.replace(/^v/, '') : tag;
  const m = /^(\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?)(?=$|[-_+])/.exec(body);
  return m?.[1];
}

function engineOfImageName(image: string): { engine: EngineId; version?: string } | undefined {
  const ref = image.replace(/^docker\.io\/(library\/)?/, '').replace(/@.*$/, '');
  const colon = ref.lastIndexOf(':');
  const repository = colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
  const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : '';
  for (const engine of ENGINE_IDS) {
    if (DOCKER_ENGINES[engine].repository !== repository) continue;
    const version = imageVersion(engine, tag);
    return version ? { engine, version } : { engine };
  }
  return undefined;
}

function dockerCall(words: readonly ShellWord[], warnings: string[]): ServerCall | { error: string } | undefined {
  const w = words.map((x) => x.text);
  const program = baseName(w[0] ?? '');
  if (!['docker', 'podman', 'nvidia-docker'].includes(program)) return undefined;
  let i = w[1] === 'run' ? 2 : w[1] === 'container' && w[2] === 'run' ? 3 : -1;
  if (i < 0) return undefined;
  const args: string[] = [];
  const env: Record<string, string> = {};
  const takeEnv = (value: string) => {
    const m = ASSIGNMENT.exec(value);
    if (!m) {
      warnings.push(`docker passes ${value} from the shell's environment; its value is not in the command`);
      args.push('-e', value);
      return;
    }
    const name = m[1] as string;
    if (isSecretEnvName(name)) {
      warnings.push(`${name} holds a credential: its value is left out (give it as a secret reference)`);
      args.push('-e', name);
      return;
    }
    env[name] = m[2] as string;
  };
  while (i < w.length) {
    const word = w[i] as string;
    if (!word.startsWith('-')) break;
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : word;
    if ((name === '-e' || name === '--env') && eq > 0) {
      takeEnv(word.slice(eq + 1));
      i++;
    } else if (/^-[a-zA-Z]+$/.test(word) && [...word.slice(1)].every((c) => 'itdP'.includes(c))) {
      args.push(word);
      i++;
    } else if (DOCKER_SWITCHES.has(name) || eq > 0) {
      args.push(word);
      i++;
    } else if (word === '-e' || word === '--env') {
      takeEnv(w[i + 1] ?? '');
      i += 2;
    } else {
      if (word === '--env-file') warnings.push(`the variables in ${w[i + 1] ?? 'the --env-file'} are not read`);
      args.push(word, ...(w[i + 1] !== undefined ? [w[i + 1] as string] : []));
      i += 2;
    }
  }
  const image = w[i];
  if (image === undefined) return { error: 'the docker run command names no image' };
  const rest = stripPrefixes(words.slice(i + 1), env);
  const known = engineOfImageName(image);
  let call = engineCall(rest);
  if (!call && ['bash', 'sh'].includes(baseName(rest[0]?.text ?? '')) && rest[1]?.text === '-c' && rest[2] !== undefined) {
    const inner = parseShell(rest[2].text);
    if (!('error' in inner)) {
      for (const c of inner.commands) {
        const found = engineCall(stripPrefixes(c.words, env));
        if (found) {
          call = found;
          warnings.push('the server command was read from the container\'s "sh -c" script; it is rebuilt as a plain command');
          break;
        }
      }
    }
  }
  if (!call && known && DOCKER_ENGINES[known.engine].entry === 'args-only') call = { engine: known.engine, args: rest };
  if (!call) return { error: `the container ${image} runs no vllm serve, sglang.launch_server or trtllm-serve command Servelab recognises` };
  return { engine: call.engine, args: call.args, env, docker: { image, args, ...(known?.engine === call.engine && known.version ? { version: known.version } : {}) } };
}

const PIP_SPEC: Record<EngineId, RegExp> = {
  vllm: /^vllm(?:\[[^\]]*\])?==(.+)$/,
  sglang: /^sglang(?:\[[^\]]*\])?==(.+)$/,
  trtllm: /^tensorrt[_-]llm(?:\[[^\]]*\])?==(.+)$/,
};

function pipVersion(commands: readonly SimpleCommand[], engine: EngineId): string | undefined {
  for (const c of commands) {
    const w = c.words.map((x) => x.text);
    if (!w.includes('install') || !w.some((x) => /^(pip3?|uv)$/.test(baseName(x)) || /^python/.test(baseName(x)))) continue;
    for (const word of w) {
      const m = PIP_SPEC[engine].exec(word);
      if (m && isVersion(m[1] as string)) return m[1] as string;
    }
  }
  return undefined;
}

/** Files the snippet writes from a here-document or an `echo … > FILE`, by path. */
function writtenFiles(commands: readonly SimpleCommand[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const c of commands) {
    const target = c.writes[c.writes.length - 1];
    if (target === undefined) continue;
    const [program, ...args] = c.words.map((w) => w.text);
    if ((program === 'cat' || program === 'tee') && c.heredocs.length > 0) files.set(target, c.heredocs[c.heredocs.length - 1] as string);
    else if (program === 'echo' || program === 'printf') {
      const text = printedText(joinArgs([program, ...args]));
      if (text !== undefined) files.set(target, text);
    }
  }
  return files;
}

// ---------- reading the engine's argv ----------

interface Group {
  /** Index of the first word in the args. */
  at: number;
  words: ShellWord[];
  flag?: ReadFlag;
  /** The values, the attached one first. */
  values: string[];
}

function groupArgs(table: FlagTable, args: readonly ShellWord[]): Group[] {
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

const INT_KNOBS: ReadonlySet<KnobName> = new Set(['tensorParallelSize', 'maxModelLen', 'port', 'maxRunningRequests', 'maxBatchedTokens', 'cudaGraphMaxBatchSize', 'speculative.numSteps', 'speculative.eagleTopK', 'speculative.numDraftTokens']);

/** A flag's value as the typed knob holds it, or undefined when the knob cannot hold it (it then stays verbatim). */
function knobOfValue(row: KnobRow, raw: string | number | boolean): KnobValue | undefined {
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
function groupKey(g: Group): { name: string; value: string } {
  if (!g.flag) return { name: 'arg', value: g.values.join(' ') };
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

const OPTIONS_FLAG = '--extra_llm_api_options';

interface ReadArgs {
  model?: string;
  modelGroups: Set<Group>;
  groups: Group[];
  /** The options YAML's data and where its text came from. */
  yaml?: { group: Group; data?: { [key: string]: YamlValue }; content?: string; path?: string; error?: string };
}

function readArgs(engine: EngineId, table: FlagTable, args: readonly ShellWord[], files: ReadonlyMap<string, string>): ReadArgs {
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
function canonicalOf( read: ReadArgs, env: Readonly<Record<string, string>>, yamlTwins: ReadonlyMap<string, readonly string[]>): string[] {
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

function yamlTwinsOf(engine: EngineId, table: FlagTable, version: string): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const row of getAdapter(engine).knobTable) {
    if (row.to.kind === 'option' && row.to.yamlTwin && inRange(version, row)) out.set(readFlagWord(table, row.to.flag).name, row.to.yamlTwin);
  }
  return out;
}

// ---------- the knobs, read in reverse ----------

type Source = { kind: 'group'; group: Group } | { kind: 'env'; name: string; value: string } | { kind: 'yaml' };

interface Assigned {
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
function knobsOfYaml(rows: readonly KnobRow[], data: { [key: string]: YamlValue }): Map<KnobName, KnobValue> | undefined {
  const knobs = new Map<KnobName, KnobValue>();
  const leaves = yamlLeaves(data);
  const algorithm = leaves.find((l) => samePath(l.path, ['speculative_config', 'decoding_type']))?.value;
  for (const leaf of leaves) {
    const row = rows.find((r) => {
      if (r.to.kind === 'yaml' || r.to.kind === 'yaml-switch') {
        if (!samePath(r.to.path, leaf.path)) return false;
      } else if (r.to.kind === 'option' && r.to.yamlTwin) {
        if (!samePath(r.to.yamlTwin, leaf.path)) return false;
      } else return false;
      // numSteps is num_nextn_predict_layers for MTP and max_draft_len otherwise.
      if (r.when?.knob === 'speculative.algorithm') return r.when.in.some((v) => r.values?.[String(v)] === algorithm || rows.find((x) => x.knob === 'speculative.algorithm' && x.values)?.values?.[String(v)] === algorithm);
      return true;
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
  // A free-memory fraction the rebuilt command writes as a flag unless its section is in the file for other keys.
  return knobs;
}

function configInput(model: string, knobs: ReadonlyMap<KnobName, Assigned>, extraArgs: string[], env: Record<string, string>): Record<string, unknown> {
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
  const shell = parseShell(text);
  if ('error' in shell) return { error: `cannot read the command: ${shell.error}` };
  const warnings: string[] = [];
  const env: Record<string, string> = {};
  let call: ServerCall | undefined;
  for (const c of shell.commands) {
    const w = c.words;
    if (w[0]?.text === 'export') {
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
      call = docker ?? { ...(direct as { engine: EngineId; args: ShellWord[] }), env: {} };
      Object.assign(env, local, call.env);
      break;
    }
  }
  if (!call) return { error: 'no vllm serve, python3 -m sglang.launch_server or trtllm-serve command found' };
  const { engine } = call;
  const adapter = getAdapter(engine);
  const files = writtenFiles(shell.commands);

  let version: string;
  let versionFrom: ParsedServeCommand['versionFrom'];
  const fromPip = pipVersion(shell.commands, engine);
  if (options.engineVersion !== undefined) [version, versionFrom] = [options.engineVersion, 'option'];
  else if (fromPip !== undefined) [version, versionFrom] = [fromPip, 'command'];
  else if (call.docker?.version !== undefined) [version, versionFrom] = [call.docker.version, 'image'];
  else [version, versionFrom] = [adapter.knownVersions[adapter.knownVersions.length - 1] as string, 'newest'];
  const label = `${DISPLAY[engine]} ${version}`;
  const table = adapter.flagTable(version);
  if (table.version !== version) warnings.push(`${label} is not a version Servelab has the flags of; the command is checked against ${table.version}'s`);

  for (const word of call.args) if (word.dollar) warnings.push(`${word.text} is kept as written: Servelab does not expand shell variables`);

  // Variables Servelab will not set from a project, or that hold credentials, are left out.
  for (const name of Object.keys(env)) {
    const refusal = refusedEnvName(name);
    if (refusal !== undefined) warnings.push(`${name} is left out: ${refusal}`);
    else if (isSecretEnvName(name)) warnings.push(`${name} holds a credential: its value is left out (give it as a secret reference)`);
    else continue;
    delete env[name];
  }

  const read = readArgs(engine, table, call.args, files);
  if (read.model === undefined) return { error: `the ${DISPLAY[engine]} command names no model` };
  const rows = adapter.knobTable.filter((r) => inRange(version, r));
  const yamlTwins = yamlTwinsOf(engine, table, version);
  const refused: ParsedServeCommand['refused'] = [];
  const canonicalBefore = canonicalOf(read, env, yamlTwins);

  // Each flag group that a knob row writes, read back into the knob; the last copy of a flag wins, as in the parser.
  const knobs = new Map<KnobName, Assigned>();
  const consumed = new Set<Group>(read.modelGroups);
  const assign = (knob: KnobName, value: KnobValue, source: Source) => {
    const before = knobs.get(knob);
    if (before?.source.kind === 'group') warnings.push(`${before.source.group.words.map((w) => w.text).join(' ')} is set again later; ${DISPLAY[engine]} keeps the last one`);
    knobs.set(knob, { value, source });
  };
  const wordsKey = (words: readonly string[]) => {
    const gs = groupArgs(table, words.map((text) => ({ text })));
    return gs.length === 1 ? JSON.stringify(groupKey(gs[0] as Group)) : undefined;
  };
  for (const g of read.groups) {
    if (consumed.has(g) || !g.flag?.spec || (read.yaml && g === read.yaml.group)) continue;
    const key = JSON.stringify(groupKey(g));
    let matched = false;
    for (const row of rows) {
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
      consumed.add(g);
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

  // Build, and move back to the verbatim arguments every knob the schema or the adapter does not take.
  const revert = (knob: KnobName) => {
    const assigned = knobs.get(knob);
    if (!assigned) return;
    knobs.delete(knob);
    if (assigned.source.kind === 'group') {
      const { group } = assigned.source;
      if (![...knobs.values()].some((a) => a.source.kind === 'group' && a.source.group === group)) consumed.delete(group);
    } else if (assigned.source.kind === 'env') env[assigned.source.name] = assigned.source.value;
    else if (read.yaml) {
      for (const [k, a] of [...knobs]) if (a.source.kind === 'yaml') knobs.delete(k);
      consumed.delete(read.yaml.group);
      keptFile = { path: read.yaml.path ?? 'extra_llm_api_options.yaml', content: read.yaml.content as string };
      warnings.push(`the ${OPTIONS_FLAG} YAML is kept whole as ${keptFile.path}: ${knob} from it does not fit the typed settings`);
    }
  };
  const dropped = new Set<Group>();
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
            warnings.push(`${group.words.map((w) => w.text)[0]} is left out: ${issue.message}`);
            dropped.add(group);
            progressed = true;
          }
        } else if (head === 'env' && second !== undefined) {
          warnings.push(`${second} is left out: ${issue.message}`);
          delete env[second];
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
    ...(call.docker ? { docker: { image: call.docker.image, args: call.docker.args } } : {}),
    ...(keptFile ? { files: [keptFile] } : {}),
    canonical: canonicalBefore,
  };
  return parsed;
}

function heredoc(path: string, content: string): string {
  let delimiter = 'EOF';
  while (content.split('\n').includes(delimiter)) delimiter += '_';
  return `cat > ${joinArgs([path])} <<'${delimiter}'\n${content.endsWith('\n') ? content : `${content}\n`}${delimiter}`;
}

/** The equivalent command line: options files as here-documents, variables in front (or `-e` for docker), then the server. */
export function commandOfParsed(parsed: ParsedServeCommand): string {
  const built = getAdapter(parsed.engine).buildArgv(parsed.config, parsed.version);
  const lines = [...(parsed.files ?? []), ...(built.extraFiles ?? [])].map((f) => heredoc(f.path, f.content));
  if (parsed.docker) {
    const envArgs = Object.entries(built.env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    lines.push(joinArgs(['docker', 'run', ...parsed.docker.args, ...envArgs, parsed.docker.image, ...containerCommand(parsed.engine, built.argv)]));
  } else {
    const env = Object.entries(built.env).map(([name, value]) => `${name}=${joinArgs([value])}`);
    lines.push([...env, joinArgs(built.argv)].join(' '));
  }
  return lines.join('\n');
}

