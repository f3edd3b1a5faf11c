// The simbox's argparse emulation against CPython's own argparse: the same flag-table entries, registered in the
// same order on a real ArgumentParser, must accept and refuse the same command lines with the same output
// (usage, "<prog>: error: …", exit status). The tables record CPython 3.11's messages, so the comparison runs
// on a Python 3.11; the same goes for difflib's close matches behind click's "Did you mean".
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatUsage, parseArgparse, parseClick, tableAction, UsageError, type TableEntry } from '../../resources/simbox/lib/argparse.mjs';
import { repoRoot } from '../helpers/repo';

const python = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
const python311 = python.status === 0 && python.stdout.trim() === '3.11';

interface Table {
  flags: (TableEntry & { versions: string[] })[];
}
const entries = (id: string, version: string) =>
  (JSON.parse(readFileSync(join(repoRoot, 'resources', 'engine-flags', `${id}.json`), 'utf8')) as Table).flags.filter((f) => f.versions.includes(version));

// Builds the parser from the same entries, in the same order, with the action each arity stands for.
const PY_PARSER = String.raw`
import argparse, json, sys
spec = json.load(sys.stdin)
p = argparse.ArgumentParser(prog=spec["prog"], usage=spec.get("usage"), add_help=False)
class Refused(argparse.Action):
    def __init__(self, option_strings, dest, message=None, **kw):
        super().__init__(option_strings, dest, nargs=0, **kw)
        self.message = message
    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(self.message)
for f in spec["entries"]:
    names, arity, kw = list(f["names"]), f["arity"], {}
    if "-h" in names or "--help" in names: kw["action"] = "help"
    elif f.get("refused"): kw.update(action=Refused, message=f["refused"])
    elif arity == "none": kw["action"] = "store_true"
    elif arity == "negatable":
        names = [n for n in names if not (n.startswith("--no-") and "--" + n[5:] in names)]
        kw["action"] = argparse.BooleanOptionalAction
    elif arity == "optional": kw["nargs"] = "?"
    elif arity == "many": kw["nargs"] = "+"
    elif arity == "zero-or-more": kw["nargs"] = "*"
    elif arity == "repeatable": kw["action"] = "append"
    elif arity == "fixed": kw["nargs"] = f["count"]
    if f.get("choices"):
        if all(c.lstrip("-").isdigit() for c in f["choices"]): kw.update(type=int, choices=[int(c) for c in f["choices"]])
        else: kw["choices"] = f["choices"]
    p.add_argument(*names, **kw)
for pos in spec.get("positionals", []): p.add_argument(pos["dest"], nargs=pos.get("nargs"))
out = []
import io, contextlib
for argv in spec["cases"]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err): ns = p.parse_args(argv)
        out.append({"code": 0, "values": {k: v for k, v in vars(ns).items() if v is not None}})
    except SystemExit as e:
        out.append({"code": e.code, "stderr": err.getvalue()})
print(json.dumps({"usage": p.format_usage(), "results": out}))
`;

function viaPython(spec: object): { usage: string; results: { code: number; stderr?: string; values?: Record<string, unknown> }[] } {
  const r = spawnSync('python3', ['-c', PY_PARSER], { input: JSON.stringify(spec), encoding: 'utf8', env: { ...process.env, COLUMNS: '80' } });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as ReturnType<typeof viaPython>;
}

function viaSimbox(spec: { prog: string; usage?: string; entries: TableEntry[]; positionals?: { dest: string; nargs?: string }[] }, argv: string[]) {
  const actions = spec.entries.map((e) => tableAction(e));
  try {
    const { values } = parseArgparse({ prog: spec.prog, ...(spec.usage ? { usage: spec.usage } : {}), actions, positionals: spec.positionals ?? [] }, argv);
    return { code: 0, values };
  } catch (err) {
    if (err instanceof UsageError) return { code: err.code, stderr: err.text };
    throw err;
  }
}

const compare = (spec: { prog: string; usage?: string; entries: TableEntry[]; positionals?: { dest: string; nargs?: string }[] }, cases: string[][]) => {
  const py = viaPython({ ...spec, cases });
  cases.forEach((argv, i) => {
    const js = viaSimbox(spec, argv);
    const want = py.results[i];
    expect({ argv, code: js.code, stderr: js.stderr }).toEqual({ argv, code: want?.code, stderr: want?.stderr });
    if (js.code !== 0) return;
    // The same values under the same dests (Python's unset store_true defaults are False, the simbox's absent).
    const mine = Object.fromEntries(Object.entries(js.values ?? {}).filter(([, v]) => v !== null));
    const theirs = Object.fromEntries(Object.entries(want?.values ?? {}).filter(([k, v]) => v !== false || k in mine));
    expect({ argv, values: mine }).toEqual({ argv, values: theirs });
  });
  return py;
};

