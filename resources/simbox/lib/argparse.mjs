// The engines' parsing libraries, emulated closely enough that a simulated engine accepts exactly what the real one
// accepts and refuses with the same words: CPython 3.11.7's argparse (Lib/argparse.py, _parse_known_args and the
// helpers it calls, ported step by step) for vLLM and SGLang, and click 8.1.3's OptionParser for trtllm-serve.
// The options themselves come from the generated flag tables (flag-tables.mjs); the argparse messages quoted here are
// those the tables record (scripts/flag-tables/library_messages.py) and CPython 3.11.7 Lib/argparse.py.

import { floatRepr, strRepr } from './pyfmt.mjs';

export class UsageError extends Error {
  constructor(text, code = 2) {
    super(text);
    this.text = text;
    this.code = code;
  }
}

/** argparse.ArgumentError: the message is prefixed with the argument's name when it is shown. */
class ArgumentError extends Error {
  constructor(action, message, named = false) {
    super(message);
    this.action = action;
    // The message already names the argument (a recorded format starting with "argument %(argument_name)s: ").
    this.named = named;
  }
}
/** argparse.ArgumentTypeError raised by a type function: its text is shown as it is. */
class ArgumentTypeError extends Error {}
/** ValueError/TypeError from a type function: argparse shows "invalid <type> value: <repr>". */
class TypeValueError extends Error {}

const ARITY_NARGS = { none: 0, negatable: 0, one: null, optional: '?', many: '+', 'zero-or-more': '*', repeatable: null };

/**
 * An argparse action from a flag-table entry ({names, arity, count?, choices?, json?, refused?}) and the simbox's
 * own knowledge of it: `type` (a value type, see convert()), `required`.
 */
export function tableAction(entry, extra = {}) {
  const names = entry.names;
  const long = names.find((n) => n.startsWith('--')) ?? names[0];
  const intChoices = Array.isArray(entry.choices) && entry.choices.length > 0 && entry.choices.every((c) => /^-?\d+$/.test(c));
  return {
    optionStrings: names,
    dest: long.replace(/^-+/, '').replace(/-/g, '_'),
    nargs: entry.arity === 'fixed' ? entry.count : ARITY_NARGS[entry.arity],
    kind: names.includes('-h') || names.includes('--help') ? 'help' : entry.refused ? 'refused' : entry.arity === 'negatable' ? 'negatable' : entry.arity === 'none' ? 'true' : entry.arity === 'repeatable' ? 'append' : 'store',
    // The tables keep choices as typed; an all-integer list comes from an int-typed option (vLLM Literal[1, 8, …],
    // SGLang type=int choices=[0, 1, 2, 3]), whose value argparse converts with int() before checking it.
    choices: entry.choices ? (intChoices ? entry.choices.map(Number) : entry.choices) : null,
    noneChoice: Boolean(extra.noneChoice && entry.choices?.includes('None')),
    type: extra.type ?? (intChoices ? 'int' : entry.json ? 'json' : null),
    refused: entry.refused ?? null,
    required: Boolean(extra.required),
    entry,
  };
}

/** The messages argparse formats (CPython 3.11.7 Lib/argparse.py:1871, :2263, :2552), as the tables record them. */
const ARGPARSE_MESSAGES = {
  unrecognized: 'unrecognized arguments: %s',
  ambiguous: 'ambiguous option: %(option)s could match %(matches)s',
  invalidChoice: 'argument %(argument_name)s: invalid choice: %(value)r (choose from %(choices)s)',
};

/** Python's `format % args` for the %s / %(name)s / %(name)r forms those messages use (`r` values given as repr). */
function pyPercent(format, args) {
  let positional = 0;
  return format.replace(/%(?:\((\w+)\))?([sr%])/g, (m, name, kind) => {
    if (kind === '%') return '%';
    return String(name !== undefined ? args[name] : Array.isArray(args) ? args[positional++] : args);
  });
}

const reprValue = (v) => (v === null ? 'None' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : floatRepr(v)) : strRepr(v));

