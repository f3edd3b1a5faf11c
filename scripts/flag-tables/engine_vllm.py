"""vLLM: `vllm serve` (EngineArgs / AsyncEngineArgs / FrontendArgs / make_arg_parser) and `vllm bench serve`."""

from __future__ import annotations

import ast
import hashlib
from typing import Any

from static_eval import (
    CallList,
    ArgSink,
    ClassRef,
    ExtractError,
    Frame,
    Instance,
    Interp,
    Module,
    Recorder,
    SourceTree,
    Sym,
    SubparsersRec,
    TypeEvaluator,
    Unknown,
    dataclass_fields,
    th_args,
    th_is,
    th_is_dataclass,
    th_module,
    th_origin,
)

# ---------------------------------------------------------------------------------------------------------------
# get_kwargs: the reviewed variants.
#
# `get_kwargs(ConfigClass)` (vllm/engine/arg_utils.py) turns every dataclass field into argparse kwargs.  Its
# helpers were read at every release; the fingerprint of each helper (AST with docstrings and long strings
# blanked) is listed with the behaviour it implies for arity and choices.  A release whose helpers hash to
# something new stops the extraction until the code has been read and a variant added here.
# ---------------------------------------------------------------------------------------------------------------

# Features that matter for the table:
#   union_type: get_type_hints() also splits PEP 604 unions (`X | None`); without it such a hint is one opaque
#               types.UnionType object (which is "not builtin", so the field becomes `type=str`).
#   set_branch: `set[...]` fields become nargs="+" (collection_to_kwargs); before, they fall through.
KNOWN_HELPERS: dict[str, dict[str, bool]] = {}  # filled by _register below


def _register(fingerprints: dict[str, str], features: dict[str, bool]) -> None:
    KNOWN_HELPERS[_combine(fingerprints)] = features


def _normalise(node: ast.AST) -> str:
    node = ast.parse(ast.unparse(node))
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body and isinstance(
                n.body[0], ast.Expr) and isinstance(getattr(n.body[0], "value", None), ast.Constant) and isinstance(
                n.body[0].value.value, str):
            n.body[0].value.value = ""
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) > 12:
            n.value = ""
        if isinstance(n, ast.JoinedStr):
            n.values = []
    return ast.dump(node, annotate_fields=False)


HELPER_NAMES = ("_compute_kwargs", "get_type_hints", "literal_to_kwargs", "collection_to_kwargs", "is_type",
                "contains_type", "get_type", "is_not_builtin")


def helper_fingerprints(arg_utils: Module) -> dict[str, str]:
    out = {}
    for n in arg_utils.ast.body:
        if isinstance(n, ast.FunctionDef) and n.name in HELPER_NAMES:
            out[n.name] = hashlib.sha256(_normalise(n).encode()).hexdigest()[:12]
    return out


def _combine(fps: dict[str, str]) -> str:
    return ",".join(f"{k}={fps[k]}" for k in sorted(fps))


# ---------------------------------------------------------------------------------------------------------------
# The emulation of _compute_kwargs (arity, choices, JSON-ness only: defaults and help are irrelevant here)
# ---------------------------------------------------------------------------------------------------------------


def get_type_hints_vllm(th: Any, union_type: bool) -> list[Any]:
    """vllm.engine.arg_utils.get_type_hints: unwrap Annotated and Union (and, from 0.11.1, X | Y)."""
    out: list[Any] = []
    origin = th_origin(th)
    if origin == "Annotated":
        out.extend(get_type_hints_vllm(th[1], union_type))
    elif origin == "Union" or (union_type and origin == "UnionType"):
        for a in th_args(th):
            out.extend(get_type_hints_vllm(a, union_type))
    else:
        out.append(th)
    return out


def _contains(hints: list[Any], t: str) -> bool:
    return any(th_is(h, t) for h in hints)


def _get(hints: list[Any], t: str) -> Any:
    return next((h for h in hints if th_is(h, t)), None)


def _is_not_builtin(h: Any, where: str) -> bool:
    mod = th_module(h)
    if mod is None:
        raise ExtractError(f"{where}: a string annotation reaches is_not_builtin (AttributeError at runtime)")
    if mod == "unknown":
        raise ExtractError(f"{where}: cannot resolve type hint {h!r}")
    return mod != "builtins"


def _literal_to_kwargs(hints: list[Any]) -> dict[str, Any]:
    lit = _get(hints, "Literal")
    options = list(lit[1])
    kw = "metavar" if _contains(hints, "str") else "choices"
    try:
        ordered = sorted(options)
    except TypeError:
        ordered = options
    return {kw: ordered}


