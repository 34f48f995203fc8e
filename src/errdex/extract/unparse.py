"""`ast.unparse` for the common shape of an assert's test, without the generic unparser.

`source_of` checks a position-cut segment against `ast.unparse(node)`, and the
assert tests of a large codebase (comparisons of names, attributes, calls and
plain constants) made that unparse ~15% of the walk. `simple_unparse` writes
exactly what `ast.unparse` writes for those shapes and returns None for any
other, so callers fall back to `ast.unparse` and the text never changes.
"""

from __future__ import annotations

import ast

_CMP_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def simple_unparse(node: ast.AST) -> str | None:
    """`ast.unparse(node)` for a comparison of atoms (or an atom), else None."""
    if node.__class__ is ast.Compare:
        parts = [_atom(node.left)]
        for op, right in zip(node.ops, node.comparators):
            parts.append(_CMP_OPS[op.__class__])
            parts.append(_atom(right))
        return None if None in parts else " ".join(parts)
    return _atom(node)


def _atom(node: ast.AST) -> str | None:
    """Names, attribute chains, calls and subscripts of atoms, and plain constants; None otherwise."""
    kind = node.__class__
    if kind is ast.Name:
        return node.id
    if kind is ast.Attribute:
        if node.value.__class__ is ast.Constant:
            return None  # `1 .real`: unparse spaces it
        value = _atom(node.value)
        return None if value is None else f"{value}.{node.attr}"
    if kind is ast.Constant:
        return _constant(node)
    if kind is ast.Call:
        return _call(node)
    if kind is ast.Subscript:
        value, index = _atom(node.value), _atom(node.slice)
        return None if value is None or index is None or node.value.__class__ is ast.Constant else f"{value}[{index}]"
    return None


def _call(node: ast.Call) -> str | None:
    if node.func.__class__ is ast.Constant:
        return None
    parts = [_atom(node.func)]
    args = [_atom(a) for a in node.args]
    for k in node.keywords:
        value = _atom(k.value)
        args.append(None if k.arg is None or value is None else f"{k.arg}={value}")
    if None in parts or None in args:
        return None
    return f"{parts[0]}({', '.join(args)})"


def _constant(node: ast.Constant) -> str | None:
    value = node.value
    if value is None or value is True or value is False:
        return repr(value)
    if value is ...:
        return "..."
    if value.__class__ is int:
        return repr(value)
    if value.__class__ is str and node.kind is None and value.isprintable() \
            and "'" not in value and '"' not in value and "\\" not in value:
        return f"'{value}'"
    return None