/** Python's int(str): optional sign, digits with single underscores between them, surrounding whitespace. */
function pyInt(s) {
  const t = s.trim();
  if (!/^[-+]?\d+(?:_\d+)*$/.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}
/** Python's float(str). */
function pyFloatParse(s) {
  const t = s.trim();
  if (/^[-+]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?nan$/i.test(t)) return NaN;
  if (!/^[-+]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][-+]?\d+(?:_\d+)*)?$/.test(t)) return null;
  return Number(t.replace(/_/g, ''));
}

/** vLLM's human_readable_int (vllm/engine/arg_utils.py@v0.11.0:1740): 32768, 25.6k, 1K, 2M … */
function humanReadableInt(s) {
  const value = s.trim();
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT])$/.exec(value);
  if (m) {
    const [, number, suffix] = m;
    const decimal = { k: 1e3, m: 1e6, g: 1e9 }[suffix];
    if (decimal) return Math.trunc(Number(number) * decimal);
    const binary = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 }[suffix];
    if (binary) {
      if (!/^\d+$/.test(number)) {
        throw new ArgumentTypeError(`Decimals are not allowed with binary suffixes like ${suffix}. Did you mean to use ${number}${suffix.toLowerCase()} instead?`);
      }
      return Number(number) * binary;
    }
  }
  const n = pyInt(value);
  if (n === null) throw new TypeValueError();
  return n;
}

/** Python type names argparse prints in "invalid <name> value: …". */
const TYPE_NAMES = { int: 'int', float: 'float', human_int: 'human_readable_int', human_int_or_auto: 'human_readable_int_or_auto' };

/**
 * A type function's result. Types: null (str), 'int', 'float', 'human_int', 'human_int_or_auto' (vLLM 0.14+
 * max_model_len: -1/auto too), 'json' (JSON, or the string when it is not JSON: the simbox reads no value of these),
 * 'json_loads' (vLLM's optional_type(json.loads), --speculative-config), 'json_config' (a vLLM config dataclass parsed
 * with pydantic's TypeAdapter.validate_json, --compilation-config).
 */
function convert(action, raw) {
  switch (action.type) {
    case 'int': {
      const n = pyInt(raw);
      if (n === null) throw new TypeValueError();
      return n;
    }
    case 'float': {
      const x = pyFloatParse(raw);
      if (x === null) throw new TypeValueError();
      return x;
    }
    case 'human_int':
      return humanReadableInt(raw);
    case 'human_int_or_auto':
      // vllm/engine/arg_utils.py@v0.14.0 human_readable_int_or_auto: "-1" or "auto" is -1.
      if (raw.trim() === '-1' || raw.trim().toLowerCase() === 'auto') return -1;
      return humanReadableInt(raw);
    case 'json_loads':
      // optional_type → parse_type(json.loads) (vllm/engine/arg_utils.py@v0.11.0:72-92).
      if (raw === '' || raw === 'None') return null;
      try {
        return JSON.parse(raw);
      } catch {
        throw new ArgumentTypeError(`Value ${raw} cannot be converted to <function loads at 0x7f5c3b2e8ae0>.`);
      }
    case 'json_config':
      try {
        return JSON.parse(raw);
      } catch {
        // parse_dataclass raises ArgumentTypeError(repr(ValidationError)) (vllm/engine/arg_utils.py@v0.11.0:198-202).
        throw new ArgumentTypeError(`1 validation error for ${action.configClass ?? 'Config'}\n  Invalid JSON [type=json_invalid, input_value=${strRepr(raw)}, input_type=str]`);
      }
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      return raw;
  }
}

// --- argparse ------------------------------------------------------------------------------------------------

/** The nargs regex of Lib/argparse.py _get_nargs_pattern (optionals: no '-' allowed). */
function nargsPattern(action) {
  const n = action.nargs;
  let p;
  if (n === null || n === undefined) p = '(-*A-*)';
  else if (n === '?') p = '(-*A?-*)';
  else if (n === '*') p = '(-*[A-]*)';
  else if (n === '+') p = '(-*A[A-]*)';
  else p = `(-*${Array.from({ length: n }, () => 'A').join('-*')}-*)`;
  if (action.optionStrings.length > 0) p = p.replace(/-\*/g, '').replace(/-/g, '');
  return p;
}

