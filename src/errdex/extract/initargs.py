"""Which constructor arguments a class keeps as attributes of the same name.

A check on `self.min_p` in `SamplingParams.verify` is met by whoever builds the
object: `SamplingParams(min_p=...)`. The advice can name that argument when the
class takes it and stores it as it is: an explicit `__init__` that assigns
`self.p = p`, or a class whose constructor is made from its annotated fields
(a dataclass, attrs class, pydantic model, msgspec struct or NamedTuple).
Read from the syntax tree alone; inherited constructors are followed later,
across files (`analyze.setters.init_args_for`).
"""

from __future__ import annotations

import ast

from errdex.extract.scope import dotted_source

#: Decorators that make a constructor of the annotated fields (last dotted part).
_FIELD_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "attrs", "s", "pydantic_dataclass"})
#: Bases whose subclasses take their annotated fields as constructor arguments (last dotted part).
_FIELD_BASES = frozenset({"BaseModel", "Struct", "NamedTuple", "BaseSettings", "RootModel"})

INIT = "init"        # an explicit `__init__`: its parameters kept as `self.p = p`
FIELDS = "fields"    # a constructor made from the annotated fields


def init_arguments(stmt: ast.ClassDef) -> tuple[str, tuple[str, ...]]:
    """(kind, names): `INIT` and the `__init__` parameters it stores as they are, `FIELDS` and the
    annotated fields, or ("", ()) when the class body says nothing (it inherits its constructor)."""
    for node in stmt.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "__init__":
            return INIT, _kept_parameters(node)
    if _field_style(stmt):
        return FIELDS, _fields(stmt)
    return "", ()


def _kept_parameters(init: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    args = init.args
    params = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)][1:]
    if not params:
        return ()
    kept: set[str] = set()
    # Statements only, nested blocks included, nested definitions not (they do not run here): a walk
    # of every expression of every `__init__` was a fifth of the catalog walk's own time.
    stack: list[ast.stmt] = list(init.body)
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Assign and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif kind is ast.AnnAssign and node.value is not None:
            target, value = node.target, node.value
        else:
            if kind not in _DEFINITIONS:
                for field in _BLOCKS:
                    block = getattr(node, field, None)
                    if block:
                        stack.extend(block)
                for handler in getattr(node, "handlers", None) or ():
                    stack.extend(handler.body)
                for case in getattr(node, "cases", None) or ():
                    stack.extend(case.body)
            continue
        if (target.__class__ is ast.Attribute and target.value.__class__ is ast.Name and target.value.id == "self"
                and value.__class__ is ast.Name and value.id == target.attr):
            kept.add(target.attr)
    return tuple(p for p in params if p in kept)


_BLOCKS = ("body", "orelse", "finalbody")
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})


def _field_style(stmt: ast.ClassDef) -> bool:
    for deco in stmt.decorator_list:
        name = dotted_source(deco.func if isinstance(deco, ast.Call) else deco)
        if name is not None and name.rpartition(".")[2] in _FIELD_DECORATORS:
            return True
    for base in stmt.bases:
        name = dotted_source(base.value if isinstance(base, ast.Subscript) else base)
        if name is not None and name.rpartition(".")[2] in _FIELD_BASES:
            return True
    return False


def _fields(stmt: ast.ClassDef) -> tuple[str, ...]:
    """Annotated names of the class body, less `ClassVar`s and fields declared `init=False`."""
    out = []
    for node in stmt.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        note = dotted_source(node.annotation.value if isinstance(node.annotation, ast.Subscript) else node.annotation)
        if note is not None and note.rpartition(".")[2] in ("ClassVar", "InitVar"):
            continue
        value = node.value
        if isinstance(value, ast.Call) and any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in value.keywords):
            continue
        out.append(node.target.id)
    return tuple(out)
