// Just enough of Python's argparse (and of click, for trtllm-serve) to accept exactly the flags a real CLI has and
// to fail as it fails: same messages, usage line and exit code 2.

export class UsageError extends Error {
  constructor(text, code = 2) {
    super(text);
    this.text = text;
    this.code = code;
  }
}

/**
 * Option spec: {flags: ['--tensor-parallel-size', '-tp'], type: 'str'|'int'|'float'|'json'|'human_int'|'true'|'bool'|
 *   'list'|'optional'|'append', choices?, required?, dest?}
 *   'true': store_true; 'bool': BooleanOptionalAction (also --no-x); 'list': nargs='+'; 'optional': nargs='?'.
 */
export function destOf(opt) {
  if (opt.dest) return opt.dest;
  const long = opt.flags.find((f) => f.startsWith('--')) ?? opt.flags[0];
  return long.replace(/^-+/, '').replace(/-/g, '_');
}

function metavar(opt) {
  if (opt.choices) return `{${opt.choices.join(',')}}`;
  return destOf(opt).toUpperCase();
}

/** argparse's auto-generated usage, wrapped like HelpFormatter at `width` columns. */
export function autoUsage(prog, options, positionals = [], width = 78) {
  const parts = ['[-h]'];
  for (const o of options) {
    const f = o.flags[0];
    let part;
    if (o.type === 'true') part = f;
    else if (o.type === 'bool') part = `${f} | --no-${f.replace(/^--/, '')}`;
    else if (o.type === 'list') part = `${f} ${metavar(o)} [${metavar(o)} ...]`;
    else if (o.type === 'optional') part = `${f} [${metavar(o)}]`;
    else part = `${f} ${metavar(o)}`;
    parts.push(o.required ? part : `[${part}]`);
  }
  for (const p of positionals) parts.push(p.nargs === '?' ? `[${p.name}]` : p.name);
  const head = `usage: ${prog} `;
  const lines = [];
  let line = head;
  const indent = ' '.repeat(head.length);
  for (const part of parts) {
    if (line.length + part.length + 1 > width && line.trim() !== `usage: ${prog}`) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${part} `;
  }
  lines.push(line.trimEnd());
  return lines.join('\n');
}

const pyRepr = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function convert(opt, raw, label) {
  const bad = (kind) => new Error(`argument ${label}: invalid ${kind} value: ${pyRepr(raw)}`);
  let v;
  switch (opt.type) {
    case 'int':
      if (!/^[-+]?\d+$/.test(raw.trim())) throw bad('int');
      v = Number(raw);
      break;
    case 'float':
      if (raw.trim() === '' || !Number.isFinite(Number(raw)) && !/^[-+]?(inf|nan)$/i.test(raw.trim())) throw bad('float');
      v = Number(raw);
      break;
    case 'human_int': {
      // vLLM's human_readable_int: 32768, 32k, 1M, 25.6k…
      const m = /^(\d+(?:\.\d+)?)([kKmMgGtT]?)$/.exec(raw.trim());
      if (!m) throw new Error(`argument ${label}: invalid human_readable_int value: ${pyRepr(raw)}`);
      const mult = { '': 1, k: 1000, K: 1024, m: 1e6, M: 1024 ** 2, g: 1e9, G: 1024 ** 3, t: 1e12, T: 1024 ** 4 }[m[2]];
      v = Math.round(Number(m[1]) * mult);
      break;
    }
    case 'json':
      try {
        v = JSON.parse(raw);
      } catch {
        throw new Error(`argument ${label}: invalid loads value: ${pyRepr(raw)}`);
      }
      break;
    default:
      v = raw;
  }
  if (opt.choices && !opt.choices.includes(String(raw))) {
    throw new Error(`argument ${label}: invalid choice: ${pyRepr(raw)} (choose from ${opt.choices.map(pyRepr).join(', ')})`);
  }
  return v;
}

/**
 * Parses argv like argparse (allow_abbrev, `--x=v`, `-tp 2`). Returns {values, extras, given} or throws UsageError.
 * @param {{prog: string, usage?: string, options: object[], positionals?: {name: string, nargs?: string}[],
 *   underscores?: boolean, allowAbbrev?: boolean, extrasProg?: string, extrasUsage?: string}} parser
 *   extrasProg/extrasUsage: unrecognized arguments are reported by the top-level parser (subcommands).
 */
export function parseArgs(parser, argv) {
  const usage = parser.usage ?? autoUsage(parser.prog, parser.options, parser.positionals);
  const fail = (message, prog = parser.prog, use = usage) => {
    throw new UsageError(`${use}\n${prog}: error: ${message}\n`);
  };
  if (argv.includes('-h') || argv.includes('--help')) {
    throw new UsageError(`${usage}\n\nThe options of the real command are accepted (simulated by the Servelab simbox).\n`, 0);
  }
  const byFlag = new Map();
  for (const o of parser.options) {
    for (const f of o.flags) byFlag.set(f, { opt: o, negated: false });
    if (o.type === 'bool') for (const f of o.flags.filter((x) => x.startsWith('--'))) byFlag.set(`--no-${f.slice(2)}`, { opt: o, negated: true });
  }
  const longFlags = [...byFlag.keys()].filter((f) => f.startsWith('--'));
  const values = {};
  const given = new Set();
  const positionals = [];
  const extras = [];
  const posSpecs = parser.positionals ?? [];

  const lookup = (flag) => {
    if (byFlag.has(flag)) return { ...byFlag.get(flag), flag };
    if (parser.allowAbbrev !== false && flag.startsWith('--')) {
      const matches = longFlags.filter((f) => f.startsWith(flag));
      const distinct = [...new Set(matches.map((m) => byFlag.get(m).opt))];
      if (matches.length === 1 || distinct.length === 1) return { ...byFlag.get(matches[0]), flag: matches[0] };
      if (matches.length > 1) fail(`ambiguous option: ${flag} could match ${matches.join(', ')}`);
    }
    return null;
  };

  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const isOption = arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg);
    if (!isOption) {
      positionals.push(arg);
      continue;
    }
    let inline = null;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (parser.underscores && arg.startsWith('--')) arg = `--${arg.slice(2).replace(/_/g, '-')}`;
    let hit = lookup(arg);
    if (!hit && !arg.startsWith('--')) {
      // Short option with attached value: -tp2, -O3, -O.level=3, -qfp8.
      for (const [flag] of byFlag) {
        if (!flag.startsWith('--') && arg.startsWith(flag) && arg.length > flag.length) {
          hit = { ...byFlag.get(flag), flag };
          inline = arg.slice(flag.length).replace(/^=/, '');
          break;
        }
      }
    }
    if (!hit) {
      extras.push(argv[i]);
      continue;
    }
    const { opt, negated } = hit;
    const label = opt.flags.join('/');
    const dest = destOf(opt);
    given.add(dest);
    try {
      if (opt.type === 'true' || opt.type === 'bool') {
        if (inline !== null) fail(`argument ${label}: ignored explicit argument ${pyRepr(inline)}`);
        values[dest] = !negated;
        continue;
      }
      if (opt.type === 'list') {
        const list = inline !== null ? [inline] : [];
        while (inline === null && i + 1 < argv.length && !(argv[i + 1].startsWith('-') && argv[i + 1].length > 1 && !/^-\d/.test(argv[i + 1]))) list.push(argv[++i]);
        if (list.length === 0) fail(`argument ${label}: expected at least one argument`);
        values[dest] = list.map((x) => convert({ ...opt, type: opt.itemType ?? 'str' }, x, label));
        continue;
      }
      if (opt.type === 'optional') {
        if (inline !== null) values[dest] = inline;
        else if (i + 1 < argv.length && !argv[i + 1].startsWith('-')) values[dest] = argv[++i];
        else values[dest] = opt.const ?? true;
        continue;
      }
      let raw = inline;
      if (raw === null) {
        if (i + 1 >= argv.length || (argv[i + 1].startsWith('-') && argv[i + 1].length > 1 && !/^-\d/.test(argv[i + 1]) && !/^-?\d*\.?\d+$/.test(argv[i + 1]))) {
          fail(`argument ${label}: expected one argument`);
        }
        raw = argv[++i];
      }
      const v = convert(opt, raw, label);
      if (opt.type === 'append') (values[dest] ??= []).push(v);
      else values[dest] = v;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      fail(err.message);
    }
  }

  // Positionals in order; surplus ones are unrecognized.
  let p = 0;
  for (const spec of posSpecs) {
    if (p < positionals.length) values[spec.name] = positionals[p++];
    else if (spec.nargs !== '?') fail(`the following arguments are required: ${spec.name}`);
  }
  extras.push(...positionals.slice(p));
  const missing = parser.options.filter((o) => o.required && !given.has(destOf(o)));
  if (missing.length > 0) fail(`the following arguments are required: ${missing.map((o) => o.flags.join('/')).join(', ')}`);
  if (extras.length > 0) fail(`unrecognized arguments: ${extras.join(' ')}`, parser.extrasProg ?? parser.prog, parser.extrasUsage ?? usage);
  return { values, given };
}

/**
 * click-style parsing (trtllm-serve): no abbreviations, `--x v` or `--x=v`, flags without values.
 * Errors look like click's: usage, a "Try … --help" line, a blank line and "Error: …"; exit 2.
 */
export function parseClick(cmd, argv) {
  const fail = (message) => {
    throw new UsageError(`Usage: ${cmd.path} ${cmd.usageTail}\nTry '${cmd.path} --help' for help.\n\nError: ${message}\n`);
  };
  const byFlag = new Map();
  for (const o of cmd.options) for (const f of o.flags) byFlag.set(f, o);
  const values = {};
  const given = new Set();
  const positionals = [];
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    let inline = null;
    const eq = arg.indexOf('=');
    if (eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const opt = byFlag.get(arg);
    if (!opt) {
      const close = closeMatches(arg, [...byFlag.keys()]);
      fail(`No such option: ${arg}${close.length === 1 ? ` Did you mean ${close[0]}?` : close.length > 1 ? ` (Possible options: ${close.join(', ')})` : ''}`);
    }
    const dest = opt.dest ?? opt.flags[0].replace(/^--/, '');
    given.add(dest);
    if (opt.type === 'flag') {
      if (inline !== null) fail(`Option '${arg}' does not take a value.`);
      values[dest] = true;
      continue;
    }
    let raw = inline;
    if (raw === null) {
      if (i + 1 >= argv.length) fail(`Option '${arg}' requires an argument.`);
      raw = argv[++i];
    }
    if (opt.type === 'int' && !/^[-+]?\d+$/.test(raw.trim())) fail(`Invalid value for '${opt.flags.join("' / '")}': '${raw}' is not a valid integer.`);
    if (opt.type === 'float' && !Number.isFinite(Number(raw))) fail(`Invalid value for '${opt.flags.join("' / '")}': '${raw}' is not a valid float.`);
    if (opt.choices && !opt.choices.includes(raw)) {
      fail(`Invalid value for '${opt.flags.join("' / '")}': '${raw}' is not one of ${opt.choices.map((c) => `'${c}'`).join(', ')}.`);
    }
    values[dest] = opt.type === 'int' || opt.type === 'float' ? Number(raw) : raw;
  }
  for (const [k, spec] of (cmd.arguments ?? []).entries()) {
    if (positionals[k] === undefined) fail(`Missing argument '${spec.toUpperCase()}'.`);
    values[spec] = positionals[k];
  }
  if (positionals.length > (cmd.arguments ?? []).length) fail(`Got unexpected extra argument (${positionals.slice((cmd.arguments ?? []).length).join(' ')})`);
  return { values, given };
}

/** difflib.get_close_matches(word, possibilities, n=3, cutoff=0.6) with a simple ratio. */
function closeMatches(word, candidates) {
  const ratio = (a, b) => {
    // Longest-common-subsequence based similarity, close enough to SequenceMatcher for suggestions.
    const m = a.length;
    const n = b.length;
    const dp = Array.from({ length: m + 1 }, () => new Array(n + 1).fill(0));
    for (let i = 1; i <= m; i++) for (let j = 1; j <= n; j++) dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
    return (2 * dp[m][n]) / (m + n);
  };
  return candidates
    .map((c) => [c, ratio(word, c)])
    .filter(([, r]) => r >= 0.6)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([c]) => c);
}
