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
from dataclasses import dataclass, field

from errdex.analyze.exprs import expr_key, memo, side_memo, side_table
from errdex.analyze.intervals import _Bound, _as_bounds, _as_negated_bounds, _write, _write_negated
from errdex.analyze.purity import is_pure
from errdex.analyze.raised import outer_call_texts
from errdex.analyze.simplify import _flatten, negation_key, render


def _slot_text(node: ast.expr) -> tuple[str, bool]:
    """The term's text and whether it needs parentheses next to `and`."""
    needs = isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)) and not (
        isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And))
    return render(node), needs


@dataclass(slots=True)
class Conjunction:
    """Simplified `t1 and t2 and ...`; `false` once it can never hold.

    Immutable by use (states are shared by snapshots); not a frozen dataclass because
    its `__init__` would cost several times as much, and one is built per added guard.
    """

    texts: tuple[tuple[str, bool] | None, ...] = ()   # None: a term absorbed by a later one
    keys: frozenset[str] = frozenset()
    #: per operand: its slot in `texts`, its bound, and its negated order tests kept apart (see `_orders`)
    bounds: dict[str, tuple[int, _Bound, _Bound | None]] = field(default_factory=dict)
    calls: tuple[str, ...] = ()
    false: bool = False
    written: str | None = field(default=None, compare=False)   # `text()`, once asked for
    ors: tuple[tuple[int, frozenset[str]], ...] = ()   # pure `a or b` terms: text index, keys of a, b
    plain: frozenset[str] = frozenset()   # keys of the terms that read local names only (see `_names_only`)
    #: per pure `a or b` term, the keys of its disjuncts' negations: once the conjunction holds all
    #: of them, no disjunct can hold (`(not a or c) and a and not c`): the path is impossible
    refuters: tuple[frozenset[str], ...] = ()

    def text(self) -> str:
        """The conjunction as code; kept, since a state is shared by the sites after it."""
        written = self.written
        if written is None:
            written = self.written = self._write()
        return written

    def _write(self) -> str:
        if self.false:
            return "False"
        texts = [t for t in self.texts if t is not None]
        if len(texts) == 1:
            return texts[0][0]
        return " and ".join([f"({t})" if wrap else t for t, wrap in texts]) if texts else "True"

    def add(self, expr: ast.expr, epoch: str = "", refute: bool = True) -> Conjunction:
        """This conjunction and `expr` (already simplified).

        `epoch` tags the keys of `expr`'s terms: terms of different epochs are
        never merged, found duplicate or contradictory (an attribute read
        before a call and again after it may differ, see `condition`).
        """
        if self.false:
            return self
        state = self
        for term in _terms(expr):
            state = state._add_term(term, epoch, refute)
            if state.false:
                return state
        return state

    def _add_term(self, term: _Term, epoch: str = "", refute: bool = True) -> Conjunction:
        if term.constant is not None:
            return self if term.constant else _FALSE
        keys = self.keys
        texts, ors = self.texts, self.ors
        if term.key is not None:
            key = term.key + epoch if epoch else term.key
            if key in keys:
                return self
            if keys and (term.negated() + epoch if epoch else term.negated()) in keys:
                return _FALSE
            # Absorption, `a and (a or b)` is `a`, for terms that read local names only: an
            # attribute or item read twice may differ between the reads (see `condition._reread`).
            members = term.members
            if members is not None:   # `a or b` with `a` held already: absorbed
                members = frozenset(m + epoch for m in members) if epoch else members
                if not members.isdisjoint(self.plain):
                    return self
            keys = keys | {key}
            refuters = self.refuters
            if refute and refuters and any(r <= keys for r in refuters):
                return REFUTED
            if term.refuter is not None:   # a pure `a or b`: impossible already, or kept to be checked
                refuter = frozenset(k + epoch for k in term.refuter) if epoch else term.refuter
                if refute and refuter <= keys:
                    return REFUTED
                refuters = refuters + (refuter,)
            if term.plain:
                plain = self.plain | {key}
                if ors:   # `(a or b)` just before `a`: the disjunction says nothing more. Only just before,
                    # so no term between changes its place (and may raise where the code never reads it).
                    last = len(texts) - 1
                    absorbed = {i for i, held in ors if i == last and key in held}
                    if absorbed:
                        texts = tuple(None if i in absorbed else t for i, t in enumerate(texts))
                        ors = tuple(o for o in ors if o[0] not in absorbed)
            else:
                plain = self.plain
            if members is not None:
                ors = ors + ((len(texts), members),)
        else:
            plain, refuters = self.plain, self.refuters
        calls = self.calls
        if term.calls:
            calls = calls + tuple(c for c in term.calls if c not in calls)
        if term.bounds is None:
            return Conjunction(texts + (term.text,), keys, self.bounds, calls, False, None, ors, plain, refuters)
        operand, _, pairs = term.bounds[:3]
        slot_key = term.slot_key + epoch if epoch else term.slot_key
        slot = self.bounds.get(slot_key)
        if slot is None and len(term.bounds) == 3:   # the term's own bounds, the same in every conjunction
            fresh = term.fresh
            if fresh is None:
                fresh = term.fresh = _bounded(_Bound(operand), pairs)
            bound, text = fresh
            if bound is None:
                return _FALSE
            texts = texts + (text,)
            index, negated = len(self.texts), None
        else:
            if slot is None:
                index, bound, negated = len(self.texts), _Bound(operand), None
                texts = texts + (("True", False),)
            else:
                index, old, held = slot
                bound = _Bound(operand, old.lower, old.upper, list(old.equal), list(old.unequal))
                negated = _Bound(operand, held.lower, held.upper) if held is not None else None
            if len(term.bounds) == 4 and not _orders(bound):   # NaN passes `not (x <= 8)`: kept apart
                negated = negated or _Bound(operand)
                for op, value in pairs:
                    negated.add(op, value)
                pairs = []
            bound, text = _bounded(bound, pairs, negated)
            if bound is None:
                return _FALSE
            if _orders(bound):
                negated = None   # folded in by `_bounded`
            texts = texts[:index] + (text,) + texts[index + 1:]
        bounds = dict(self.bounds)
        bounds[slot_key] = (index, bound, negated)
        return Conjunction(texts, keys, bounds, calls, False, None, ors, plain, refuters)