const actionName = (action) => (action.optionStrings.length > 0 ? action.optionStrings.join('/') : action.metavar ?? action.dest);

/** `--x {a,b}` / `[--x X]` … of HelpFormatter._format_args. */
function formatArgs(action, defaultMetavar) {
  const metavar = action.metavar ?? (action.choices ? `{${action.choices.join(',')}}` : defaultMetavar);
  const n = action.nargs;
  if (n === null || n === undefined) return metavar;
  if (n === '?') return `[${metavar}]`;
  if (n === '*') return `[${metavar} ...]`;
  if (n === '+') return `${metavar} [${metavar} ...]`;
  return Array.from({ length: n }, () => metavar).join(' ');
}

/** HelpFormatter._format_actions_usage (no mutually exclusive groups). */
function actionsUsage(actions) {
  const parts = [];
  for (const a of actions) {
    if (a.optionStrings.length === 0) {
      const part = formatArgs(a, a.dest);
      parts.push(part);
      continue;
    }
    let part;
    if (a.nargs === 0) part = a.kind === 'negatable' ? a.optionStrings.join(' | ') : a.optionStrings[0];
    else part = `${a.optionStrings[0]} ${formatArgs(a, a.dest.toUpperCase())}`;
    parts.push(a.required ? part : `[${part}]`);
  }
  return parts
    .join(' ')
    .replace(/([[(]) /g, '$1')
    .replace(/ ([\])])/g, '$1')
    .replace(/[[(] *[\])]/g, '')
    .trim();
}

/**
 * argparse's generated usage (HelpFormatter._format_usage), wrapped at the terminal width less 2, as
 * shutil.get_terminal_size() reports it (COLUMNS, else 80). Options come in the order given.
 */
export function formatUsage(prog, actions, positionals = [], columns = Number(process.env.COLUMNS) || 80) {
  const prefix = 'usage: ';
  const textWidth = columns - 2;
  const optionals = actions.filter((a) => a.optionStrings.length > 0);
  const actionUsage = actionsUsage([...optionals, ...positionals]);
  let usage = [prog, actionUsage].filter(Boolean).join(' ');
  if (prefix.length + usage.length > textWidth) {
    const partRe = /\(.*?\)+(?=\s|$)|\[.*?\]+(?=\s|$)|\S+/g;
    const optParts = actionsUsage(optionals).match(partRe) ?? [];
    const posParts = actionsUsage(positionals).match(partRe) ?? [];
    const getLines = (parts, indent, pre = null) => {
      const lines = [];
      let line = [];
      let lineLen = pre !== null ? pre.length - 1 : indent.length - 1;
      for (const part of parts) {
        if (lineLen + 1 + part.length > textWidth && line.length > 0) {
          lines.push(indent + line.join(' '));
          line = [];
          lineLen = indent.length - 1;
        }
        line.push(part);
        lineLen += part.length + 1;
      }
      if (line.length > 0) lines.push(indent + line.join(' '));
      if (pre !== null) lines[0] = lines[0].slice(indent.length);
      return lines;
    };
    let lines;
    if (prefix.length + prog.length <= 0.75 * textWidth) {
      const indent = ' '.repeat(prefix.length + prog.length + 1);
      if (optParts.length > 0) lines = [...getLines([prog, ...optParts], indent, prefix), ...getLines(posParts, indent)];
      else if (posParts.length > 0) lines = getLines([prog, ...posParts], indent, prefix);
      else lines = [prog];
    } else {
      const indent = ' '.repeat(prefix.length);
      lines = getLines([...optParts, ...posParts], indent);
      if (lines.length > 1) lines = [...getLines(optParts, indent), ...getLines(posParts, indent)];
      lines = [prog, ...lines];
    }
    usage = lines.join('\n');
  }
  return `${prefix}${usage}`;
}

