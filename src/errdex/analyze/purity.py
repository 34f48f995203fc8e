"""Which expressions can be evaluated twice with the same result."""

from __future__ import annotations

import ast

_PURE = "_errdex_pure"


def is_pure(node: ast.AST) -> bool:
    """Whether evaluating `node` twice must give the same value (memoised on the node)."""
    values = node.__dict__
    pure = values.get(_PURE)
    if pure is None:
        pure = values[_PURE] = _is_pure(node)
    return pure


def _is_pure(node: ast.AST) -> bool:
    """Whether evaluating `node` twice must give the same value.

    Names, constants, attribute and subscript chains, operators and
    comparisons; no calls, walrus, await, yield or comprehensions.
    Attribute access is assumed side-effect free (properties rarely are not).
    """
    kind = node.__class__
    if kind is ast.Name or kind is ast.Constant:
        return True
    if kind is ast.Attribute:
        return is_pure(node.value)
    if kind is ast.Compare:
        return is_pure(node.left) and all(is_pure(c) for c in node.comparators)
    if kind is ast.Call:
        return False
    if kind is ast.Subscript:
        return is_pure(node.value) and is_pure(node.slice)
    if kind is ast.UnaryOp:
        return is_pure(node.operand)
    if kind is ast.BinOp:
        return is_pure(node.left) and is_pure(node.right)
    if kind is ast.BoolOp:
        return all(is_pure(v) for v in node.values)
    if kind is ast.Tuple or kind is ast.List:
        return all(is_pure(e) for e in node.elts)
    if kind is ast.Slice:
        return all(p is None or is_pure(p) for p in (node.lower, node.upper, node.step))
    return False
