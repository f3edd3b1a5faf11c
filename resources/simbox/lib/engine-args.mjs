// The simulated engines' parsers, built from the generated flag tables at the installed version: vLLM's
// FlexibleArgumentParser (`vllm serve`, `vllm bench serve`, the API server module), SGLang's argparse parser and
// trtllm-serve's click command. The tables give the flags; this module adds only what the tables do not hold:
// the value type of the flags the simulation reads, which options are required, and vLLM's argv rewriting.

import { readFileSync } from 'node:fs';
import { parseArgparse, parseClick, tableAction, UsageError } from './argparse.mjs';
import { flagsAt, parserAt } from './flag-tables.mjs';
import { traceback } from './pylog.mjs';
import { versionCompare } from './version.mjs';
import { parseYaml } from './yaml-lite.mjs';

const atLeast = (version, v) => versionCompare(version, v) >= 0;

/**
 * Value types of the flags whose values the simulation reads (performance-model knobs, ports, seeds, the
 * benchmark's workload). Every other flag keeps its string value. Types are those of the engines' parsers:
 * vLLM get_kwargs (vllm/engine/arg_utils.py: int, float, human_readable_int for max_model_len /
 * max_num_batched_tokens, human_readable_int_or_auto for max_model_len from 0.14.0), vllm/benchmarks/serve.py,
 * SGLang ServerArgs.add_cli_args (type=int / float), trtllm-serve's click options (int / float).
 */
const VALUE_TYPES = {
  vllm: (version) => ({
    '--port': 'int',
    '--seed': 'int',
    '--tensor-parallel-size': 'int',
    '--pipeline-parallel-size': 'int',
    '--data-parallel-size': 'int',
    '--decode-context-parallel-size': 'int',
    '--max-model-len': atLeast(version, '0.14.0') ? 'human_int_or_auto' : 'human_int',
    '--max-num-batched-tokens': 'human_int',
    '--max-num-seqs': 'int',
    '--gpu-memory-utilization': 'float',
    '--cuda-graph-sizes': 'int',
    '--cudagraph-capture-sizes': 'int',
    '--max-cudagraph-capture-size': 'int',
    '--speculative-config': 'json_loads',
    '--compilation-config': 'json_config',
  }),
  'vllm-bench': () => ({
    '--port': 'int',
    '--max-concurrency': 'int',
    '--num-prompts': 'int',
    '--seed': 'int',
    '--request-rate': 'float',
    '--burstiness': 'float',
    '--ramp-up-start-rps': 'int',
    '--ramp-up-end-rps': 'int',
    '--random-input-len': 'int',
    '--random-output-len': 'int',
    '--random-range-ratio': 'float',
    '--random-prefix-len': 'int',
    '--random-batch-size': 'int',
    '--sharegpt-output-len': 'int',
    '--ready-check-timeout-sec': 'int',
    '--logprobs': 'int',
    '--top-p': 'float',
    '--top-k': 'int',
    '--min-p': 'float',
    '--temperature': 'float',
  }),
  sglang: () => ({
    '--port': 'int',
    '--random-seed': 'int',
    '--tensor-parallel-size': 'int',
    '--pipeline-parallel-size': 'int',
    '--data-parallel-size': 'int',
    '--expert-parallel-size': 'int',
    '--context-length': 'int',
    '--mem-fraction-static': 'float',
    '--chunked-prefill-size': 'int',
    '--max-running-requests': 'int',
    '--cuda-graph-max-bs': 'int',
    '--cuda-graph-bs': 'int',
    '--speculative-num-steps': 'int',
    '--speculative-eagle-topk': 'int',
    '--speculative-num-draft-tokens': 'int',
  }),
  trtllm: () => ({
    '--port': 'int',
    '--tp_size': 'int',
    '--pp_size': 'int',
    '--ep_size': 'int',
    '--max_batch_size': 'int',
    '--max_num_tokens': 'int',
    '--max_seq_len': 'int',
    '--kv_cache_free_gpu_memory_fraction': 'float',
  }),
};

/**
 * Options registered with required=True, which the tables do not record: SGLang's --model-path
 * (python/sglang/srt/server_args.py@v0.5.3.post3:1429-1434; from 0.5.14 a dataclass field without a default, which
 * arg_groups/arg_utils.py:272-275 makes required); `vllm bench serve --model` up to 0.13.0
 * (vllm/benchmarks/serve.py@v0.11.0:934-937, @v0.13.0:1026-1029; required=False from 0.14.0, :1216-1219).
 */
