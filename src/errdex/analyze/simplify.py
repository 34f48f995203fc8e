"""Meaning-preserving simplification of guard expressions (stdlib `ast` only).

Guards are built as `ast.expr` trees and only ever read as truth values, so
the rewrites here keep the *truthiness* of an expression for every input:

- constant folding (`not True`, `8 <= 16`, `-1`, `x and False`);
- double negation (`not not x` -> `x`) and De Morgan (`not (a and b)` ->
  `not a or not b`): both sides are plain bools or keep the truthiness;
- negated comparisons: `not (x is None)` -> `x is not None` and
  `not (x in y)` -> `x not in y` always hold; `not (a < b)` -> `a >= b`
  assumes a total order (ints, floats without NaN, strings) -- that is the
  one documented assumption, taken because it is what users read;
- chained comparisons `0 < x <= 5` become conjunctions when the inner
  operands are pure (evaluating them twice cannot differ);
- conjunctions: `True` dropped, `False` absorbs, duplicates dropped, a pure
  term next to its own negation gives `False`, and comparisons of the same
  pure operand against numeric constants are merged into one interval
  (`m > 8 and m > 16` -> `m > 16`, `x > 3 and x < 2` -> `False`);
- disjunctions: the dual (`False` dropped, `True` absorbs, duplicates, and
  `a or b or (not a and not b)` is `True`);
- constants go to the right of a comparison (`3 < x` -> `x > 3`).

`render` writes a result without the redundant parentheses `ast.unparse`
puts around later operands of `and`/`or`.

Builders never mutate their inputs: trees produced here may be shared.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Iterable

from errdex.analyze.exprs import comparison_key, expr_key, side_memo, side_table
from errdex.analyze.intervals import _as_bounds, merge_bounds
from errdex.analyze.purity import is_pure, reads_only_test
from errdex.analyze.source import node_text, unparse

TRUE = ast.Constant(True)
FALSE = ast.Constant(False)

_FLIP: dict[type, type] = {
    ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.LtE: ast.Gt, ast.Gt: ast.LtE,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
}
_MIRROR: dict[type, type] = {
    ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE,
    ast.Eq: ast.Eq, ast.NotEq: ast.NotEq,
}
_EVAL: dict[type, object] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_FOLDABLE = (int, float, str, bytes, bool, type(None))


def is_const(node: ast.AST, value: bool) -> bool:
    """True when `node` is the constant `value` (True or False)."""
    return isinstance(node, ast.Constant) and node.value is value


def _key(node: ast.AST) -> str:
    return expr_key(node)


def compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> ast.Compare:
    """A single comparison node."""
    return ast.Compare(left=left, ops=[op], comparators=[right])


def split_chain(node: ast.Compare) -> list[ast.expr] | None:
    """`a < b <= c` as `[a < b, b <= c]` when the inner operands are pure."""
    operands = [node.left, *node.comparators]
    if not all(is_pure(o) for o in operands[1:-1]):
        return None
    return [compare(operands[i], node.ops[i], operands[i + 1]) for i in range(len(node.ops))]


_NEGATIONS = side_table()


def negate(node: ast.expr) -> ast.expr:
    """`not node`, pushed inward where that keeps the truthiness (memoised)."""
    hit = _NEGATIONS.get(id(node))   # `side_memo`'s lookup, inlined for the hits
    return hit[1] if hit is not None else side_memo(_NEGATIONS, node, _negate)


def negation_key(node: ast.expr) -> str:
    """`expr_key(negate(node))`; a single comparison's without building its negation."""
    if node.__class__ is ast.Compare and len(node.ops) == 1 and node.left.__class__ is not ast.Constant \
            and id(node) not in _NEGATIONS and (node.ops[0].__class__ not in _ORDERING or _never_nan(node)):
        return comparison_key(node.left, _FLIP[node.ops[0].__class__], node.comparators[0])   # see `_negate`
    return expr_key(negate(node))


