"""From recorded add_argument calls (or click options, or pydantic fields) to the checked-in JSON tables."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Iterable

from static_eval import ArgCall, ClassRef, ExtractError, Sym, Unknown

ARITIES = ("none", "negatable", "one", "optional", "many", "zero-or-more", "repeatable", "fixed")

STORE_NONE = {"store_true", "store_false", "store_const", "count", "help", "version", "append_const"}
ARGPARSE_ACTION_CLASSES = {
    "_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false", "_StoreConstAction": "store_const",
    "_CountAction": "count", "_HelpAction": "help", "_VersionAction": "version", "_AppendAction": "append",
    "_AppendConstAction": "append_const", "_StoreAction": "store", "BooleanOptionalAction": "boolean_optional",
    "Action": "store",
}


@dataclass(frozen=True)
class Variant:
    names: tuple[str, ...]
    arity: str
    choices: tuple[str, ...] | None
    json: bool = False
    count: int | None = None  # only for arity "fixed" (nargs=N, N > 1)
    refused: str | None = None  # the option exists but its action calls parser.error(<this message>)


def _nargs_to_arity(nargs: Any, where: str) -> str:
    if nargs is None:
        return "one"
    if nargs == "?":
        return "optional"
    if nargs == "+":
        return "many"
    if nargs == "*":
        return "zero-or-more"
    if nargs == 0:
        return "none"
    if nargs == 1:
        return "one"
    if isinstance(nargs, int) and nargs > 1:
        return "fixed"
    if nargs == "...":
        raise ExtractError(f"{where}: nargs=REMAINDER")
    raise ExtractError(f"{where}: nargs not static: {nargs!r}")


def _action_class_nargs(cls: ClassRef) -> tuple[str | None, Any]:
    """(builtin action kind it derives from, nargs its __init__ forces or defaults to)."""
    base_kind = None
    for c in cls.mro():
        for b in c.bases:
            if isinstance(b, Sym) and b.qual.startswith("argparse."):
                base_kind = ARGPARSE_ACTION_CLASSES.get(b.last, "store")
    for c in cls.mro():
        init = next((s for s in c.body_stmts() if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is None:
            continue
        a = init.args
        params = a.args + a.kwonlyargs
        defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
        for p, d in zip(params, defaults):
            if p.arg == "nargs" and d is not None:
                return base_kind, ("param", ast.literal_eval(d))
        for n in ast.walk(init):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__":
                for kw in n.keywords:
                    if kw.arg == "nargs" and isinstance(kw.value, ast.Constant):
                        return base_kind, ("forced", kw.value.value)
        return base_kind, None
    return base_kind, None


def classify_argparse(call: ArgCall) -> Variant | None:
    names = [n for n in call.option_strings]
    if not names or not names[0].startswith("-"):
        return None  # positional
    kw = call.kwargs
    action = kw.get("action")
    nargs = kw.get("nargs")
    where = call.where
    arity: str
    if action is None or action == "store":
        arity = _nargs_to_arity(nargs, where)
    elif isinstance(action, str):
        if action in STORE_NONE:
            arity = "none"
        elif action == "append":
            arity = "repeatable"
        elif action == "extend":
            arity = "repeatable"
        else:
            raise ExtractError(f"{where}: unknown action {action!r}")
    elif isinstance(action, Sym):
        kind = ARGPARSE_ACTION_CLASSES.get(action.last)
        if kind == "boolean_optional":
            arity = "negatable"
            extra = []
            for n in names:
                extra.append(n)
                if n.startswith("--"):
                    extra.append("--no-" + n[2:])
            names = extra
        elif kind in STORE_NONE:
            arity = "none"
        elif kind == "append":
            arity = "repeatable"
        elif kind == "store":
            arity = _nargs_to_arity(nargs, where)
        else:
            raise ExtractError(f"{where}: unknown action {action.qual}")
    elif isinstance(action, ClassRef):
        base_kind, forced = _action_class_nargs(action)
        if forced is not None and forced[0] == "forced":
            arity = _nargs_to_arity(forced[1], where)
        elif nargs is not None:
            arity = _nargs_to_arity(nargs, where)
        elif forced is not None:
            arity = _nargs_to_arity(forced[1], where)
        elif base_kind in STORE_NONE:
            arity = "none"
        elif base_kind == "boolean_optional":
            raise ExtractError(f"{where}: subclass of BooleanOptionalAction")
        else:
            arity = "one"
    else:
        raise ExtractError(f"{where}: action not static: {action!r}")
    choices = kw.get("choices")
    ch: tuple[str, ...] | None = None
    if choices is not None and arity not in ("none", "negatable"):
        if isinstance(choices, Unknown) or not isinstance(choices, (list, tuple, set, dict)):
            raise ExtractError(f"{where}: choices not static for {names[0]}: {choices!r}")
        if isinstance(choices, dict):
            vals = list(choices.keys())
        elif isinstance(choices, (set, frozenset)):
            vals = sorted(choices, key=str)  # a set has no order argparse could show
        else:
            vals = list(choices)
        if any(isinstance(v, Unknown) for v in vals):
            raise ExtractError(f"{where}: a choice is not static for {names[0]}: {vals!r}")
        ch = tuple(_choice_text(v) for v in vals)
    count = None
    if arity == "fixed":
        count = nargs if isinstance(nargs, int) else (forced[1] if isinstance(action, ClassRef) and forced else None)
    refused = None
    if isinstance(action, ClassRef) and isinstance(kw.get("error_message"), str):
        for c in action.mro():
            call = next((st for st in c.body_stmts() if isinstance(st, ast.FunctionDef) and st.name == "__call__"), None)
            if call is not None:
                if "parser.error(self.error_message)" in ast.unparse(call):
                    refused = kw["error_message"]
                break
    return Variant(tuple(names), arity, ch, bool(kw.get("_json")), count, refused)


def _choice_text(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (str, int, float)):
        return str(v)
    if v is None:
        return "None"
    if hasattr(v, "name") and hasattr(v, "value"):
        return str(v.value) if isinstance(v.value, str) else v.name
    raise ExtractError(f"choice of unexpected type {v!r}")


def check_unique(variants: list[Variant], version: str) -> None:
    seen: dict[str, Variant] = {}
    for v in variants:
        for n in v.names:
            if n in seen:
                raise ExtractError(f"{version}: option {n} registered twice (argparse would raise a conflict)")
            seen[n] = v


def version_key(v: str) -> tuple[Any, ...]:
    """PEP 440-ish ordering for the versions used here (0.5.3.post3, 1.2.0rc1, 0.11.0)."""
    m = re.match(r"^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?$", v)
    if not m:
        # a snapshot label such as "main-4c05a748": after every release, in label order
        return (999999, 0, 0, 0), (2, v, 0), -1
    release = tuple(int(x) for x in m.group(1).split("."))
    pre = (0, m.group(2), int(m.group(3))) if m.group(2) else (1, "", 0)
    post = int(m.group(4)) if m.group(4) else -1
    return release + (0,) * (4 - len(release)), pre, post


def merge(per_version: dict[str, list[Variant]]) -> list[dict[str, Any]]:
    """One entry per distinct variant of a flag, with the versions that have it."""
    versions = sorted(per_version, key=version_key)
    by_variant: dict[Variant, list[str]] = {}
    for ver in versions:
        for var in per_version[ver]:
            by_variant.setdefault(var, []).append(ver)
    entries = []
    for var, vers in by_variant.items():
        e: dict[str, Any] = {"names": list(var.names), "arity": var.arity}
        if var.count is not None:
            e["count"] = var.count
        if var.choices is not None:
            e["choices"] = list(var.choices)
        if var.json:
            e["json"] = True
        if var.refused is not None:
            e["refused"] = var.refused
        e["versions"] = vers
        entries.append(e)
    entries.sort(key=lambda e: (e["names"][0], version_key(e["versions"][0]), json.dumps(e, sort_keys=True)))
    return entries


def write_table(path: str, header: dict[str, Any], flags: list[dict[str, Any]]) -> None:
    doc = dict(header)
    doc["flags"] = flags
    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    # Keep short lists (names, choices, versions) on one line each; it keeps diffs readable.
    text = _compact_lists(text)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def _compact_lists(text: str) -> str:
    pattern = re.compile(r"\[\n(\s+)((?:\"(?:[^\"\\]|\\.)*\"|-?\d+(?:\.\d+)?|true|false|null)"
                         r"(?:,\n\s+(?:\"(?:[^\"\\]|\\.)*\"|-?\d+(?:\.\d+)?|true|false|null))*)\n(\s*)\]")

    def repl(m: re.Match[str]) -> str:
        items = [s.strip() for s in re.split(r",\n\s+", m.group(2))]
        return "[" + ", ".join(items) + "]"

    return pattern.sub(repl, text)


def diff_examples(per_version: dict[str, list[Variant]]) -> list[str]:
    """Flag names that appear or disappear, and flags whose arity/choices/aliases change, between consecutive
    versions (a flag renamed but kept as an alias is not "removed")."""
    versions = sorted(per_version, key=version_key)
    notes = []

    def show(items: list[str]) -> str:
        return ", ".join(items[:8]) + (f" ... (+{len(items) - 8})" if len(items) > 8 else "")

    for a, b in zip(versions, versions[1:]):
        na, nb = iter_names(per_version[a]), iter_names(per_version[b])
        by_a = {n: v for v in per_version[a] for n in v.names}
        by_b = {n: v for v in per_version[b] for n in v.names}
        added = sorted(n for n in nb - na if not n.startswith("--no-"))
        removed = sorted(n for n in na - nb if not n.startswith("--no-"))
        changed = sorted({by_b[n].names[0] for n in na & nb if by_a[n] != by_b[n]})
        parts = [f"{a} -> {b}: +{len(added)} -{len(removed)} ~{len(changed)}"]
        if added:
            parts.append("added " + show(added))
        if removed:
            parts.append("removed " + show(removed))
        if changed:
            parts.append("changed " + show(changed))
        notes.append("; ".join(parts))
    return notes


def iter_names(variants: Iterable[Variant]) -> set[str]:
    out: set[str] = set()
    for v in variants:
        out.update(v.names)
    return out