const REQUIRED = {
  sglang: () => ['--model-path'],
  'vllm-bench': (version) => (atLeast(version, '0.14.0') ? [] : ['--model']),
};

/** The argparse actions of a table at a version. */
function actionsFor(id, version) {
  const types = VALUE_TYPES[id]?.(version) ?? {};
  const required = REQUIRED[id]?.(version) ?? [];
  return flagsAt(id, version).map((entry) => {
    const type = entry.names.map((n) => types[n]).find(Boolean);
    const action = tableAction(entry, {
      type,
      required: entry.names.some((n) => required.includes(n)),
      noneChoice: id === 'vllm' || id === 'vllm-bench',
    });
    if (type === 'json_config') action.configClass = 'CompilationConfig';
    return action;
  });
}

/** A parse result's value for a flag, by any of its names at this version (undefined when not given). */
export function flagValue(parsed, actions, name) {
  const action = actions.find((a) => a.optionStrings.includes(name));
  return action ? parsed.values[action.dest] : undefined;
}

/** Raised where the real engine raises before its parser runs (vLLM's parse_args): printed as a traceback, exit 1. */
export class PythonExit extends Error {
  constructor(text, code = 1) {
    super(text);
    this.text = text;
    this.code = code;
  }
}

// --- vLLM ----------------------------------------------------------------------------------------------------

/** Top-level `vllm` usage (vllm/entrypoints/cli/main.py: the same five command modules at 0.11.0 … 0.17.1). */
export const VLLM_TOP_USAGE = 'vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...';

const VLLM_SITE = '/usr/lib/python3/dist-packages/vllm';

/** A vLLM log line as the parser's module logs it (before the API server prefixes its lines). */
function vllmLogLine(level, file, msg) {
  const d = new Date();
  const p = (n) => String(n).padStart(2, '0');
  return `${level} ${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} [${file}] ${msg}\n`;
}