/**
 * Parses argv as CPython 3.11.7's ArgumentParser.parse_args would, for a parser holding `actions` (tableAction())
 * and `positionals` ({dest, nargs}). Returns {values: {dest: value}, given: Set<dest>, used: Map<dest, option string>}
 * or throws UsageError with what argparse prints (usage line, "<prog>: error: <message>", exit 2).
 * @param {{prog: string, usage?: string, actions: object[], positionals?: object[], allowAbbrev?: boolean,
 *   messages?: {unrecognized?: string, ambiguous?: string, invalidChoice?: string}, helpText?: string,
 *   parent?: {prog: string, usage: string}}} parser
 *   `messages`: the recorded Python %-formats (flag-tables.mjs parserAt); CPython's own strings otherwise.
 *   `usage`: the parser's fixed usage text (without "usage: "); absent: generated. `parent`: a subcommand's parser,
 *   whose leftover arguments the top-level parser reports as unrecognized (argparse's _SubParsersAction).
 */
export function parseArgparse(parser, argv) {
  const positionalActions = (parser.positionals ?? []).map((p) => ({ optionStrings: [], dest: p.dest, nargs: p.nargs ?? null, kind: 'store', choices: null, type: null, required: p.nargs !== '?' && p.nargs !== '*' }));
  const usage = parser.usage !== undefined ? `usage: ${parser.usage}` : formatUsage(parser.prog, parser.actions, positionalActions);
  const fail = (message, prog = parser.prog, use = usage) => {
    throw new UsageError(`${use}\n${prog}: error: ${message}\n`);
  };
  const allowAbbrev = parser.allowAbbrev !== false;
  const messages = { ...ARGPARSE_MESSAGES, ...Object.fromEntries(Object.entries(parser.messages ?? {}).filter(([, v]) => v)) };
  const optionMap = new Map();
  for (const a of parser.actions) for (const s of a.optionStrings) optionMap.set(s, a);

  // _get_option_tuples (Lib/argparse.py:2264)
  const optionTuples = (arg) => {
    const result = [];
    if (arg[1] === '-') {
      if (!allowAbbrev) return result;
      const eq = arg.indexOf('=');
      const prefix = eq >= 0 ? arg.slice(0, eq) : arg;
      const explicit = eq >= 0 ? arg.slice(eq + 1) : null;
      for (const [s, a] of optionMap) if (s.startsWith(prefix)) result.push([a, s, explicit]);
    } else {
      const short = arg.slice(0, 2);
      const shortExplicit = arg.slice(2);
      for (const [s, a] of optionMap) {
        if (s === short) result.push([a, s, shortExplicit]);
        else if (s.startsWith(arg)) result.push([a, s, null]);
      }
    }
    return result;
  };
  // _parse_optional (Lib/argparse.py:2217)
  const parseOptional = (arg) => {
    if (!arg || arg[0] !== '-') return null;
    if (optionMap.has(arg)) return [optionMap.get(arg), arg, null];
    if (arg.length === 1) return null;
    if (arg.includes('=')) {
      const i = arg.indexOf('=');
      const s = arg.slice(0, i);
      if (optionMap.has(s)) return [optionMap.get(s), s, arg.slice(i + 1)];
    }
    const tuples = optionTuples(arg);
    if (tuples.length > 1) fail(pyPercent(messages.ambiguous, { option: arg, matches: tuples.map((t) => t[1]).join(', ') }));
    if (tuples.length === 1) return tuples[0];
    if (/^-\d+$|^-\d*\.\d+$/.test(arg)) return null;
    if (arg.includes(' ')) return null;
    return [null, arg, null];
  };

  const optionIndices = new Map();
  const patternParts = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') {
      patternParts.push('-');
      for (let j = i + 1; j < argv.length; j++) patternParts.push('A');
      break;
    }
    const t = parseOptional(argv[i]);
    if (t === null) patternParts.push('A');
    else {
      optionIndices.set(i, t);
      patternParts.push('O');
    }
  }
  const pattern = patternParts.join('');

  const values = {};
  const given = new Set();
  const used = new Map();
  const seen = new Set();

  const matchArgument = (action, patternStr) => {
    const m = new RegExp(`^${nargsPattern(action)}`).exec(patternStr);
    if (!m) {
      const n = action.nargs;
      const msg =
        n === null || n === undefined ? 'expected one argument' : n === '?' ? 'expected at most one argument' : n === '+' ? 'expected at least one argument' : `expected ${n} argument${n === 1 ? '' : 's'}`;
      throw new ArgumentError(action, msg);
    }
    return m[1].length;
  };

  const getValue = (action, s) => {
    try {
      return convert(action, s);
    } catch (err) {
      if (err instanceof ArgumentTypeError) throw new ArgumentError(action, err.message);
      if (err instanceof TypeValueError) throw new ArgumentError(action, `invalid ${TYPE_NAMES[action.type] ?? action.type} value: ${strRepr(s)}`);
      throw err;
    }
  };
  const checkValue = (action, value) => {
    if (action.choices && !action.choices.includes(value)) {
      throw new ArgumentError(action, pyPercent(messages.invalidChoice, { argument_name: actionName(action), value: reprValue(value), choices: action.choices.map(reprValue).join(', ') }), true);
    }
  };
  // vLLM's optional_type turns '' and 'None' into None before argparse checks it against the choices.
  const valueOf = (action, s) => (action.noneChoice && (s === '' || s === 'None') ? null : getValue(action, s));
  // _get_values (Lib/argparse.py:2471)
  const getValues = (action, argStrings) => {
    const args = [...argStrings];
    const dd = args.indexOf('--');
    if (dd >= 0) args.splice(dd, 1);
    if (action.nargs === 0) return [];
    if (args.length === 0 && action.nargs === '?') return action.optionStrings.length > 0 ? action.const ?? null : null;
    if (args.length === 1 && (action.nargs === null || action.nargs === undefined || action.nargs === '?')) {
      const v = valueOf(action, args[0]);
      checkValue(action, v);
      return v;
    }
    const list = args.map((s) => valueOf(action, s));
    for (const v of list) checkValue(action, v);
    return list;
  };

  const takeAction = (action, argStrings, optionString = null) => {
    seen.add(action);
    const v = getValues(action, argStrings);
    given.add(action.dest);
    if (optionString) used.set(action.dest, optionString);
    switch (action.kind) {
      case 'help':
        throw new UsageError(parser.helpText ?? `${usage}\n`, 0);
      case 'refused':
        // DeprecatedAction(error_message=…) calls parser.error(message).
        fail(action.refused);
        break;
      case 'true':
        values[action.dest] = true;
        break;
      case 'negatable':
        // BooleanOptionalAction.__call__: not option_string.startswith('--no-').
        values[action.dest] = !optionString.startsWith('--no-');
        break;
      case 'append':
        (values[action.dest] ??= []).push(v);
        break;
      default:
        values[action.dest] = v;
    }
  };

  const extras = [];
  // consume_optional (Lib/argparse.py:1981)
  const consumeOptional = (startIndex) => {
    let [action, optionString, explicitArg] = optionIndices.get(startIndex);
    const tuples = [];
    let stop;
    for (;;) {
      if (action === null) {
        extras.push(argv[startIndex]);
        return startIndex + 1;
      }
      if (explicitArg !== null) {
        const argCount = matchArgument(action, 'A');
        if (argCount === 0 && optionString[1] !== '-' && explicitArg !== '') {
          tuples.push([action, [], optionString]);
          optionString = optionString[0] + explicitArg[0];
          const next = explicitArg.slice(1) || null;
          if (optionMap.has(optionString)) {
            action = optionMap.get(optionString);
            explicitArg = next;
          } else throw new ArgumentError(action, `ignored explicit argument ${strRepr(explicitArg)}`);
        } else if (argCount === 1) {
          stop = startIndex + 1;
          tuples.push([action, [explicitArg], optionString]);
          break;
        } else throw new ArgumentError(action, `ignored explicit argument ${strRepr(explicitArg)}`);
      } else {
        const start = startIndex + 1;
        const argCount = matchArgument(action, pattern.slice(start));
        stop = start + argCount;
        tuples.push([action, argv.slice(start, stop), optionString]);
        break;
      }
    }
    for (const [a, args, s] of tuples) takeAction(a, args, s);
    return stop;
  };

  let positionals = [...positionalActions];
  // consume_positionals (Lib/argparse.py:2062) with _match_arguments_partial
  const consumePositionals = (startIndex) => {
    const selected = pattern.slice(startIndex);
    let counts = [];
    for (let i = positionals.length; i > 0; i--) {
      const m = new RegExp(`^${positionals.slice(0, i).map(nargsPattern).join('')}`).exec(selected);
      if (m) {
        counts = m.slice(1).map((g) => g.length);
        break;
      }
    }
    for (const [k, count] of counts.entries()) {
      const action = positionals[k];
      const args = argv.slice(startIndex, startIndex + count);
      startIndex += count;
      // An optional positional matched with nothing keeps its default (None) and is not "given".
      if (count === 0 && action.nargs === '?') seen.add(action);
      else takeAction(action, args);
    }
    positionals = positionals.slice(counts.length);
    return startIndex;
  };

  try {
    let startIndex = 0;
    const maxOption = optionIndices.size > 0 ? Math.max(...optionIndices.keys()) : -1;
    while (startIndex <= maxOption) {
      const nextOption = Math.min(...[...optionIndices.keys()].filter((i) => i >= startIndex));
      if (startIndex !== nextOption) {
        const end = consumePositionals(startIndex);
        if (end > startIndex) {
          startIndex = end;
          continue;
        }
        startIndex = end;
      }
      if (!optionIndices.has(startIndex)) {
        extras.push(...argv.slice(startIndex, nextOption));
        startIndex = nextOption;
      }
      startIndex = consumeOptional(startIndex);
    }
    const stopIndex = consumePositionals(startIndex);
    extras.push(...argv.slice(stopIndex));
  } catch (err) {
    if (err instanceof ArgumentError) fail(err.named ? err.message : `argument ${actionName(err.action)}: ${err.message}`);
    throw err;
  }

  const required = [...parser.actions, ...positionalActions].filter((a) => a.required && !seen.has(a)).map(actionName);
  if (required.length > 0) fail(`the following arguments are required: ${required.join(', ')}`);
  if (extras.length > 0) {
    const message = pyPercent(messages.unrecognized, [extras.join(' ')]);
    if (parser.parent) fail(message, parser.parent.prog, `usage: ${parser.parent.usage}`);
    fail(message);
  }
  return { values, given, used };
}

