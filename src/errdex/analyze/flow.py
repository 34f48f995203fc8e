"""How control leaves a statement: the conditions for each way out.

For a statement (or block) `Exits` holds three guard expressions: `next`
(control falls through to the following statement), `brk` (it leaves by a
`break` of the enclosing loop) and `cont` (by a `continue`). Whatever is
left over leaves the function (`return`, `raise`, `sys.exit()`). Calls
raising on their own are not modelled: every condition holds "modulo
exceptions", as everywhere in errdex.

A `with` block under a manager that catches exceptions (`pytest.raises`,
`contextlib.suppress`) may go on after a `raise` in it: it falls through,
approximately.

Loops over a literal tuple/list/set/`range(...)` of constants are unrolled
by substituting each element into the body's exit conditions, so

    for c in (8, 16):
        if m <= c:
            return c

falls through exactly when `m > 16`. Other loops are approximated and say
why in `Exits.approx`. Results are cached per statement and per block by
`FlowAnalyzer`, which lives as long as its scope's tree.
"""

from __future__ import annotations

import ast
import keyword
import operator
from collections.abc import Iterator
from dataclasses import dataclass

from errdex.analyze.exprs import expr_key, replace_names
from errdex.analyze.exprs import expr_names as read_names
from errdex.analyze.names import bound_names, own_bindings, target_names
from errdex.analyze.patterns import case_condition
from errdex.analyze.purity import (
    constant_display,
    expr_may_change_state,
    may_change_state,
    method_receivers,
    reads_only,
    state_atoms,
)
from errdex.analyze.raised import raised_condition
from errdex.analyze.simplify import FALSE, TRUE, conjoin, disjoin, is_const, negate, simplify
from errdex.extract.scope import argument_names, dotted_source

#: Calls that never return: they end the process, or raise to end a test (`pytest.skip`).
NO_RETURN_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort",
                             "pytest.skip", "pytest.fail", "pytest.xfail", "pytest.exit"})
#: Longest literal iterable unrolled element by element.
MAX_UNROLL = 64

NON_LITERAL_LOOP = "a loop over values the code does not spell out"
WHILE_LOOP = "a `while` loop whose test changes from pass to pass"
TRY_MAY_RAISE = "the `try` body may raise before it ends"
LOOP_REBINDS = "the loop assigns again a name its exit test reads"
SUPPRESSED = "a with block whose context manager catches exceptions"
#: Context managers that swallow an exception raised in their block (`pytest.raises`,
#: `contextlib.suppress`, unittest's `assertRaises`): control goes on after the block.
SUPPRESSING_MANAGERS = frozenset({"raises", "suppress", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


REREAD = "a value tested again after a call that may change it"


def _reread_after_change(before: ast.expr, guard: ast.expr, stmts: list[ast.stmt], stmt: ast.stmt) -> bool:
    """Whether `guard` (of `stmt`) contradicts `before` (of the statements ahead of it in `stmts`)
    only by reading again a value that a call between may have changed.

    Asked only once a block's path looks impossible; the guard is then left
    out (the block's fall-through is over-approximated) rather than the path
    declared dead.
    """
    atoms = state_atoms(guard)
    if is_const(before, False) or is_const(guard, False) or state_atoms(before).isdisjoint(atoms):
        return False
    index = stmts.index(stmt)
    first = next((i for i, s in enumerate(stmts[:index]) if _reads_any(s, atoms)), index)
    return any(may_change_state(s) for s in stmts[first:index]) or (
        stmt.__class__ not in _PLAIN and stmt.__class__ is not ast.Assert and may_change_state(stmt))


def _stateless(known: dict[str, ast.expr]) -> dict[str, ast.expr]:
    """The forwarded values that read no attribute, item or call (what a call between may change)."""
    return {name: value for name, value in known.items()
            if not any(isinstance(n, (ast.Attribute, ast.Subscript, ast.Call)) for n in ast.walk(value))}


def _reads_any(stmt: ast.stmt, atoms: frozenset[str]) -> bool:
    """Whether a test or assertion directly in `stmt` reads one of `atoms`."""
    for node in ast.walk(stmt):
        if isinstance(node, (ast.If, ast.While, ast.Assert)) and not state_atoms(node.test).isdisjoint(atoms):
            return True
    return False


def suppresses_exceptions(stmt: ast.With | ast.AsyncWith) -> bool:
    """Whether a context manager of `stmt` is one that catches what its block raises."""
    for item in stmt.items:
        call = item.context_expr
        func = call.func if isinstance(call, ast.Call) else None
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in SUPPRESSING_MANAGERS:
            return True
    return False


@dataclass(slots=True)
class Exits:
    """Conditions for leaving a statement by each way; `approx` says what was guessed.

    Never changed once built (shared through the caches); not frozen only because a frozen
    dataclass's `__init__` costs several times as much, and one is built per statement.
    """

    next: ast.expr
    brk: ast.expr
    cont: ast.expr
    approx: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LoopOutcome:
    """When a loop ends normally (runs its `else`) and when it ends by `break`."""

    normal: ast.expr
    broke: ast.expr
    approx: tuple[str, ...] = ()


FALLS_THROUGH = Exits(TRUE, FALSE, FALSE)
#: Statements that always fall through (most of a function), told apart before the other kinds.
_PLAIN = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass, ast.Import, ast.ImportFrom,
                    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Delete, ast.Global, ast.Nonlocal})
LEAVES = Exits(FALSE, FALSE, FALSE)
_FOR = (ast.For, ast.AsyncFor)
_TRY = (ast.Try, ast.TryStar)
#: Compound statements that may turn out quiet (see `FlowAnalyzer._quiet`), with their statement lists.
_QUIET_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"), ast.For: ("body", "orelse"), ast.AsyncFor: ("body", "orelse"),
    ast.With: ("body",), ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"), ast.TryStar: ("body", "handlers", "orelse", "finalbody"),
}


def _merge(*groups: tuple[str, ...]) -> tuple[str, ...]:
    if not any(groups):
        return ()   # the common case: nothing approximated
    out: list[str] = []
    for group in groups:
        out.extend(r for r in group if r not in out)
    return tuple(out)