/** vLLM's --config YAML: its keys become flags after the subcommand and model (the command line wins). */
function pullArgsFromConfig(args) {
  const i = args.indexOf('--config');
  const path = args[i + 1];
  let data;
  try {
    data = parseYaml(readFileSync(path, 'utf8'));
  } catch {
    throw new PythonExit(traceback([[`${VLLM_SITE}/utils/argparse_utils.py`, 1, 'load_config_file', null]], `FileNotFoundError: [Errno 2] No such file or directory: '${path}'`));
  }
  const extra = [];
  for (const [k, v] of Object.entries(data ?? {})) {
    const flag = `--${k}`;
    if (v === true) extra.push(flag);
    else if (v === false) continue;
    else if (Array.isArray(v)) extra.push(flag, ...v.map(String));
    else extra.push(flag, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const rest = [...args.slice(0, i), ...args.slice(i + 2)];
  const head = rest[0] === 'serve' ? (rest[1] && !rest[1].startsWith('-') ? 2 : 1) : rest[0] && !rest[0].startsWith('-') ? 1 : 0;
  return [...rest.slice(0, head), ...extra, ...rest.slice(head)];
}

/**
 * FlexibleArgumentParser.parse_args's rewriting of argv before argparse sees it (vllm/utils/__init__.py@v0.11.0:1848-1982,
 * vllm/utils/argparse_utils.py from 0.11.1): `vllm serve --model`, --config, `_` → `-` in option names, -O, and
 * `--flag.key value` gathered into one JSON value. `argv` is the whole command line after `vllm` (or, for the API
 * server module, its arguments). Returns the rewritten argv; warnings go to stdout as vLLM logs them.
 */
export function vllmRewriteArgv(argv, version, out = process.stdout) {
  let args = [...argv];
  if (args[0] === 'serve') {
    if (!atLeast(version, '0.11.1')) {
      // vllm/utils/__init__.py@v0.11.0:1857-1864
      if (args.some((a) => a === '--model')) {
        throw new PythonExit(
          traceback(
            [
              ['/usr/local/bin/vllm', 10, '<module>', 'sys.exit(main())'],
              [`${VLLM_SITE}/entrypoints/cli/main.py`, 54, 'main', 'args = parser.parse_args()'],
              [`${VLLM_SITE}/utils/__init__.py`, 1861, 'parse_args', 'raise ValueError('],
            ],
            'ValueError: With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option.',
          ),
        );
      }
    } else {
      // vllm/utils/argparse_utils.py@v0.11.1:198-232 (@v0.17.0:187-226 also takes --model=X via a regex)
      const isModel = atLeast(version, '0.17.0') ? (a) => /^--model(=.+|$)/.test(a) : (a) => a === '--model' || a.startsWith('--model=');
      const idx = args.findIndex(isModel);
      if (idx >= 0) {
        out.write(
          vllmLogLine('WARNING', 'argparse_utils.py', 'With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option. The `--model` option will be removed in v0.13.'),
        );
        const tag = args[idx] === '--model' ? args[idx + 1] : args[idx].slice('--model='.length);
        const restStart = args[idx] === '--model' ? idx + 2 : idx + 1;
        args = ['serve', tag, ...args.slice(1, idx), ...args.slice(restStart)];
      }
      // vllm/utils/argparse_utils.py@v0.17.0:220-232
      if (
        atLeast(version, '0.17.0') &&
        args.length > 1 &&
        String(args[1]).startsWith('-') &&
        !args.some((a) => /^--config(=.+|$)/.test(a)) &&
        args.some((a) => /^--served[-_]model[-_]name(=.+|$)/.test(a))
      ) {
        throw new PythonExit(
          traceback(
            [
              ['/usr/local/bin/vllm', 10, '<module>', 'sys.exit(main())'],
              [`${VLLM_SITE}/entrypoints/cli/main.py`, 73, 'main', 'args = parser.parse_args()'],
              [`${VLLM_SITE}/utils/argparse_utils.py`, 229, 'parse_args', 'raise ValueError('],
            ],
            'ValueError: `model` should be provided as the first positional argument when using `vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.',
          ),
        );
      }
    }
  }
  if (args.includes('--config')) args = pullArgsFromConfig(args);

  // `_` → `-` from the first `--` up to the first `.` (the table's underscore_dash fact); -O forms per version.
  const underscores = parserAt('vllm', version).underscoreDash;
  const dashes = (key) => (underscores ? key.replace(/^--([^.]*)/, (m, name) => `--${name.replace(/_/g, '-')}`) : key);
  const processed = [];
  for (let i = 0; i < args.length; i++) {
    const arg = String(args[i]);
    if (arg.startsWith('--help=')) processed.push('--help');
    else if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      processed.push(eq >= 0 ? `${dashes(arg.slice(0, eq))}=${arg.slice(eq + 1)}` : dashes(arg));
    } else if (arg.startsWith('-O') && arg !== '-O' && (atLeast(version, '0.13.0') || arg[2] !== '.')) {
      const level = arg[2] === '=' ? arg.slice(3) : arg.slice(2);
      // 0.11.0: -O.level=N (vllm/utils/__init__.py@v0.11.0:1891); 0.11.1–0.11.2: -O.mode=N
      // (vllm/utils/argparse_utils.py@v0.11.1:255-260); from 0.12.0: --optimization-level N (@v0.12.0:247-252).
      if (atLeast(version, '0.12.0')) processed.push('--optimization-level', level);
      else processed.push(`-O.${atLeast(version, '0.11.1') ? 'mode' : 'level'}=${level}`);
    } else if (arg === '-O' && i + 1 < args.length && ['0', '1', '2', '3'].includes(args[i + 1])) {
      if (atLeast(version, '0.12.0')) processed.push('--optimization-level');
      else processed.push(`-O.${atLeast(version, '0.11.1') ? 'mode' : 'level'}`);
    } else if (arg.startsWith('-O.') && versionCompare(version, '0.12.0') === 0) {
      // 0.12.0 only: -O.<key> is deprecated and becomes -cc.<key> (vllm/utils/argparse_utils.py@v0.12.0:260-270).
      out.write(
        vllmLogLine('WARNING', 'argparse_utils.py', 'The -O.* dotted syntax for --compilation-config is deprecated and will be removed in v0.13.0 or v1.0.0, whichever is earlier.  Please use -cc.* instead. Example: -cc.backend=eager instead of -O.backend=eager.'),
      );
      processed.push(arg.replace('-O', '-cc'));
    } else processed.push(arg);
  }

  // Dotted keys: `--flag.a.b v`, `--flag.a=v`, `--flag.list+ v1,v2` → `--flag {"a": {"b": v}}` at the end.
  const dictArgs = new Map();
  const drop = new Set();
  const merge = (target, update) => {
    for (const [k, v] of Object.entries(update)) {
      if (v && typeof v === 'object' && !Array.isArray(v) && target[k] && typeof target[k] === 'object' && !Array.isArray(target[k])) merge(target[k], v);
      else if (Array.isArray(v) && Array.isArray(target[k])) target[k].push(...v);
      else target[k] = v;
    }
  };
  for (let i = 0; i < processed.length; i++) {
    if (drop.has(i)) continue;
    let arg = processed[i];
    if (!(arg.startsWith('-') && arg.includes('.'))) continue;
    let valueStr;
    if (arg.includes('=')) {
      const eq = arg.indexOf('=');
      valueStr = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
      if (!arg.includes('.')) continue;
    } else {
      valueStr = processed[i + 1];
      drop.add(i + 1);
    }
    if (arg.endsWith('+')) {
      arg = arg.slice(0, -1);
      valueStr = JSON.stringify(String(valueStr).split(','));
    }
    const [key, ...keys] = arg.split('.');
    let value;
    try {
      value = JSON.parse(valueStr);
    } catch {
      value = valueStr;
    }
    let nested = value;
    for (const k of [...keys].reverse()) nested = { [k]: nested };
    if (!dictArgs.has(key)) dictArgs.set(key, {});
    merge(dictArgs.get(key), nested);
    drop.add(i);
  }
  const result = processed.filter((_, i) => !drop.has(i));
  for (const [key, value] of dictArgs) result.push(key, JSON.stringify(value));
  return result;
}

const VLLM_HELP = (usage) => `usage: ${usage}\n\nThe options of the real command are accepted (simulated by the Servelab simbox).\n`;

/**
 * `vllm serve` (subcommand parser) or the API server module's own parser (`python -m vllm.entrypoints.openai.api_server`,
 * the vLLM image's entrypoint): positional model_tag (vllm/entrypoints/openai/cli_args.py make_arg_parser) and the
 * table's flags. `args` are the rewritten arguments after `serve` (or all of them for the module).
 */
export function parseVllmServe(args, version, { module = false } = {}) {
  const actions = actionsFor('vllm', version);
  const facts = parserAt('vllm', version);
  const parser = module
    ? { prog: 'api_server.py', actions, positionals: [{ dest: 'model_tag', nargs: '?' }], allowAbbrev: facts.allowAbbrev, messages: facts.messages }
    : {
        prog: 'vllm serve',
        usage: 'vllm serve [model_tag] [options]',
        actions,
        positionals: [{ dest: 'model_tag', nargs: '?' }],
        allowAbbrev: facts.allowAbbrev,
        messages: facts.messages,
        parent: { prog: facts.prog ?? 'vllm', usage: VLLM_TOP_USAGE },
        helpText: VLLM_HELP('vllm serve [model_tag] [options]'),
      };
  const parsed = parseArgparse(parser, args);
  return { ...parsed, actions, get: (name) => flagValue(parsed, actions, name) };
}

/** `vllm bench serve` (the bench_type subparser of `vllm bench`). */
export function parseVllmBench(args, version) {
  const actions = actionsFor('vllm-bench', version);
  const facts = parserAt('vllm-bench', version);
  const parsed = parseArgparse(
    {
      prog: 'vllm bench serve',
      usage: 'vllm bench serve [options]',
      actions,
      allowAbbrev: facts.allowAbbrev,
      messages: facts.messages,
      parent: { prog: facts.prog ?? 'vllm', usage: VLLM_TOP_USAGE },
      helpText: VLLM_HELP('vllm bench serve [options]'),
    },
    args,
  );
  return { ...parsed, actions, get: (name) => flagValue(parsed, actions, name) };
}

// --- SGLang --------------------------------------------------------------------------------------------------

/** `python -m sglang.launch_server` (prog launch_server.py; `sglang serve` from 0.5.10, as the table records). */
export function parseSglang(args, version) {
  const actions = actionsFor('sglang', version);
  const facts = parserAt('sglang', version);
  const parsed = parseArgparse({ prog: facts.prog ?? 'launch_server.py', actions, allowAbbrev: facts.allowAbbrev, messages: facts.messages }, args);
  return { ...parsed, actions, get: (name) => flagValue(parsed, actions, name) };
}

// --- TensorRT-LLM --------------------------------------------------------------------------------------------

/** trtllm-serve's `serve` click command: the table's options and the MODEL argument. */
export function parseTrtllm(args, version) {
  const actions = actionsFor('trtllm', version);
  const parsed = parseClick({ path: 'trtllm-serve serve', usageTail: '[OPTIONS] MODEL', actions, arguments: ['model'] }, args);
  return { ...parsed, actions, get: (name) => flagValue(parsed, actions, name) };
}

/** The top-level keys TensorRT-LLM's LLM args accept in the extra-options YAML (trtllm-llm-api.json). */
export function trtllmYamlKeys(version) {
  return new Set(flagsAt('trtllm-llm-api', version).flatMap((e) => e.names));
}

export { UsageError };