// --- click ---------------------------------------------------------------------------------------------------

/**
 * Parses argv as a click 8.1.3 command (OptionParser, then each parameter's conversion) would: names matched
 * exactly, `--x v` / `--x=v`, flags without values, positional arguments anywhere. Errors as click's
 * UsageError.show prints them: the usage, "Try '<path> --help' for help.", a blank line and "Error: …"; exit 2.
 * @param {{path: string, usageTail: string, actions: object[], arguments?: string[], helpText?: string}} cmd
 */
export function parseClick(cmd, argv) {
  const fail = (message) => {
    throw new UsageError(`Usage: ${cmd.path} ${cmd.usageTail}\nTry '${cmd.path} --help' for help.\n\nError: ${message}\n`);
  };
  const longOpts = new Map();
  const shortOpts = new Map();
  for (const a of cmd.actions) for (const s of a.optionStrings) (s.startsWith('--') ? longOpts : shortOpts).set(s, a);
  const order = [];
  const raw = new Map();
  const largs = [];
  const rargs = [...argv];
  const takeValue = (name, action) => {
    const n = action.nargs === null || action.nargs === undefined ? 1 : action.nargs;
    if (rargs.length < n) fail(n === 1 ? `Option ${strRepr(name)} requires an argument.` : `Option ${strRepr(name)} requires ${n} arguments.`);
    return n === 1 ? rargs.shift() : rargs.splice(0, n);
  };
  const processOpt = (action, value) => {
    if (!raw.has(action)) order.push(action);
    if (action.kind === 'append') raw.set(action, [...(raw.get(action) ?? []), value]);
    else raw.set(action, value);
  };
  while (rargs.length > 0) {
    const arg = rargs.shift();
    if (arg === '--') {
      largs.push(...rargs.splice(0));
      break;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const eq = arg.indexOf('=');
      const name = eq >= 0 ? arg.slice(0, eq) : arg;
      const explicit = eq >= 0 ? arg.slice(eq + 1) : null;
      const action = longOpts.get(name) ?? (name.startsWith('--') ? null : shortOpts.get(name));
      if (!action) {
        if (!arg.startsWith('--')) {
          // _match_short_opt: each character is a short option of its own.
          const first = `-${arg[1]}`;
          if (!shortOpts.has(first)) fail(`No such option: ${first}`);
        }
        const close = closeMatches(name, [...longOpts.keys()]).sort();
        fail(`No such option: ${name}${close.length === 1 ? ` Did you mean ${close[0]}?` : close.length > 1 ? ` (Possible options: ${close.join(', ')})` : ''}`);
      }
      if (action.nargs === 0) {
        if (explicit !== null) fail(`Option ${strRepr(name)} does not take a value.`);
        processOpt(action, true);
      } else {
        if (explicit !== null) rargs.unshift(explicit);
        processOpt(action, takeValue(name, action));
      }
      continue;
    }
    largs.push(arg);
  }
  // Conversion, in invocation order (click's iter_params_for_processing).
  const values = {};
  const given = new Set();
  const hint = (action) => action.optionStrings.map((s) => `'${s}'`).join(' / ');
  for (const action of order) {
    if (action.kind === 'help') throw new UsageError(cmd.helpText ?? `Usage: ${cmd.path} ${cmd.usageTail}\n`, 0);
    const v = raw.get(action);
    given.add(action.dest);
    if (action.nargs === 0) {
      values[action.dest] = true;
      continue;
    }
    const one = (x) => {
      if (action.type === 'int') {
        const n = pyInt(x);
        if (n === null) fail(`Invalid value for ${hint(action)}: ${strRepr(x)} is not a valid integer.`);
        return n;
      }
      if (action.type === 'float') {
        const f = pyFloatParse(x);
        if (f === null) fail(`Invalid value for ${hint(action)}: ${strRepr(x)} is not a valid float.`);
        return f;
      }
      if (action.choices && !action.choices.includes(x)) {
        const list = action.choices.map(strRepr).join(', ');
        fail(`Invalid value for ${hint(action)}: ${strRepr(x)} is not ${action.choices.length === 1 ? list : `one of ${list}`}.`);
      }
      return x;
    };
    values[action.dest] = Array.isArray(v) ? v.map(one) : one(v);
  }
  const argNames = cmd.arguments ?? [];
  for (const [k, name] of argNames.entries()) {
    if (largs[k] === undefined) fail(`Missing argument ${strRepr(name.toUpperCase())}.`);
    values[name] = largs[k];
  }
  const rest = largs.slice(argNames.length);
  if (rest.length > 0) fail(`Got unexpected extra argument${rest.length > 1 ? 's' : ''} (${rest.join(' ')})`);
  return { values, given };
}

