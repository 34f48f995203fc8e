"""What an exception class of the codebase prints, in terms of its constructor's parameters.

`raise KVTransferError(room, reason)` prints neither `room` nor `reason` alone when the
class says otherwise: its `__init__` hands `super().__init__` another parameter than the
first, or a message built from them, and a `__str__` returning a string built from the
attributes `__init__` stored prints that instead (`f"KVTransferError(bootstrap_room=
{self.bootstrap_room}): {self.failure_reason}"`). Read here from the class body alone,
without running it; the raise sites are rebound to their arguments when files are linked
(`link.link_factories`), since a class is often raised in another module than its own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errdex.models import Placeholder, Template


@dataclass(slots=True)
class Constructor:
    """The parts of a class body that decide its printed message."""

    init: ast.FunctionDef
    params: list[str]                 # `__init__`'s parameters without self, positional ones first
    attrs: dict[str, str]             # `self.<attr> = <param>` in `__init__`'s own statements
    message: ast.expr | None          # what `__init__` hands `super().__init__` (its first argument)
    shown: ast.expr | None            # what `__str__` returns, when it is one `return`


def constructor_of(cls: ast.ClassDef) -> Constructor | None:
    """The class's `__init__` and `__str__` read for their message, or None when neither
    changes what the raise's first argument alone would print."""
    init = shown = None
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef):
            if stmt.name == "__init__":
                init = stmt
            elif stmt.name == "__str__":
                shown = _single_return(stmt)
                if shown is None:
                    return None   # a `__str__` read no further: what it prints is unknown here
    if init is None:
        return None
    args = init.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)][1:]
    params = positional + [a.arg for a in args.kwonlyargs]
    if not params:
        return None
    attrs: dict[str, str] = {}
    message = None
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _self_attr(stmt.targets[0]) \
                and isinstance(stmt.value, ast.Name) and stmt.value.id in params:
            attrs[stmt.targets[0].attr] = stmt.value.id
        elif isinstance(stmt, ast.Expr) and _is_super_init(stmt.value) and stmt.value.args:
            first = stmt.value.args[0]
            message = None if isinstance(first, ast.Starred) else first
    if shown is None and (message is None or (isinstance(message, ast.Name) and positional[:1] == [message.id])):
        return None   # the first argument is the message, as for any exception
    return Constructor(init, params, attrs, message, shown)


def in_parameters(template: Template, c: Constructor, shown: bool) -> Template | None:
    """`template` (built from `__str__`'s return when `shown`, else from the message handed to
    `super().__init__`) with every placeholder over the parameters; None when one reads
    anything else (another attribute, a call on self, a global)."""
    params = set(c.params)
    segments: list = []
    for seg in template.segments:
        if not isinstance(seg, Placeholder):
            segments.append(seg)
            continue
        expr = seg.expr
        if shown and expr.startswith("self.") and expr[5:] in c.attrs and seg.name.startswith(expr):
            param = c.attrs[expr[5:]]
            segments.append(Placeholder(param + seg.name[len(expr):], param))
        elif not shown and expr in params:
            segments.append(seg)
        else:
            return None
    return Template(segments, template.form)


def _single_return(fn: ast.FunctionDef) -> ast.expr | None:
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]   # a docstring
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


def _self_attr(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _is_super_init(node: ast.expr) -> bool:
    """`super().__init__(...)`, `super(Cls, self).__init__(...)`."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
            and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name)
            and node.func.value.func.id == "super")