def _negate(node: ast.expr) -> ast.expr:
    kind = node.__class__   # node kinds are told by class: the parser and the builders here make no subclasses
    if kind is ast.Constant:
        return ast.Constant(not node.value)
    if kind is ast.UnaryOp and node.op.__class__ is ast.Not:
        return node.operand
    if kind is ast.Compare:
        if any(op.__class__ in _ORDERING for op in node.ops) and not _never_nan(node):
            # NaN is neither `<= 1` nor `> 1`, and not a subset is no superset: the flip would change
            # what the test means for them (review 17 P9, blind samples 14 and 15)
            return ast.UnaryOp(op=ast.Not(), operand=node)
        if len(node.ops) == 1:
            flipped = compare(node.left, _FLIP[type(node.ops[0])](), node.comparators[0])
            return _constant_right(flipped)
        parts = split_chain(node)
        if parts is not None:
            return disjoin([negate(p) for p in parts])
    if kind is ast.BoolOp:
        parts = [negate(v) for v in node.values]
        return disjoin(parts) if node.op.__class__ is ast.And else conjoin(parts)
    return ast.UnaryOp(op=ast.Not(), operand=node)


_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _never_nan(node: ast.Compare) -> bool:
    """Every operand is a count by its syntax (`len(x) > 8`, `t.shape[-1] <= 128`, `-1`): no NaN, no
    set, so `not (a <= b)` is `a > b` for every value it can take."""
    return all(_count(side) for side in (node.left, *node.comparators))


#: Sizes of a tensor or array, ints by torch's and numpy's contracts.
_SIZE_METHODS = frozenset({"numel", "dim", "size", "ndimension", "nelement"})


def _count(side: ast.expr) -> bool:
    kind = side.__class__
    if kind is ast.UnaryOp and side.op.__class__ is ast.USub:
        side, kind = side.operand, side.operand.__class__
    if kind is ast.Constant:
        return side.value.__class__ is int
    if kind is ast.Call:
        func = side.func
        # `int(x)` and one-argument `round(x)` give an int (or raise): review 23 #19, "or NaN" on `int(...)`
        return not side.keywords and (func.__class__ is ast.Name and (func.id in ("len", "int") or
                                                                     func.id == "round" and len(side.args) == 1)
                                      or func.__class__ is ast.Attribute and func.attr in _SIZE_METHODS)
    if kind is ast.Attribute:
        return side.attr == "ndim"
    if kind is ast.Subscript:   # `x.shape[0]`, not a slice of it
        return side.value.__class__ is ast.Attribute and side.value.attr == "shape" \
            and side.slice.__class__ is not ast.Slice
    return False


def only_unordered(node: ast.expr) -> bool:
    """Whether `node` (simplified, not `False`) holds only for values no order holds for: with each
    `not (a <= b)` read as `a > b`, nothing meets it. `if n > cap: raise` then `assert n <= cap`
    fails only for a NaN (`not n > cap and not n <= cap`), which prose says apart from a test that
    numbers fail."""
    flipped = _flip_orders(node)
    return flipped is not node and is_const(simplify(flipped), False)


def _flip_orders(node: ast.expr) -> ast.expr:
    """`node` with its negated order tests flipped (`not (a <= b)` as `a > b`): their meaning for
    numbers; `node` itself when it holds none."""
    kind = node.__class__
    if kind is ast.BoolOp:
        values = [_flip_orders(v) for v in node.values]
        if all(a is b for a, b in zip(values, node.values)):
            return node
        return ast.BoolOp(op=node.op, values=values)
    if kind is ast.UnaryOp and node.op.__class__ is ast.Not and node.operand.__class__ is ast.Compare \
            and any(op.__class__ in _ORDERING for op in node.operand.ops):
        parts = split_chain(node.operand)
        if parts is None:
            return node
        return ast.BoolOp(op=ast.Or(), values=[
            compare(p.left, _FLIP[p.ops[0].__class__](), p.comparators[0]) for p in parts])
    return node


def conjoin(parts: Iterable[ast.expr]) -> ast.expr:
    """The simplified conjunction of `parts` (each already simplified)."""
    parts = list(parts)
    single = _lone_term(parts, False)
    if single is not None:
        return single
    return _simplify_and(parts)


