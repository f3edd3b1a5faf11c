import type { ServerConfig } from './server-config';
import { PARALLEL_LAYOUT_KNOBS } from './parallelism';
import type { ConfigFileField, FileRef } from './config-files';

export const ENGINE_IDS = ['vllm', 'sglang', 'trtllm'] as const;
export type EngineId = (typeof ENGINE_IDS)[number];

export function isEngineId(value: string): value is EngineId {
  return (ENGINE_IDS as readonly string[]).includes(value);
}

/** What a server log says happened (classify-log.ts): ready, or the root cause of the failure. */
export const LOG_CLASSES = [
  'oom',
  'kv-cache-too-small',
  'unsupported-sm-fp8',
  'port-in-use',
  'gated-model',
  'unknown-flag',
  'missing-module',
  'nccl',
  'ready',
  /** No failure and no ready line yet: still starting, or the log is cut short. */
  'starting',
  /** Failed, for a cause outside this list (or one the log does not show). */
  'unknown',
] as const;
export type LogClass = (typeof LOG_CLASSES)[number];

export interface LogVerdict {
  class: LogClass;
  /** The log line that decided the verdict, without ANSI codes and other tools' prefixes ('' when the log is empty). */
  evidence: string;
  /** What to change, in the engine's own flag names when the engine is known. */
  hint: string;
  /** 1-based line number of the evidence in the input, or null when there is none. */
  line: number | null;
  /** The engine, as given or recognised from the log. */
  engine?: EngineId;
}

/** Every typed knob an engine table maps, by the dotted path of its field in ServerConfig. */
export const KNOB_NAMES = [
  'servedModelName',
  'host',
  'port',
  ...PARALLEL_LAYOUT_KNOBS,
  'maxModelLen',
  'gpuMemoryFraction',
  'quantization',
  'kvCacheDtype',
  'maxRunningRequests',
  'chunkedPrefill',
  'maxBatchedTokens',
  'cudaGraphMaxBatchSize',
  'attentionBackend',
  'torchCompile',
  'speculative.algorithm',
  'speculative.draftModel',
  'speculative.numSteps',
  'speculative.eagleTopK',
  'speculative.numDraftTokens',
  'trustRemoteCode',
] as const;
export type KnobName = (typeof KNOB_NAMES)[number];
export type KnobValue = string | number | boolean;

/** A row applies only while another knob has (or lacks) a value. */
export interface KnobCondition {
  knob: KnobName;
  in: readonly KnobValue[];
}

/** Where a knob's value goes on one engine. */
export type KnobTarget =
  /** `--flag VALUE` (or `--flag=VALUE` for engines written that way). `yamlTwin`: moved into the options file when that file already holds the same section, since the file's section replaces the flag's. */
  | { kind: 'option'; flag: string; yamlTwin?: readonly string[] }
  /** A boolean knob: the words to add when true / when false (absent: the engine default, nothing added). */
  | { kind: 'switch'; on?: readonly string[]; off?: readonly string[] }
  /** An environment variable of the server process. */
  | { kind: 'env'; name: string }
  /** A key of the engine's options file (TensorRT-LLM's extra_llm_api_options YAML). */
  | { kind: 'yaml'; path: readonly string[] }
  /** A boolean knob that, when true, writes `value` at `path` in the options file. */
  | { kind: 'yaml-switch'; path: readonly string[]; on: unknown }
  /**
   * A size the engine does not take as a number: its group always spans the product of the `of` knobs (vLLM's
   * expert parallelism covers TP × DP). Size 1 writes nothing, the product writes `on`, any other size is refused with
   * `reason`. With `of: []` only 1 is possible; with `on: []` the size is implied by the other knobs.
   */
  | { kind: 'sized-switch'; on: readonly string[]; of: readonly KnobName[]; reason: string }
  /** One key of a JSON-valued flag (vLLM's --speculative-config). */
  | { kind: 'json'; flag: string; key: string }
  | { kind: 'unsupported'; reason: string };

/** One row of an engine's knob table. For each knob the first row whose version range and condition hold is used. */
export interface KnobRow {
  knob: KnobName;
  /** Engine versions this row is for: `since` inclusive, `until` exclusive. */
  since?: string;
  until?: string;
  when?: KnobCondition;
  to: KnobTarget;
  /** The values the engine accepts for this knob (its own spelling). */
  choices?: readonly string[];
  /** Engine spelling of engine-neutral values (speculative algorithm names). */
  values?: Readonly<Record<string, string>>;
  /** What this row's value means on this engine, when that differs from the knob's name. */
  note?: string;
}

/** How a flag consumes the words after it (the generated tables' arity, resources/engine-flags). */
export type FlagArity =
  /** store_true / store_false / store_const / click is_flag */
  | 'none'
  /** argparse BooleanOptionalAction, click `--x/--no-x`: `--x` and `--no-x` */
  | 'negatable'
  | 'one'
  /** nargs='?' */
  | 'optional'
  /** nargs='+' */
  | 'many'
  /** nargs='*' */
  | 'zero-or-more'
  /** action='append': one value per occurrence, repeatable */
  | 'repeatable'
  /** nargs=N with N > 1: exactly `count` values */
  | 'fixed';