def branch(test: ast.expr, when_true: ast.expr, when_false: ast.expr) -> ast.expr:
    """`when_true` if `test` else `when_false`, as a truth condition."""
    if is_const(when_true, True) and is_const(when_false, True):
        return TRUE
    if _same(when_true, when_false):
        return when_true
    if is_const(when_true, False):
        return conjoin([negate(test), when_false])
    if is_const(when_false, False):
        return conjoin([test, when_true])
    if is_const(when_true, True):
        return disjoin([test, when_false])
    if is_const(when_false, True):
        return disjoin([negate(test), when_true])
    return disjoin([conjoin([test, when_true]), conjoin([negate(test), when_false])])


def _same(a: ast.expr, b: ast.expr) -> bool:
    """Structural equality; a constant's key never equals another kind's, so no key is built then."""
    if a is b:
        return True
    if (a.__class__ is ast.Constant) is not (b.__class__ is ast.Constant):
        return False
    return expr_key(a) == expr_key(b)


def dotted_call_name(node: ast.expr) -> str | None:
    """`sys.exit` for a call to `sys.exit(...)`, else None."""
    return dotted_source(node.func) if isinstance(node, ast.Call) else None


def substitute(expr: ast.expr, values: dict[str, ast.expr]) -> ast.expr:
    """A copy of `expr` with the named variables replaced by expressions.

    Integer arithmetic the replacement makes constant is folded (`w * 32`
    with `w = 4` reads `128`), so unrolled tests read as numbers, and
    `getattr(o, "name")` reads `o.name`.
    """
    replaced = replace_names(expr, values)
    if any(isinstance(n, (ast.BinOp, ast.Call)) for n in ast.walk(replaced)):
        replaced = _fold_arithmetic(replaced)
    return simplify(replaced)


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
#: Folded results stay below this size (a literal loop's arithmetic, not `1 << 4096`).
_FOLD_LIMIT = 1 << 64


def _fold_arithmetic(node: ast.AST) -> ast.AST:
    """`node` with integer `+ - * // %` of two constants computed and `getattr(o, "name")` written
    `o.name`; `node` itself when nothing folds."""
    if not isinstance(node, ast.expr) or isinstance(node, (ast.Name, ast.Constant)):
        return node
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) == 2 and not node.keywords and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str) and node.args[1].value.isidentifier()
            and not keyword.iskeyword(node.args[1].value)):
        return ast.Attribute(value=_fold_arithmetic(node.args[0]), attr=node.args[1].value, ctx=ast.Load())
    if isinstance(node, ast.BinOp):
        left, right = _fold_arithmetic(node.left), _fold_arithmetic(node.right)
        fold = _ARITHMETIC.get(type(node.op))
        if (fold is not None and isinstance(left, ast.Constant) and isinstance(right, ast.Constant)
                and type(left.value) is int and type(right.value) is int
                and not (right.value == 0 and fold in (operator.floordiv, operator.mod))):
            value = fold(left.value, right.value)
            if abs(value) < _FOLD_LIMIT:
                return ast.Constant(value)
        if left is node.left and right is node.right:
            return node
        return ast.BinOp(left=left, op=node.op, right=right)
    fields, changed = {}, False
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            new = [_fold_arithmetic(v) if isinstance(v, ast.AST) else v for v in value]
            changed = changed or any(a is not b for a, b in zip(new, value))
        else:
            new = _fold_arithmetic(value) if isinstance(value, ast.AST) else value
            changed = changed or new is not value
        fields[field] = new
    return type(node)(**fields) if changed else node


def free_names(expr: ast.expr) -> frozenset[str]:
    """The names `expr` mentions, without those only bound inside its comprehensions.

    A nested loop's `all(... for c in xs)` reads `xs`, not `c`: the outer loop's
    body binding `c` does not change what the test means.
    """
    free: set[str] = set()
    _collect_free(expr, frozenset(), free)
    return frozenset(free)


_COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)


def _collect_free(node: ast.AST, bound: frozenset[str], free: set[str]) -> None:
    if isinstance(node, ast.Name):
        if node.id not in bound:
            free.add(node.id)
        return
    if isinstance(node, _COMPREHENSIONS):
        inner = bound
        for gen in node.generators:
            _collect_free(gen.iter, inner, free)   # each iterable sees the targets bound before it
            inner = inner | frozenset(target_names(gen.target))
            for test in gen.ifs:
                _collect_free(test, inner, free)
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            _collect_free(part, inner, free)
        return
    for child in ast.iter_child_nodes(node):
        _collect_free(child, bound, free)


def literal_elements(iterable: ast.expr) -> list[ast.expr] | None:
    """Elements of a literal tuple/list/set/range of constants, else None."""
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set)):
        elts = [simplify(e) for e in iterable.elts]
        if len(elts) <= MAX_UNROLL and all(_is_literal(e) for e in elts):
            return elts
        return None
    if dotted_call_name(iterable) == "range" and not iterable.keywords:
        args = [simplify(a) for a in iterable.args]
        if 1 <= len(args) <= 3 and all(isinstance(a, ast.Constant) and type(a.value) is int for a in args):
            numbers = range(*(a.value for a in args)) if args[-1].value or len(args) < 3 else None
            if numbers is not None and len(numbers) <= MAX_UNROLL:
                return [ast.Constant(n) for n in numbers]
    return None


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Tuple) and all(_is_literal(e) for e in node.elts)


def _is_value(node: ast.expr) -> bool:
    """A constant, a name or a tuple of these: reading it runs no code, and only a binding
    changes it (an attribute could change under the loop's body without one)."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    return isinstance(node, ast.Tuple) and all(_is_value(e) for e in node.elts)


def _bind_target(target: ast.expr, value: ast.expr) -> dict[str, ast.expr] | None:
    """Names of a loop target bound to the parts of one literal element."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Tuple):
        if len(target.elts) != len(value.elts):
            return None
        out: dict[str, ast.expr] = {}
        for sub_target, sub_value in zip(target.elts, value.elts):
            bound = _bind_target(sub_target, sub_value)
            if bound is None:
                return None
            out.update(bound)
        return out
    return None


