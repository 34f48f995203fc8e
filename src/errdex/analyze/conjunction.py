"""An immutable, incrementally simplified conjunction of guards.

The path walk adds guards one at a time and keeps its state after every
statement of a block, so a function with 80 validations in a row would
re-simplify 80 guards for each of its 80 sites. `Conjunction.add` instead
does constant work per new term (duplicate and contradiction checks by
key, interval merging per operand, see `errdex.analyze.intervals`) and
shares everything else with the previous state, text included.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from errdex.analyze.exprs import expr_key
from errdex.analyze.intervals import _Bound, _as_bounds, _write
from errdex.analyze.purity import is_pure
from errdex.analyze.raised import outer_calls
from errdex.analyze.simplify import _flatten, negate, render


def _slot_text(node: ast.expr) -> tuple[str, bool]:
    """The term's text and whether it needs parentheses next to `and`."""
    needs = isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)) and not (
        isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And))
    return render(node), needs


@dataclass(frozen=True, slots=True)
class Conjunction:
    """Simplified `t1 and t2 and ...`; `false` once it can never hold."""

    texts: tuple[tuple[str, bool], ...] = ()
    keys: frozenset[str] = frozenset()
    bounds: dict[str, tuple[int, _Bound]] = field(default_factory=dict)
    calls: tuple[str, ...] = ()
    false: bool = False

    def text(self) -> str:
        if self.false:
            return "False"
        if len(self.texts) == 1:
            return self.texts[0][0]
        return " and ".join(f"({t})" if wrap else t for t, wrap in self.texts) if self.texts else "True"

    def add(self, expr: ast.expr) -> Conjunction:
        """This conjunction and `expr` (already simplified)."""
        if self.false:
            return self
        state = self
        for term in _flatten([expr], ast.And):
            state = state._add_term(term)
            if state.false:
                return state
        return state

    def _add_term(self, term: ast.expr) -> Conjunction:
        if isinstance(term, ast.Constant):
            return self if term.value else replace(self, false=True)
        keys = self.keys
        if is_pure(term):
            key = expr_key(term)
            if key in keys:
                return self
            if expr_key(negate(term)) in keys:
                return replace(self, false=True)
            keys = keys | {key}
        calls = self.calls + tuple(c for c in outer_calls(term) if c not in self.calls)
        parsed = _as_bounds(term)
        if parsed is None:
            return replace(self, texts=self.texts + (_slot_text(term),), keys=keys, calls=calls)
        operand, kind, pairs = parsed
        slot_key = f"{kind}:{expr_key(operand)}"
        slot = self.bounds.get(slot_key)
        if slot is None:
            index, bound = len(self.texts), _Bound(operand)
        else:
            index, old = slot
            bound = _Bound(operand, old.lower, old.upper, list(old.equal), list(old.unequal))
        for op, value in pairs:
            bound.add(op, value)
        written = _write(bound)
        if written is None:
            return replace(self, false=True)
        text = (" and ".join(render(w) for w in written), False) if written else ("True", False)
        texts = self.texts + (text,) if slot is None else self.texts[:index] + (text,) + self.texts[index + 1:]
        bounds = dict(self.bounds)
        bounds[slot_key] = (index, bound)
        return Conjunction(texts, keys, bounds, calls, False)