def compute_kwargs(interp: Interp, cls: ClassRef, features: dict[str, bool]) -> dict[str, dict[str, Any]]:
    te = TypeEvaluator(interp)
    out: dict[str, dict[str, Any]] = {}
    for f in dataclass_fields(cls):
        where = f"{interp.tree.rel(f.module.path)}:{f.lineno}"
        th = te.from_node(Frame(interp, f.module, {}, cls=f.owner, class_body=f.owner), f.annotation)
        if th[0] == "wrap":
            raise ExtractError(f"{where}: unexpected {th[1]} field")
        hints = get_type_hints_vllm(th, features["union_type"])
        kw: dict[str, Any] = {"default": Unknown("default"), "help": ""}
        dc = next((h for h in hints if th_is_dataclass(h)), None)
        elem_literal = None
        if dc is not None:
            kw["type"] = Sym("vllm.parse_dataclass")
            kw["_json"] = True
        elif _contains(hints, "bool"):
            kw["action"] = Sym("argparse.BooleanOptionalAction")
        elif _contains(hints, "Literal"):
            kw["type"] = Sym("literal")
            kw.update(_literal_to_kwargs(hints))
        elif _contains(hints, "tuple"):
            t = _get(hints, "tuple")
            args = th_args(t)
            kw["type"] = Sym("elem")
            kw["nargs"] = "+" if (not args or any(a[0] == "ellipsis" for a in args)) else len(args)
            elem_literal = args[0] if args and args[0][0] == "lit" else None
        elif _contains(hints, "list") or (features["set_branch"] and _contains(hints, "set")):
            t = _get(hints, "list") if _contains(hints, "list") else _get(hints, "set")
            args = th_args(t)
            kw["type"] = Sym("elem")
            kw["nargs"] = "+"
            elem_literal = args[0] if args and args[0][0] == "lit" else None
        elif _contains(hints, "int"):
            kw["type"] = Sym("builtins.int")
        elif _contains(hints, "float"):
            kw["type"] = Sym("builtins.float")
        elif _contains(hints, "dict") and (_contains(hints, "str") or any(_is_not_builtin(h, where) for h in hints)):
            kw["type"] = Sym("vllm.union_dict_and_str")
            kw["_json"] = True
        elif _contains(hints, "dict"):
            kw["type"] = Sym("json.loads")
            kw["_json"] = True
        elif _contains(hints, "str") or any(_is_not_builtin(h, where) for h in hints):
            kw["type"] = Sym("builtins.str")
        else:
            raise ExtractError(f"{where}: Unsupported type {hints} for argument {f.name} (ValueError at runtime)")
        if elem_literal is not None:
            # `if get_origin(kwargs[name].get("type")) is Literal: kwargs[name].update(literal_to_kwargs(...))`
            kw.update(_literal_to_kwargs([elem_literal]))
        if any(h[0] == "none" for h in hints) and not _contains(hints, "bool"):
            if kw.get("choices"):
                kw["choices"] = list(kw["choices"]) + ["None"]
        out[f.name] = kw
    return out