class FlowAnalyzer:
    """Exit conditions of the statements of one scope, cached by node identity."""

    def __init__(self, scope: ast.AST | None = None) -> None:
        #: The scope's parameters and body (not the scope node: no reference cycle through its
        #: `__dict__`), for `same_value`, worked out when a binding first asks.
        self._scope_parts = (getattr(scope, "args", None), getattr(scope, "body", None)) if scope is not None else None
        self._same_value: frozenset[str] | None = None if scope is not None else frozenset()
        self._own: frozenset[str] | None = None
        self._stmt_cache: dict[int, Exits] = {}
        self._block_cache: dict[int, Exits] = {}
        self.bound_cache: dict[int, frozenset[str]] = {}
        self._on_the_way: dict[int, frozenset[str]] = {}
        #: Path-walk states after the first k statements of a block (see condition).
        self.block_states: dict[int, list[tuple]] = {}
        self._positions: dict[int, dict[int, int]] = {}

    def index_in(self, block: list[ast.stmt], stmt: ast.AST) -> int | None:
        """Position of `stmt` in `block` by identity, or None."""
        positions = self._positions.get(id(block))
        if positions is None:
            positions = {id(s): i for i, s in enumerate(block)}
            self._positions[id(block)] = positions
        index = positions.get(id(stmt))
        return index if index is not None and block[index] is stmt else None

    def bound(self, stmt: ast.AST) -> frozenset[str]:
        """Names `stmt` may bind (cached)."""
        return bound_names(stmt, self.bound_cache)

    def bound_on_the_way(self, stmt: ast.stmt) -> frozenset[str]:
        """Names `stmt` may bind on the way to the statement after it: an `if` branch that only
        leaves (`if flag: for flag in xs: ...; return`) binds nothing the code after sees."""
        if not isinstance(stmt, ast.If):
            found = self.bound(stmt)
            return found - self.same_value() if found and _imports_in(stmt) else found
        found = self._on_the_way.get(id(stmt))
        if found is None:
            names = {n.target.id for n in ast.walk(stmt.test) if isinstance(n, ast.NamedExpr)}
            for block in (stmt.body, stmt.orelse):
                if block and not _onlyleaves(self.block_exits(block)):
                    for child in block:
                        names |= self.bound(child)
            found = frozenset(names)
            if found and _imports_in(stmt):
                found -= self.same_value()
            self._on_the_way[id(stmt)] = found
        return found

    def receivers_on_the_way(self, stmt: ast.stmt) -> frozenset[str]:
        """The objects of the function's own (its parameters and locals) whose methods `stmt` calls
        on the way to the statement after it: an `if` branch that only leaves (`return a.view(n)`)
        calls nothing the code after sees; a module's (`torch.empty(...)`) is no value a guard reads
        of the function's."""
        if isinstance(stmt, ast.If):
            found = set(method_receivers(stmt.test))
            for block in (stmt.body, stmt.orelse):
                if block and not _onlyleaves(self.block_exits(block)):
                    for child in block:
                        found |= self.receivers_on_the_way(child)
        else:
            found = set(method_receivers(stmt))
        if not found:
            return frozenset()
        own = self.own_names()
        return frozenset(name for name in found if name.partition(".")[0] in own)

    def own_names(self) -> frozenset[str]:
        """The function's parameters and the names its body binds (worked out once)."""
        found = self._own
        if found is None:
            args, body = self._scope_parts or (None, None)
            names = set(argument_names(args))
            for child in body or ():
                names |= self.bound(child)
            found = self._own = frozenset(names)
        return found

    def same_value(self) -> frozenset[str]:
        """Names every binding of which imports one and the same module attribute: binding one again
        gives the value it had (`from m import f` in two branches), so no test of it goes stale."""
        found = self._same_value
        if found is None:
            args, body = self._scope_parts
            found = self._same_value = import_stable(args, body)
        return found

    def block_exits(self, stmts: list[ast.stmt]) -> Exits:
        """Exit conditions of a statement list run in order."""
        hit = self._block_cache.get(id(stmts))
        if hit is not None:
            return hit
        reached, brk, cont, approx = TRUE, FALSE, FALSE, ()
        literals: dict[str, ast.expr] = {}   # `mapping = {"q": 0}` read by a later test of the block
        for stmt in stmts:
            if literals:   # rebound in it, or changed by a call before its test: not what it reads
                literals = self._still_literal(literals, stmt, self._calls_before_exits(stmt))
            if stmt.__class__ is ast.Assign and len(stmt.targets) == 1 and stmt.targets[0].__class__ is ast.Name \
                    and _literal_value(stmt.value):
                literals[stmt.targets[0].id] = stmt.value
                continue
            exits = self.stmt_exits(stmt)
            if literals:
                if exits is not FALLS_THROUGH and exits is not LEAVES:
                    # Written in, the test no longer reads a name the block binds (not stale outside it).
                    exits = Exits(substitute(exits.next, literals), substitute(exits.brk, literals),
                                  substitute(exits.cont, literals), exits.approx)
                literals = self._still_literal(literals, stmt, may_change_state(stmt))
            if reached is TRUE and brk is FALSE and cont is FALSE:   # nothing has left the block yet
                if exits is FALLS_THROUGH:
                    continue   # what the joins below would give: the state stays as it is
                if exits is LEAVES:   # `raise`/`return` first: the joins give FALSE three times
                    reached = FALSE
                    break
            approx = _merge(approx, exits.approx)
            brk = disjoin([brk, conjoin([reached, exits.brk])])
            cont = disjoin([cont, conjoin([reached, exits.cont])])
            joined = conjoin([reached, exits.next])
            if is_const(joined, False) and _reread_after_change(reached, exits.next, stmts, stmt):
                approx = _merge(approx, (REREAD,))   # the two reads may differ: not impossible
                continue
            reached = joined
            if is_const(reached, False):
                break
        result = Exits(reached, brk, cont, approx)
        self._block_cache[id(stmts)] = result
        return result

    def stmt_exits(self, stmt: ast.stmt) -> Exits:
        """Exit conditions of one statement."""
        hit = self._stmt_cache.get(id(stmt))
        if hit is None:
            hit = self._compute(stmt)
            self._stmt_cache[id(stmt)] = hit
        return hit

    def _compute(self, stmt: ast.stmt) -> Exits:
        kind = stmt.__class__
        if kind in _PLAIN:
            return FALLS_THROUGH
        if kind is ast.Expr:   # a call, mostly: what the chain below gives for it
            return LEAVES if dotted_call_name(stmt.value) in NO_RETURN_CALLS else FALLS_THROUGH
        if kind in _QUIET_BLOCKS and self._quiet(stmt):
            return FALLS_THROUGH
        if isinstance(stmt, (ast.Return, ast.Raise)):
            return LEAVES
        if isinstance(stmt, ast.Break):
            return Exits(FALSE, TRUE, FALSE)
        if isinstance(stmt, ast.Continue):
            return Exits(FALSE, FALSE, TRUE)
        if isinstance(stmt, ast.Assert):
            return Exits(simplify(stmt.test), FALSE, FALSE)
        if isinstance(stmt, ast.Expr) and dotted_call_name(stmt.value) in NO_RETURN_CALLS:
            return LEAVES
        if isinstance(stmt, ast.If):
            return self._if_exits(stmt)
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            return self._loop_exits(stmt)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            body = self.block_exits(stmt.body)
            if not is_const(body.next, True) and suppresses_exceptions(stmt):
                return Exits(TRUE, body.brk, body.cont, _merge(body.approx, (SUPPRESSED,)))
            return body
        if isinstance(stmt, (ast.Try, ast.TryStar)):
            return self._try_exits(stmt)
        if isinstance(stmt, ast.Match):
            return self._match_exits(stmt)
        return FALLS_THROUGH

    def _quiet(self, stmt: ast.stmt) -> bool:
        """Nothing in the compound `stmt` can leave it or guard its end: its exits are FALLS_THROUGH.

        What the full computation gives for such a statement (every join of
        TRUE/FALSE folds back to them), found by walking statement lists only.
        Loops over literals (unrolling may note an approximation), `while`
        and `match` are always computed.
        """
        kind = stmt.__class__
        if kind in _PLAIN:
            return True
        if kind is ast.Expr:
            return dotted_call_name(stmt.value) not in NO_RETURN_CALLS
        fields = _QUIET_BLOCKS.get(kind)
        if fields is None:
            return False
        known = self._stmt_cache.get(id(stmt))
        if known is not None:
            return known is FALLS_THROUGH
        if kind in _FOR and self._unrollable(stmt) is not None:
            return False
        for field in fields:
            for child in getattr(stmt, field):
                if kind in _TRY and field == "handlers":
                    if not all(self._quiet(c) for c in child.body):
                        return False
                elif not self._quiet(child):
                    return False
        self._stmt_cache[id(stmt)] = FALLS_THROUGH
        return True

    def _if_exits(self, stmt: ast.If) -> Exits:
        test = simplify(stmt.test)
        body, orelse = self.block_exits(stmt.body), self.block_exits(stmt.orelse)
        if not stmt.orelse and is_const(body.next, False) and is_const(body.brk, False) \
                and is_const(body.cont, False):
            # `if t: raise ...`: what `branch` gives for a body that only leaves and no else
            # (how the body leaves is its own business: its approximations say nothing of the way on)
            return Exits(conjoin([negate(test), orelse.next]), body.brk, body.cont, orelse.approx)
        return Exits(
            branch(test, body.next, orelse.next),
            branch(test, body.brk, orelse.brk),
            branch(test, body.cont, orelse.cont),
            _merge(*(b.approx for b in (body, orelse) if not _onlyleaves(b))),
        )

    def _loop_exits(self, stmt: ast.For | ast.AsyncFor | ast.While) -> Exits:
        if not stmt.orelse and not _leaves_function(stmt.body) and (
                not isinstance(stmt, ast.While) or (_breaks(stmt.body) and not _always_true(stmt.test))):
            # Nothing in the body leaves the function: the loop ends, by `break` or at its end (a
            # `while` with a break: when its test fails too, which then says nothing of how it
            # ended), and the code after it runs whatever the passes did (what they bind is seen).
            return FALLS_THROUGH
        outcome = self.loop_outcome(stmt)
        orelse = self.block_exits(stmt.orelse)
        return Exits(
            disjoin([outcome.broke, conjoin([outcome.normal, orelse.next])]),
            conjoin([outcome.normal, orelse.brk]),
            conjoin([outcome.normal, orelse.cont]),
            _merge(outcome.approx, orelse.approx),
        )

    def loop_outcome(self, stmt: ast.For | ast.AsyncFor | ast.While) -> LoopOutcome:
        """When the loop finishes normally and when it is left by `break`."""
        body = self.block_exits(stmt.body)
        passes = disjoin([body.next, body.cont])
        if isinstance(stmt, ast.While):
            return self._while_outcome(stmt, passes, body)
        elements = self._unrollable(stmt)
        if elements is not None:
            return self._unrolled_outcome(stmt, elements, passes, body)
        if is_const(passes, True) and is_const(body.brk, False):
            return LoopOutcome(TRUE, FALSE, body.approx)
        approx = _merge(body.approx, (NON_LITERAL_LOOP,))
        # The body's bindings (the target too, when the body rebinds it) make the test mean something else.
        body_bound = self._body_bound(stmt)
        invariant = _invariant_values(stmt, body_bound) if body_bound else {}
        if invariant and not read_names(passes).isdisjoint(invariant):
            # `vocab = self.tokenizer.vocab_size` made afresh in each pass from nothing the loop
            # changes (blind sample 17 #27): every pass reads that same value, written in
            passes = substitute(passes, invariant)
        clash = read_names(passes) & (body_bound - invariant.keys())
        if clash:   # names only bound inside the test's own comprehensions do not count
            clash = free_names(passes) & body_bound
        head, tail = _exits_then_rest(stmt.body) if clash else (stmt.body, [])
        if clash and is_const(body.brk, False) and _tests_and_exits(head, assignments=True):
            # `found = detect()` then `if found is not None: return found`: each pass's value
            # written into the test, which then reads only the target and names the body leaves alone.
            # Statements after the last way out (`out.append(found)`) cannot decide this pass; what
            # they change may decide a later one, so with them the loop is not told exactly.
            forwarded = self._forwarded_exits(head, body_bound, any_value=True)
            tested = disjoin([forwarded.next, forwarded.cont])
            if is_const(forwarded.brk, False) and not (free_names(tested) & body_bound):
                every = ast.Call(
                    func=ast.Name("all"),
                    args=[ast.GeneratorExp(tested, [ast.comprehension(stmt.target, stmt.iter, [], 0)])],
                    keywords=[],
                )
                return LoopOutcome(every, FALSE, _merge(forwarded.approx, (NON_LITERAL_LOOP,)) if tail
                                   else forwarded.approx)
        if is_const(body.brk, False) and not clash:
            every = ast.Call(
                func=ast.Name("all"),
                args=[ast.GeneratorExp(passes, [ast.comprehension(stmt.target, stmt.iter, [], 0)])],
                keywords=[],
            )
            if _tests_and_exits(stmt.body, invariant=frozenset(invariant)):
                # Nothing in the body but tests and the ways out: each pass tests the next element with
                # nothing changed, so the loop goes on past its end exactly when every element passes
                # (a test reading none of its element, a retry, makes the same calls as the `all`).
                approx = body.approx
            return LoopOutcome(every, FALSE, approx)
        if not is_const(body.brk, False) and not clash and not _leaves_function(stmt.body) \
                and not is_const(body.brk, True) and not is_const(passes, True):
            # A search (`for p in patterns: if p in name: break`, then `else:`): each pass only tests
            # its element and goes on or breaks, so the loop ends at its end exactly when every
            # element goes on, and by `break` exactly when some element breaks (the first such).
            # With other statements in the body (`yield`, `poll()`), the tests are still these, but
            # what those statements change between passes is not written in.
            comprehension = [ast.comprehension(stmt.target, stmt.iter, [], 0)]
            every = ast.Call(func=ast.Name("all"), args=[ast.GeneratorExp(passes, comprehension)], keywords=[])
            some = ast.Call(func=ast.Name("any"), args=[ast.GeneratorExp(body.brk, comprehension)], keywords=[])
            return LoopOutcome(every, some, body.approx if _tests_and_exits(stmt.body, breaks=True) else approx)
        broke = FALSE if is_const(body.brk, False) else TRUE
        return LoopOutcome(TRUE, broke, approx)

    def _unrollable(self, stmt: ast.For | ast.AsyncFor) -> list[ast.expr] | None:
        """The elements a `for` loop runs over, when they can stand in for its target in its
        tests: a literal's (`literal_elements`), or a tuple or list display of names the body
        leaves alone (`for name, v in (("a", a), ("b", b)):`), whose values are the ones the
        loop read when it started."""
        elements = literal_elements(stmt.iter)
        if elements is not None or not isinstance(stmt.iter, (ast.Tuple, ast.List)):
            return elements
        elts = stmt.iter.elts
        if not elts or len(elts) > MAX_UNROLL or not all(_is_value(e) for e in elts):
            return None
        names = set()
        for e in elts:
            names |= read_names(e)
        return None if names & self._body_bound(stmt) else list(elts)

    def _body_bound(self, stmt: ast.For | ast.AsyncFor | ast.While) -> set[str]:
        names: set[str] = set()
        for child in stmt.body:
            names |= self.bound(child)
        return names

    def _while_outcome(self, stmt: ast.While, passes: ast.expr, body: Exits) -> LoopOutcome:
        test = simplify(stmt.test)
        if isinstance(test, ast.Constant):
            if not test.value:
                return LoopOutcome(TRUE, FALSE, ())
            if is_const(body.brk, False):
                return LoopOutcome(FALSE, FALSE, body.approx)
            return LoopOutcome(FALSE, TRUE, _merge(body.approx, (WHILE_LOOP,)))
        if is_const(body.brk, False):
            # With no break, the loop ends exactly when its test fails; nothing that leaves the
            # function in the body means every pass goes on to the test again.
            stays = not _leaves_function(stmt.body)
            approx = body.approx if is_const(passes, True) or stays else _merge(body.approx, (WHILE_LOOP,))
            # Such a loop whose passes change what its test reads (`while q: q.popleft()`,
            # `while i < n: i += 1`) runs until they made the test fail: the failed test holds of
            # the values the loop left, not of those the function was called with, and the code
            # after runs either way. A loop waiting for the world to change (`while not
            # self.done: await sleep(5)`) keeps its failed test: the code after runs once it
            # failed. So does one the body may leave (`while waited < t: if ready(): return`):
            # the code after runs when the wait ran out first (approximate).
            ended = TRUE if stays and _body_changes_test(stmt, self._body_bound(stmt)) else negate(test)
            return LoopOutcome(ended, FALSE, approx)
        return LoopOutcome(negate(test), TRUE, _merge(body.approx, (WHILE_LOOP,)))

    def _unrolled_outcome(self, stmt: ast.For | ast.AsyncFor, elements: list[ast.expr],
                          passes: ast.expr, body: Exits) -> LoopOutcome:
        approx = body.approx
        body_bound = self._body_bound(stmt)   # the target too, when the body rebinds it
        reads = read_names(passes) | read_names(body.brk)
        if reads & body_bound:
            body = self._forwarded_exits(stmt.body, body_bound)
            passes = disjoin([body.next, body.cont])
            approx = body.approx
            if (read_names(passes) | read_names(body.brk)) & body_bound:
                approx = _merge(approx, (LOOP_REBINDS,))
        passed: list[ast.expr] = []
        broke: list[ast.expr] = []
        for element in elements:
            values = _bind_target(stmt.target, element)
            if values is None:
                return LoopOutcome(TRUE, FALSE if is_const(body.brk, False) else TRUE,
                                   _merge(approx, (NON_LITERAL_LOOP,)))
            if not is_const(body.brk, False):
                broke.append(conjoin([*passed, substitute(body.brk, values)]))
            passed.append(substitute(passes, values))
        return LoopOutcome(conjoin(passed), disjoin(broke), approx)

    def _forwarded_exits(self, stmts: list[ast.stmt], body_bound: set[str], any_value: bool = False) -> Exits:
        """A loop body's exits with `name = <pure expression>` forwarded into the later tests.

        `T = w * 32` then `if n % T: continue` reads as `if n % (w * 32)`, so
        (a pure value, or a read-only builtin's: `c = getattr(o, name, None)`)
        the test is over the loop's target and the names the body leaves
        alone, and can be unrolled. An assignment whose value reads a name
        the body binds (its value differs between iterations) is not
        forwarded, and a forwarded value is dropped once a name it reads is
        bound again, or, when it reads an attribute, item or call, once a
        statement that may change state runs (`before = g.count`, a call,
        then `g.count > before` compares two different reads).
        """
        known: dict[str, ast.expr] = {}
        reached, brk, cont, approx = TRUE, FALSE, FALSE, ()
        for stmt in stmts:
            bound = self.bound(stmt)
            if known:
                known = {name: value for name, value in known.items()
                         if name not in bound and not (read_names(value) & bound)}
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            given = stmt.value if target is not None else None
            if target is None and isinstance(stmt, ast.If):   # `if t: x = a` / `else: x = b` is `x = a if t else b`
                target, given = _branch_assignment(stmt) or (None, None)
            if isinstance(target, ast.Name):
                value = replace_names(given, known) if known else given
                if (reads_only(value) or (any_value and _read_once(target.id, stmts, stmt, value))) \
                        and not (read_names(value) & body_bound):
                    known[target.id] = value
                    continue
            elif (pairs := _unpacked(target, given)) is not None:   # `a, b = names[i], names[j]` (conditions 32 #2, #9)
                pairs = [(n, replace_names(v, known) if known else v) for n, v in pairs]
                if all((reads_only(v) or (any_value and _read_once(n, stmts, stmt, v)))
                       and not (read_names(v) & body_bound) for n, v in pairs):
                    known.update(pairs)
                    continue
            if known and self._calls_before_exits(stmt):
                known = _stateless(known)   # a call may change an attribute or item a value read
            exits = self.stmt_exits(stmt)
            if known:
                if exits is not FALLS_THROUGH:
                    exits = Exits(substitute(exits.next, known), substitute(exits.brk, known),
                                  substitute(exits.cont, known), exits.approx)
                if self._calls_on_the_way_on(stmt):
                    known = _stateless(known)
            if exits is FALLS_THROUGH:
                continue
            approx = _merge(approx, exits.approx)
            brk = disjoin([brk, conjoin([reached, exits.brk])])
            cont = disjoin([cont, conjoin([reached, exits.cont])])
            reached = conjoin([reached, exits.next])
            if is_const(reached, False):
                break
        return Exits(reached, brk, cont, approx)

    def _still_literal(self, literals: dict[str, ast.expr], stmt: ast.stmt, calls: bool) -> dict[str, ast.expr]:
        """The literal values `stmt` leaves as they were: none it rebinds, and, when `calls` (it may
        change state), no container (a call, or a store into it, may change one in place)."""
        bound = self.bound(stmt)
        kept = {name: value for name, value in literals.items() if name not in bound}
        if kept and calls:
            kept = {name: value for name, value in kept.items() if not _mutable_display(value)}
        return kept

    def _calls_before_exits(self, stmt: ast.stmt) -> bool:
        """Whether something may be called before `stmt` decides how it leaves (its test, for a check)."""
        if isinstance(stmt, (ast.If, ast.While, ast.Assert)):
            return expr_may_change_state(stmt.test)
        return may_change_state(stmt)

    def _calls_on_the_way_on(self, stmt: ast.stmt) -> bool:
        """Whether something may be called on the way through `stmt` to the next one.

        A check's leaving branch (`if t: raise E(...)`) does not count.
        """
        if isinstance(stmt, ast.Assert):
            return expr_may_change_state(stmt.test)
        if isinstance(stmt, ast.If):
            leaves = is_const(self.block_exits(stmt.body).next, False)
            return expr_may_change_state(stmt.test) or any(map(may_change_state, stmt.orelse)) or (
                not leaves and any(map(may_change_state, stmt.body)))
        return may_change_state(stmt)

    def _try_exits(self, stmt: ast.Try | ast.TryStar) -> Exits:
        body, orelse = self.block_exits(stmt.body), self.block_exits(stmt.orelse)
        handlers = [self.block_exits(h.body) for h in stmt.handlers]
        final = self.block_exits(stmt.finalbody)
        approx = _merge(body.approx, orelse.approx, final.approx, *(h.approx for h in handlers))
        normal = conjoin([body.next, orelse.next])
        caught = disjoin([h.next for h in handlers])
        live = [(node, h) for node, h in zip(stmt.handlers, handlers) if not is_const(h.next, False)]
        if is_const(normal, False) and len(live) == 1 and not _raises_in(stmt.body):
            # The body never goes on by itself (`try: f(); return` / `except E: pass`): past the
            # statement, the one handler that goes on ran, so its culprit raised.
            node, handler = live[0]
            raised = raised_condition(stmt, node)
            normal = conjoin([raised.expr, handler.next])
            approx = _merge(approx, raised.approx)
        elif handlers and not is_const(caught, False) and not is_const(normal, True):
            precise = None if _raises_in(stmt.body) else self._caught_or_not(stmt, normal, handlers)
            if precise is None:
                normal = disjoin([normal, caught])
                approx = _merge(approx, (TRY_MAY_RAISE,))
            else:
                normal = precise
        elif handlers and not is_const(caught, False):
            normal = TRUE
        elif handlers and not is_const(normal, False):
            # Every handler leaves (`except E: raise ...`, `return None`): past the statement, the
            # body raised none of the exceptions they catch.
            normal, approx = self._none_caught(stmt, normal, approx)
        brk = disjoin([body.brk, conjoin([body.next, orelse.brk]), *(h.brk for h in handlers)])
        cont = disjoin([body.cont, conjoin([body.next, orelse.cont]), *(h.cont for h in handlers)])
        if not stmt.finalbody:
            return Exits(normal, brk, cont, approx)
        if is_const(final.next, False):
            return Exits(FALSE, final.brk, final.cont, approx)
        return Exits(conjoin([normal, final.next]), disjoin([brk, final.brk]),
                     disjoin([cont, final.cont]), approx)

    def _caught_or_not(self, stmt: ast.Try | ast.TryStar, normal: ast.expr, handlers: list[Exits]
                       ) -> ast.expr | None:
        """Past a try that goes on both ways (`try: r = get(u); if r.ok: return r` / `except E:
        pass`): its body raised none of the caught classes and went on, or one handler ran and
        went on. None when a culprit cannot be named alone (several calls, none)."""
        facts = [raised_condition(stmt, node) for node in stmt.handlers]
        if any(f.approx for f in facts):
            return None
        # The body's own way on comes first: a conjunct that opens with `raised(` is the failure an
        # except-site re-reports (`condexpr.failure_fact`); this one may not have happened.
        if all(is_const(h.next, True) for h in handlers):   # `not F and N or F` is `N or F`
            return disjoin([normal, *(f.expr for f in facts)])
        none = conjoin([normal, *(negate(f.expr) for f in facts)])
        return disjoin([none, *(conjoin([f.expr, h.next]) for f, h in zip(facts, handlers))])

    def _none_caught(self, stmt: ast.Try | ast.TryStar, normal: ast.expr, approx: tuple[str, ...]
                     ) -> tuple[ast.expr, tuple[str, ...]]:
        """`normal` and `not raised(call, E)` for each handler of a try none of whose handlers goes
        on. A `raise` or `assert` in the body may be what a handler caught, which no `raised(call, E)`
        names: then the fact is left out and the result is approximate."""
        if _raises_in(stmt.body):
            return normal, _merge(approx, (TRY_MAY_RAISE,))
        facts = [normal]
        for node in stmt.handlers:
            raised = raised_condition(stmt, node)
            facts.append(negate(raised.expr))
            approx = _merge(approx, raised.approx)
        return conjoin(facts), approx

    def _match_exits(self, stmt: ast.Match) -> Exits:
        unmatched = TRUE
        nexts: list[ast.expr] = []
        brks: list[ast.expr] = []
        conts: list[ast.expr] = []
        approx: tuple[str, ...] = ()
        for case in stmt.cases:
            matched = case_condition(stmt.subject, case)
            body = self.block_exits(case.body)
            approx = _merge(approx, matched.approx, body.approx)
            entry = conjoin([unmatched, matched.expr])
            nexts.append(conjoin([entry, body.next]))
            brks.append(conjoin([entry, body.brk]))
            conts.append(conjoin([entry, body.cont]))
            if matched.exact:
                unmatched = conjoin([unmatched, negate(matched.expr)])
        nexts.append(unmatched)
        return Exits(disjoin(nexts), disjoin(brks), disjoin(conts), approx)


