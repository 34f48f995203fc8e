"""The one evaluator of trigger conditions over known values: never `eval`.

Conditions are Python expressions (`triton.cdiv(K, BK) != 1`, `M > 512 and N % 16
!= 0`). Two places ask them a question: matching (with the values bound from an
error line, does the condition hold?) and verifying model prose (can it still
hold with the values a sentence names?). Both need the same answer.

A name, attribute, subscript or call takes its value from `values`, keyed by its
canonical source text (`canonical`); a call to a known pure helper (`min`, `len`,
`triton.cdiv`, ...) is computed; anything else is `UNKNOWN`. Three-valued logic
keeps an unknown part from deciding: `and` is False when any part is False, `or`
True when any part is True. Powers, shifts and repetitions are capped so a
condition cannot eat memory. No imports beyond the standard library: matching
loads it at start-up.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from functools import lru_cache
from typing import Any


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
_MAX_REPEAT = 10_000   # keep `"a" * n` from eating memory
#: Nodes that can stand for a bound value (a placeholder's source) or name a helper.
_LOOKUP = (ast.Name, ast.Attribute, ast.Subscript, ast.Call)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


#: Pure helpers a condition may call, by the name it calls them with.
HELPERS = {
    "min": min, "max": max, "abs": abs, "len": len, "cdiv": _cdiv, "triton.cdiv": _cdiv,
    "next_power_of_2": _next_power_of_2, "triton.next_power_of_2": _next_power_of_2,
}


def evaluate(expression: str, values: Mapping[str, Any]) -> Any:
    """The condition's value with `values` bound (keys: canonical source text); UNKNOWN when undecidable."""
    parsed = _parsed(expression)
    if parsed is None:
        return UNKNOWN
    body, texts = parsed
    try:
        return _Evaluator(values, texts).eval(body)
    except RecursionError:
        return UNKNOWN


def parses(expression: str) -> bool:
    """Whether the condition is a Python expression at all."""
    return _parsed(expression) is not None


def lookups(expression: str) -> frozenset[str]:
    """Canonical texts of the names, attributes, subscripts and calls the condition reads."""
    parsed = _parsed(expression)
    return frozenset(parsed[1].values()) if parsed is not None else frozenset()


def free_names(expression: str) -> set[str]:
    """Plain names and dotted attribute chains the condition reads (`M`, `x.shape`)."""
    parsed = _parsed(expression)
    if parsed is None:
        return set()
    names: set[str] = set()
    for node in ast.walk(parsed[0]):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and _dotted(node):
            names.add(parsed[1][id(node)])
    return names


@lru_cache(maxsize=8192)
def canonical(expr: str) -> str:
    """An expression's source as `ast.unparse` writes it (the key of its value)."""
    try:
        return ast.unparse(ast.parse(expr.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return expr.strip()


@lru_cache(maxsize=8192)
def _parsed(expression: str) -> tuple[ast.expr, dict[int, str]] | None:
    """The tree and the canonical text of each lookup node (parsed once per distinct condition).

    Only lookup nodes get a text: unparsing every operator node would be quadratic in long guards.
    """
    try:
        body = ast.parse(expression.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return body, {id(node): ast.unparse(node) for node in ast.walk(body) if isinstance(node, _LOOKUP)}


def _dotted(node: ast.AST) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


class _Evaluator:
    def __init__(self, values: Mapping[str, Any], texts: dict[int, str]) -> None:
        self.values, self.texts = values, texts

    def eval(self, node: ast.AST) -> Any:
        kind = node.__class__
        if kind is ast.Constant:
            return node.value
        text = self.texts.get(id(node))
        if text is not None and text in self.values:
            return self.values[text]
        if kind is ast.Call:
            return self._call(node)
        if kind in (ast.Tuple, ast.List, ast.Set):
            items = [self.eval(e) for e in node.elts]
            if any(i is UNKNOWN for i in items):
                return UNKNOWN
            return _guard(set, items) if kind is ast.Set else tuple(items)
        if kind is ast.BoolOp:
            return self._bool_op(node)
        if kind is ast.UnaryOp:
            return self._unary(node)
        if kind is ast.BinOp:
            return self._binary(node)
        if kind is ast.Compare:
            return self._compare(node)
        if kind is ast.IfExp:
            test = _truth(self.eval(node.test))
            return UNKNOWN if test is UNKNOWN else self.eval(node.body if test else node.orelse)
        return UNKNOWN

    def _call(self, node: ast.Call) -> Any:
        func = HELPERS.get(self.texts.get(id(node.func), ""))
        if func is None or node.keywords:
            return UNKNOWN
        args = [self.eval(a) for a in node.args]
        if any(a is UNKNOWN for a in args):
            return UNKNOWN
        return _guard(func, *args)

    def _bool_op(self, node: ast.BoolOp) -> Any:
        """Kleene logic: `and` is False if any part is False, `or` True if any part is True."""
        decisive = isinstance(node.op, ast.Or)
        unknown = False
        for operand in node.values:
            truth = _truth(self.eval(operand))
            if truth is UNKNOWN:
                unknown = True
            elif truth is decisive:
                return decisive
        return UNKNOWN if unknown else (not decisive)

    def _unary(self, node: ast.UnaryOp) -> Any:
        operand = self.eval(node.operand)
        if operand is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Not):
            truth = _truth(operand)
            return UNKNOWN if truth is UNKNOWN else not truth
        op = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}.get(type(node.op))
        return UNKNOWN if op is None else _guard(op, operand)

    def _binary(self, node: ast.BinOp) -> Any:
        left, right = self.eval(node.left), self.eval(node.right)
        op = _BINARY.get(type(node.op))
        if op is None or left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > _MAX_POWER:
            return UNKNOWN
        if isinstance(node.op, (ast.LShift, ast.RShift)) and isinstance(right, int) and right > _MAX_SHIFT:
            return UNKNOWN
        if isinstance(node.op, ast.Mod) and (isinstance(left, str) or isinstance(right, str)):
            return UNKNOWN   # `"%s" % x` formats: not arithmetic
        if isinstance(node.op, ast.Mult) and _repeats_too_much(left, right):
            return UNKNOWN
        return _guard(op, left, right)

    def _compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        unknown = False
        for op_node, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node)
            if left is UNKNOWN or right is UNKNOWN:
                unknown = True
            else:
                held = _guard(_COMPARE[type(op_node)], left, right)
                if held is UNKNOWN:
                    unknown = True
                elif not held:
                    return False
            left = right
        return UNKNOWN if unknown else True


def _repeats_too_much(left: Any, right: Any) -> bool:
    """`seq * n` (either order) with a large n."""
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, (str, bytes, tuple, list)) and isinstance(n, int) and n > _MAX_REPEAT:
            return True
    return False


def _truth(value: Any) -> Any:
    return UNKNOWN if value is UNKNOWN else _guard(bool, value)


def _guard(func, *args) -> Any:
    """`func(*args)`, or UNKNOWN when it fails (1/0, 1 < "a", an odd literal): undecidable here, not an error."""
    try:
        return func(*args)
    except Exception:  # noqa: BLE001
        return UNKNOWN
