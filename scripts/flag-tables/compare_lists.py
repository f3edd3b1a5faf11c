#!/usr/bin/env python3
"""Compare resources/engine-flags/*.json with other flag lists: the hand-typed lists in src/shared/engines/*.ts and
resources/simbox/lib/engine-flags.mjs, and the flags used in the engines' own docs and examples at each release.

    python3 scripts/flag-tables/compare_lists.py                   # hand-typed lists vs tables
    python3 scripts/flag-tables/compare_lists.py --docs /work/engine-docs   # flags in shipped docs/examples

Read-only: it prints a report (README.md quotes it) and changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def table(name: str) -> dict:
    with open(os.path.join(REPO, "resources", "engine-flags", f"{name}.json"), encoding="utf-8") as fh:
        return json.load(fh)


def names_at(doc: dict, version: str) -> set[str]:
    out: set[str] = set()
    for f in doc["flags"]:
        if version in f["versions"]:
            out.update(f["names"])
    return out


def entry_at(doc: dict, version: str, name: str) -> dict | None:
    return next((f for f in doc["flags"] if version in f["versions"] and name in f["names"]), None)


def ts_flag_list(path: str, const: str) -> dict[str, str]:
    """Names -> arity from a parseFlagList(`...`) block (src/shared/engines/flag-list.ts syntax)."""
    text = open(path, encoding="utf-8").read()
    start = text.index(f"const {const} = parseFlagList(`") + len(f"const {const} = parseFlagList(`")
    block = text[start:text.index("`", start)]
    out: dict[str, str] = {}
    for raw in block.split("\n"):
        line = re.sub(r"#.*$", "", raw).strip()
        if not line:
            continue
        m = re.match(r"^(-[A-Za-z0-9_,.-]*?)([!~?+]?)(\.?)$", line)
        if not m:
            raise ValueError(line)
        arity = {"!": "none", "~": "negatable", "?": "optional", "+": "many"}.get(m.group(2), "one")
        for n in m.group(1).split(","):
            out[n] = arity
            if arity == "negatable" and n.startswith("--"):
                out["--no-" + n[2:]] = arity  # parseFlagList's `~` means the parser also takes --no-<name>
    return out


def mjs_opts(path: str, marker: str) -> set[str]:
    """Flag names from an opts(`...`) block of resources/simbox/lib/engine-flags.mjs."""
    text = open(path, encoding="utf-8").read()
    start = text.index(marker)
    start = text.index("opts(`", start) + len("opts(`")
    block = text[start:text.index("`", start)]
    out: set[str] = set()
    for raw in block.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        for n in line.split("|")[0].split(","):
            out.add(n)
    return out


def mjs_array_flags(path: str, marker: str) -> set[str]:
    """Flag names from the `['--a,--b', ...]` rows of a function in engine-flags.mjs (all rows, any version)."""
    text = open(path, encoding="utf-8").read()
    start = text.index(marker)
    body = text[start:text.index("\n}\n", start)]
    out: set[str] = set()
    for m in re.finditer(r"\['(--[^']+)'", body):
        out.update(m.group(1).split(","))
    return out


def arity_of(entry: dict) -> str:
    return entry["arity"]


def report_hand_lists() -> None:
    ts = os.path.join(REPO, "src", "shared", "engines")
    mjs = os.path.join(REPO, "resources", "simbox", "lib", "engine-flags.mjs")
    cases = [
        ("vllm", "vllm.ts VLLM_FLAGS", ts_flag_list(os.path.join(ts, "vllm.ts"), "VLLM_FLAGS"), ["0.11.0"]),
        ("sglang", "sglang.ts SGLANG_FLAGS", ts_flag_list(os.path.join(ts, "sglang.ts"), "SGLANG_FLAGS"),
         ["0.5.3.post3", "0.5.5", "0.5.5.post1"]),
        ("trtllm", "trtllm.ts TRTLLM_FLAGS", ts_flag_list(os.path.join(ts, "trtllm.ts"), "TRTLLM_FLAGS"),
         ["main-4c05a748"]),
    ]
    simbox = [
        ("vllm", "engine-flags.mjs VLLM_SERVE_OPTIONS", mjs_opts(mjs, "VLLM_SERVE_OPTIONS"), ["0.11.0"]),
        ("vllm-bench", "engine-flags.mjs VLLM_BENCH_OPTIONS", mjs_opts(mjs, "VLLM_BENCH_OPTIONS"), ["0.11.0"]),
        ("sglang", "engine-flags.mjs sglangOptions()", mjs_opts(mjs, "export function sglangOptions"),
         ["0.5.3.post3", "0.5.5.post1"]),
        ("trtllm", "engine-flags.mjs trtllmOptions()", mjs_array_flags(mjs, "export function trtllmOptions"),
         ["main-4c05a748"]),
    ]
    for name, label, hand, versions in cases + [(n, l, {k: "" for k in s}, v) for n, l, s, v in simbox]:
        doc = table(name)
        for ver in versions:
            real = names_at(doc, ver)
            listed = set(hand)
            missing = sorted(real - listed)
            bogus = sorted(listed - real)
            wrong = []
            for n, ar in hand.items():
                e = entry_at(doc, ver, n)
                if e and ar and arity_of(e) != ar:
                    wrong.append(f"{n} ({ar} -> {arity_of(e)})")
            print(f"{label} vs {name}.json@{ver}: table {len(real)} names, list {len(listed)}; "
                  f"missing from list {len(missing)}; not in parser {len(bogus)}; arity differs {len(wrong)}")
            if bogus:
                print(f"    not in parser: {' '.join(bogus)}")
            if wrong:
                print(f"    arity: {'; '.join(sorted(wrong))}")
            if missing:
                print(f"    missing: {' '.join(missing)}")


FLAG_RE = re.compile(r"(?<![\w-])(--[A-Za-z][A-Za-z0-9_-]*)")


def commands_in(text: str, starters: list[str]) -> list[list[str]]:
    """Shell commands (with backslash continuations joined) that start with one of the starters."""
    out = []
    joined = re.sub(r"\\\n", " ", text)
    for line in joined.split("\n"):
        for s in starters:
            i = line.find(s)
            if i >= 0:
                out.append(FLAG_RE.findall(line[i + len(s):].split("|")[0].split("&&")[0].split(";")[0]))
    return out


def report_docs(docs_root: str) -> None:
    spec = [
        ("vllm", "vllm", ["vllm serve "], [".md", ".sh", ".yaml", ".yml"]),
        ("vllm-bench", "vllm", ["vllm bench serve "], [".md", ".sh"]),
        ("sglang", "sglang", ["sglang.launch_server ", "sglang serve "], [".md", ".sh", ".py", ".ipynb", ".mdx"]),
    ]
    for name, engine, starters, exts in spec:
        doc = table(name)
        versions = [v["version"] for v in doc["versions"]]
        for ver in versions:
            root = os.path.join(docs_root, engine, ver)
            if not os.path.isdir(root):
                continue
            real = names_at(doc, ver)
            used: dict[str, set[str]] = {}
            for dirpath, _, files in os.walk(root):
                for f in files:
                    if not f.endswith(tuple(exts)):
                        continue
                    p = os.path.join(dirpath, f)
                    try:
                        text = open(p, encoding="utf-8", errors="replace").read()
                    except OSError:
                        continue
                    for flags in commands_in(text, starters):
                        for fl in flags:
                            used.setdefault(fl, set()).add(os.path.relpath(p, root))
            unknown = {fl: sorted(ps) for fl, ps in used.items() if fl not in real
                       and not (name.startswith("vllm") and fl.replace("_", "-") in real)
                       and not (name == "vllm" and fl.split(".")[0].replace("_", "-") in real)}
            print(f"{name}@{ver}: {len(used)} distinct flags in `{starters[0].strip()}` commands of docs/examples; "
                  f"{len(used) - len(unknown)} in the table; {len(unknown)} not")
            for fl in sorted(unknown):
                key = fl.replace("_", "-") if name.startswith("vllm") else fl
                longs = sorted(n for n in real if n.startswith("--"))
                pref = [n for n in longs if n.startswith(key)]
                how = ("unique prefix of " + pref[0] + " (accepted: allow_abbrev)") if len(pref) == 1 else (
                    "ambiguous prefix of " + ", ".join(pref[:4]) if pref else "refused by the parser")
                print(f"    {fl}: {how}; in {', '.join(unknown[fl][:3])}{' ...' if len(unknown[fl]) > 3 else ''}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", help="directory with <engine>/<version>/ docs+examples trees")
    args = ap.parse_args()
    if args.docs:
        report_docs(args.docs)
    else:
        report_hand_lists()
    return 0


if __name__ == "__main__":
    sys.exit(main())