def _read_once(name: str, stmts: list[ast.stmt], assign: ast.stmt, value: ast.expr) -> bool:
    """Whether `value`, written for `name` into the tests after `assign`, runs as often as the
    code does: at most one read of `name` follows, or `value` changes nothing when run again."""
    tested = [n.test for s in stmts[stmts.index(assign) + 1:] for n in ast.walk(s) if isinstance(n, ast.If)]
    tested += [s.value for s in stmts[stmts.index(assign) + 1:] if isinstance(s, ast.Assign)]
    reads = sum(isinstance(n, ast.Name) and n.id == name for t in tested for n in ast.walk(t))
    return reads <= 1 or not expr_may_change_state(value)


def _imports_in(stmt: ast.stmt) -> bool:
    """Whether `stmt` is an import, or a compound statement with one among its blocks' own statements."""
    if stmt.__class__ is ast.Import or stmt.__class__ is ast.ImportFrom:
        return True
    return any(s.__class__ is ast.Import or s.__class__ is ast.ImportFrom
               for name in ("body", "orelse", "finalbody") for s in getattr(stmt, name, ()) or ())


def import_stable(args: ast.arguments | None, body: list | None) -> frozenset[str]:
    """Names of a scope (its parameters and body) that only imports bind, each always to the same
    module attribute (`from m import f` twice, in two branches): binding one again changes nothing."""
    targets: dict[str, set] = {}
    if isinstance(args, ast.arguments):
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                targets[arg.arg] = {None}   # a parameter: bound by the call
    for node in statements(body if isinstance(body, list) else []):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                targets.setdefault(alias.asname or alias.name, set()).add((node.level, node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                targets.setdefault((alias.asname or alias.name).split(".")[0], set()).add(
                    (0, alias.name if alias.asname else alias.name.split(".")[0], None))
        elif isinstance(node, (ast.stmt, ast.ExceptHandler)):
            for name in own_bindings(node):
                targets.setdefault(name, set()).add(None)   # bound some other way
    return frozenset(n for n, found in targets.items() if len(found) == 1 and None not in found)


def _unpacked(target: ast.expr | None, value: ast.expr | None) -> list[tuple[str, ast.expr]] | None:
    """The names an unpacking binds, each with its value: `a, b = x, y` one to one from a display of
    as many values, `dtype, shape = meta` as `meta[0]`, `meta[1]` from a name, attribute or item
    (a sequence, as unpacked values are in practice); None for anything else (`*rest`, one name twice)."""
    if not isinstance(target, (ast.Tuple, ast.List)) or value is None \
            or not all(isinstance(t, ast.Name) for t in target.elts) \
            or len({t.id for t in target.elts}) != len(target.elts):
        return None
    if isinstance(value, (ast.Tuple, ast.List)):
        if len(value.elts) != len(target.elts) or any(isinstance(v, ast.Starred) for v in value.elts):
            return None
        return [(t.id, v) for t, v in zip(target.elts, value.elts)]
    if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
        return [(t.id, ast.Subscript(value, ast.Constant(i), ast.Load())) for i, t in enumerate(target.elts)]
    return None


def statements(stmts: list[ast.stmt], nested_loops: bool = True) -> Iterator[ast.AST]:
    """The statements (handlers and cases too) of a block and those nested in it, nested
    definitions aside; `nested_loops=False` leaves out a nested loop's body (its `else` runs here)."""
    stack: list[ast.AST] = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not nested_loops and isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(node.orelse)
            continue
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)))


