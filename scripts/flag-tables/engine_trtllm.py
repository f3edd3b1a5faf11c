"""TensorRT-LLM: `trtllm-serve` (click options of the `serve` command in tensorrt_llm/commands/serve.py) and the
top-level keys of the `--extra_llm_api_options` YAML (pydantic fields of TorchLlmArgs in llmapi/llm_args.py)."""

from __future__ import annotations

import ast
from typing import Any

from static_eval import (
    ClassRef,
    ExtractError,
    Frame,
    Interp,
    SourceTree,
    Unknown,
)
from tables import Variant


def _interp(root: str) -> Interp:
    interp = Interp(SourceTree(root, [""]))
    interp.sym_values["sys.argv"] = ["trtllm-serve", "MODEL"]
    return interp


def _is_click(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in (f"click.{name}", name)


def serve_command(root: str) -> tuple[ast.FunctionDef, Any]:
    interp = _interp(root)
    mod = interp.tree.load("tensorrt_llm.commands.serve")
    for node in mod.ast.body:
        if isinstance(node, ast.FunctionDef) and any(
                _is_click(d, "command") and d.args and isinstance(d.args[0], ast.Constant)
                and d.args[0].value == "serve" for d in node.decorator_list):
            return node, (interp, mod)
    raise ExtractError("no @click.command('serve') in tensorrt_llm/commands/serve.py")


def _choices_of(interp: Interp, frame: Frame, type_node: ast.expr, where: str) -> tuple[tuple[str, ...] | None, bool]:
    """(choices, restricted) for a click `type=`; choices None + restricted True = a click.Choice whose list is
    built at import time from something this tree does not hold."""
    if not isinstance(type_node, ast.Call):
        return None, False
    head = ast.unparse(type_node.func)
    if head in ("click.Choice", "Choice") or head.endswith("ChoiceWithAlias"):
        vals = interp.eval(frame, type_node.args[0]) if type_node.args else Unknown("no choices")
        seq = interp.iterate(vals) if not isinstance(vals, Unknown) else None
        out: list[str] | None = None
        if seq is not None and all(isinstance(v, str) for v in seq):
            out = list(seq)
        if head.endswith("ChoiceWithAlias") and len(type_node.args) > 1 and out is not None:
            aliases = interp.eval(frame, type_node.args[1])
            if isinstance(aliases, dict) and all(isinstance(k, str) for k in aliases):
                out = out + sorted(aliases)  # ChoiceWithAlias.convert maps an alias onto its choice first
            else:
                out = None
        return (tuple(out) if out is not None else None), True
    return None, False


def serve_variants(root: str) -> tuple[list[Variant], dict[str, Any]]:
    fn, (interp, mod) = serve_command(root)
    frame = Frame(interp, mod, {})
    variants: list[Variant] = []
    unresolved: dict[str, str] = {}
    rel = interp.tree.rel(mod.path)
    for d in fn.decorator_list:
        if not _is_click(d, "option"):
            continue
        where = f"{rel}:{d.lineno}"
        decls = [interp.eval(frame, a) for a in d.args]
        if not all(isinstance(x, str) for x in decls):
            raise ExtractError(f"{where}: option names not static")
        kw = {k.arg: k.value for k in d.keywords if k.arg}
        names: list[str] = []
        secondary: list[str] = []
        for decl in decls:
            if "/" in decl and decl.startswith("-"):
                first, second = decl.split("/", 1)
                names.append(first.strip())
                secondary.append(second.strip())
            elif decl.startswith("-"):
                names.append(decl)
            # a bare identifier only names the Python parameter
        def const(k: str) -> Any:
            return interp.eval(frame, kw[k]) if k in kw else None
        if secondary:
            arity = "negatable"
            names = names + secondary
        elif const("is_flag") is True or const("count") is True or "flag_value" in kw:
            arity = "none"
        elif const("multiple") is True:
            arity = "repeatable"
        elif isinstance(const("nargs"), int) and const("nargs") > 1:
            arity = "fixed"
        else:
            arity = "one"
        choices, restricted = (None, False)
        if "type" in kw and arity not in ("none", "negatable"):
            choices, restricted = _choices_of(interp, frame, kw["type"], where)
        if restricted and choices is None:
            unresolved[names[0]] = (f"{where}: click.Choice({ast.unparse(kw['type'].args[0])}) - the module that "
                                    "builds this list is not in the source tree read")
        variants.append(Variant(tuple(names), arity, choices, False,
                                const("nargs") if arity == "fixed" else None))
    # click adds --help to every command (context_settings can rename it; the serve command sets none)
    csettings = [d for d in fn.decorator_list if _is_click(d, "command")][0]
    if any(k.arg == "context_settings" for k in csettings.keywords):
        raise ExtractError("serve command sets context_settings; review help option names and token normalisation")
    variants.append(Variant(("--help",), "none", None))
    facts = {
        "command": "trtllm-serve = tensorrt_llm.commands.serve:main, a DefaultGroup; the first argument is treated as "
                   "the `serve` subcommand unless it names another subcommand (DefaultGroup.resolve_command)",
        "unresolved_choices": unresolved,
    }
    return variants, facts


# ---------------------------------------------------------------------------------------------------------------
# LLM-API YAML keys
# ---------------------------------------------------------------------------------------------------------------


def _pydantic_fields(cls: ClassRef) -> list[tuple[str, ast.AnnAssign, ClassRef]]:
    order: list[str] = []
    by: dict[str, tuple[str, ast.AnnAssign, ClassRef]] = {}
    for c in reversed(cls.mro()):
        for s in c.body_stmts():
            if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)):
                continue
            name = s.target.id
            ann = ast.unparse(s.annotation)
            if name.startswith("_") or ann.startswith("ClassVar"):
                continue
            if isinstance(s.value, ast.Call) and ast.unparse(s.value.func) in ("PrivateAttr", "pydantic.PrivateAttr"):
                continue
            if name not in by:
                order.append(name)
            by[name] = (name, s, c)
    # a @property of the same name in the subclass hides the field (TorchLlmArgs.quant_config)
    return [by[n] for n in order]