export interface FlagSpec {
  /** The canonical name first, then aliases. */
  names: readonly string[];
  arity: FlagArity;
  /** For arity `fixed`: how many values. */
  count?: number;
  /** The values the parser accepts, when it restricts them. */
  choices?: readonly string[];
  /** JSON-valued flags that also take `--flag.key value` (vLLM). */
  dotted?: boolean;
  /** Registered, but its action refuses the command with this message. */
  refused?: string;
}

export interface FlagTable {
  /** Which command's table this is (`vllm`, `vllm-bench`, `sglang`, `trtllm`). */
  id: string;
  /** Which parser the engine's CLI uses, which decides spellings and abbreviations. */
  parser: 'vllm-argparse' | 'argparse' | 'click';
  /** The release this table was read from. */
  version: string;
  flags: readonly FlagSpec[];
}

export interface InstallSpec {
  /** Exact requirement strings for `pip install` / `uv pip install`. */
  pipSpecs: string[];
  /**
   * Packages that come from a vendor's index and from it alone: installed first, in their own step, with
   * `--index-url URL --no-deps`; the main step then takes every other package from the box's one configured index.
   * Indexes are never merged (`--extra-index-url` makes pip take the highest version from any of them, the
   * dependency-confusion pattern).
   */
  vendorIndex?: { url: string; specs: string[] };
  /** Extra words for pip (e.g. `--pre` for release candidates). */
  pipArgs?: string[];
  /** Extra words for `uv pip install` (e.g. `--torch-backend=auto`). */
  uvArgs?: string[];
  /** Python version to create the environment with, when the engine's docs name one. */
  python?: string;
  /** The engine's `requires-python`. */
  pythonRequires?: string;
  /** Python source that imports the engine and prints its version (run as `python -c`). */
  verifyImport: string;
  dockerImage?: string;
  /** OS packages the engine needs and pip cannot provide. */
  systemPackages?: string[];
  notes: string[];
}

/** How an engine takes a file a config names: its flag (checked against the version's table), or why it cannot. */
export type FileFlag =
  /** `accepts`: why this engine cannot read a file of that name, or undefined when it can. */
  | { flag: string; accepts?: (name: string) => string | undefined }
  | { unsupported: string };

export interface UnsupportedKnob {
  /** A typed knob, or a field naming a file (`chatTemplate`, `optionsFile`). */
  knob: KnobName | ConfigFileField;
  reason: string;
  /** The study file this is about (a file the engine cannot take, or an options file the typed options cannot join). */
  file?: string;
}

export interface ExtraFile {
  /** Where the launcher must write it before starting the server (relative paths are relative to the server's working directory). */
  path: string;
  content: string;
}

export interface BuiltCommand {
  /** The full command line, program first; quoting is the transport's job. */
  argv: string[];
  /** Environment for the server: the config's plain values plus those the knobs need. */
  env: Record<string, string>;
  /** Variables to resolve from the keychain at launch, by secret reference. */
  secretEnv: { name: string; secretRef: string }[];
  unsupported: UnsupportedKnob[];
  /** Notes about the command the user should see (e.g. a flag set twice). */
  warnings: string[];
  extraFiles?: ExtraFile[];
}

export interface BuildOptions {
  /** Directory for generated files such as TensorRT-LLM's options YAML (default: the working directory). */
  filesDir?: string;
  /**
   * The path a file the config names has where the server runs: the launcher's resolved box path. Default: for display,
   * `~/.servelab/files/<sha256>/<name>` when the reference is pinned, else the file's name.
   */
  filePath?: (ref: FileRef) => string;
  /**
   * The text of a file the config names, for an adapter that must read it: TensorRT-LLM writes its typed options into
   * the user's options YAML. Absent: the command is only shown, and such a merge is assumed to succeed.
   */
  fileText?: (ref: FileRef) => string | undefined;
}

export interface Readiness {
  healthPath: string;
  /** A log line that means the server answers requests. */
  readyLogPatterns: RegExp[];
  healthIsReadyWhen(status: number): boolean;
  notes: string[];
}

export interface StopStep {
  signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL';
  /** How long to wait for the process group to exit before the next step. */
  waitMs: number;
}

export interface StopPlan {
  /** Signal the whole process group: the engines fork workers (engine core, TP ranks, MPI). */
  processGroup: true;
  steps: StopStep[];
  notes: string[];
}

export interface ExtraArgIssue {
  index: number;
  arg: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface EngineAdapter {
  id: EngineId;
  displayName: string;
  /** Versions Servelab has the engine's own flag tables for, oldest first. */
  knownVersions: string[];
  /** The version a new study or install starts from: the one the example studies pin. */
  defaultVersion: string;
  /** The rows that map typed knobs to this engine's flags, in the order flags are written. */
  knobTable: readonly KnobRow[];
  /** The flag each file field (`chatTemplate`, `optionsFile`) is written with, or why the engine has none. */
  fileFlags: Readonly<Record<ConfigFileField, FileFlag>>;
  /** Flags the engine's CLI accepts at `version` (the nearest tabled version's for others). */
  flagTable(version: string): FlagTable;
  installSpec(version: string): InstallSpec;
  buildArgv(config: ServerConfig, version: string, options?: BuildOptions): BuiltCommand;
  readiness: Readiness;
  /** `exited`: the server process has ended (a quiet log is then a death, not a start in progress). */
  classifyLog(text: string, options?: { exited?: boolean }): LogVerdict;
  stopSignals: StopPlan;
}