def _leaves_function(stmts: list[ast.stmt]) -> bool:
    """Whether a `return`, `raise`, `assert` or a call that never returns sits in the statements
    (nested definitions aside)."""
    return any(isinstance(node, (ast.Return, ast.Raise, ast.Assert))
               or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                   and dotted_source(node.value.func) in NO_RETURN_CALLS)
               for node in statements(stmts))


def _onlyleaves(exits: Exits) -> bool:
    """Whether a block never goes on, breaks or continues: it returns or raises on every path."""
    return is_const(exits.next, False) and is_const(exits.brk, False) and is_const(exits.cont, False)


def _body_changes_test(loop: ast.While, body_bound: set[str]) -> bool:
    """Whether a pass of the loop changes what its test reads by itself: binds a name the test
    reads (`body_bound`: what its body binds), stores into or deletes from it, or calls a method
    of it (`q.popleft()`, `self.step()` for a test of `self.done`)."""
    if read_names(loop.test) & body_bound:
        return True
    reads = {chain for node in ast.walk(loop.test) if (chain := dotted_source(node)) is not None}
    for child in loop.body:
        for node in ast.walk(child):
            if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
                if dotted_source(node.value) in reads or dotted_source(node) in reads:
                    return True
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and dotted_source(node.func.value) in reads:
                return True
    return False