def disjoin(parts: Iterable[ast.expr]) -> ast.expr:
    """The simplified disjunction of `parts` (each already simplified)."""
    parts = list(parts)
    single = _lone_term(parts, True)
    if single is not None:
        return single
    return _simplify_or(parts)


def _lone_term(parts: list[ast.expr], absorbing: bool) -> ast.expr | None:
    """The result when the parts are constants and at most one plain term, else None.

    Flow analysis joins mostly `True`/`False` with one guard; the full
    simplification would return exactly this: constants fold (`absorbing`
    wins), and a lone term that is no `and`/`or` comes back as it is: it
    cannot meet its own negation, and in a conjunction it is no chained or
    interval comparison either (those `_flatten` splits and `merge_bounds`
    rewrites).
    """
    term = None
    for part in parts:
        if part.__class__ is ast.Constant:
            if bool(part.value) is absorbing:
                return TRUE if absorbing else FALSE
            continue
        if term is not None:
            return None
        term = part
    if term is None:
        return FALSE if absorbing else TRUE
    kind = term.__class__
    if kind is ast.BoolOp:
        return None
    if not absorbing and kind is ast.Compare and (len(term.ops) > 1 or _as_bounds(term) is not None):
        return None
    return term


_SIMPLIFIED = side_table()


def simplify(node: ast.expr) -> ast.expr:
    """Simplify a whole expression tree (see the module docstring; memoised, results are shared)."""
    if node.__class__ not in _REWRITTEN:
        # what `_simplify` gives it, without a memo entry
        return FALSE if node.__class__ in _NAMED and _type_checking(node) else node
    hit = _SIMPLIFIED.get(id(node))
    return hit[1] if hit is not None else side_memo(_SIMPLIFIED, node, _simplify)


#: The kinds `_simplify` may rewrite; any other node is its own simplification.
_REWRITTEN = frozenset({ast.BoolOp, ast.UnaryOp, ast.Compare})


def _simplify(node: ast.expr) -> ast.expr:
    kind = node.__class__
    if kind is ast.BoolOp:
        values = [_simplify(v) for v in node.values]
        return conjoin(values) if node.op.__class__ is ast.And else disjoin(values)
    return _simplify_value(node)   # the rest is rewritten alike whether its truth or its value is used


def _simplify_value(node: ast.expr) -> ast.expr:
    """Simplify an expression whose value is used, not only its truth.

    `x or 1` is always true, but `(x or 1) > 1` compares `x` when it is
    truthy: and/or keep their operands' values, so only what yields a bool
    either way (a comparison, `not`) or a number (`-1`) is rewritten here.
    """
    kind = node.__class__
    if kind is ast.UnaryOp:
        if node.op.__class__ is ast.Not:
            return negate(_simplify(node.operand))
        return _fold_unary(node.op, _simplify_value(node.operand))
    if kind is ast.Compare:
        return _simplify_compare(node)
    if kind in _NAMED and _type_checking(node):
        return FALSE
    return node


_NAMED = (ast.Name, ast.Attribute)


