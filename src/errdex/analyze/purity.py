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
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return is_pure(node.value)
    if isinstance(node, ast.Subscript):
        return is_pure(node.value) and is_pure(node.slice)
    if isinstance(node, ast.UnaryOp):
        return is_pure(node.operand)
    if isinstance(node, ast.BinOp):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, ast.BoolOp):
        return all(is_pure(v) for v in node.values)
    if isinstance(node, ast.Compare):
        return is_pure(node.left) and all(is_pure(c) for c in node.comparators)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(is_pure(e) for e in node.elts)
    if isinstance(node, ast.Slice):
        return all(p is None or is_pure(p) for p in (node.lower, node.upper, node.step))
    return False