def _always_true(test: ast.expr) -> bool:
    test = simplify(test)
    return isinstance(test, ast.Constant) and bool(test.value)


def _breaks(stmts: list[ast.stmt]) -> bool:
    """Whether a `break` of this loop (not of a nested one) sits in the statements."""
    return any(isinstance(node, ast.Break) for node in statements(stmts, nested_loops=False))


def _branch_assignment(stmt: ast.If) -> tuple[ast.Name, ast.IfExp] | None:
    """`if t: x = a` / `else: x = b` as (x, `a if t else b`): one name bound on both branches,
    each a plain assignment (no walrus, comprehension or lambda); None for any other `if`."""
    if len(stmt.body) != 1 or len(stmt.orelse) != 1:
        return None
    first, second = stmt.body[0], stmt.orelse[0]
    for one in (first, second):
        if not (isinstance(one, ast.Assign) and len(one.targets) == 1 and isinstance(one.targets[0], ast.Name)):
            return None
    if first.targets[0].id != second.targets[0].id:
        return None
    if not all(_plain_expr(node) for node in (stmt.test, first.value, second.value)):
        return None
    value = ast.IfExp(test=stmt.test, body=first.value, orelse=second.value)
    return first.targets[0], ast.copy_location(value, stmt)


def _exits_then_rest(stmts: list[ast.stmt]) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """A loop body split after its last statement that may leave the pass (`return`, `raise`,
    `break`, `continue`, `assert`): the rest runs only once the pass has gone on."""
    last = -1
    for index, stmt in enumerate(stmts):
        if may_leave(stmt):
            last = index
    return stmts[:last + 1], stmts[last + 1:]