/** difflib.SequenceMatcher(None, a, b).ratio() (no junk: click's option names are far below autojunk's 200). */
function sequenceRatio(a, b) {
  const b2j = new Map();
  for (let j = 0; j < b.length; j++) {
    if (!b2j.has(b[j])) b2j.set(b[j], []);
    b2j.get(b[j]).push(j);
  }
  const longest = (alo, ahi, blo, bhi) => {
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map();
    for (let i = alo; i < ahi; i++) {
      const next = new Map();
      for (const j of b2j.get(a[i]) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    return [besti, bestj, bestsize];
  };
  let matches = 0;
  const queue = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop();
    const [i, j, k] = longest(alo, ahi, blo, bhi);
    if (k > 0) {
      matches += k;
      if (alo < i && blo < j) queue.push([alo, i, blo, j]);
      if (i + k < ahi && j + k < bhi) queue.push([i + k, ahi, j + k, bhi]);
    }
  }
  return a.length + b.length > 0 ? (2 * matches) / (a.length + b.length) : 1;
}

/** difflib.get_close_matches(word, possibilities, n=3, cutoff=0.6): best first, ties by the larger string. */
function closeMatches(word, candidates) {
  return candidates
    .map((c) => [sequenceRatio(c, word), c])
    .filter(([r]) => r >= 0.6)
    .sort((x, y) => y[0] - x[0] || (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0))
    .slice(0, 3)
    .map(([, c]) => c);
}