describe.skipIf(!python311)('argparse emulation = CPython 3.11 argparse on the same table entries', () => {
  it('vllm serve 0.11.0: unknown, ambiguous and abbreviated options, nargs, choices, explicit values, positionals', () => {
    compare({ prog: 'vllm serve', usage: 'vllm serve [model_tag] [options]', entries: entries('vllm', '0.11.0'), positionals: [{ dest: 'model_tag', nargs: '?' }] }, [
      ['Qwen/Qwen3-8B', '--port', '8000'],
      ['--port', '8000', 'Qwen/Qwen3-8B'],
      ['Qwen/Qwen3-8B', '--bogus', '3', '--port', '1'],
      ['Qwen/Qwen3-8B', 'extra', 'words'],
      ['Qwen/Qwen3-8B', '--enable-lo'],
      ['Qwen/Qwen3-8B', '--enable-lora-b'],
      ['Qwen/Qwen3-8B', '--max-num-s', '4'],
      ['Qwen/Qwen3-8B', '--port'],
      ['Qwen/Qwen3-8B', '--port', '--host', 'x'],
      ['Qwen/Qwen3-8B', '--kv-cache-dtype', 'fp9'],
      ['Qwen/Qwen3-8B', '--kv-cache-dtype=fp8'],
      ['Qwen/Qwen3-8B', '--block-size', '3'],
      ['Qwen/Qwen3-8B', '--block-size', 'x'],
      ['Qwen/Qwen3-8B', '--enforce-eager=1'],
      ['Qwen/Qwen3-8B', '--no-enforce-eager', '--enable-prefix-caching'],
      ['Qwen/Qwen3-8B', '--served-model-name'],
      ['Qwen/Qwen3-8B', '--served-model-name', 'a', 'b', '--port', '1'],
      ['Qwen/Qwen3-8B', '--middleware', 'a', '--middleware', 'b'],
      ['Qwen/Qwen3-8B', '--hf-token', '--port', '1'],
      ['Qwen/Qwen3-8B', '-tp', '2', '-q', 'fp8'],
      ['Qwen/Qwen3-8B', '-tp2'],
      ['Qwen/Qwen3-8B', '-qfp8'],
      ['Qwen/Qwen3-8B', '--', '--port'],
      ['Qwen/Qwen3-8B', '--seed', '-1'],
      ['--headless', '--api-server-count', '2'],
    ]);
  });

  it('vllm bench serve 0.17.0: nargs=2, nargs=* and a unique prefix', () => {
    compare({ prog: 'vllm bench serve', usage: 'vllm bench serve [options]', entries: entries('vllm-bench', '0.17.0') }, [
      ['--timeline-itl-thresholds', '1'],
      ['--timeline-itl-thresholds', '1', '2'],
      ['--timeline-itl-thresholds=1'],
      ['--metadata', '--model', 'x'],
      ['--metadata', 'a=1', 'b=2', '--model', 'x'],
      ['--random-input', '100'],
      ['--dataset-name', 'nope'],
    ]);
  });

  it('SGLang 0.5.3.post3 and 0.5.18: the generated usage, refused and ambiguous options', () => {
    for (const version of ['0.5.3.post3', '0.5.18']) {
      const spec = { prog: 'launch_server.py', entries: entries('sglang', version) };
      const py = compare(spec, [['--model-path', 'm', '--enable-torch'], ['--model-path', 'm', '--tp', '2'], ['--model-path', 'm', '--lora-paths'], ['--model-path', 'm', '--enable-expert-distribution-metrics'], ['--model_path', 'm']]);
      expect(formatUsage('launch_server.py', spec.entries.map((e) => tableAction(e)), [], 80)).toBe(py.usage.trimEnd());
    }
  });
});

describe.skipIf(!python311)("click's close matches = difflib.get_close_matches", () => {
  it('suggests what click 8.1.3 would, from the table of trtllm-serve 1.2.0rc1', () => {
    const opts = entries('trtllm', '1.2.0rc1');
    const words = ['--tool_parser', '--max_seq_lenn', '--tp', '--max-batch-size', '--host_name', '--x', '--kv_cache_fraction', '--backend_type', '--log-level'];
    const r = spawnSync('python3', ['-c', 'import difflib,json,sys; d=json.load(sys.stdin); print(json.dumps([sorted(difflib.get_close_matches(w, d["opts"])) for w in d["words"]]))'], {
      input: JSON.stringify({ opts: opts.flatMap((e) => e.names), words }),
      encoding: 'utf8',
    });
    const expected = JSON.parse(r.stdout) as string[][];
    const actions = opts.map((e) => tableAction(e));
    words.forEach((w, i) => {
      let message = '';
      try {
        parseClick({ path: 'trtllm-serve serve', usageTail: '[OPTIONS] MODEL', actions, arguments: ['model'] }, ['m', w]);
      } catch (err) {
        message = err instanceof UsageError ? err.text : String(err);
      }
      const close = expected[i] ?? [];
      const suffix = close.length === 1 ? ` Did you mean ${close[0]}?` : close.length > 1 ? ` (Possible options: ${close.join(', ')})` : '';
      expect(message).toContain(`Error: No such option: ${w}${suffix}\n`);
    });
  });
});