def may_leave(stmt: ast.stmt) -> bool:
    """Whether a `return`, `raise`, `break`, `continue` or `assert` sits in the statement (nested
    definitions aside): running it may end the block, the pass or the function."""
    return any(isinstance(node, _WAYS_OUT) for node in statements([stmt]))


_WAYS_OUT = (ast.Return, ast.Raise, ast.Break, ast.Continue, ast.Assert)


def _plain_expr(node: ast.expr) -> bool:
    """No walrus, comprehension or lambda in it: an expression that can be written into a test
    elsewhere with the same names meaning the same things."""
    return not any(isinstance(n, (ast.NamedExpr, *_COMPREHENSIONS, ast.Lambda)) for n in ast.walk(node))


def _tests_and_exits(stmts: list[ast.stmt], assignments: bool = False, breaks: bool = False,
                     invariant: frozenset[str] = frozenset()) -> bool:
    """Whether a block holds only `if` tests (no walrus) and asserts around `return`, `raise`,
    `continue`, `pass` and branches that leave (`leaves`): running it changes nothing a later pass
    of the loop reads. `assignments`: plain `name = value` statements too, at the block's top level
    (each pass binds them afresh). `breaks`: `break` too. `invariant`: names each pass assigns the
    same value (`_invariant_values`); a nested `for` of tests and exits only is one too, its target
    read nowhere else in the block."""
    for stmt in stmts:
        if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Pass)) or (breaks and isinstance(stmt, ast.Break)):
            continue
        if isinstance(stmt, ast.Assert) and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(stmt.test)):
            continue
        if invariant and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id in invariant:
            continue
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and not stmt.orelse \
                and _tests_and_exits(stmt.body, invariant=invariant) \
                and not _read_elsewhere(target_names(stmt.target), stmts, stmt):
            continue
        if assignments and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and (
                (isinstance(stmt.targets[0], ast.Name) and _plain_expr(stmt.value))
                or ((pairs := _unpacked(stmt.targets[0], stmt.value)) is not None
                    and all(_plain_expr(v) for _, v in pairs))):
            continue
        if assignments and isinstance(stmt, ast.If) and _branch_assignment(stmt) is not None:
            continue
        if isinstance(stmt, ast.If) and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(stmt.test)) \
                and all(leaves(b) or _tests_and_exits(b, breaks=breaks, invariant=invariant)
                        for b in (stmt.body, stmt.orelse)):
            continue
        return False
    return True


