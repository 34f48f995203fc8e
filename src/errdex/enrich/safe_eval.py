"""A tiny evaluator for trigger conditions over known values: never `eval`.

Conditions are Python expressions (`M > 512 and N % 16 != 0`). Verification
asks one question of them: with the values a sentence names, can the
condition still hold? Names without a value, calls, attributes and anything
else outside literals, comparisons, boolean logic and arithmetic evaluate to
`UNKNOWN`, and the three-valued logic keeps an unknown part from proving a
contradiction: only a definite `False` rules a claim out.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from typing import Any

from errdex.extract.scope import dotted_source


class _Unknown:
    """The value of anything the evaluator cannot decide."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_MAX_POWER = 64        # keep `2 ** n` from eating memory
_MAX_SHIFT = 256


def evaluate(expression: str, values: Mapping[str, Any]) -> Any:
    """The condition's value with `values` bound (by name or dotted name); UNKNOWN when undecidable."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return UNKNOWN
    try:
        return _eval(tree.body, values)
    except RecursionError:
        return UNKNOWN


def free_names(expression: str) -> set[str]:
    """Plain names and dotted attribute chains the condition reads (`M`, `x.shape`)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            dotted = dotted_source(node)
            if dotted:
                names.add(dotted)
    return names


def _eval(node: ast.AST, values: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted = dotted_source(node)
        return values.get(dotted, UNKNOWN) if dotted else UNKNOWN
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [_eval(e, values) for e in node.elts]
        if any(i is UNKNOWN for i in items):
            return UNKNOWN
        return set(items) if isinstance(node, ast.Set) else tuple(items)
    if isinstance(node, ast.BoolOp):
        return _bool_op(node, values)
    if isinstance(node, ast.UnaryOp):
        return _unary(node, values)
    if isinstance(node, ast.BinOp):
        return _binary(node, values)
    if isinstance(node, ast.Compare):
        return _compare(node, values)
    if isinstance(node, ast.IfExp):
        test = _truth(_eval(node.test, values))
        if test is UNKNOWN:
            return UNKNOWN
        return _eval(node.body if test else node.orelse, values)
    return UNKNOWN


def _truth(value: Any) -> Any:
    if value is UNKNOWN:
        return UNKNOWN
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - an odd literal: undecidable, not an error
        return UNKNOWN


def _bool_op(node: ast.BoolOp, values: Mapping[str, Any]) -> Any:
    """Kleene logic: `and` is False if any part is False, `or` True if any part is True."""
    decisive = isinstance(node.op, ast.Or)
    unknown = False
    for operand in node.values:
        truth = _truth(_eval(operand, values))
        if truth is UNKNOWN:
            unknown = True
        elif truth is decisive:
            return decisive
    return UNKNOWN if unknown else (not decisive)


def _unary(node: ast.UnaryOp, values: Mapping[str, Any]) -> Any:
    operand = _eval(node.operand, values)
    if operand is UNKNOWN:
        return UNKNOWN
    try:
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        if isinstance(node.op, ast.Invert):
            return ~operand
    except Exception:  # noqa: BLE001
        return UNKNOWN
    return UNKNOWN


def _binary(node: ast.BinOp, values: Mapping[str, Any]) -> Any:
    left, right = _eval(node.left, values), _eval(node.right, values)
    op = _BINARY.get(type(node.op))
    if op is None or left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > _MAX_POWER:
        return UNKNOWN
    if isinstance(node.op, (ast.LShift, ast.RShift)) and isinstance(right, int) and right > _MAX_SHIFT:
        return UNKNOWN
    if isinstance(left, str) or isinstance(right, str):
        if isinstance(node.op, ast.Mod):  # `"%s" % x` formats: not arithmetic
            return UNKNOWN
    try:
        return op(left, right)
    except Exception:  # noqa: BLE001 - 1/0, str - int: undecidable here
        return UNKNOWN


def _compare(node: ast.Compare, values: Mapping[str, Any]) -> Any:
    left = _eval(node.left, values)
    unknown = False
    for op_node, right_node in zip(node.ops, node.comparators):
        right = _eval(right_node, values)
        if left is UNKNOWN or right is UNKNOWN:
            unknown = True
        else:
            try:
                if not _COMPARE[type(op_node)](left, right):
                    return False
            except Exception:  # noqa: BLE001 - 1 < "a": undecidable
                unknown = True
        left = right
    return UNKNOWN if unknown else True
