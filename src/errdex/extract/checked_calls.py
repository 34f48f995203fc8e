"""Calls a function makes after checking what it passes: `FunctionFacts.checks`.

`def forward(x): assert x.is_contiguous(); return kernel(x)` cannot hand `kernel` an `x` that
fails that test, so an assert in `kernel` on `x.is_contiguous()` is out of `forward`'s reach
(review 24: such callers were named as the way to the site, and as the place to add the check
they already make). Only a function's own top-level checks count: `assert G`, and `if C:` whose
block always leaves (raise, return) with no `else`. Each holds from its statement on, until a
statement binds a name it reads or a block statement comes (`checked_calls` says what is read).

Tests are kept as canonical texts (`check_conjuncts`): a conjunction split, a negated comparison
flipped (`not (a > b)` -> `a <= b`), so the analysis can compare them with a callee's own test
written in the callee's names (`analyze.checked`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from errdex.extract.scope import dotted_source

#: (receiver as written or "", positional argument texts, (keyword, text) pairs, canonical checks holding there)
CheckedCall = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]

_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
         ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_LEAVES = (ast.Raise, ast.Return)


def check_conjuncts(node: ast.expr, negate: bool = False) -> list[str]:
    """The canonical texts whose conjunction is `node` (or `not node`): ands split, `not` pushed
    into comparisons and double negations dropped. Two tests with one text mean the same."""
    out: list[str] = []
    _conjuncts(node, negate, out)
    return out


def _conjuncts(node: ast.expr, negate: bool, out: list[str]) -> None:
    while node.__class__ is ast.UnaryOp and node.op.__class__ is ast.Not:
        node, negate = node.operand, not negate
    cls = node.__class__
    if cls is ast.BoolOp and (node.op.__class__ is ast.And) != negate:   # `a and b`, or `not (a or b)`
        for value in node.values:
            _conjuncts(value, negate, out)
        return
    if negate and cls is ast.Compare and len(node.ops) == 1:
        node = ast.Compare(node.left, [_FLIP[node.ops[0].__class__]()], node.comparators)
    elif negate:
        node = ast.UnaryOp(ast.Not(), node)
    out.append(ast.unparse(node))


def checked_calls(body: list[ast.stmt], resolve: Callable[[str], str | None], text: str
                  ) -> dict[str, list[CheckedCall]]:
    """Callee name (resolved as `FunctionFacts.calls` are) -> each of its calls, for the callees every
    call of which comes after a check reading what it passes. Empty when the function checks nothing.

    Cheap by design (it runs on every function with a top-level check): only calls that are a
    top-level statement's whole value (`f(x)`, `y = f(x)`, `return f(x), g(y)`, `await f(x)`) are
    read; a compound statement ends every check (what it binds is not looked for); and a callee
    counts only when `text` (the function's code) names it in a call as many times as were read."""
    if ":=" in text or not any(_check_of(stmt) is not None for stmt in body):
        return {}   # (an assignment expression may bind inside any value: not looked for)
    holding: list[_Check] = []
    found: dict[str, list[CheckedCall | None]] = {}
    written: dict[str, int] = {}   # name as written -> calls read
    resolved: dict[str, str] = {}
    for stmt in body:
        check = _check_of(stmt)
        if check is not None:
            holding = [*holding, _Check(*check)]
            continue
        if stmt.__class__ not in _SIMPLE:
            holding = []   # a block may bind anything the checks read: none holds past it
            continue
        if not holding:
            continue
        for call in _whole_calls(getattr(stmt, "value", None)):
            name = dotted_source(call.func)
            callee = resolve(name) if name is not None else None
            if callee is None:
                continue
            written[name] = written.get(name, 0) + 1
            resolved[name] = callee
            found.setdefault(callee, []).append(_entry(call, name, holding))
        bound = _bound(stmt)
        if bound:
            holding = [h for h in holding if not any(_reads(h.names(), b) for b in bound)]
    for name, count in written.items():
        if _named_calls(text, name) != count:
            found.pop(resolved[name], None)   # called elsewhere too, where no check was read
    return {callee: calls for callee, calls in found.items() if all(c is not None for c in calls)}


def _named_calls(text: str, name: str) -> int:
    """How many times `text` calls `name` as written (`name(`, `name (`; not `x.name(` nor `name_2(`)."""
    count, at, size = 0, text.find(name), len(name)
    while at >= 0:
        before = text[at - 1] if at else " "
        if not (before.isalnum() or before in "_.") and text[at + size:at + size + 64].lstrip()[:1] == "(":
            count += 1
        at = text.find(name, at + size)
    return count


_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return)