def _type_checking(node: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`: True for a type checker only, False when the code runs."""
    return (node.id if node.__class__ is ast.Name else node.attr) == "TYPE_CHECKING"


def _fold_unary(op: ast.unaryop, operand: ast.expr) -> ast.expr:
    if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
        if isinstance(op, ast.USub):
            return ast.Constant(-operand.value)
        if isinstance(op, ast.UAdd):
            return operand
    return ast.UnaryOp(op=op, operand=operand)


def _simplify_compare(node: ast.Compare) -> ast.expr:
    operands = [_simplify_value(o) for o in (node.left, *node.comparators)]
    node = ast.Compare(left=operands[0], ops=node.ops, comparators=operands[1:])
    if len(node.ops) > 1:
        parts = split_chain(node)
        return conjoin([_simplify_compare(p) for p in parts]) if parts else node
    folded = _fold_compare(operands[0], node.ops[0], operands[1])
    if folded is not None:
        return folded
    return _constant_right(node)


def _constant_right(node: ast.Compare) -> ast.Compare:
    """`3 < x` as `x > 3`: the constant goes on the right, as people write it."""
    op = type(node.ops[0])
    left, right = node.left, node.comparators[0]
    if op in _MIRROR and isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        return compare(right, _MIRROR[op](), left)
    return node


def _fold_compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> ast.expr | None:
    """Evaluate a comparison of two literal constants, else None."""
    if not (isinstance(left, ast.Constant) and isinstance(right, ast.Constant)):
        return None
    a, b = left.value, right.value
    if type(a) not in _FOLDABLE or type(b) not in _FOLDABLE:
        return None
    if isinstance(op, (ast.Is, ast.IsNot)):
        singletons = (None, True, False)
        if not any(a is s or b is s for s in singletons):
            return None
    try:
        return ast.Constant(bool(_EVAL[type(op)](a, b)))
    except Exception:  # noqa: BLE001 - e.g. 1 < "a": leave it as written
        return None


def _flatten(parts: list[ast.expr], op: type) -> list[ast.expr]:
    flat: list[ast.expr] = []
    for part in parts:
        kind = part.__class__
        if kind is ast.BoolOp and part.op.__class__ is op:
            flat.extend(_flatten(part.values, op))
        elif kind is ast.Compare and op is ast.And and len(part.ops) > 1:
            flat.extend(split_chain(part) or [part])
        else:
            flat.append(part)
    return flat


def _dedupe(parts: list[ast.expr], conjunction: bool = False) -> tuple[list[ast.expr], bool]:
    """Drop repeated pure terms; report whether a pure term meets its negation.

    In a conjunction, two order tests no number meets together (`n > cap and n <= cap`) meet
    no NaN either (it fails both): they count as a term and its negation there, not in a
    disjunction (`n > cap or n <= cap` is not true of a NaN).

    A read-only builtin's call on pure values (`isinstance(x, T)`, `len(x)`) counts as pure
    when every term is so: nothing evaluated between its two readings changes what it reads
    (`not isinstance(s, T) or isinstance(s, T)`: a loop body whose every path goes on).
    """
    stable = reads_only_test if all(map(reads_only_test, parts)) else is_pure
    seen: set[str] = set()
    kept: list[ast.expr] = []
    pure_kept: list[ast.expr] = []
    for part in parts:
        if not stable(part):
            kept.append(part)
            continue
        key = expr_key(part)
        if key in seen:
            continue
        seen.add(key)
        kept.append(part)
        pure_kept.append(part)
    if len(pure_kept) > 1:   # a lone pure term cannot meet its own negation: it is never its own
        kinds = {part.__class__ for part in pure_kept}
        for part in pure_kept:
            if _negation_kind(part) in kinds and negation_key(part) in seen:
                return kept, True
            if conjunction and part.__class__ is ast.Compare and len(part.ops) == 1 \
                    and part.ops[0].__class__ in _ORDERING \
                    and comparison_key(part.left, _FLIP[part.ops[0].__class__], part.comparators[0]) in seen:
                return kept, True
    return kept, False


#: Kinds whose negation is `not x` (see `_negate`).
_NOT_WRAPPED = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.BinOp})


def _negation_kind(part: ast.expr) -> type:
    """The node kind `negate(part)` has, told without building it where that is cheap.

    Two structurally equal trees are of one kind, so a negation can only meet a
    term of its own kind: `_dedupe` builds it only when such a term is there.
    """
    kind = part.__class__
    if kind is ast.Compare and len(part.ops) == 1:
        return ast.Compare
    if kind in _NOT_WRAPPED:
        return ast.UnaryOp
    return negate(part).__class__


def _simplify_and(parts: list[ast.expr]) -> ast.expr:
    terms: list[ast.expr] = []
    for part in _flatten(parts, ast.And):
        if isinstance(part, ast.Constant):
            if not part.value:
                return FALSE
            continue
        terms.append(part)
    terms, contradiction = _dedupe(terms, conjunction=True)
    if contradiction:
        return FALSE
    terms = _absorbed(terms, ast.Or)
    terms = merge_bounds(terms)
    if terms is None:
        return FALSE
    return _join(terms, ast.And, TRUE)


def _simplify_or(parts: list[ast.expr]) -> ast.expr:
    terms: list[ast.expr] = []
    for part in _flatten(parts, ast.Or):
        if isinstance(part, ast.Constant):
            if part.value:
                return TRUE
            continue
        terms.append(part)
    terms, tautology = _dedupe(terms)
    if tautology or _covers_rest(terms):
        return TRUE
    return _join(_absorbed(terms, ast.And), ast.Or, FALSE)


def _absorbed(terms: list[ast.expr], inner: type) -> list[ast.expr]:
    """Absorption: `x and (x or y)` is `x`, and `x or (x and y)` is `x`, for pure terms (a path that
    excludes a case earlier and then tests `not case or ...` read as a longer condition than it is)."""
    compound = [t for t in terms if isinstance(t, ast.BoolOp) and isinstance(t.op, inner)]
    if not compound:
        return terms
    keys = {expr_key(t) for t in terms if not isinstance(t, ast.BoolOp) and is_pure(t)}
    if not keys:
        return terms
    gone = {id(t) for t in compound if is_pure(t) and any(expr_key(v) in keys for v in t.values)}
    return [t for t in terms if id(t) not in gone] if gone else terms


def _covers_rest(terms: list[ast.expr]) -> bool:
    """`a or b or (not a and not b)`: one term is the negation of all the others."""
    keys = {_key(t) for t in terms if is_pure(t)}
    for term in terms:
        if isinstance(term, ast.BoolOp) and isinstance(term.op, ast.And) and is_pure(term):
            if all(negation_key(v) in keys for v in term.values):
                return True
    return False


def _join(terms: list[ast.expr], op: type, empty: ast.expr) -> ast.expr:
    if not terms:
        return empty
    if len(terms) == 1:
        return terms[0]
    return ast.BoolOp(op=op(), values=terms)


def render(node: ast.expr) -> str:
    """Source text of a guard, parenthesised only where precedence needs it (memoised)."""
    values = node.__dict__
    text = values.get("_errdex_text")
    if text is None:
        text = values["_errdex_text"] = _render(node)
    return text


def _render(node: ast.expr) -> str:
    kind = node.__class__
    if kind is ast.Name:
        return node.id   # what slicing and unparsing both give
    positioned = hasattr(node, "lineno")
    if kind is ast.Compare:
        if len(node.ops) == 1 and not positioned:
            return f"{_compared_text(node.left)} {_OP_TEXT[node.ops[0].__class__]} {_compared_text(node.comparators[0])}"
    elif kind is ast.BoolOp:
        sep = " and " if isinstance(node.op, ast.And) else " or "
        return sep.join([_operand_text(v) for v in node.values])
    elif kind is ast.UnaryOp:
        if isinstance(node.op, ast.Not) and not positioned:
            operand = node.operand
            text = render(operand)
            return f"not ({text})" if isinstance(operand, _LOOSER_THAN_NOT) else f"not {text}"
    elif kind is ast.Call and len(node.args) == 1 and not node.keywords \
            and isinstance(node.args[0], ast.GeneratorExp):
        return f"{node_text(node.func)}{ast.unparse(node.args[0])}"
    if not positioned:
        return unparse(node)   # what `node_text` falls back to for a node the analysis built
    return node_text(node)


#: Operands written in parentheses after `not` / around a comparison operator (as ast.unparse does).
_LOOSER_THAN_NOT = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)
_OP_TEXT: dict[type, str] = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
#: Kinds written in parentheses around a comparison operator (a `not` too, see `_compared_text`).
_PARENTHESISED_IN_COMPARE = frozenset({*_LOOSER_THAN_NOT, ast.Compare})


def _compared_text(node: ast.expr) -> str:
    text = node.__dict__.get("_errdex_text") or render(node)
    kind = node.__class__
    if kind in _PARENTHESISED_IN_COMPARE or (kind is ast.UnaryOp and isinstance(node.op, ast.Not)):
        return f"({text})"
    return text


def _operand_text(node: ast.expr) -> str:
    text = render(node)
    if isinstance(node, (ast.BoolOp, ast.IfExp, ast.Lambda, ast.NamedExpr)):
        return f"({text})"
    return text
