"""SGLang: `python -m sglang.launch_server` / `sglang serve` = ServerArgs.add_cli_args on a plain argparse parser."""

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
    Recorder,
    SourceTree,
    TypeEvaluator,
    Unknown,
    dataclass_fields,
    th_args,
    th_origin,
)

# add_cli_args_from_dataclass (python/sglang/srt/arg_groups/arg_utils.py, 0.5.14 and later) derives most flags
# from `Annotated[T, Arg(...)]` / `Annotated[T, "help"]` fields of ServerArgs.  The emulation below follows the
# variant read at each release; a new fingerprint stops the extraction until the new code has been read.
KNOWN_FROM_DATACLASS: set[str] = set()


def _normalise(node: ast.AST) -> str:
    node = ast.parse(ast.unparse(node))
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.body and isinstance(n.body[0], ast.Expr) \
                and isinstance(getattr(n.body[0], "value", None), ast.Constant):
            n.body[0].value.value = ""
    return ast.dump(node, annotate_fields=False)


def from_dataclass_fingerprint(mod: Any) -> str:
    parts = []
    for n in mod.ast.body:
        if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in (
                "add_cli_args_from_dataclass", "_unwrap_annotated", "_unwrap_optional", "_unwrap_literal",
                "_infer_type_func", "_field_default", "_field_to_cli_name", "Arg"):
            parts.append(n.name + ":" + hashlib.sha256(_normalise(n).encode()).hexdigest()[:12])
    return ",".join(sorted(parts))


def _arg_meta(interp: Interp, meta: tuple[Any, ...], where: str) -> Instance | None:
    """_unwrap_annotated: the first Arg(...) or bare string among the Annotated metadata."""
    for i, m in enumerate(meta):
        if isinstance(m, Instance) and m.kind.endswith(".Arg"):
            return m
        if isinstance(m, str):
            return Instance(kind="Arg", args=[], kwargs={"help": m})
        if isinstance(m, Unknown):
            # A help text computed at import time (an f-string of a runtime value, textwrap.dedent(...)) is a str.
            if any(isinstance(x, Instance) and x.kind.endswith(".Arg") for x in meta[i + 1:]):
                raise ExtractError(f"{where}: unknown metadata before Arg(...)")
            return Instance(kind="Arg", args=[], kwargs={"help": ""})
    return None


def _argattr(arg: Instance, name: str, default: Any = None) -> Any:
    if name in arg.kwargs:
        return arg.kwargs[name]
    if arg.cls is not None and arg.args:
        order = [f.name for f in dataclass_fields(arg.cls)]
        if name in order and order.index(name) < len(arg.args):
            return arg.args[order.index(name)]
    return default


def add_cli_args_from_dataclass(interp: Interp, frame: Frame, node: ast.AST, func: Any, args: list[Any],
                                kwargs: dict[str, Any]) -> Any:
    parser = args[0]
    cls = args[1]
    only = kwargs.get("fields")
    if not isinstance(parser, Recorder) or not isinstance(cls, ClassRef):
        raise ExtractError("add_cli_args_from_dataclass: unexpected arguments")
    te = TypeEvaluator(interp)
    for f in dataclass_fields(cls):
        if isinstance(only, (list, tuple)) and f.name not in only:
            continue
        where = f"{interp.tree.rel(f.module.path)}:{f.lineno}"
        th = te.from_node(Frame(interp, f.module, {}, cls=f.owner, class_body=f.owner), f.annotation)
        if th_origin(th) != "Annotated":
            continue
        inner = th[1]
        meta = _arg_meta(interp, th[2], where)
        if meta is None:
            continue
        if _argattr(meta, "no_cli", False) is True:
            continue
        cli_name = _argattr(meta, "cli_name") or "--" + f.name.replace("_", "-")
        aliases = _argattr(meta, "aliases") or []
        if not isinstance(cli_name, str) or not isinstance(aliases, (list, tuple)) or not all(
                isinstance(a, str) for a in aliases):
            raise ExtractError(f"{where}: cli_name/aliases not static")
        names = [cli_name] + list(aliases)
        kw: dict[str, Any] = {}
        action = _argattr(meta, "action")
        if action is not None:
            kw["action"] = action
            ak = _argattr(meta, "action_kwargs")
            if isinstance(ak, dict):
                kw.update(ak)
            parser.sink.calls.append(_call(names, kw, where))
            continue
        # _unwrap_optional
        if th_origin(inner) in ("Union", "UnionType"):
            non_none = [a for a in th_args(inner) if a[0] != "none"]
            if len(non_none) == 1:
                inner = non_none[0]
        if th_origin(inner) == "Literal":
            choices = _argattr(meta, "choices") or list(inner[1])
            kw["choices"] = choices
            parser.sink.calls.append(_call(names, kw, where))
            continue
        if (th_origin(inner) == "list" or (inner[0] == "b" and inner[1] == "list" and False)) and \
                _argattr(meta, "type_parser") is None:
            kw["nargs"] = _argattr(meta, "nargs") or "+"
            if _argattr(meta, "choices"):
                kw["choices"] = _argattr(meta, "choices")
            parser.sink.calls.append(_call(names, kw, where))
            continue
        if inner[0] == "b" and inner[1] == "bool":
            kw["action"] = "store_true"
            parser.sink.calls.append(_call(names, kw, where))
            continue
        if _argattr(meta, "choices"):
            kw["choices"] = _argattr(meta, "choices")
        if _argattr(meta, "nargs"):
            kw["nargs"] = _argattr(meta, "nargs")
        parser.sink.calls.append(_call(names, kw, where))
    return None


