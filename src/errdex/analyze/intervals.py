"""Merge comparisons of one pure operand against numeric constants.

Inside a conjunction, `m > 8 and m > 16` says the same as `m > 16`, and
`x > 3 and x < 2` can never hold. Each pure operand's bounds are gathered
into an interval (lower, upper, `==` value, `!=` values) and written back as
the fewest comparisons, at the place of the operand's first comparison.
Only int/float constants take part in the order (bools are left alone); the
reasoning is the real-number order, so it holds for ints and floats (not
NaN). String/bytes constants take part in `==`/`!=` only. Three or more
excluded values are written `x not in (a, b, c)` (and read back the same way).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from errdex.analyze.exprs import expr_key
from errdex.analyze.purity import is_pure

#: This many excluded values are written `x not in (a, b, c)`.
NOT_IN_FROM = 3

_MIRROR: dict[type, type] = {
    ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE,
    ast.Eq: ast.Eq, ast.NotEq: ast.NotEq,
}


@dataclass(slots=True)
class _Bound:
    """What the conjunction says about one operand."""

    operand: ast.expr
    lower: tuple[float, bool] | None = None   # (value, inclusive)
    upper: tuple[float, bool] | None = None
    equal: list[float] = field(default_factory=list)
    unequal: list[float] = field(default_factory=list)

    def add(self, op: type, value: float) -> None:
        if op is ast.Eq:
            self.equal.append(value)
        elif op is ast.NotEq:
            self.unequal.append(value)
        elif op in (ast.Gt, ast.GtE):
            bound = (value, op is ast.GtE)
            if self.lower is None or _tighter_lower(bound, self.lower):
                self.lower = bound
        else:
            bound = (value, op is ast.LtE)
            if self.upper is None or _tighter_upper(bound, self.upper):
                self.upper = bound


def _tighter_lower(new: tuple[float, bool], old: tuple[float, bool]) -> bool:
    return new[0] > old[0] or (new[0] == old[0] and not new[1] and old[1])


def _tighter_upper(new: tuple[float, bool], old: tuple[float, bool]) -> bool:
    return new[0] < old[0] or (new[0] == old[0] and not new[1] and old[1])


def _is_number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (str, bytes)


def _as_bounds(term: ast.expr) -> tuple[ast.expr, str, list[tuple[type, object]]] | None:
    """`x < 3` or `3 > x` as (x, "num", [(Lt, 3)]); `x not in (1, 2)` as two `!=`.

    Strings take part in `==`/`!=` only, under their own key.
    """
    if not (isinstance(term, ast.Compare) and len(term.ops) == 1):
        return None
    op = type(term.ops[0])
    left, right = term.left, term.comparators[0]
    if isinstance(left, ast.Constant) or not is_pure(left):
        if op in _MIRROR and _is_number(left) and not isinstance(right, ast.Constant) and is_pure(right):
            return right, "num", [(_MIRROR[op], left.value)]
        return None
    if op is ast.NotIn and isinstance(right, ast.Tuple) and right.elts:
        if all(_is_number(e) for e in right.elts):
            return left, "num", [(ast.NotEq, e.value) for e in right.elts]
        if all(_is_text(e) for e in right.elts):
            return left, "text", [(ast.NotEq, e.value) for e in right.elts]
        return None
    if op in _MIRROR and _is_number(right):
        return left, "num", [(op, right.value)]
    if op in (ast.Eq, ast.NotEq) and _is_text(right):
        return left, "text", [(op, right.value)]
    return None


def merge_bounds(terms: list[ast.expr]) -> list[ast.expr] | None:
    """Terms with numeric bounds merged per operand; None when infeasible.

    A negated order test (`not (m <= 8)`) holds for NaN where `m > 8` does not: it joins the
    operand's interval only when a plain order or `==` test on the same operand is in the
    conjunction too (NaN fails that one, so it fails the whole either way). Otherwise the negated
    tests merge among themselves (`not (m <= 8) and not (m <= 512)`: `not (m <= 512)`), and never
    make the conjunction infeasible (NaN meets `not (m <= 8) and not (m >= 4)`)."""
    parsed_terms = [(term, _as_bounds(term) or _as_negated_bounds(term)) for term in terms]
    ordered = {f"{p[1]}:{expr_key(p[0])}" for _, p in parsed_terms
               if p is not None and len(p) == 3 and any(op not in (ast.NotEq,) for op, _ in p[2])}
    bounds: dict[str, _Bound] = {}
    negated: dict[str, _Bound] = {}
    order: list[str | ast.expr] = []
    for term, parsed in parsed_terms:
        if parsed is None:
            order.append(term)
            continue
        operand, kind, pairs = parsed[:3]
        key = f"{kind}:{expr_key(operand)}"
        if len(parsed) == 4 and key not in ordered:   # NaN passes it: kept apart, as a negation
            if key not in negated:
                negated[key] = _Bound(operand)
                order.append("not " + key)
            for op, value in pairs:
                negated[key].add(op, value)
            continue
        if key not in bounds:
            bounds[key] = _Bound(operand)
            order.append(key)
        for op, value in pairs:
            bounds[key].add(op, value)
    if not bounds and not negated:
        return terms
    merged: list[ast.expr] = []
    for item in order:
        if not isinstance(item, str):
            merged.append(item)
            continue
        if item.startswith("not "):
            merged.extend(_write_negated(negated[item[4:]]))
            continue
        written = _write(bounds[item])
        if written is None:
            return None
        merged.extend(written)
    return merged


_NEGATED: dict[type, type] = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt}


def _as_negated_bounds(term: ast.expr) -> tuple[ast.expr, str, list[tuple[type, object]], bool] | None:
    """`not (m <= 8)` as (m, "num", [(Gt, 8)], True): the bound it sets on numbers (NaN aside)."""
    if not (isinstance(term, ast.UnaryOp) and isinstance(term.op, ast.Not)):
        return None
    parsed = _as_bounds(term.operand)
    if parsed is None or any(op not in _NEGATED for op, _ in parsed[2]):
        return None
    operand, kind, pairs = parsed
    return operand, kind, [(_NEGATED[op], value) for op, value in pairs], True


def _write_negated(bound: _Bound) -> list[ast.expr]:
    """The tightest lower and upper bound of negated order tests, written negated again."""
    out: list[ast.expr] = []
    x = bound.operand
    if bound.lower is not None:   # `m > 8` from `not (m <= 8)`
        out.append(ast.UnaryOp(ast.Not(), _cmp(x, ast.Lt if bound.lower[1] else ast.LtE, bound.lower[0])))
    if bound.upper is not None:
        out.append(ast.UnaryOp(ast.Not(), _cmp(x, ast.Gt if bound.upper[1] else ast.GtE, bound.upper[0])))
    return out


def _within(bound: _Bound, value: float) -> bool:
    if bound.lower is not None:
        low, inclusive = bound.lower
        if value < low or (value == low and not inclusive):
            return False
    if bound.upper is not None:
        high, inclusive = bound.upper
        if value > high or (value == high and not inclusive):
            return False
    return value not in bound.unequal


def _write(bound: _Bound) -> list[ast.expr] | None:
    """The fewest comparisons saying what `bound` says; None if nothing fits."""
    x = bound.operand
    if bound.equal:
        value = bound.equal[0]
        if any(v != value for v in bound.equal) or not _within(bound, value):
            return None
        return [_cmp(x, ast.Eq, value)]
    low, high = bound.lower, bound.upper
    if low is not None and high is not None:
        if low[0] > high[0] or (low[0] == high[0] and not (low[1] and high[1])):
            return None
        if low[0] == high[0]:
            if low[0] in bound.unequal:
                return None
            return [_cmp(x, ast.Eq, low[0])]
    out: list[ast.expr] = []
    if low is not None:
        out.append(_cmp(x, ast.GtE if low[1] else ast.Gt, low[0]))
    if high is not None:
        out.append(_cmp(x, ast.LtE if high[1] else ast.Lt, high[0]))
    excluded: list[float] = []
    probe = _Bound(x, bound.lower, bound.upper)
    for value in bound.unequal:
        if value not in excluded and _within(probe, value):
            excluded.append(value)
    if len(excluded) >= NOT_IN_FROM:
        tuple_ = ast.Tuple([ast.Constant(v) for v in excluded], ast.Load())
        out.append(ast.Compare(left=x, ops=[ast.NotIn()], comparators=[tuple_]))
    else:
        out.extend(_cmp(x, ast.NotEq, v) for v in excluded)
    return out


def _cmp(x: ast.expr, op: type, value: float) -> ast.Compare:
    return ast.Compare(left=x, ops=[op()], comparators=[ast.Constant(value)])