def llm_api_keys(root: str, class_name: str = "TorchLlmArgs") -> list[dict[str, Any]]:
    interp = _interp(root)
    mod = interp.tree.load("tensorrt_llm.llmapi.llm_args")
    cls = mod.get(interp, class_name)
    if not isinstance(cls, ClassRef):
        raise ExtractError(f"{class_name} not found")
    rel = interp.tree.rel(mod.path)
    out = []
    for name, stmt, owner in _pydantic_fields(cls):
        frame = Frame(interp, owner.module, {}, cls=owner, class_body=owner)
        entry: dict[str, Any] = {"names": [name], "type": ast.unparse(stmt.annotation)}
        value = stmt.value
        if isinstance(value, ast.Call) and ast.unparse(value.func) in ("Field", "PydanticField"):
            kws = {k.arg: k.value for k in value.keywords if k.arg}
            if "alias" in kws:
                alias = interp.eval(frame, kws["alias"])
                if isinstance(alias, str):
                    entry["names"] = [alias]
                    entry["alias_of"] = name
            if "status" in kws:
                st = interp.eval(frame, kws["status"])
                if isinstance(st, str):
                    entry["status"] = st
            if "json_schema_extra" in kws:
                extra = interp.eval(frame, kws["json_schema_extra"])
                if isinstance(extra, dict) and isinstance(extra.get("type"), str):
                    entry["type_doc"] = extra["type"]
            if "default" not in kws and not value.args and "default_factory" not in kws:
                entry["required"] = True
            elif value.args and isinstance(value.args[0], ast.Constant) and value.args[0].value is Ellipsis:
                entry["required"] = True
        elif value is None:
            entry["required"] = True
        lit = _literal_values(stmt.annotation)
        if lit is not None:
            entry["choices"] = lit
        entry["where"] = f"{rel}:{stmt.lineno} ({owner.name})"
        out.append(entry)
    # properties in the class that shadow inherited fields
    props = {s.name for c in cls.mro() for s in c.body_stmts()
             if isinstance(s, ast.FunctionDef) and any(ast.unparse(d) == "property" for d in s.decorator_list)}
    return [e for e in out if e.get("alias_of", e["names"][0]) not in props]


def _literal_values(ann: ast.expr) -> list[str] | None:
    """Literal[...] (possibly inside Optional[...]) values as strings."""
    node = ann
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        node = node.slice
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Literal", "typing.Literal"):
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if all(isinstance(e, ast.Constant) for e in elts):
            return [str(e.value) for e in elts]
    return None