def _call(names: list[str], kw: dict[str, Any], where: str) -> Any:
    from static_eval import ArgCall

    return ArgCall(names, kw, where)


def make_interp(root: str) -> Interp:
    tree = SourceTree(root, ["python"])
    interp = Interp(tree)
    interp.sym_values["sys.argv"] = ["sglang", "serve"]
    if tree.has_module("sglang.srt.arg_groups.arg_utils"):
        mod = tree.load("sglang.srt.arg_groups.arg_utils")
        fp = from_dataclass_fingerprint(mod)
        if fp not in KNOWN_FROM_DATACLASS:
            raise ExtractError(f"sglang arg_utils.add_cli_args_from_dataclass changed ({fp}); read it and add it")
        interp.intercepts["sglang.srt.arg_groups.arg_utils.add_cli_args_from_dataclass"] = add_cli_args_from_dataclass
    return interp


def serve_calls(root: str) -> list[Any]:
    interp = make_interp(root)
    mod = interp.tree.load("sglang.srt.server_args")
    cls = mod.get(interp, "ServerArgs")
    if not isinstance(cls, ClassRef):
        raise ExtractError("ServerArgs not found")
    sink = ArgSink()
    method = interp.getattr(cls, "add_cli_args")
    interp.call(Frame(interp, mod, {}), cls.node, method, [Recorder(sink)], {})
    return CallList(sink.calls, interp.conditional_notes)


def parser_facts(root: str, stdlib: dict[str, str]) -> dict[str, Any]:
    import library_messages

    tree = SourceTree(root, ["python"])
    mod = tree.load("sglang.srt.server_args")
    fn = next(n for n in mod.ast.body if isinstance(n, ast.FunctionDef) and n.name == "prepare_server_args")
    ctor = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and ast.unparse(n.func) == "argparse.ArgumentParser"]
    rel = tree.rel(mod.path)
    prog = None
    abbrev: Any = True
    for c in ctor:
        for kw in c.keywords:
            if kw.arg == "prog" and isinstance(kw.value, ast.Constant):
                prog = kw.value.value
            if kw.arg == "allow_abbrev":
                abbrev = ast.unparse(kw.value)
    lines = ", ".join(f"{rel}:{c.lineno}" for c in ctor)
    src = ast.unparse(fn)
    return {
        "parser_class": f"argparse.ArgumentParser({'prog=' + repr(prog) if prog else ''}) built in "
                        f"prepare_server_args ({lines})",
        "prog": prog or "the script name (sys.argv[0]); `python -m sglang.launch_server` gives 'launch_server.py'",
        "underscore_dash": "no: names are matched exactly as registered (with '-'); '--model_path' is refused"
        if "replace(\"_\", \"-\")" not in src else "review",
        "allow_abbrev": [abbrev is True, "argparse default (allow_abbrev is never passed); a unique prefix of a long "
                                         "option is accepted" if abbrev is True else f"allow_abbrev={abbrev}"],
        "equals_value": True,
        "config_file": "'--config <yaml>' is merged into argv before parsing (server_args_config_parser.py)"
        if "--config" in src else None,
        "unknown_flag_error": library_messages.argparse_line(prog or "launch_server.py", "unrecognized"),
        "ambiguous_abbrev_error": library_messages.argparse_line(prog or "launch_server.py", "ambiguous"),
        "invalid_choice_error": library_messages.argparse_line(prog or "launch_server.py", "invalid_choice"),
        "source": f"{rel}:{fn.lineno}",
    }


_BODY = ("_field_default:51dd9079be01,_field_to_cli_name:eeec47f64097,_infer_type_func:94d28541042f,"
         "_unwrap_annotated:f03d892a0b78,_unwrap_literal:2fa5a286e51a,_unwrap_optional:ac99cadde0ad,"
         "add_cli_args_from_dataclass:957704a19c76")
KNOWN_FROM_DATACLASS.update({
    "Arg:46b6ce9cbbf2," + _BODY,  # 0.5.14
    "Arg:a40d6b03a35b," + _BODY,  # 0.5.15 .. 0.5.18: Arg gains `resolvable` (no CLI effect)
})