def _orders(bound: _Bound) -> bool:
    """Whether the bound holds an order or `==` test, which NaN fails: a negated order test
    (`not (x <= 8)`) then says what its flip (`x > 8`) says."""
    return bound.lower is not None or bound.upper is not None or bool(bound.equal)


def _bounded(bound: _Bound, pairs: list, negated: _Bound | None = None
             ) -> tuple[_Bound | None, tuple[str, bool]]:
    """`bound` narrowed by `pairs` (and by the negated order tests kept apart, once it holds an order
    test itself), with its slot text; no bound when nothing fits."""
    for op, value in pairs:
        bound.add(op, value)
    if negated is not None and _orders(bound):
        if negated.lower is not None:
            bound.add(ast.GtE if negated.lower[1] else ast.Gt, negated.lower[0])
        if negated.upper is not None:
            bound.add(ast.LtE if negated.upper[1] else ast.Lt, negated.upper[0])
        negated = None
    written = _write(bound)
    if written is None:
        return None, ("False", False)
    if negated is not None:
        written = written + _write_negated(negated)
    return bound, (" and ".join([render(w) for w in written]), False) if written else ("True", False)


_FALSE = Conjunction(false=True)
#: False because no disjunct of an `a or b` term can hold beside the others (see `refuters`): told
#: apart, since the terms involved may be reads of state a call between them changed.
REFUTED = Conjunction(false=True)
#: The conjunction of no guards ("True"); immutable, so every path walk starts from this one.
EMPTY = Conjunction()


@dataclass(slots=True)
class _Term:
    """What adding one term needs, worked out once (a guard joins both the full and the own conjunction)."""

    constant: bool | None = None             # the term is this constant
    key: str | None = None                   # structural key, for pure terms
    negated_key: str | None = None           # see `negated`
    calls: tuple[str, ...] = ()
    bounds: tuple | None = None              # `_as_bounds(term)`, or `_as_negated_bounds(term)`
    slot_key: str = ""
    text: tuple[str, bool] = ("", False)
    node: ast.expr | None = None
    members: frozenset[str] | None = None    # a pure `a or b`: the keys of a and b (see absorption above)
    refuter: frozenset[str] | None = None    # a pure `a or b`: the keys of `not a` and `not b`
    plain: bool = False                      # a pure term that reads local names only
    fresh: tuple | None = None               # `_bounded` for a slot of its own (see `_add_term`)

    def negated(self) -> str:
        """Key of the term's negation, worked out only once a conjunction holds a key to meet it."""
        if self.negated_key is None:
            self.negated_key = negation_key(self.node)
        return self.negated_key


_TERMS = side_table()


def _terms(expr: ast.expr) -> list[_Term]:
    """The prepared terms of `expr`'s flattened conjunction (memoised per node)."""
    hit = _TERMS.get(id(expr))
    return hit[1] if hit is not None else side_memo(_TERMS, expr, _new_terms)


def _new_terms(expr: ast.expr) -> list[_Term]:
    kind = expr.__class__
    if kind is not ast.BoolOp and (kind is not ast.Compare or len(expr.ops) == 1):
        return [_prepare(expr)]   # what `_flatten` gives for one plain term
    return [_prepare(term) for term in _flatten([expr], ast.And)]


def _prepare(term: ast.expr) -> _Term:
    if isinstance(term, ast.Constant):
        return _Term(constant=bool(term.value))
    prepared = _Term(node=term)
    if is_pure(term):   # a pure term holds no call
        prepared.key = expr_key(term)
        prepared.plain = _names_only(term)
        if isinstance(term, ast.BoolOp) and isinstance(term.op, ast.Or):
            disjuncts = _flatten(term.values, ast.Or)
            prepared.members = frozenset(expr_key(v) for v in disjuncts if _names_only(v))
            prepared.refuter = frozenset(negation_key(v) for v in disjuncts)
    else:
        prepared.calls = memo(term, "_errdex_calls", outer_call_texts)   # `outer_calls`, not copied
    kind = term.__class__   # only a comparison bounds, or a negated order test
    parsed = _as_bounds(term) if kind is ast.Compare else _as_negated_bounds(term) if kind is ast.UnaryOp else None
    if parsed is None:
        prepared.text = _slot_text(term)
    else:
        prepared.bounds = parsed
        prepared.slot_key = f"{parsed[1]}:{expr_key(parsed[0])}"
    return prepared


def _names_only(term: ast.expr) -> bool:
    """Whether a term reads local names and constants only (no attribute, item or call).

    Names, constants and operators on them, comparisons and tuples: what a walk over
    every node of the term would find, stopping at the first other kind of node.
    """
    kind = term.__class__
    if kind is ast.Name or kind is ast.Constant:
        return True
    if kind is ast.Compare:
        return _names_only(term.left) and all(map(_names_only, term.comparators))
    if kind is ast.BinOp:
        return _names_only(term.left) and _names_only(term.right)
    if kind is ast.UnaryOp:
        return _names_only(term.operand)
    if kind is ast.BoolOp:
        return all(map(_names_only, term.values))
    if kind is ast.Tuple:
        return all(map(_names_only, term.elts))
    return False