def _whole_calls(value: ast.expr | None) -> list[ast.Call]:
    """The calls that are a statement's whole value, or the items of the tuple it is; `await` taken off."""
    if value is None:
        return []
    items = value.elts if value.__class__ is ast.Tuple else (value,)
    out = []
    for item in items:
        if item.__class__ is ast.Await:
            item = item.value
        if item.__class__ is ast.Call:
            out.append(item)
    return out


def _check_of(stmt: ast.stmt) -> tuple[ast.expr, bool] | None:
    """(test, whether it holds negated) of a top-level check, else None."""
    if stmt.__class__ is ast.Assert:
        return stmt.test, False
    if stmt.__class__ is ast.If and not stmt.orelse and stmt.body and stmt.body[-1].__class__ in _LEAVES:
        return stmt.test, True
    return None


class _Check:
    """A top-level check, its names and texts worked out only when a call after it asks."""

    __slots__ = ("test", "negate", "_names")

    def __init__(self, test: ast.expr, negate: bool) -> None:
        self.test, self.negate, self._names = test, negate, None

    def names(self) -> frozenset[str]:
        if self._names is None:
            self._names = _dotted_reads(self.test)
        return self._names

    def texts(self) -> list[str]:
        return check_conjuncts(self.test, self.negate)


def _entry(call: ast.Call, name: str, holding: list[_Check]) -> CheckedCall | None:
    """The call's receiver, arguments and the checks that read one of them (or the receiver); None
    when it passes `*args`/`**kwargs` or no check reads what it passes."""
    if any(a.__class__ is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    passed = set()
    for value in (*call.args, *(k.value for k in call.keywords)):
        passed |= _dotted_reads(value)
    head = name.rpartition(".")[0]
    if head:
        passed.add(head)
    # a check on `cfg.n` says nothing of `cfg.key`: only one reading a passed value (or a part of it) is kept
    kept = tuple(text for check in holding if any(_reads(check.names(), p) for p in passed)
                 for text in check.texts())
    if not kept:
        return None
    return (head, tuple(ast.unparse(a) for a in call.args),
            tuple((k.arg, ast.unparse(k.value)) for k in call.keywords), kept)


def _dotted_reads(node: ast.AST) -> frozenset[str]:
    """The whole names and attribute chains an expression reads (`self.block`, not `self` again)."""
    if node.__class__ is ast.Name:
        return frozenset((node.id,))
    if node.__class__ is ast.Constant:
        return frozenset()
    if node.__class__ is ast.Attribute:
        text = dotted_source(node)
        if text is not None:
            return frozenset((text,))
    out: set[str] = set()
    inner: set[int] = set()   # the `.value` of an attribute chain: part of a longer read
    for sub in ast.walk(node):
        cls = sub.__class__
        if cls is ast.Attribute:
            inner.add(id(sub.value))
        if (cls is ast.Name or cls is ast.Attribute) and id(sub) not in inner:
            text = dotted_source(sub)
            if text is not None:
                out.add(text)
    return frozenset(out)


def _bound(stmt: ast.stmt) -> set[str]:
    """Dotted names a simple statement binds (`x = `, `self.n += `, `x[0] = `: x)."""
    cls = stmt.__class__
    targets = stmt.targets if cls is ast.Assign else (stmt.target,) if cls in (ast.AugAssign, ast.AnnAssign) else ()
    out: set[str] = set()
    for target in targets:
        for node in ast.walk(target):
            ctx = getattr(node, "ctx", None)
            if ctx is None or ctx.__class__ is ast.Load:
                continue
            while node.__class__ in (ast.Subscript, ast.Starred):
                node = node.value
            text = dotted_source(node) if node.__class__ in (ast.Name, ast.Attribute) else None
            if text is not None:
                out.add(text)
    return out


def _reads(names: frozenset[str], bound: str) -> bool:
    """Whether binding `bound` changes what one of `names` reads (`x` changes `x.shape`; `self.a` not `self.b`)."""
    return any(n == bound or n.startswith(bound + ".") for n in names)