def _read_elsewhere(names, stmts: list[ast.stmt], loop: ast.stmt) -> bool:
    """Whether a statement of `stmts` other than `loop` reads one of `names` (a nested loop's
    target read after it would see its last value)."""
    wanted = set(names)
    return any(isinstance(n, ast.Name) and n.id in wanted for s in stmts if s is not loop for n in ast.walk(s))


def _invariant_values(loop: ast.For | ast.AsyncFor, body_bound: set[str]) -> dict[str, ast.expr]:
    """Name -> value for the names the loop's body binds once, by a plain `name = value` (at any
    depth of `if`s and loops in it) whose value reads no name the body or the loop binds and makes
    no call: each pass gives them the same value, so a test of one reads that value."""
    bound = body_bound | set(target_names(loop.target))
    found: dict[str, ast.expr] = {}
    counts: dict[str, int] = {}
    for node in statements(loop.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            counts[name] = counts.get(name, 0) + 1
            if _plain_expr(node.value) and not any(isinstance(n, (ast.Call, ast.Await)) for n in ast.walk(node.value)) \
                    and read_names(node.value).isdisjoint(bound):
                found[name] = node.value
    # bound once, and by nothing else (a loop target, an augmented assignment, a `with ... as`)
    others = set()
    for node in statements(loop.body):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            others.update(own_bindings(node))
    iterated = read_names(loop.iter)   # `for v in (a, b): a = 0`: the `all(...)` at the site reads `a` as 0
    return {name: value for name, value in found.items()
            if counts[name] == 1 and name not in others and name not in iterated}


def leaves(block: list[ast.stmt]) -> bool:
    """Whether a branch ends by leaving the function (`y = x + 1; return y`), with no `continue`
    or `break` in it: whatever it does before, no later pass of the loop sees."""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise)) \
        and not any(isinstance(n, (ast.Continue, ast.Break)) for s in block for n in ast.walk(s))


def _raises_in(stmts: list[ast.stmt]) -> bool:
    """Whether a `raise` or `assert` sits in the statements (not in nested definitions): a handler
    may have caught it, which `raised(call, E)` does not name."""
    return any(isinstance(node, (ast.Raise, ast.Assert)) for node in statements(stmts))


def _literal_value(node: ast.expr) -> bool:
    """A constant, or a display of constants (`{"q": 0, "k": 1}`, `("a", "b")`)."""
    return node.__class__ is ast.Constant or (node.__class__ in (ast.Tuple, ast.List, ast.Set, ast.Dict)
                                              and constant_display(node) and _small(node))


def _small(node: ast.expr) -> bool:
    return len(getattr(node, "elts", None) or getattr(node, "keys", None) or ()) <= 16


def _mutable_display(node: ast.expr) -> bool:
    return node.__class__ in (ast.List, ast.Set, ast.Dict)