def _hook_get_kwargs(features: dict[str, bool]):
    def hook(interp: Interp, frame: Frame, node: ast.AST, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        cls = args[0] if args else kwargs.get("cls")
        if not isinstance(cls, ClassRef):
            raise ExtractError(f"{interp.where(frame, node)}: get_kwargs of a non-class {cls!r}")
        return compute_kwargs(interp, cls, features)

    return hook


def _registry(interp: Interp, package: str, manager: str) -> dict[str, Any]:
    """Names registered with `@<manager>.register_module(name)` by the modules a package's __init__ imports."""
    pkg = interp.tree.load(package)
    names: dict[str, Any] = {}
    for stmt in pkg.ast.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            mod = interp.tree.load(f"{package}.{stmt.module}")
            for node in mod.ast.body:
                if not isinstance(node, ast.ClassDef):
                    continue
                for d in node.decorator_list:
                    if (isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "register_module"
                            and ast.unparse(d.func.value) == manager):
                        frame = Frame(interp, mod, {})
                        arg = d.args[0] if d.args else next((k.value for k in d.keywords if k.arg == "name"), None)
                        value = interp.eval(frame, arg) if arg is not None else node.name
                        for n in value if isinstance(value, (list, tuple)) else [value]:
                            if not isinstance(n, str):
                                raise ExtractError(f"{mod.name}: registry name not static")
                            names[n] = node.name
    return names


# ---------------------------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------------------------


def make_interp(root: str, argv: list[str]) -> tuple[Interp, dict[str, bool], dict[str, str]]:
    tree = SourceTree(root, [""])
    interp = Interp(tree)
    interp.sym_values["sys.argv"] = list(argv)
    arg_utils = tree.load("vllm.engine.arg_utils")
    fps = helper_fingerprints(arg_utils)
    key = _combine(fps)
    if key not in KNOWN_HELPERS:
        raise ExtractError(f"vllm/engine/arg_utils.py get_kwargs helpers changed ({key}); read them and add a variant")
    features = KNOWN_HELPERS[key]
    interp.intercepts["vllm.engine.arg_utils.get_kwargs"] = _hook_get_kwargs(features)
    interp.intercepts["vllm.plugins.load_general_plugins"] = lambda *a: None
    interp.attr_hooks[("vllm.reasoning.abs_reasoning_parsers.ReasoningParserManager", "reasoning_parsers")] = (
        lambda it, cls: _registry(it, "vllm.reasoning", "ReasoningParserManager"))
    return interp, features, fps


def serve_calls(root: str) -> list[Any]:
    """Run `ServeSubcommand().subparser_init(subparsers)` from vllm/entrypoints/cli/serve.py."""
    interp, _, _ = make_interp(root, ["vllm", "serve", "MODEL"])
    sink = ArgSink()
    mod = interp.tree.load("vllm.entrypoints.cli.serve")
    cls = mod.get(interp, "ServeSubcommand")
    if not isinstance(cls, ClassRef):
        raise ExtractError("ServeSubcommand not found")
    inst = Instance(kind=cls.qualname, args=[], kwargs={}, cls=cls)
    method = interp.getattr(inst, "subparser_init")
    interp.call(Frame(interp, mod, {}), cls.node, method, [SubparsersRec(sink)], {})
    return CallList(sink.calls, interp.conditional_notes)


def bench_serve_calls(root: str) -> list[Any]:
    """`vllm bench serve`: BenchmarkSubcommand adds a subparser per BenchmarkSubcommandBase subclass and calls
    `cmd_cls.add_cli_args(cmd_subparser)`; for `serve` that is vllm/entrypoints/cli/benchmark/serve.py."""
    interp, _, _ = make_interp(root, ["vllm", "bench", "serve"])
    sink = ArgSink()
    mod = interp.tree.load("vllm.entrypoints.cli.benchmark.serve")
    cls = mod.get(interp, "BenchmarkServingSubcommand")
    if not isinstance(cls, ClassRef) or cls.lookup("name") != "serve":
        raise ExtractError("BenchmarkServingSubcommand(name='serve') not found")
    method = interp.getattr(cls, "add_cli_args")
    interp.call(Frame(interp, mod, {}), cls.node, method, [Recorder(sink)], {})
    return CallList(sink.calls, interp.conditional_notes)


# ---------------------------------------------------------------------------------------------------------------
# Parser-level behaviour (FlexibleArgumentParser.parse_args)
# ---------------------------------------------------------------------------------------------------------------


def parser_facts(root: str, stdlib_argparse: dict[str, str]) -> dict[str, Any]:
    """What FlexibleArgumentParser.parse_args does to argv before argparse sees it, with the lines that do it."""
    import library_messages

    tree = SourceTree(root, [""])
    modname = "vllm.utils.argparse_utils" if tree.has_module("vllm.utils.argparse_utils") else "vllm.utils"
    mod = tree.load(modname)
    cls = next(n for n in ast.walk(mod.ast) if isinstance(n, ast.ClassDef) and n.name == "FlexibleArgumentParser")
    parse_args = next(n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "parse_args")
    rel = tree.rel(mod.path)

    def line_of(pred: Any) -> int | None:
        for n in ast.walk(parse_args):
            if pred(n):
                return n.lineno
        return None

    underscore = line_of(lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                         and n.func.attr == "replace" and [ast.unparse(a) for a in n.args] in (["'_'", "'-'"],))
    o_branch = next((n for n in ast.walk(parse_args) if isinstance(n, ast.If)
                     and "startswith('-O')" in ast.unparse(n.test).replace('"', "'")), None)
    o_text = None
    if o_branch is not None:
        body = ast.unparse(ast.Module(body=o_branch.body, type_ignores=[]))
        if "--optimization-level" in body:
            o_text = (f"-O<n> and -O=<n> become '--optimization-level <n>' ({rel}:{o_branch.lineno}); "
                      "-O.<key> stays a dotted key of --compilation-config")
        else:
            consts = [c.value for c in ast.walk(ast.Module(body=o_branch.body, type_ignores=[]))
                      if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value.startswith("-O.")]
            target = consts[0].rstrip("=") if consts else "?"
            o_text = (f"-O<n> and -O=<n> become '{target}=<n>' ({rel}:{o_branch.lineno}), a dotted key of "
                      f"--compilation-config (alias -O); '-O <n>' with n in 0..3 becomes '{target} <n>'")
    model_flag = None
    for n in ast.walk(parse_args):
        if isinstance(n, ast.Raise) and "--model" in ast.unparse(n):
            model_flag = (f"`vllm serve ... --model X` raises ValueError ({rel}:{n.lineno}): "
                          "\"With `vllm serve`, you should provide the model as a positional argument or in a config "
                          "file instead of via the `--model` option.\"")
        elif isinstance(n, ast.Call) and ast.unparse(n.func).endswith("logger.warning") and "--model" in ast.unparse(n):
            model_flag = (f"`vllm serve ... --model X` logs a warning and moves X to the positional model tag "
                          f"({rel}:{n.lineno})")
    dotted = line_of(lambda n: isinstance(n, ast.Call) and ast.unparse(n.func) == "json.dumps")
    return {
        "parser_class": f"FlexibleArgumentParser ({rel}:{cls.lineno}), an argparse.ArgumentParser subclass; the "
                        "serve and bench subcommand parsers come from add_subparsers().add_parser(), so they are "
                        "FlexibleArgumentParser too",
        "underscore_dash": (f"yes: parse_args ({rel}:{underscore}) rewrites '_' to '-' in each '--' argument up to "
                            "the first '.', so --max_num_seqs works; the value after '=' is untouched")
        if underscore else "no",
        "allow_abbrev": [True, "argparse default: allow_abbrev is never passed, so an unambiguous prefix of a long "
                               "option (e.g. --max-num-s for --max-num-seqs) is accepted"],
        "equals_value": True,
        "dotted_json_keys": (f"yes: '--flag.key value', '--flag.key=value' and '--flag.key+ v' are gathered into "
                             f"one JSON object and passed on as '--flag <json>' ({rel}:{dotted})") if dotted else "no",
        "optimization_flag": o_text,
        "model_flag": model_flag,
        "help_search": "--help=<text> searches groups and flags (parse_args turns it into --help)",
        "unknown_flag_error": library_messages.argparse_line("vllm", "unrecognized")
        + "; the top-level `vllm` parser reports arguments its subcommand left over",
        "ambiguous_abbrev_error": library_messages.argparse_line("vllm", "ambiguous"),
        "invalid_choice_error": library_messages.argparse_line("vllm", "invalid_choice"),
        "source": f"{rel}:{parse_args.lineno}",
    }


# Reviewed helper variants (see the comment at the top).  Fingerprints are printed by `extract_flags.py
# --fingerprints`; each was checked against the source of the releases listed.
_COMMON = {"is_type": "3f53620f71ca", "contains_type": "8a51dcfec077", "get_type": "1222ebb263df",
           "literal_to_kwargs": "ec8ef270ce17", "is_not_builtin": "668021bb9ab6"}
# 0.11.0: tuple/list handled inline, no set branch, get_type_hints splits only typing.Union.
_register({**_COMMON, "get_type_hints": "08475ce8d661", "_compute_kwargs": "d5c295f63313"},
          {"union_type": False, "set_branch": False})
# 0.11.1, 0.11.2: collection_to_kwargs (tuple/list/set -> nargs "+", fixed tuples -> len), X | Y split.
_register({**_COMMON, "collection_to_kwargs": "418419fcdfb2", "get_type_hints": "19f4b65579e3",
           "_compute_kwargs": "c4b379fdfc22"}, {"union_type": True, "set_branch": True})
# 0.12.0, 0.13.0: as 0.11.1 plus pydantic Field defaults (default values only).
_register({**_COMMON, "collection_to_kwargs": "418419fcdfb2", "get_type_hints": "19f4b65579e3",
           "_compute_kwargs": "4f9c73c2295e"}, {"union_type": True, "set_branch": True})
# 0.14.0 .. 0.17.1: as 0.12.0 plus human_readable_int_or_auto for max_model_len (value parsing only).
_register({**_COMMON, "collection_to_kwargs": "418419fcdfb2", "get_type_hints": "19f4b65579e3",
           "_compute_kwargs": "198d7d349c92"}, {"union_type": True, "set_branch": True})
