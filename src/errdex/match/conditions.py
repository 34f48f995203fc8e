"""Check a record's guard condition against the values bound from the text.

Never `eval`: the condition is parsed with `ast` and walked by a tiny
evaluator that knows numbers, strings, tuples, comparisons, boolean
operators, arithmetic and a few pure helpers (`min`, `max`, `abs`, `len`,
`triton.cdiv`, `triton.next_power_of_2`). Anything else means "unknown".
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from functools import lru_cache

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _next_power_of_2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


_FUNCS = {
    "min": min, "max": max, "abs": abs, "len": len, "cdiv": _cdiv, "triton.cdiv": _cdiv,
    "next_power_of_2": _next_power_of_2, "triton.next_power_of_2": _next_power_of_2,
}


class _Unknown(Exception):
    """The condition needs something the bound values do not give."""


@dataclass(slots=True)
class ConditionCheck:
    condition: str
    exact: bool | None
    bound: dict[str, object]      # source expression -> literal value
    satisfied: bool | None        # None: could not be decided

    def to_dict(self) -> dict:
        return {"condition": self.condition, "exact": self.exact,
                "bound": {k: repr(v) for k, v in self.bound.items()},
                "satisfied": self.satisfied, "text": self.text}

    @property
    def text(self) -> str:
        values = "; ".join(f"{k} = {v!r}" for k, v in self.bound.items())
        verdict = {True: "holds", False: "does not hold", None: "not decided"}[self.satisfied]
        lead = f"{values}; " if values else ""
        return f"{lead}raised when {self.condition} ({verdict})"


def literal_values(bindings: dict[str, str], placeholders: dict[str, str]) -> dict[str, object]:
    """Source expression -> value, for captured values that are Python literals."""
    out: dict[str, object] = {}
    for name, text in bindings.items():
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        expr = placeholders.get(name, name)
        out[_canonical(expr)] = value
    return out


def check_condition(condition: str | None, exact: bool | None, bindings: dict[str, str],
                    placeholders: dict[str, str]) -> ConditionCheck | None:
    """Evaluate `condition` with the bound values, when every name in it is bound."""
    if not condition:
        return None
    parsed = _parse_condition(condition)
    if parsed is None:
        return None
    body, texts = parsed
    values = literal_values(bindings, placeholders)
    used = {k: v for k, v in values.items() if k in texts.values()}
    try:
        satisfied = bool(_Evaluator(values, texts).eval(body))
    except (_Unknown, ArithmeticError, TypeError, ValueError, RecursionError, OverflowError):
        satisfied = None
    return ConditionCheck(condition, exact, used, satisfied)


@lru_cache(maxsize=8192)
def _parse_condition(condition: str) -> tuple[ast.expr, dict[int, str]] | None:
    """The condition's tree and the source text of each sub-expression (parsed once)."""
    try:
        body = ast.parse(condition, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    # Only names, attributes, subscripts and calls can stand for a bound
    # placeholder (or name a helper); unparsing every operator node would be
    # quadratic in the size of long guards.
    texts = {id(node): ast.unparse(node) for node in ast.walk(body)
             if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))}
    return body, texts


@lru_cache(maxsize=8192)
def _canonical(expr: str) -> str:
    try:
        return ast.unparse(ast.parse(expr.strip(), mode="eval").body)
    except (SyntaxError, ValueError, RecursionError):
        return expr.strip()


class _Evaluator:
    def __init__(self, values: dict[str, object], texts: dict[int, str]) -> None:
        self.values, self.texts = values, texts

    def eval(self, node: ast.expr) -> object:
        if not isinstance(node, ast.Constant):
            key = self.texts.get(id(node), "")
            if key in self.values:
                return self.values[key]
        if not isinstance(node, (ast.Constant, ast.Call, ast.BoolOp, ast.UnaryOp,
                                 ast.BinOp, ast.Compare, ast.Tuple, ast.List)):
            raise _Unknown(self.texts.get(id(node), "?"))
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.eval(e) for e in node.elts)
        if isinstance(node, ast.BoolOp):
            results = [bool(self.eval(v)) for v in node.values]
            return all(results) if isinstance(node.op, ast.And) else any(results)
        if isinstance(node, ast.UnaryOp):
            value = self.eval(node.operand)
            if isinstance(node.op, ast.Not):
                return not value
            if isinstance(node.op, ast.USub):
                return -value
            return +value
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise _Unknown("operator")
            left, right = self.eval(node.left), self.eval(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise _Unknown("large power")
            return op(left, right)
        if isinstance(node, ast.Compare):
            return self._compare(node)
        return self._call(node)

    def _compare(self, node: ast.Compare) -> bool:
        left = self.eval(node.left)
        for op_node, comparator in zip(node.ops, node.comparators):
            right = self.eval(comparator)
            if not _CMPOPS[type(op_node)](left, right):
                return False
            left = right
        return True

    def _call(self, node: ast.Call) -> object:
        name = self.texts.get(id(node.func), "")
        func = _FUNCS.get(name)
        if func is None or node.keywords:
            raise _Unknown(name)
        return func(*(self.eval(a) for a in node.args))
