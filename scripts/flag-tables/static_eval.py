"""A small abstract interpreter for the parts of an engine's source that build its argument parser.

The engines cannot be imported here (no torch, no PyPI), so this walks their AST instead: module-level
names, classes, functions and the argparse calls they make are evaluated on demand.  Whatever cannot be
known statically becomes `Unknown`; a parser call that depends on an unknown condition is an error, so a
table is never silently built from a guess.
"""

from __future__ import annotations

import ast
import itertools
import os
from dataclasses import dataclass, field
from typing import Any, Callable


class ExtractError(Exception):
    """Raised when the source does something this interpreter cannot follow faithfully."""


class Unknown:
    """A value that cannot be computed statically (a runtime call, a torch attribute, ...)."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why

    def __repr__(self) -> str:
        return f"Unknown({self.why})"


class Sym:
    """A name from a module outside the source tree (argparse, json, typing, pydantic, torch ...)."""

    __slots__ = ("qual",)

    def __init__(self, qual: str):
        self.qual = qual

    def __repr__(self) -> str:
        return f"Sym({self.qual})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sym) and other.qual == self.qual

    def __hash__(self) -> int:
        return hash(("Sym", self.qual))

    @property
    def last(self) -> str:
        return self.qual.rsplit(".", 1)[-1]


class ReturnSignal(Exception):
    def __init__(self, value: Any):
        self.value = value


class BreakSignal(Exception):
    pass


class ContinueSignal(Exception):
    pass


# --------------------------------------------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------------------------------------------


class SourceTree:
    """A directory that holds a Python package tree (e.g. <root>/vllm/... or <root>/python/sglang/...)."""

    def __init__(self, root: str, package_roots: list[str]):
        self.root = root
        self.package_roots = package_roots  # directories (relative to root) that sys.path would hold
        self._modules: dict[str, Module] = {}

    def module_path(self, dotted: str) -> str | None:
        parts = dotted.split(".")
        for base in self.package_roots:
            d = os.path.join(self.root, base, *parts)
            if os.path.isfile(d + ".py"):
                return d + ".py"
            if os.path.isfile(os.path.join(d, "__init__.py")):
                return os.path.join(d, "__init__.py")
            if os.path.isdir(d) and base != "":
                # namespace package
                return d
        return None

    def has_module(self, dotted: str) -> bool:
        return self.module_path(dotted) is not None

    def load(self, dotted: str) -> "Module":
        mod = self._modules.get(dotted)
        if mod is None:
            path = self.module_path(dotted)
            if path is None:
                raise ExtractError(f"module {dotted} not found under {self.root}")
            mod = Module(self, dotted, path)
            self._modules[dotted] = mod
        return mod

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)


TYPE_CHECKING_NAMES = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def _is_type_checking(test: ast.expr) -> bool | None:
    """True for `if TYPE_CHECKING:`, False for `if not TYPE_CHECKING:`, None otherwise."""
    src = ast.unparse(test)
    if src in TYPE_CHECKING_NAMES:
        return True
    if src in {"not " + n for n in TYPE_CHECKING_NAMES}:
        return False
    return None


class Module:
    def __init__(self, tree: SourceTree, name: str, path: str):
        self.tree = tree
        self.name = name
        self.path = path
        self.is_pkg = path.endswith("__init__.py") or os.path.isdir(path)
        if os.path.isdir(path):
            self.ast = ast.Module(body=[], type_ignores=[])
        else:
            with open(path, encoding="utf-8") as fh:
                self.source = fh.read()
            self.ast = ast.parse(self.source, filename=path)
        self.bindings: dict[str, list[ast.stmt]] = {}
        self.mutations: dict[str, list[ast.stmt]] = {}
        self.star_imports: list[ast.ImportFrom] = []
        self.guards: dict[int, list[tuple[ast.expr, bool]]] = {}  # id(stmt) -> enclosing (if-test, branch)
        self._guard_stack: list[tuple[ast.expr, bool]] = []
        self._collect(self.ast.body)
        self._cache: dict[str, Any] = {}
        self._evaluating: set[str] = set()

    @property
    def package(self) -> str:
        return self.name if self.is_pkg else self.name.rpartition(".")[0]

    def _collect(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                tc = _is_type_checking(stmt.test)
                if tc is True:
                    # TYPE_CHECKING is False at runtime: only the else branch runs.
                    self._collect(stmt.orelse)
                elif tc is False:
                    self._collect(stmt.body)
                else:
                    self._guard_stack.append((stmt.test, True))
                    self._collect(stmt.body)
                    self._guard_stack[-1] = (stmt.test, False)
                    self._collect(stmt.orelse)
                    self._guard_stack.pop()
                continue
            if isinstance(stmt, ast.Try):
                self._collect(stmt.body)
                for h in stmt.handlers:
                    self._collect(h.body)
                self._collect(stmt.orelse)
                self._collect(stmt.finalbody)
                continue
            if self._guard_stack:
                self.guards[id(stmt)] = list(self._guard_stack)
            for name in _bound_names(stmt):
                self.bindings.setdefault(name, []).append(stmt)
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                self.star_imports.append(stmt)
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
                self.mutations.setdefault(stmt.target.id, []).append(stmt)
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.value.func, ast.Attribute)
                and isinstance(stmt.value.func.value, ast.Name)
                and stmt.value.func.attr in {"append", "extend", "update", "add", "insert"}
            ):
                self.mutations.setdefault(stmt.value.func.value.id, []).append(stmt)

    def guard_value(self, interp: "Interp", stmt: ast.stmt) -> bool | None:
        """Whether the module-level `if` blocks around stmt run: True, False, or None when unknown."""
        for test, branch in self.guards.get(id(stmt), []):
            try:
                t = interp.truth(interp.eval(Frame(interp, self, {}), test))
            except (ExtractError, ReturnSignal, RecursionError):
                t = None
            if t is None:
                return None
            if t != branch:
                return False
        return True

    def has(self, name: str) -> bool:
        return name in self.bindings

    def get(self, interp: "Interp", name: str) -> Any:
        if name in self._cache:
            return self._cache[name]
        if name in self._evaluating:
            return Unknown(f"cyclic {self.name}.{name}")
        self._evaluating.add(name)
        try:
            value = self._evaluate_binding(interp, name)
        finally:
            self._evaluating.discard(name)
        self._cache[name] = value
        return value

    def _evaluate_binding(self, interp: "Interp", name: str) -> Any:
        stmts = self.bindings.get(name)
        if not stmts:
            for star in self.star_imports:
                target = interp.resolve_import_module(self, star.module, star.level)
                if isinstance(target, Module) and target.has(name):
                    return target.get(interp, name)
            if self.is_pkg and self.tree.has_module(f"{self.name}.{name}"):
                return self.tree.load(f"{self.name}.{name}")
            return Unknown(f"{self.name}.{name} not bound")
        frame = Frame(interp, self, {})
        value: Any = Unknown(f"{self.name}.{name}")
        live = [st for st in stmts if self.guard_value(interp, st) is not False]
        if any(self.guard_value(interp, st) is None for st in live) and len(live) > 1 and not all(
                isinstance(st, (ast.Import, ast.ImportFrom)) for st in live):
            interp.conditional_notes.append(
                f"{self.tree.rel(self.path)}: `{name}` is bound in blocks whose condition is not known statically "
                f"(lines {', '.join(str(st.lineno) for st in live)}); the first is used")
        stmts = live or stmts
        # The first binding defines the value; a later plain re-assignment of a simple name wins (module order).
        chosen = stmts[0]
        for stmt in stmts:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and getattr(stmt, "value", None) is not None:
                chosen = stmt
                if not isinstance(stmts[0], (ast.Import, ast.ImportFrom)):
                    break
        value = interp.bind_statement_value(frame, chosen, name)
        for mut in self.mutations.get(name, []):
            guard = self.guard_value(interp, mut)
            if guard is None:
                interp.conditional_notes.append(
                    f"{self.tree.rel(self.path)}:{mut.lineno}: `{ast.unparse(mut)}` runs only if "
                    + " and ".join(("" if b else "not ") + f"({ast.unparse(t)})" for t, b in self.guards[id(mut)])
                    + "; not applied (the default environment is assumed)")
                continue
            if guard is False:
                continue
            if mut.lineno > chosen.lineno:
                self._cache[name] = value
                try:
                    interp.exec_stmt(frame, mut, module_level_name=name)
                except ExtractError:
                    raise
                value = self._cache.get(name, value)
        return value


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        out: list[str] = []
        for t in stmt.targets:
            out.extend(_target_names(t))
        return out
    if isinstance(stmt, ast.AnnAssign):
        return _target_names(stmt.target) if stmt.value is not None or True else []
    if isinstance(stmt, ast.Import):
        return [(a.asname or a.name.split(".")[0]) for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom):
        return [(a.asname or a.name) for a in stmt.names if a.name != "*"]
    return []


def _target_names(t: ast.expr) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        out: list[str] = []
        for e in t.elts:
            out.extend(_target_names(e))
        return out
    return []


# --------------------------------------------------------------------------------------------------------------
# Runtime objects
# --------------------------------------------------------------------------------------------------------------


class ClassRef:
    def __init__(self, interp: "Interp", module: Module, node: ast.ClassDef):
        self.interp = interp
        self.module = module
        self.node = node
        self.name = node.name
        self._bases: list[Any] | None = None
        self.attrs: dict[str, Any] = {}  # values assigned at runtime (e.g. Cls.x = ...)

    def __repr__(self) -> str:
        return f"<class {self.module.name}.{self.name}>"

    @property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.name}"

    @property
    def bases(self) -> list[Any]:
        if self._bases is None:
            frame = Frame(self.interp, self.module, {})
            self._bases = [self.interp.eval(frame, b) for b in self.node.bases]
        return self._bases

    def mro(self) -> list["ClassRef"]:
        out: list[ClassRef] = []
        seen: set[int] = set()

        def visit(c: ClassRef) -> None:
            if id(c) in seen:
                return
            seen.add(id(c))
            out.append(c)
            for b in c.bases:
                if isinstance(b, ClassRef):
                    visit(b)

        visit(self)
        return out

    def base_syms(self) -> set[str]:
        out: set[str] = set()
        for c in self.mro():
            for b in c.bases:
                if isinstance(b, Sym):
                    out.add(b.qual)
        return out

    def is_enum(self) -> bool:
        return any(q.split(".")[-1] in {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"} for q in self.base_syms())

    def decorator_names(self) -> list[str]:
        names = []
        for d in self.node.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            names.append(ast.unparse(target).split(".")[-1])
        return names

    def is_dataclass(self) -> bool:
        for c in self.mro():
            if {"dataclass", "config", "pydantic_dataclass"} & set(c.decorator_names()):
                return True
        return False

    def body_stmts(self) -> list[ast.stmt]:
        """Class body, with `if` blocks flattened (TYPE_CHECKING aware, version checks evaluated if possible)."""
        out: list[ast.stmt] = []

        def walk(body: list[ast.stmt]) -> None:
            for s in body:
                if isinstance(s, ast.If):
                    tc = _is_type_checking(s.test)
                    if tc is True:
                        walk(s.orelse)
                    elif tc is False:
                        walk(s.body)
                    else:
                        cond = self.interp.eval(Frame(self.interp, self.module, {}), s.test)
                        if cond is True:
                            walk(s.body)
                        elif cond is False:
                            walk(s.orelse)
                        else:
                            walk(s.body)
                            walk(s.orelse)
                else:
                    out.append(s)

        walk(self.node.body)
        return out

    def own_member(self, name: str) -> tuple[bool, Any]:
        if name in self.attrs:
            return True, self.attrs[name]
        for s in self.body_stmts():
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
                return True, FuncRef(self.interp, self.module, s, owner=self)
            if isinstance(s, ast.ClassDef) and s.name == name:
                return True, ClassRef(self.interp, self.module, s)
            if isinstance(s, ast.Assign) and name in [n for t in s.targets for n in _target_names(t)]:
                return True, self._eval_member(s, name)
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == name:
                if s.value is None:
                    return False, None
                value = self._eval_member(s, name)
                return True, _field_default_value(value)
        return False, None

    def _eval_member(self, s: ast.stmt, name: str) -> Any:
        key = ("__member__", name)
        if key in self.attrs:
            return self.attrs[key]
        self.attrs[key] = Unknown(f"cyclic class member {name}")
        value = self.interp.eval(Frame(self.interp, self.module, {}, cls=self, class_body=self), s.value)
        self.attrs[key] = value
        return value

    def lookup(self, name: str, start_after: "ClassRef | None" = None) -> Any:
        chain = self.mro()
        if start_after is not None:
            idx = next((i for i, c in enumerate(chain) if c is start_after or c.qualname == start_after.qualname), -1)
            chain = chain[idx + 1 :]
        for c in chain:
            found, value = c.own_member(name)
            if found:
                return value
        if name == "__name__":
            return self.name
        if name == "__doc__":
            return ast.get_docstring(self.node) or ""
        return Unknown(f"{self.qualname}.{name}")

    def enum_members(self) -> list["EnumMember"]:
        members = []
        for s in self.body_stmts():
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                n = s.targets[0].id
                if n.startswith("_"):
                    continue
                members.append(EnumMember(self, n, self._eval_member(s, n)))
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                members.append(EnumMember(self, s.target.id, self._eval_member(s, s.target.id)))
        return members


def _field_default_value(value: Any) -> Any:
    if isinstance(value, Instance) and value.kind in {"dataclasses.field", "pydantic.Field"}:
        if "default" in value.kwargs:
            return value.kwargs["default"]
        return Unknown("field default_factory")
    return value


@dataclass
class EnumMember:
    cls: ClassRef
    name: str
    value: Any


@dataclass
class Instance:
    """An instance of something we model only by its constructor arguments (dataclasses.field(...), Arg(...))."""

    kind: str
    args: list[Any]
    kwargs: dict[str, Any]
    cls: ClassRef | None = None


class FuncRef:
    def __init__(self, interp: "Interp", module: Module, node: ast.FunctionDef, owner: ClassRef | None = None,
                 bound: Any = None, closure: dict[str, Any] | None = None):
        self.interp = interp
        self.module = module
        self.node = node
        self.owner = owner
        self.bound = bound  # value bound to the first parameter (self / cls), or None
        self.closure = closure or {}

    def __repr__(self) -> str:
        return f"<function {self.qualname}>"

    @property
    def qualname(self) -> str:
        if self.owner is not None:
            return f"{self.owner.qualname}.{self.node.name}"
        return f"{self.module.name}.{self.node.name}"

    def decorators(self) -> set[str]:
        return {ast.unparse(d).split(".")[-1].split("(")[0] for d in self.node.decorator_list}

    def bind_to(self, value: Any, owner_cls: ClassRef) -> "FuncRef":
        return FuncRef(self.interp, self.module, self.node, owner=self.owner, bound=value, closure=self.closure)


class Recorder:
    """Stands in for an argparse parser or argument group: it records add_argument calls."""

    def __init__(self, sink: "ArgSink", title: str | None = None):
        self.sink = sink
        self.title = title

    def __repr__(self) -> str:
        return f"<parser {self.title or ''}>"


@dataclass
class ArgCall:
    option_strings: list[str]
    kwargs: dict[str, Any]
    where: str  # file:line of the add_argument call


class CallList(list):
    """add_argument calls, with the notes the interpreter made on the way (conditional module-level code)."""

    def __init__(self, calls: list["ArgCall"], notes: list[str]):
        super().__init__(calls)
        self.notes = list(dict.fromkeys(notes))


@dataclass
class ArgSink:
    calls: list[ArgCall] = field(default_factory=list)


class Frame:
    def __init__(self, interp: "Interp", module: Module, local: dict[str, Any], cls: ClassRef | None = None,
                 func: FuncRef | None = None, class_body: ClassRef | None = None):
        self.interp = interp
        self.module = module
        self.locals = local
        self.cls = cls
        self.func = func
        self.class_body = class_body  # names of this class body are visible (class-level code, annotations)


# --------------------------------------------------------------------------------------------------------------
# The interpreter
# --------------------------------------------------------------------------------------------------------------

SAFE_METHODS = {
    str: {"join", "replace", "lower", "upper", "strip", "lstrip", "rstrip", "split", "startswith", "endswith", "format",
          "removeprefix", "removesuffix", "title", "capitalize"},
    list: {"copy", "index", "count"},
    tuple: {"index", "count"},
    dict: {"keys", "values", "items", "get", "copy"},
    set: {"copy", "union", "intersection", "difference"},
    frozenset: {"union", "intersection", "difference"},
}
MUTATING_METHODS = {
    list: {"append", "extend", "insert", "remove", "sort", "pop", "clear"},
    dict: {"update", "pop", "setdefault", "clear"},
    set: {"add", "update", "discard", "remove"},
}


class Interp:
    def __init__(self, tree: SourceTree, condition_policy: Callable[[str, Frame], Any] | None = None):
        self.tree = tree
        self.intercepts: dict[str, Callable[..., Any]] = {}
        self.condition_policy = condition_policy
        self.unknown_conditions: list[str] = []
        self.depth = 0
        self.sym_values: dict[str, Any] = {}
        self.conditional_notes: list[str] = []
        self.attr_hooks: dict[tuple[str, str], Callable[..., Any]] = {}
        self._classrefs: dict[tuple[str, int], ClassRef] = {}

    # ---- helpers -------------------------------------------------------------------------------------------
    def where(self, frame: Frame, node: ast.AST) -> str:
        return f"{self.tree.rel(frame.module.path)}:{getattr(node, 'lineno', 0)}"

    def classref(self, module: Module, node: ast.ClassDef) -> ClassRef:
        key = (module.name, node.lineno)
        ref = self._classrefs.get(key)
        if ref is None:
            ref = ClassRef(self, module, node)
            self._classrefs[key] = ref
        return ref

    def resolve_import_module(self, module: Module, dotted: str | None, level: int) -> Module | Sym:
        if level:
            base = module.package.split(".")
            if level > 1:
                base = base[: -(level - 1)]
            full = ".".join(base + ([dotted] if dotted else []))
        else:
            full = dotted or ""
        if self.tree.has_module(full):
            return self.tree.load(full)
        return Sym(full)

    def import_from(self, module: Module, stmt: ast.ImportFrom, name: str) -> Any:
        target = self.resolve_import_module(module, stmt.module, stmt.level)
        if isinstance(target, Sym):
            return Sym(f"{target.qual}.{name}")
        if target.has(name):
            return target.get(self, name)
        sub = f"{target.name}.{name}"
        if self.tree.has_module(sub):
            return self.tree.load(sub)
        return target.get(self, name)

    def bind_statement_value(self, frame: Frame, stmt: ast.stmt, name: str) -> Any:
        if isinstance(stmt, ast.ClassDef):
            return self.classref(frame.module, stmt)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return FuncRef(self, frame.module, stmt)
        if isinstance(stmt, ast.ImportFrom):
            alias = next(a for a in stmt.names if (a.asname or a.name) == name)
            return self.import_from(frame.module, stmt, alias.name)
        if isinstance(stmt, ast.Import):
            alias = next(a for a in stmt.names if (a.asname or a.name.split(".")[0]) == name)
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            if self.tree.has_module(dotted):
                return self.tree.load(dotted)
            return Sym(dotted)
        if isinstance(stmt, ast.Assign):
            value = self.eval(frame, stmt.value)
            for t in stmt.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    return value
                if isinstance(t, (ast.Tuple, ast.List)):
                    names = _target_names(t)
                    if name in names and isinstance(value, (list, tuple)) and len(value) == len(names):
                        return value[names.index(name)]
            return Unknown(f"unpack {name}")
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is None:
                return Unknown(f"annotation only {name}")
            return self.eval(frame, stmt.value)
        return Unknown(f"binding {name}")

    # ---- names -----------------------------------------------------------------------------------------------
    def lookup_name(self, frame: Frame, name: str) -> Any:
        if name in frame.locals:
            return frame.locals[name]
        if frame.func is not None and name in frame.func.closure:
            return frame.func.closure[name]
        if frame.class_body is not None:
            found, v = frame.class_body.own_member(name)
            if found:
                return v
        if frame.module.has(name) or frame.module.star_imports:
            v = frame.module.get(self, name)
            if not (isinstance(v, Unknown) and v.why.endswith("not bound")):
                return v
        if name in BUILTINS:
            return BUILTINS[name]
        return Sym(f"builtins.{name}")

    # ---- expressions -----------------------------------------------------------------------------------------
    def eval(self, frame: Frame, node: ast.expr) -> Any:
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            return Unknown(f"expr {type(node).__name__}")
        return method(frame, node)

    def eval_Constant(self, frame: Frame, node: ast.Constant) -> Any:
        return node.value

    def eval_Name(self, frame: Frame, node: ast.Name) -> Any:
        return self.lookup_name(frame, node.id)

    def eval_JoinedStr(self, frame: Frame, node: ast.JoinedStr) -> Any:
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                val = self.eval(frame, v.value)
                if isinstance(val, (str, int, float)) and not isinstance(val, bool) and v.format_spec is None:
                    parts.append(str(val) if v.conversion in (-1, ord("s")) else repr(val))
                elif isinstance(val, (list, tuple)) and all(isinstance(x, str) for x in val) and v.format_spec is None:
                    parts.append(str(val))
                else:
                    return Unknown("f-string")
        return "".join(parts)

    def eval_List(self, frame: Frame, node: ast.List) -> Any:
        return self._elts(frame, node.elts, list)

    def eval_Tuple(self, frame: Frame, node: ast.Tuple) -> Any:
        return tuple(self._elts(frame, node.elts, list))

    def eval_Set(self, frame: Frame, node: ast.Set) -> Any:
        vals = self._elts(frame, node.elts, list)
        try:
            return set(vals)
        except TypeError:
            return Unknown("set of unhashables")

    def _elts(self, frame: Frame, elts: list[ast.expr], kind: type) -> list[Any]:
        out: list[Any] = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.eval(frame, e.value)
                it = self.iterate(v)
                if it is None:
                    out.append(Unknown("starred"))
                else:
                    out.extend(it)
            else:
                out.append(self.eval(frame, e))
        return out

    def eval_Dict(self, frame: Frame, node: ast.Dict) -> Any:
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                splat = self.eval(frame, v)
                if isinstance(splat, dict):
                    out.update(splat)
                else:
                    return Unknown("dict splat")
            else:
                key = self.eval(frame, k)
                try:
                    out[key] = self.eval(frame, v)
                except TypeError:
                    return Unknown("unhashable key")
        return out

    def eval_Attribute(self, frame: Frame, node: ast.Attribute) -> Any:
        base = self.eval(frame, node.value)
        return self.getattr(base, node.attr)

    def getattr(self, base: Any, attr: str) -> Any:
        if isinstance(base, Module):
            if base.has(attr) or base.star_imports:
                v = base.get(self, attr)
                if not (isinstance(v, Unknown) and v.why.endswith("not bound")):
                    return v
            sub = f"{base.name}.{attr}"
            if self.tree.has_module(sub):
                return self.tree.load(sub)
            return Unknown(f"{base.name}.{attr}")
        if isinstance(base, Sym):
            q = f"{base.qual}.{attr}"
            if q in self.sym_values:
                return self.sym_values[q]
            return Sym(q)
        if isinstance(base, ClassRef):
            hook = self.attr_hooks.get((base.qualname, attr))
            if hook is not None:
                return hook(self, base)
            if base.is_enum():
                for m in base.enum_members():
                    if m.name == attr:
                        return m
            v = base.lookup(attr)
            if isinstance(v, FuncRef):
                decos = v.decorators()
                if "classmethod" in decos:
                    return v.bind_to(base, base)
                return v
            return v
        if isinstance(base, EnumMember):
            if attr == "name":
                return base.name
            if attr == "value":
                return base.value
            return Unknown(f"enum member .{attr}")
        if isinstance(base, Instance):
            if attr in base.kwargs:
                return base.kwargs[attr]
            if base.cls is not None:
                v = base.cls.lookup(attr)
                if isinstance(v, FuncRef):
                    decos = v.decorators()
                    if "staticmethod" in decos:
                        return v
                    if "classmethod" in decos:
                        return v.bind_to(base.cls, base.cls)
                    return v.bind_to(base, base.cls)
                return v
            return Unknown(f"instance .{attr}")
        if isinstance(base, SubparsersRec):
            return BoundSubparsers(base, attr)
        if isinstance(base, SuperProxy):
            target = base.bound.cls if isinstance(base.bound, Instance) else base.bound
            if not isinstance(target, ClassRef):
                return Unknown("super() target")
            v = target.lookup(attr, start_after=base.owner)
            if isinstance(v, FuncRef):
                decos = v.decorators()
                if "staticmethod" in decos:
                    return v
                return v.bind_to(base.bound, target)
            return v
        if isinstance(base, Recorder):
            return BoundRecorderMethod(base, attr)
        if isinstance(base, (str, list, dict, tuple, set, frozenset)):
            for t, names in list(SAFE_METHODS.items()) + list(MUTATING_METHODS.items()):
                if isinstance(base, t) and attr in names:
                    return BoundNative(base, attr)
            return Unknown(f"native .{attr}")
        return Unknown(f"attr .{attr}")

    def eval_Subscript(self, frame: Frame, node: ast.Subscript) -> Any:
        base = self.eval(frame, node.value)
        if isinstance(node.slice, ast.Slice):
            if isinstance(base, (list, tuple, str)):
                lo = self.eval(frame, node.slice.lower) if node.slice.lower else None
                hi = self.eval(frame, node.slice.upper) if node.slice.upper else None
                if all(isinstance(x, (int, type(None))) for x in (lo, hi)):
                    return base[lo:hi]
            return Unknown("slice")
        key = self.eval(frame, node.slice)
        if isinstance(base, (dict, list, tuple, str)):
            try:
                return base[key]
            except (KeyError, IndexError, TypeError):
                if isinstance(base, dict):
                    raise ExtractError(f"{self.where(frame, node)}: key {key!r} not in dict")
                return Unknown("index")
        if isinstance(base, Unknown):
            return Unknown(f"subscript of {base.why}")
        # Type subscripts (Literal[...], Optional[...]) are only meaningful to the type evaluator.
        return TypeExpr(frame, node)

    def eval_BinOp(self, frame: Frame, node: ast.BinOp) -> Any:
        left = self.eval(frame, node.left)
        right = self.eval(frame, node.right)
        if isinstance(node.op, ast.BitOr) and not (isinstance(left, (int, set, dict)) and isinstance(right, (int, set, dict))):
            return TypeExpr(frame, node)
        if isinstance(left, Unknown) or isinstance(right, Unknown):
            return Unknown("binop")
        try:
            if isinstance(node.op, ast.Add):
                return left + right
            if isinstance(node.op, ast.Sub):
                return left - right
            if isinstance(node.op, ast.Mult):
                return left * right
            if isinstance(node.op, ast.Mod):
                return left % right
            if isinstance(node.op, ast.BitOr):
                return left | right
            if isinstance(node.op, ast.FloorDiv):
                return left // right
            if isinstance(node.op, ast.Div):
                return left / right
            if isinstance(node.op, ast.Pow):
                return left**right
        except Exception:
            return Unknown("binop error")
        return Unknown("binop op")

    def eval_UnaryOp(self, frame: Frame, node: ast.UnaryOp) -> Any:
        v = self.eval(frame, node.operand)
        if isinstance(v, Unknown):
            return v
        if isinstance(node.op, ast.Not):
            t = self.truth(v)
            return Unknown("not") if t is None else (not t)
        if isinstance(node.op, ast.USub) and isinstance(v, (int, float)):
            return -v
        return Unknown("unary")

    def truth(self, v: Any) -> bool | None:
        if isinstance(v, (Unknown, Sym, TypeExpr)):
            return None
        if isinstance(v, (ClassRef, FuncRef, Module, Recorder, Instance, EnumMember)):
            return True
        try:
            return bool(v)
        except Exception:
            return None

    def eval_BoolOp(self, frame: Frame, node: ast.BoolOp) -> Any:
        if isinstance(node.op, ast.And):
            last: Any = True
            for v in node.values:
                last = self.eval(frame, v)
                t = self.truth(last)
                if t is False:
                    return last
                if t is None:
                    # and with an unknown: only known if a later operand is False
                    rest = [self.truth(self.eval(frame, x)) for x in node.values[node.values.index(v) + 1 :]]
                    if False in rest:
                        return False
                    return Unknown("and")
            return last
        last = False
        for v in node.values:
            last = self.eval(frame, v)
            t = self.truth(last)
            if t is True:
                return last
            if t is None:
                rest = [self.truth(self.eval(frame, x)) for x in node.values[node.values.index(v) + 1 :]]
                if True in rest:
                    return True
                return Unknown("or")
        return last

    def eval_Compare(self, frame: Frame, node: ast.Compare) -> Any:
        left = self.eval(frame, node.left)
        for op, comp in zip(node.ops, node.comparators):
            right = self.eval(frame, comp)
            if isinstance(left, (Unknown, TypeExpr)) or isinstance(right, (Unknown, TypeExpr)):
                return Unknown("compare")
            try:
                if isinstance(op, ast.In):
                    ok = left in right
                elif isinstance(op, ast.NotIn):
                    ok = left not in right
                elif isinstance(op, ast.Eq):
                    ok = left == right
                elif isinstance(op, ast.NotEq):
                    ok = left != right
                elif isinstance(op, ast.Is):
                    ok = left is right
                elif isinstance(op, ast.IsNot):
                    ok = left is not right
                elif isinstance(op, ast.Lt):
                    ok = left < right
                elif isinstance(op, ast.LtE):
                    ok = left <= right
                elif isinstance(op, ast.Gt):
                    ok = left > right
                elif isinstance(op, ast.GtE):
                    ok = left >= right
                else:
                    return Unknown("cmp op")
            except TypeError:
                return Unknown("cmp type")
            if not ok:
                return False
            left = right
        return True

    def eval_IfExp(self, frame: Frame, node: ast.IfExp) -> Any:
        t = self.truth(self.eval(frame, node.test))
        if t is None:
            return Unknown("ifexp")
        return self.eval(frame, node.body if t else node.orelse)

    def eval_Lambda(self, frame: Frame, node: ast.Lambda) -> Any:
        return Unknown("lambda")

    def eval_Starred(self, frame: Frame, node: ast.Starred) -> Any:
        return Unknown("starred")

    def eval_NamedExpr(self, frame: Frame, node: ast.NamedExpr) -> Any:
        v = self.eval(frame, node.value)
        frame.locals[node.target.id] = v
        return v

    def _comprehension(self, frame: Frame, generators: list[ast.comprehension], emit: Callable[[Frame], None]) -> bool:
        def rec(i: int, local: dict[str, Any]) -> bool:
            if i == len(generators):
                emit(Frame(self, frame.module, local, frame.cls, frame.func))
                return True
            gen = generators[i]
            sub = Frame(self, frame.module, local, frame.cls, frame.func)
            it = self.iterate(self.eval(sub, gen.iter))
            if it is None:
                return False
            for item in it:
                l2 = dict(local)
                if not self.assign_target(Frame(self, frame.module, l2, frame.cls, frame.func), gen.target, item):
                    return False
                f2 = Frame(self, frame.module, l2, frame.cls, frame.func)
                ok = True
                for cond in gen.ifs:
                    t = self.truth(self.eval(f2, cond))
                    if t is None:
                        return False
                    if not t:
                        ok = False
                        break
                if ok and not rec(i + 1, l2):
                    return False
            return True

        return rec(0, dict(frame.locals))

    def eval_ListComp(self, frame: Frame, node: ast.ListComp) -> Any:
        out: list[Any] = []
        ok = self._comprehension(frame, node.generators, lambda f: out.append(self.eval(f, node.elt)))
        return out if ok else Unknown("listcomp")

    eval_GeneratorExp = eval_ListComp

    def eval_SetComp(self, frame: Frame, node: ast.SetComp) -> Any:
        v = self.eval_ListComp(frame, node)  # type: ignore[arg-type]
        return set(v) if isinstance(v, list) else v

    def eval_DictComp(self, frame: Frame, node: ast.DictComp) -> Any:
        out: dict[Any, Any] = {}
        ok = self._comprehension(frame, node.generators,
                                 lambda f: out.__setitem__(self.eval(f, node.key), self.eval(f, node.value)))
        return out if ok else Unknown("dictcomp")

    def iterate(self, v: Any) -> list[Any] | None:
        if isinstance(v, (list, tuple, str)):
            return list(v)
        if isinstance(v, (set, frozenset)):
            try:
                return sorted(v)
            except TypeError:
                return None
        if isinstance(v, dict):
            return list(v.keys())
        if isinstance(v, DictView):
            return list(v.items)
        if isinstance(v, ClassRef) and v.is_enum():
            return v.enum_members()
        if isinstance(v, TypeExpr):
            return None
        return None

    # ---- calls -----------------------------------------------------------------------------------------------
    def eval_Call(self, frame: Frame, node: ast.Call) -> Any:
        func = self.eval(frame, node.func)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                it = self.iterate(self.eval(frame, a.value))
                if it is None:
                    if isinstance(func, BoundRecorderMethod) and func.name == "add_argument":
                        raise ExtractError(f"{self.where(frame, node)}: unknown *args in add_argument")
                    return Unknown("call *args")
                args.extend(it)
            else:
                args.append(self.eval(frame, a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                splat = self.eval(frame, kw.value)
                if isinstance(splat, dict):
                    kwargs.update(splat)
                else:
                    if isinstance(func, BoundRecorderMethod) and func.name == "add_argument":
                        raise ExtractError(f"{self.where(frame, node)}: unknown **kwargs in add_argument: {splat!r}")
                    return Unknown("call **kwargs")
            else:
                kwargs[kw.arg] = self.eval(frame, kw.value)
        return self.call(frame, node, func, args, kwargs)

    def call(self, frame: Frame, node: ast.AST, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if isinstance(func, BoundRecorderMethod):
            return self.recorder_call(frame, node, func, args, kwargs)
        if isinstance(func, BoundNative):
            return func.call(args, kwargs)
        if isinstance(func, BoundSubparsers):
            if func.name == "add_parser":
                return Recorder(func.subparsers.sink, args[0] if args and isinstance(args[0], str) else None)
            return Unknown(f"subparsers.{func.name}")
        if isinstance(func, FuncRef):
            hook = self.intercepts.get(func.qualname)
            if hook is not None:
                return hook(self, frame, node, func, args, kwargs)
            return self.call_function(func, args, kwargs)
        if isinstance(func, ClassRef):
            hook = self.intercepts.get(func.qualname)
            if hook is not None:
                return hook(self, frame, node, func, args, kwargs)
            if func.is_enum():
                return Unknown("enum call")
            return Instance(kind=func.qualname, args=args, kwargs=kwargs, cls=func)
        if isinstance(func, Sym) and func.qual == "builtins.super" and not args:
            if frame.func is None or frame.func.owner is None or frame.func.bound is None:
                raise ExtractError(f"{self.where(frame, node)}: super() outside a bound method")
            return SuperProxy(frame.func.owner, frame.func.bound)
        if isinstance(func, Sym):
            hook = self.intercepts.get(func.qual)
            if hook is not None:
                return hook(self, frame, node, func, args, kwargs)
            if func.qual in ("dataclasses.field", "pydantic.Field", "pydantic.fields.Field"):
                return Instance(kind="dataclasses.field" if "dataclasses" in func.qual else "pydantic.Field",
                                args=args, kwargs=kwargs)
            if func.qual in ("typing.get_args", "typing_extensions.get_args"):
                th = TypeEvaluator(self).from_value(args[0]) if args else None
                if th is not None and th[0] == "lit":
                    return tuple(th[1])
                return Unknown("get_args")
            if func.qual in SYM_CALLS:
                return SYM_CALLS[func.qual](args, kwargs)
            return Unknown(f"call {func.qual}")
        if callable(func) and getattr(func, "_static_builtin", False):
            return func(self, args, kwargs)
        return Unknown("call")

    def call_function(self, func: FuncRef, args: list[Any], kwargs: dict[str, Any]) -> Any:
        self.depth += 1
        if self.depth > 60:
            raise ExtractError(f"recursion too deep at {func.qualname}")
        try:
            local: dict[str, Any] = {}
            a = func.node.args
            params = [p.arg for p in a.posonlyargs + a.args]
            decos = func.decorators()
            call_args = list(args)
            if func.bound is not None:
                call_args = [func.bound] + call_args
            elif func.owner is not None and "staticmethod" not in decos and "classmethod" in decos:
                call_args = [func.owner] + call_args
            defaults = a.defaults
            dframe = Frame(self, func.module, {}, func.owner)
            ndef = len(defaults)
            for i, p in enumerate(params):
                if i < len(call_args):
                    local[p] = call_args[i]
                elif p in kwargs:
                    local[p] = kwargs.pop(p)
                elif i >= len(params) - ndef:
                    local[p] = self.eval(dframe, defaults[i - (len(params) - ndef)])
                else:
                    local[p] = Unknown(f"missing arg {p}")
            if a.vararg is not None:
                local[a.vararg.arg] = tuple(call_args[len(params):])
            for p, d in zip(a.kwonlyargs, a.kw_defaults):
                if p.arg in kwargs:
                    local[p.arg] = kwargs.pop(p.arg)
                elif d is not None:
                    local[p.arg] = self.eval(dframe, d)
                else:
                    local[p.arg] = Unknown(f"missing kwarg {p.arg}")
            if a.kwarg is not None:
                local[a.kwarg.arg] = dict(kwargs)
            cls_ctx = func.owner
            f = Frame(self, func.module, local, cls_ctx, func)
            try:
                self.exec_block(f, func.node.body)
            except ReturnSignal as r:
                return r.value
            return None
        finally:
            self.depth -= 1

    def recorder_call(self, frame: Frame, node: ast.AST, m: "BoundRecorderMethod", args: list[Any],
                      kwargs: dict[str, Any]) -> Any:
        if m.name == "add_argument":
            names = list(args)
            for n in names:
                if not isinstance(n, str):
                    raise ExtractError(f"{self.where(frame, node)}: add_argument name not static: {n!r}")
            m.recorder.sink.calls.append(ArgCall(names, kwargs, self.where(frame, node)))
            return Unknown("action")
        if m.name in ("add_argument_group", "add_mutually_exclusive_group"):
            title = kwargs.get("title", args[0] if args else None)
            return Recorder(m.recorder.sink, title if isinstance(title, str) else None)
        if m.name in ("set_defaults", "error", "print_help"):
            return None
        if m.name == "add_subparsers":
            return SubparsersRec(ArgSink())
        return Unknown(f"parser.{m.name}")

    # ---- statements ------------------------------------------------------------------------------------------
    def exec_block(self, frame: Frame, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.exec_stmt(frame, stmt)

    def exec_stmt(self, frame: Frame, stmt: ast.stmt, module_level_name: str | None = None) -> None:
        if isinstance(stmt, ast.Expr):
            self.eval(frame, stmt.value)
        elif isinstance(stmt, ast.Assign):
            value = self.eval(frame, stmt.value)
            for t in stmt.targets:
                self.assign_target(frame, t, value, module_level_name)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign_target(frame, stmt.target, self.eval(frame, stmt.value), module_level_name)
        elif isinstance(stmt, ast.AugAssign):
            cur = self.eval(frame, stmt.target)
            rhs = self.eval(frame, stmt.value)
            new: Any
            if isinstance(cur, list) and isinstance(stmt.op, ast.Add):
                it = self.iterate(rhs)
                if it is None:
                    cur.append(Unknown("+= unknown"))
                else:
                    cur.extend(it)
                new = cur
            elif isinstance(cur, dict) and isinstance(stmt.op, ast.BitOr) and isinstance(rhs, dict):
                cur.update(rhs)
                new = cur
            elif isinstance(cur, (int, float, str)) and isinstance(rhs, type(cur)) and isinstance(stmt.op, ast.Add):
                new = cur + rhs
            else:
                new = Unknown("augassign")
            self.assign_target(frame, stmt.target, new, module_level_name)
        elif isinstance(stmt, ast.Delete):
            for t in stmt.targets:
                if isinstance(t, ast.Subscript):
                    base = self.eval(frame, t.value)
                    key = self.eval(frame, t.slice)
                    if isinstance(base, dict):
                        if key not in base:
                            raise ExtractError(f"{self.where(frame, stmt)}: del of missing key {key!r}")
                        del base[key]
                elif isinstance(t, ast.Name):
                    frame.locals.pop(t.id, None)
        elif isinstance(stmt, ast.If):
            cond = self.eval(frame, stmt.test)
            t = self.truth(cond)
            if t is None and self.condition_policy is not None:
                t = self.condition_policy(ast.unparse(stmt.test), frame)
            if t is None:
                if _block_touches_parser(stmt):
                    raise ExtractError(f"{self.where(frame, stmt)}: parser code depends on unknown condition "
                                       f"`{ast.unparse(stmt.test)}`")
                self.unknown_conditions.append(f"{self.where(frame, stmt)}: {ast.unparse(stmt.test)}")
                return
            self.exec_block(frame, stmt.body if t else stmt.orelse)
        elif isinstance(stmt, ast.For):
            it = self.iterate(self.eval(frame, stmt.iter))
            if it is None:
                if _block_touches_parser(stmt):
                    raise ExtractError(f"{self.where(frame, stmt)}: loop over unknown `{ast.unparse(stmt.iter)}`")
                return
            for item in it:
                self.assign_target(frame, stmt.target, item)
                try:
                    self.exec_block(frame, stmt.body)
                except BreakSignal:
                    break
                except ContinueSignal:
                    continue
            else:
                self.exec_block(frame, stmt.orelse)
        elif isinstance(stmt, ast.Return):
            raise ReturnSignal(self.eval(frame, stmt.value) if stmt.value is not None else None)
        elif isinstance(stmt, ast.Break):
            raise BreakSignal()
        elif isinstance(stmt, ast.Continue):
            raise ContinueSignal()
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            frame.locals[stmt.name] = FuncRef(self, frame.module, stmt, owner=None, closure=dict(frame.locals))
        elif isinstance(stmt, ast.ClassDef):
            frame.locals[stmt.name] = self.classref(frame.module, stmt)
        elif isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                if a.name == "*":
                    continue
                frame.locals[a.asname or a.name] = self.import_from(frame.module, stmt, a.name)
        elif isinstance(stmt, ast.Import):
            for a in stmt.names:
                nm = a.asname or a.name.split(".")[0]
                dotted = a.name if a.asname else a.name.split(".")[0]
                frame.locals[nm] = self.tree.load(dotted) if self.tree.has_module(dotted) else Sym(dotted)
        elif isinstance(stmt, ast.Try):
            self.exec_block(frame, stmt.body)
            self.exec_block(frame, stmt.orelse)
            self.exec_block(frame, stmt.finalbody)
        elif isinstance(stmt, ast.With):
            self.exec_block(frame, stmt.body)
        elif isinstance(stmt, (ast.Pass, ast.Assert, ast.Global, ast.Nonlocal)):
            pass
        elif isinstance(stmt, ast.Raise):
            raise ExtractError(f"{self.where(frame, stmt)}: reached a raise while building the parser")
        elif isinstance(stmt, ast.While):
            raise ExtractError(f"{self.where(frame, stmt)}: while loop not supported")
        else:
            raise ExtractError(f"{self.where(frame, stmt)}: statement {type(stmt).__name__} not supported")

    def assign_target(self, frame: Frame, target: ast.expr, value: Any, module_level_name: str | None = None) -> bool:
        if isinstance(target, ast.Name):
            if module_level_name is not None and target.id == module_level_name:
                frame.module._cache[target.id] = value
            frame.locals[target.id] = value
            return True
        if isinstance(target, (ast.Tuple, ast.List)):
            it = self.iterate(value) if not isinstance(value, tuple) else list(value)
            if it is None or len(it) != len(target.elts):
                for e in target.elts:
                    self.assign_target(frame, e, Unknown("unpack"))
                return False
            for e, v in zip(target.elts, it):
                self.assign_target(frame, e, v)
            return True
        if isinstance(target, ast.Subscript):
            base = self.eval(frame, target.value)
            key = self.eval(frame, target.slice)
            if isinstance(base, dict):
                base[key] = value
            elif isinstance(base, list) and isinstance(key, int):
                base[key] = value
            return True
        if isinstance(target, ast.Attribute):
            base = self.eval(frame, target.value)
            if isinstance(base, ClassRef):
                base.attrs[target.attr] = value
            elif isinstance(base, Instance):
                base.kwargs[target.attr] = value
            return True
        return False


def _block_touches_parser(stmt: ast.stmt) -> bool:
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in {
            "add_argument", "add_argument_group", "add_mutually_exclusive_group"}:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)):
            name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            if name.startswith("add_") and name.endswith(("args", "arguments", "parser")):
                return True
    return False


@dataclass
class SuperProxy:
    owner: ClassRef
    bound: Any


@dataclass
class SubparsersRec:
    sink: "ArgSink"


@dataclass
class BoundSubparsers:
    subparsers: SubparsersRec
    name: str


@dataclass
class BoundRecorderMethod:
    recorder: Recorder
    name: str


@dataclass
class DictView:
    items: list[Any]


class BoundNative:
    def __init__(self, obj: Any, name: str):
        self.obj = obj
        self.name = name

    def call(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.name == "items" and isinstance(self.obj, dict):
            return DictView([(k, v) for k, v in self.obj.items()])
        if self.name in ("keys",) and isinstance(self.obj, dict):
            return list(self.obj.keys())
        if self.name in ("values",) and isinstance(self.obj, dict):
            return list(self.obj.values())
        if self.name == "join" and isinstance(self.obj, str):
            it = args[0] if args else []
            if isinstance(it, DictView):
                it = it.items
            if isinstance(it, (list, tuple)) and all(isinstance(x, str) for x in it):
                return self.obj.join(it)
            return Unknown("join")
        if any(isinstance(a, Unknown) for a in args) and self.name not in {"pop", "get", "update", "setdefault"}:
            if isinstance(self.obj, list) and self.name in ("append", "extend"):
                self.obj.append(Unknown("appended"))
                return None
            return Unknown(f"{self.name}(unknown)")
        try:
            return getattr(self.obj, self.name)(*args, **kwargs)
        except Exception:
            return Unknown(f"native {self.name} failed")


# ---- builtins ---------------------------------------------------------------------------------------------------


def _b(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn._static_builtin = True  # type: ignore[attr-defined]
    return fn


def _seq_arg(interp: Interp, v: Any) -> list[Any] | None:
    if isinstance(v, DictView):
        return list(v.items)
    return interp.iterate(v)


@_b
def _b_list(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if not args:
        return []
    it = _seq_arg(interp, args[0])
    return Unknown("list()") if it is None else list(it)


@_b
def _b_tuple(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    v = _b_list(interp, args, kwargs)
    return tuple(v) if isinstance(v, list) else v


@_b
def _b_set(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    v = _b_list(interp, args, kwargs)
    try:
        return set(v) if isinstance(v, list) else v
    except TypeError:
        return Unknown("set()")


@_b
def _b_sorted(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    v = _b_list(interp, args[:1], {})
    if not isinstance(v, list) or kwargs.get("key") is not None:
        return Unknown("sorted()")
    try:
        return sorted(v, reverse=bool(kwargs.get("reverse", False)))
    except TypeError:
        return Unknown("sorted() types")


@_b
def _b_dict(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    out: dict[Any, Any] = {}
    if args:
        a = args[0]
        if isinstance(a, dict):
            out.update(a)
        elif isinstance(a, DictView):
            out.update(dict(a.items))
        else:
            it = interp.iterate(a)
            if it is None:
                return Unknown("dict()")
            try:
                out.update(dict(it))
            except Exception:
                return Unknown("dict() items")
    out.update(kwargs)
    return out


@_b
def _b_str(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if args and isinstance(args[0], (str, int, float)):
        return str(args[0])
    return Sym("builtins.str") if not args else Unknown("str()")


@_b
def _b_len(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    it = _seq_arg(interp, args[0]) if args else None
    return Unknown("len") if it is None else len(it)


@_b
def _b_enumerate(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    it = _seq_arg(interp, args[0]) if args else None
    return Unknown("enumerate") if it is None else [(i, x) for i, x in enumerate(it)]


@_b
def _b_zip(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    its = [_seq_arg(interp, a) for a in args]
    if any(i is None for i in its):
        return Unknown("zip")
    return [tuple(x) for x in zip(*its)]  # type: ignore[arg-type]


@_b
def _b_range(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if all(isinstance(a, int) for a in args):
        return list(range(*args))
    return Unknown("range")


@_b
def _b_print(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return None


@_b
def _b_getattr(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if len(args) >= 2 and isinstance(args[1], str):
        v = interp.getattr(args[0], args[1])
        if isinstance(v, Unknown) and len(args) == 3:
            return args[2]
        return v
    return Unknown("getattr")


@_b
def _b_isinstance(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return Unknown("isinstance")


@_b
def _b_any(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    it = _seq_arg(interp, args[0]) if args else None
    if it is None or any(interp.truth(x) is None for x in it):
        return Unknown("any")
    return any(it)


@_b
def _b_all(interp: Interp, args: list[Any], kwargs: dict[str, Any]) -> Any:
    it = _seq_arg(interp, args[0]) if args else None
    if it is None or any(interp.truth(x) is None for x in it):
        return Unknown("all")
    return all(it)


BUILTINS: dict[str, Any] = {
    "list": _b_list,
    "tuple": _b_tuple,
    "set": _b_set,
    "frozenset": _b_set,
    "sorted": _b_sorted,
    "dict": _b_dict,
    "str": _b_str,
    "len": _b_len,
    "enumerate": _b_enumerate,
    "zip": _b_zip,
    "range": _b_range,
    "print": _b_print,
    "getattr": _b_getattr,
    "isinstance": _b_isinstance,
    "any": _b_any,
    "all": _b_all,
    "True": True,
    "False": False,
    "None": None,
}

# Builtin names used as values (type=int, type=str, ...) become symbols; `str` is special-cased above, so the
# value of a bare `str` inside `type=str` is handled by treating the builtin function object as the type.
for _t in ("int", "float", "bool", "bytes", "object", "type", "Ellipsis"):
    BUILTINS[_t] = Sym(f"builtins.{_t}")


def _sym_permutations(args: list[Any], kwargs: dict[str, Any]) -> Any:
    if args and isinstance(args[0], (list, tuple)):
        r = args[1] if len(args) > 1 else kwargs.get("r")
        return [tuple(p) for p in itertools.permutations(args[0], r)]
    return Unknown("permutations")


SYM_CALLS: dict[str, Callable[[list[Any], dict[str, Any]], Any]] = {
    "itertools.permutations": _sym_permutations,
}


# --------------------------------------------------------------------------------------------------------------
# Type annotations
# --------------------------------------------------------------------------------------------------------------


class TypeExpr:
    """A subscript or `|` expression kept for the type evaluator (Literal[...], Optional[...], X | None ...)."""

    def __init__(self, frame: Frame, node: ast.expr):
        self.frame = frame
        self.node = node

    def __repr__(self) -> str:
        return f"TypeExpr({ast.unparse(self.node)})"


# Type hints are tuples:
#   ("b", name)            a builtin class: int str float bool dict list tuple set frozenset bytes type object
#   ("none",)              NoneType
#   ("g", origin, args)    a parametrised generic; origin is a builtin name or a qualified name
#   ("lit", values)        typing.Literal[...]
#   ("union", members)     typing.Union / Optional (args flattened by typing)
#   ("ut", members)        X | Y (types.UnionType)
#   ("ann", inner, meta)   typing.Annotated[inner, *meta]
#   ("cls", ClassRef)      a class from the source tree
#   ("ext", qualname)      a class or special form from outside the tree (typing.Any, torch.dtype, ...)
#   ("str", text)          a string annotation (forward reference) kept as the string object

TYPING_GENERIC_ORIGINS = {
    "List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset", "Type": "type",
    "list": "list", "dict": "dict", "tuple": "tuple", "set": "set", "frozenset": "frozenset", "type": "type",
}
BUILTIN_TYPE_NAMES = {"int", "str", "float", "bool", "dict", "list", "tuple", "set", "frozenset", "bytes", "type",
                      "object", "complex"}


class TypeEvaluator:
    def __init__(self, interp: Interp):
        self.interp = interp

    def from_value(self, v: Any) -> Any:
        """Turn an evaluated value (Sym, ClassRef, TypeExpr, None, builtin fn ...) into a type hint."""
        if v is None:
            return ("none",)
        if isinstance(v, TypeExpr):
            return self.from_node(v.frame, v.node)
        if isinstance(v, ClassRef):
            return ("cls", v)
        if v is _b_str:
            return ("b", "str")
        if v in (_b_list, _b_dict, _b_tuple, _b_set):
            return ("b", {_b_list: "list", _b_dict: "dict", _b_tuple: "tuple", _b_set: "set"}[v])
        if isinstance(v, Sym):
            q = v.qual
            if q.startswith("builtins."):
                n = q[len("builtins."):]
                if n in BUILTIN_TYPE_NAMES:
                    return ("b", n)
                if n == "Ellipsis":
                    return ("ellipsis",)
            last = v.last
            if q.startswith(("typing.", "typing_extensions.")) and last in TYPING_GENERIC_ORIGINS:
                return ("b", TYPING_GENERIC_ORIGINS[last])  # bare typing.List behaves like its origin for is_type
            return ("ext", q)
        if isinstance(v, str):
            return ("str", v)
        if v is Ellipsis:
            return ("ellipsis",)
        if isinstance(v, Unknown):
            return ("ext", f"unknown:{v.why}")
        return ("ext", f"value:{type(v).__name__}")

    def from_node(self, frame: Frame, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return ("none",)
            if node.value is Ellipsis:
                return ("ellipsis",)
            if isinstance(node.value, str):
                return ("str", node.value)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            members = self._flatten_ut(frame, node)
            return ("ut", members)
        if isinstance(node, ast.Subscript):
            head = self.interp.eval(frame, node.value)
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            name = head.qual if isinstance(head, Sym) else None
            last = head.last if isinstance(head, Sym) else (head.name if isinstance(head, ClassRef) else None)
            if isinstance(head, TypeExpr):
                # a parametrised alias subscripted again; treat like its origin
                return self.from_node(head.frame, head.node)
            if name is not None and last == "Literal":
                values: list[Any] = []
                for e in elts:
                    v = self.interp.eval(frame, e)
                    if isinstance(v, TypeExpr):
                        inner = self.from_value(v)
                        if inner[0] == "lit":
                            values.extend(inner[1])
                            continue
                    if isinstance(v, EnumMember):
                        values.append(v)
                        continue
                    if isinstance(v, Unknown):
                        raise ExtractError(f"{self.interp.where(frame, node)}: Literal value not static")
                    values.append(v)
                return ("lit", tuple(values))
            if name is not None and last == "Optional":
                return self._union([self.from_node(frame, elts[0]), ("none",)])
            if name is not None and last == "Union":
                return self._union([self.from_node(frame, e) for e in elts])
            if name is not None and last in ("Annotated", "A"):
                return ("ann", self.from_node(frame, elts[0]), tuple(self.interp.eval(frame, e) for e in elts[1:]))
            if name is not None and last in ("SkipValidation",):
                return ("ann", self.from_node(frame, elts[0]), (Sym("pydantic.SkipValidation"),))
            if name is not None and last in ("ClassVar", "InitVar", "Final", "Required", "NotRequired"):
                return ("wrap", last, self.from_node(frame, elts[0]))
            if isinstance(head, (Sym, ClassRef)):
                base = self.from_value(head)
                origin = base[1] if base[0] == "b" else (base[1].qualname if base[0] == "cls" else base[1])
                args = tuple(self.from_node(frame, e) for e in elts)
                if last == "Callable" or (isinstance(head, Sym) and head.qual in (
                        "collections.abc.Callable", "typing.Callable")):
                    return ("g", "collections.abc.Callable", args)
                return ("g", origin, args)
            if head is _b_str or head in (_b_list, _b_dict, _b_tuple, _b_set):
                base = self.from_value(head)
                return ("g", base[1], tuple(self.from_node(frame, e) for e in elts))
            if isinstance(head, Unknown):
                return ("ext", f"unknown:{head.why}")
            return ("ext", f"subscript:{ast.unparse(node)}")
        if isinstance(node, ast.List):
            return ("ext", "typelist:" + ast.unparse(node))
        v = self.interp.eval(frame, node)
        return self.from_value(v)

    def _flatten_ut(self, frame: Frame, node: ast.expr) -> tuple[Any, ...]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._flatten_ut(frame, node.left) + self._flatten_ut(frame, node.right)
        th = self.from_node(frame, node)
        if th[0] == "ut":
            return tuple(th[1])
        return (th,)

    def _union(self, members: list[Any]) -> Any:
        flat: list[Any] = []
        for m in members:
            if m[0] == "union":
                flat.extend(m[1])
            else:
                flat.append(m)
        # typing.Union de-duplicates and collapses a single member
        seen: list[Any] = []
        for m in flat:
            if not any(_th_eq(m, s) for s in seen):
                seen.append(m)
        if len(seen) == 1:
            return seen[0]
        return ("union", tuple(seen))


def _th_eq(a: Any, b: Any) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "cls":
        return a[1].qualname == b[1].qualname
    return repr(a) == repr(b)


def th_origin(th: Any) -> str | None:
    """typing.get_origin for our type-hint tuples."""
    k = th[0]
    if k == "g":
        return th[1]
    if k == "lit":
        return "Literal"
    if k == "union":
        return "Union"
    if k == "ut":
        return "UnionType"
    if k == "ann":
        return "Annotated"
    return None


def th_is(th: Any, t: str) -> bool:
    """is_type(type_hint, t): `type_hint is t or get_origin(type_hint) is t`."""
    if th[0] == "b" and th[1] == t:
        return True
    if t == "NoneType":
        return th[0] == "none"
    return th_origin(th) == t


def th_module(th: Any) -> str | None:
    """type_hint.__module__, or None when the object has no __module__ (a str annotation)."""
    k = th[0]
    if k in ("b", "none"):
        return "builtins"
    if k == "g":
        origin = th[1]
        if origin in BUILTIN_TYPE_NAMES:
            return "builtins"  # list[int].__module__ == 'builtins' (types.GenericAlias proxies the origin)
        return origin.rpartition(".")[0] or "typing"
    if k in ("lit", "union", "ann"):
        return "typing"
    if k == "ut":
        return "types"
    if k == "cls":
        return th[1].module.name
    if k == "ext":
        q = th[1]
        if q.startswith(("unknown:", "value:", "subscript:", "typelist:")):
            return "unknown"
        return q.rpartition(".")[0] or "builtins"
    if k == "str":
        return None
    if k == "ellipsis":
        return "builtins"
    return "unknown"


def th_args(th: Any) -> tuple[Any, ...]:
    k = th[0]
    if k == "g":
        return th[2]
    if k == "lit":
        return th[1]
    if k in ("union", "ut"):
        return th[1]
    if k == "ann":
        return (th[1],) + tuple(th[2])
    return ()


def th_is_dataclass(th: Any) -> bool:
    return th[0] == "cls" and th[1].is_dataclass()


# --------------------------------------------------------------------------------------------------------------
# Dataclass fields
# --------------------------------------------------------------------------------------------------------------


@dataclass
class FieldInfo:
    name: str
    annotation: ast.expr
    module: Module
    owner: ClassRef
    default_node: ast.expr | None
    lineno: int


def dataclass_fields(cls: ClassRef) -> list[FieldInfo]:
    """dataclasses.fields(cls): base-class fields first, redefinitions keep their first position."""
    order: list[str] = []
    by_name: dict[str, FieldInfo] = {}
    for c in reversed(cls.mro()):
        if not c.is_dataclass() and c is not cls:
            continue
        for s in c.body_stmts():
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                ann_src = ast.unparse(s.annotation)
                head = ann_src.split("[")[0].split(".")[-1]
                if head in ("ClassVar", "InitVar") or ann_src in ("KW_ONLY", "dataclasses.KW_ONLY"):
                    continue
                if isinstance(s.annotation, ast.Constant) and isinstance(s.annotation.value, str) and \
                        s.annotation.value.split("[")[0].split(".")[-1] in ("ClassVar", "InitVar"):
                    continue
                name = s.target.id
                fi = FieldInfo(name, s.annotation, c.module, c, s.value, s.lineno)
                if name not in by_name:
                    order.append(name)
                by_name[name] = fi
    return [by_name[n] for n in order]
