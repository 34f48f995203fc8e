"""The trigger condition of one error site, read from its function's AST.

`trigger_condition(scope, path)` returns the condition under which control
reaches the site (for an `assert`, reaches it *and* the assert fails), as a
Python expression over the function's names, written the way `ast.unparse`
writes it. It is the conjunction, in execution order, of

- every statement before the path in each block on the path, as the
  condition to fall through it (`if t: return` gives `not t`, `assert c`
  gives `c`, a loop over literals is unrolled, see `errdex.analyze.flow`);
- the branch taken at each compound statement on the path (`if`/`elif`/
  `else`, `while` test, loop `else`, `match` case);
- `not (test)` for an `assert` site.

An attribute or item read by a guard is taken as unchanged by the calls
that follow, except where that would make the path impossible: read
again after a statement that may change it (a call, `await`, `with`),
`a.n == 76`, `a.release()`, `a.n != 76` is reachable, so the two reads
are kept apart and the condition is not exact. A call read again runs
again and may answer otherwise: not exact either.

Except-sites use the pseudo-function **`raised(call, E)`**: "evaluating
`call` (a call in the `try` body, as written) raised an exception that is
an instance of `E`" (`E` as written in the handler, a tuple for
`except (A, B)`, `BaseException` for a bare `except:`). It is not real
Python; readers and the matcher treat it as an opaque fact. When the try
body holds several calls the fact is their disjunction (`raised(f(x), E)
or raised(g(y), E)`, see `errdex.analyze.raised`); `TriggerCondition.calls`
lists the candidates.

The result is simplified without changing its truth value for any input
(`errdex.analyze.simplify`). `exact` is False, with a `reason`, when a part
had to be approximated (non-literal loops, `while` conditions, a guard
whose names are rebound before the site, unsupported patterns, ...).
Sites that no input reaches get `"False"`.

`guard` is the site's own guard: the same conjunction without the guards of
earlier raise-only checks (`assert c`, `if t: raise ...`), which belong to
other errors. It is what a caller must avoid (`triton.cdiv(K, BK) != 1`)
once the function's earlier validations pass; `expr` stays the whole truth.
"""

from __future__ import annotations

import ast
import re
import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field

from errdex.analyze.flow import FlowAnalyzer, free_names, may_leave, statements
from errdex.analyze.condexpr import analysing
from errdex.analyze.conjunction import EMPTY, REFUTED, Conjunction
from errdex.analyze.exprs import expr_key, expr_names, memo
from errdex.analyze.names import bound_names, own_bindings, target_names
from errdex.analyze.patterns import case_condition
from errdex.analyze.purity import is_pure, may_change_state, state_atoms
from errdex.analyze.raised import NO_CALL, outer_call_texts, raised_condition
from errdex.analyze.simplify import TRUE, conjoin, disjoin, negate, render, simplify
from errdex.analyze.source import node_text
from errdex.extract.scope import dotted_source

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Module

#: An earlier test on the path read a value the code then assigns again or changes: written over
#: the names as the site reads them, that test may speak of the earlier value.
REBOUND = "{names} tested on the way, then assigned again or changed, so that test may speak of an earlier value"
CHANGED = "{atoms} tested again after a call that may change it"
#: An impossible path only if state read before a call is the same after it (`_changed_between`).
STATE_CHANGED_BETWEEN = "a value tested before a call is tested again after it, which may change it"
NOT_IN_BLOCK = "path element not found in its block"
#: `raised(f(), E)` names a call by its text: one text made at two lines reads as one call.
SAME_CALL_TWICE = "`{call}` is made at lines {lines}, and `raised({call}, ...)` cannot tell which one raised"
EARLIER_CHECK = "the checks inside `{call}` (line {line}) are not followed: the site is reached only if it returned"
#: Blind sample 16 (#3): a raise in `for value in schedule:` is reached on a pass only when every
#: earlier pass went through the body, past its other checks too (those after the raise included).
EARLIER_PASSES = ("the earlier passes of `{loop}` must also get past its other ways out (line {line}), which"
                  " the condition leaves out: it speaks of the pass that raises")
_EARLIER_CHECK_HEAD = EARLIER_CHECK.partition("`")[0]
#: A call whose name says it checks (`_assert_supported`, `check_shapes`, `validate`, `verify`,
#: `ensure_...`, `assert_close`, `assert_called_once_with`): it raises when its check fails.
_CHECKING = re.compile(r"_*(?:assert|check|validate|verify|ensure)(?:_|[A-Z]|$)")
MAX_CALLS = 8


@dataclass(slots=True)
class TriggerCondition:
    """The guard leading to an error site, as code."""

    expr: str               # Python expression over the function's names; "True"/"False"
    exact: bool             # every path was followed without approximation
    reason: str | None      # why not exact
    calls: list[str] = field(default_factory=list)  # calls the condition relies on
    guard: str = ""         # the site's own guard: `expr` without earlier validation checks
    holds: bool = False     # "False" for an assert reached on some path, whose test holds on each: it never fails


class _PathWalk:
    """Guards met along the path, in execution order, and what was guessed.

    The collections are tuples so that a snapshot after every statement of a
    block (see `_fall_through_preceding`) costs nothing to take or restore.
    A guard's names are looked up only once a later binding asks (most of a
    site's own guards are never followed by one).
    """

    __slots__ = ("flow", "conjunction", "own", "guards", "guarded", "named", "reasons", "calls", "trail",
                 "with_guards", "with_read", "stale", "not_own")

    def __init__(self, flow: FlowAnalyzer) -> None:
        self.flow = flow
        self.conjunction = EMPTY
        #: Without the guards of earlier raise-only checks; the same object while no such
        #: check was met (the common case), so a guard is added once for both.
        self.own = self.conjunction
        self.guards: tuple[ast.expr, ...] = ()
        self.guarded: frozenset[str] = frozenset()   # names of the first `named` guards
        self.named = 0
        self.reasons: tuple[str, ...] = ()
        self.calls: tuple[str, ...] = ()
        #: What ran on the path, newest first, as a linked list `(item, rest)`: guards (expressions)
        #: and statements that ran (fallen through, a `with` entered, a try body left), kept only
        #: once a guard exists; read back only to tell whether a value was read before a change.
        self.trail: tuple | None = None
        #: `len(guards)` when the path entered its latest `with` block (-1: none), and the keys
        #: of the values those guards read (`purity.state_atoms`), worked out when first asked.
        self.with_guards = -1
        self.with_read: frozenset[str] | None = None
        #: (name, n): the first n guards read `name` before it was bound again (see `_result`).
        self.stale: tuple[tuple[str, int], ...] = ()
        #: Positions in `guards` of the earlier raise-only checks' guards (not in `own`).
        self.not_own: tuple[int, ...] = ()

    def note(self, *reasons: str) -> None:
        for reason in reasons:
            if reason not in self.reasons:
                self.reasons += (reason,)

    def add(self, expr: ast.expr, approx: tuple[str, ...] = (), own: bool = True) -> None:
        if approx:
            self.note(*approx)
        if not (expr.__class__ is ast.Constant and expr.value is True):   # `is_const(expr, True)`
            shared = self.own is self.conjunction
            conjunction = self.conjunction.add(expr)
            if conjunction is REFUTED and self._changed_between(expr):
                conjunction = self.conjunction.add(expr, refute=False)
                self.note(STATE_CHANGED_BETWEEN)
            epoch = ""
            if self.guards and (conjunction.false or self.with_guards > 0 or not is_pure(expr)):
                conjunction, epoch = self._reread(expr, conjunction)   # else nothing read can differ
            if self.guards and self.trail is not None and not conjunction.false and state_atoms(expr):
                changed = self._receiver_called(expr)
                if changed:   # the earlier reads were of another value: left out where they contradict
                    self.stale += tuple((key, len(self.guards)) for key in sorted(changed))
                    self.note(CHANGED.format(atoms=_named(sorted(render_key(expr, k) for k in changed),
                                                          keep_order=True)))
            self.guards += (expr,)
            self.trail = (expr, self.trail)
            self.conjunction = conjunction
            if own:
                self.own = conjunction if shared else self.own.add(expr, epoch)
            else:
                self.not_own += (len(self.guards) - 1,)

    def ran(self, stmt: ast.AST) -> None:
        """`stmt` ran (nothing to keep before the first guard: no value was read yet)."""
        if self.guards:
            self.trail = (stmt, self.trail)

    def entered_with(self, stmt: ast.With | ast.AsyncWith) -> None:
        self.ran(stmt)
        self.with_guards, self.with_read = len(self.guards), None

    def _reread(self, expr: ast.expr, merged: Conjunction) -> tuple[Conjunction, str]:
        """The conjunction with `expr`, when `expr` reads again a value that may have changed.

        Attributes and items are taken as unchanged by the calls between
        (errdex's reading of Python), unless that makes the path impossible:
        `a.n == 76`, a call, `a.n != 76` is reachable, so those reads are
        kept apart (their keys tagged) and the condition is not exact. A call
        read again runs again and may answer otherwise, and a `with` block
        entered between the reads is there to change state: not exact either.
        The checks are made only where they can matter (an impossible path,
        a call met before, a `with` block), so most guards cost nothing here.
        """
        epoch = ""
        if merged.false:
            if self.conjunction.false:
                return merged, ""
            stale = self._read_before_change(expr)
            if not stale:
                return merged, ""
            epoch = f"@{len(self.guards)}"
            apart = self.conjunction.add(expr, epoch)
            if apart.false:
                return merged, ""   # impossible for another reason
            merged = apart
        else:
            stale = self._across_with(expr)
            if not stale:
                stale = self._calls_answering_otherwise(expr)
                # the earlier reads were of other answers: left out (`_without_stale`)
                self.stale += tuple((key, len(self.guards)) for key in sorted(stale))
            if not stale:
                return merged, ""
        texts = sorted(render_key(expr, key) for key in stale)
        self.note(CHANGED.format(atoms=_named(texts, keep_order=True)))
        return merged, epoch

    def _receiver_called(self, expr: ast.expr) -> frozenset[str]:
        """Keys of the attributes and items `expr` reads that an earlier guard read too, with a
        method of their object called between (`manager.prepare()` between two tests of
        `manager.layers`): a test made again after such a call is there because the call changes
        what it reads (blind sample 17 #14 was exact, both tests read as one value)."""
        atoms = state_atoms(expr)
        if not any(not atoms.isdisjoint(state_atoms(guard)) for guard in self.guards):
            return frozenset()   # no earlier guard read any of it: the commonest case, and no walk
        objects = _objects_read(expr)
        if not objects:
            return frozenset()
        called: set[str] = set()
        stale: set[str] = set()
        item = self.trail
        while item is not None:
            node, item = item
            if isinstance(node, ast.stmt):
                called |= self.flow.receivers_on_the_way(node)
            elif called:
                for key in objects.keys() & state_atoms(node):
                    if any(owner in called for owner in objects[key]):
                        stale.add(key)
        return frozenset(stale)

    def _changed_between(self, expr: ast.expr) -> bool:
        """Whether a statement that may change state runs between two guards (`expr` the last)
        reading the same attributes, items or calls: then an `a or b` term and the tests that
        refute it may have read different values."""
        later = set(state_atoms(expr))
        changed = False
        item = self.trail
        while item is not None:
            node, item = item
            if isinstance(node, ast.stmt):
                changed = changed or may_change_state(node)
            else:
                atoms = state_atoms(node)
                if changed and not later.isdisjoint(atoms):
                    return True
                later |= atoms
        return False

    def _read_before_change(self, expr: ast.expr) -> frozenset[str]:
        """Keys of the attributes, items and calls `expr` reads that a guard read before a possible change."""
        atoms = state_atoms(expr)
        stale: set[str] = set()
        changed = False
        item = self.trail
        while atoms and item is not None:
            node, item = item
            if isinstance(node, ast.stmt):
                changed = changed or may_change_state(node)
            elif changed:
                stale |= atoms & state_atoms(node)
        return frozenset(stale)

    def _across_with(self, expr: ast.expr) -> frozenset[str]:
        """Keys of what `expr` reads that a guard read before the `with` block the path entered."""
        if self.with_guards <= 0:
            return frozenset()
        atoms = state_atoms(expr)
        if not atoms:
            return atoms
        if self.with_read is None:
            read: set[str] = set()
            for old in self.guards[:self.with_guards]:
                read |= state_atoms(old)
            self.with_read = frozenset(read)
        return atoms & self.with_read

    def _calls_answering_otherwise(self, expr: ast.expr) -> frozenset[str]:
        """The calls `expr` makes again after a possible change that must have answered otherwise.

        `f() == 2`, then `f() == 0` contradict if `f()` answered the same
        twice. The conjunction never compares calls, so this check reads
        each such call as a name.
        """
        made = self.conjunction.calls
        if not made or is_pure(expr):
            return frozenset()
        calls_made = memo(expr, "_errdex_calls", outer_call_texts)
        if not any(call in made for call in calls_made):
            return frozenset()
        calls = sorted(key for key in self._read_before_change(expr) if "(Call " in key)
        if not calls:
            return frozenset()
        names = {key: ast.Name(f"_errdex_call_{i}", ast.Load()) for i, key in enumerate(calls)}
        stale = frozenset(calls)
        earlier = EMPTY
        values: dict[str, set] = {}
        for old in self.guards:
            if stale & state_atoms(old):
                renamed = _calls_as_names(old, names)
                earlier = earlier.add(renamed)
                _literal_values(renamed, values)
        renamed = _calls_as_names(expr, names)
        contradict = not earlier.false and earlier.add(renamed).false
        if not contradict:   # `f() == [1]` then `f() == [2]`, `f() is None` then `f() == []`: two answers
            contradict = _literal_values(renamed, values)
        if not contradict:   # a call that answered otherwise once on this path may again
            contradict = any(name in stale for name, _ in self.stale)
        return stale if contradict else frozenset()

    def _guarded(self) -> frozenset[str]:
        """Names of all guards so far."""
        guards = self.guards
        if self.named < len(guards):
            guarded = self.guarded
            for expr in guards[self.named:]:
                names = expr_names(expr)
                if not names <= guarded:
                    guarded = guarded | names
            self.guarded, self.named = guarded, len(guards)
        return self.guarded

    def rebind(self, names: frozenset[str] | set[str]) -> None:
        """Names reassigned from here on make earlier guards on them stale."""
        if not names or not self.guards or self._guarded().isdisjoint(names):
            return
        for expr in self.guards:
            stale = expr_names(expr) & names
            if stale:   # a name a comprehension of the guard binds is its own (`any(c for c in cs)`)
                stale &= free_names(expr)
            if stale:
                self.note(REBOUND.format(names=_named(stale)))
                self.stale += tuple((name, len(self.guards)) for name in sorted(stale))

    def rebind_parts(self, stored: dict[str, set[str]]) -> None:
        """`self.n = ...` changes `self.n`, not `self`: an earlier guard goes stale only if it reads
        that attribute (or one under it, or one it lies under) or the object itself otherwise
        (`f(self)`, `self[0]`); `self.total > 0` stays as it was."""
        if not self.guards or self._guarded().isdisjoint(stored):
            return
        for expr in self.guards:
            bases = expr_names(expr) & stored.keys()
            for base in bases & free_names(expr) if bases else ():
                reads: list[str] = []
                if not _attribute_reads(expr, base, reads) or any(
                        _overlap(read, chain) for read in reads for chain in stored[base]):
                    self.note(REBOUND.format(names=_named([base])))
                    if (base, len(self.guards)) not in self.stale:   # `_without_stale` may drop it
                        self.stale += ((base, len(self.guards)),)

    def snapshot(self) -> tuple:
        return (self.guards, self.guarded, self.named, self.reasons, self.calls, self.conjunction, self.own,
                self.trail, self.with_guards, self.with_read, self.stale, self.not_own)

    def restore(self, state: tuple) -> None:
        (self.guards, self.guarded, self.named, self.reasons, self.calls, self.conjunction, self.own,
         self.trail, self.with_guards, self.with_read, self.stale, self.not_own) = state

    def dead(self) -> bool:
        return self.conjunction.false


_FLOW = "_errdex_flow"


def joined_reasons(reasons: tuple[str, ...]) -> str | None:
    """The reasons as one text; the names of every `REBOUND` reason told once, in one of them (a
    long path rebinding four names would otherwise repeat the sentence four times)."""
    if not reasons:
        return None
    rebound: list[str] = []
    others: list[str] = []
    first = None
    for reason in reasons:
        if reason.endswith(_REBOUND_TAIL):
            first = len(others) if first is None else first
            rebound.extend(n for n in _TICKED.findall(reason[:-len(_REBOUND_TAIL)]) if n not in rebound)
        else:
            others.append(reason)
    if rebound:
        names = _named(rebound)
        told = REBOUND.format(names=names) if len(rebound) == 1 else \
            REBOUND_MANY.format(names=names)
        others.insert(first, told)
    return "; ".join(others)


_REBOUND_TAIL = REBOUND.partition("}")[2]
REBOUND_MANY = "{names} tested on the way, then assigned again or changed, so those tests may speak of earlier values"
_TICKED = re.compile(r"`([^`]+)`")


def _named(names, keep_order: bool = False) -> str:
    """`a`, `b` and `c`: names as a reason shows them."""
    shown = [f"`{n}`" for n in (names if keep_order else sorted(names))]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _flow_for(scope: Scope) -> FlowAnalyzer:
    """The analyzer of `scope`, kept on the scope node: it lives as long as the tree.

    Nothing in it refers back to the scope node, so this makes no reference cycle.
    """
    flow = scope.__dict__.get(_FLOW)
    if flow is None:
        flow = scope.__dict__[_FLOW] = FlowAnalyzer(scope)
    return flow


def trigger_condition(scope: Scope, path: Sequence[ast.AST]) -> TriggerCondition:
    """The condition under which the last node of `path` raises (see module doc)."""
    analysing(scope)
    try:
        return _trigger_condition(scope, path)
    finally:
        analysing(None)   # read elsewhere, a name says nothing about sets


def _trigger_condition(scope: Scope, path: Sequence[ast.AST]) -> TriggerCondition:
    walk = _PathWalk(_flow_for(scope))
    block: list[ast.stmt] | None = scope.body
    for index, element in enumerate(path):
        if block is not None and not _fall_through_preceding(walk, block, element):
            walk.note(NOT_IN_BLOCK)
        if walk.dead():
            break
        if index == len(path) - 1:
            if isinstance(element, ast.Assert):
                walk.add(negate(simplify(element.test)))
                if walk.dead():   # reached (the walk lived up to here), but its test cannot fail there
                    result = _result(walk)
                    result.holds = result.expr == "False"   # not when stale tests were set aside
                    return result
            break
        parent = path[index - 1] if index else None
        if element.__class__ in _LOOPS and path[index + 1] in element.body:
            _note_other_exits(walk, element, path[-1])
        block = _enter(walk, element, path[index + 1], parent)
    return _result(walk)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _note_other_exits(walk: _PathWalk, loop: ast.For | ast.AsyncFor | ast.While, site: ast.AST) -> None:
    """Approximate when the loop's body may leave it anywhere but at the site (a raise, return
    or assert, or a `break` of this loop): a pass raises only once the earlier ones got through."""
    exits, first_break = memo(loop, "_errdex_loop_exits", _loop_exits)   # once per loop: its sites share it
    node = next((n for n in exits if n is not site), first_break)
    if node is None:
        return
    passes = walk.flow.block_exits(loop.body)
    if _never(passes.next) and _never(passes.cont):
        return   # every pass leaves the loop (`if c == 0: break` then the raise): no earlier pass ran it
    header = f"{'async ' if isinstance(loop, ast.AsyncFor) else ''}for {node_text(loop.target)} in " \
             f"{node_text(loop.iter)}" if not isinstance(loop, ast.While) else f"while {node_text(loop.test)}"
    walk.note(EARLIER_PASSES.format(loop=_short(header), line=node.lineno))


def _loop_exits(loop: ast.For | ast.AsyncFor | ast.While) -> tuple[tuple[ast.stmt, ...], ast.stmt | None]:
    """The raises, returns and asserts of a loop's body (nested loops' included, up to two: one
    besides a site is all `_note_other_exits` asks for), and its first `break` of this loop."""
    exits: list[ast.stmt] = []
    for node in statements(loop.body):
        if isinstance(node, (ast.Raise, ast.Return, ast.Assert)):
            exits.append(node)
            if len(exits) == 2:
                break
    first_break = next((n for n in statements(loop.body, nested_loops=False) if isinstance(n, ast.Break)), None)
    return tuple(exits), first_break


def _never(test: ast.expr) -> bool:
    return test.__class__ is ast.Constant and test.value is False


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _fall_through_preceding(walk: _PathWalk, block: list[ast.stmt], element: ast.AST) -> bool:
    """Add the fall-through guard of each statement before `element`.

    The walk state when entering a block depends only on the block, so the
    states after each of its first k statements are kept per block and
    reused by every later site in it.
    """
    if block and block[0] is element:
        return True   # nothing precedes it: the walk is in the block's entry state already
    position = walk.flow.index_in(block, element)
    limit = len(block) if position is None else position
    all_states = walk.flow.block_states
    states = all_states.get(id(block))
    if states is None:
        states = all_states[id(block)] = [walk.snapshot()]
    if len(states) > limit:
        walk.restore(states[limit])
        return position is not None
    walk.restore(states[-1])
    for stmt in block[len(states) - 1:limit]:
        if walk.conjunction.false:
            break
        _fall_through(walk, stmt)
        states.append(walk.snapshot())
    return position is not None


def _fall_through(walk: _PathWalk, stmt: ast.stmt) -> None:
    flow = walk.flow
    if stmt.__class__ is ast.Expr:
        checked = _checking_call(stmt.value)
        if checked is not None and not any(r.startswith(_EARLIER_CHECK_HEAD) for r in walk.reasons):
            # review 18: `_assert_args(...)`, `super()._validate()` before the site; the first one named
            walk.note(EARLIER_CHECK.format(call=checked, line=stmt.lineno))
    exits = flow.stmt_exits(stmt)
    bound = None
    if walk.guards:   # with no guard yet, a rebinding stales nothing
        bound = flow.bound_on_the_way(stmt)
        stored = _stored_chains(stmt, bound) if bound else None
        if stored is None:
            walk.rebind(bound)
        else:
            walk.rebind_parts(stored)
    following = exits.next
    if following.__class__ is ast.Constant and following.value is True:   # `is_const(following, True)`
        # most statements: no guard, so no own-guard question either
        if exits.approx:
            walk.note(*exits.approx)
        if walk.guards:
            walk.trail = (stmt, walk.trail)   # `walk.ran(stmt)`, for the commonest statement
        return
    if stmt.__class__ in _COMPOUND:
        walk.ran(stmt)   # its guard is read inside it, after what its body may have called
    walk.add(exits.next, exits.approx, own=not _raise_only_check(stmt))
    walk.ran(stmt)
    if bound is None:
        bound = flow.bound_on_the_way(stmt)
    stale = bound and expr_names(exits.next) & bound
    if stale:   # a comprehension's own names are not the function's
        stale &= free_names(exits.next)
    if stale and not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        stale = _rebound_after_read(stmt, stale, exits.next)
        if stale:
            walk.note(REBOUND.format(names=_named(stale)))


def _checking_call(expr: ast.expr) -> str | None:
    """`name(...)` as written when `expr` is a call (awaited or not) of a checking function, else None."""
    if expr.__class__ is ast.Await:
        expr = expr.value
    if expr.__class__ is not ast.Call:
        return None
    func = expr.func
    last = func.attr if func.__class__ is ast.Attribute else func.id if func.__class__ is ast.Name else None
    if last is None or _CHECKING.match(last) is None:
        return None
    written = dotted_source(func)
    if written is None and func.__class__ is ast.Attribute and func.value.__class__ is ast.Call \
            and func.value.func.__class__ is ast.Name and func.value.func.id == "super":
        written = f"super().{last}"
    return f"{written or last}(...)"


def _stored_chains(stmt: ast.stmt, bound: frozenset[str]) -> dict[str, set[str]] | None:
    """`{"self": {"self.n"}}` for an assignment whose every target is an attribute chain on a name
    (`self.n = ...`, `self.a.b += 1`) and that binds nothing else (`bound`: no name, no walrus);
    None for anything else."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
        targets = [stmt.target]
    else:
        return None
    out: dict[str, set[str]] = {}
    for target in targets:
        chain = dotted_source(target) if isinstance(target, ast.Attribute) else None
        if chain is None:
            return None
        out.setdefault(chain.partition(".")[0], set()).add(chain)
    return out if bound == out.keys() else None


def _attribute_reads(node: ast.AST, base: str, out: list[str]) -> bool:
    """Collect the longest attribute chains on `base` that `node` reads (`self.a.b`); False when it
    reads `base` any other way (bare, subscripted, passed on, or a method of it called, which may
    read any of its attributes)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        chain = dotted_source(node.func)
        if chain is not None and chain.partition(".")[0] == base:
            return False
    if isinstance(node, ast.Attribute):
        chain = dotted_source(node)
        if chain is not None and chain.partition(".")[0] == base:
            out.append(chain)
            return True
    elif isinstance(node, ast.Name):
        return node.id != base
    return all(_attribute_reads(child, base, out) for child in ast.iter_child_nodes(node))


def _overlap(read: str, stored: str) -> bool:
    """Whether changing `stored` may change what reading `read` gives: one chain lies on the other."""
    return read == stored or read.startswith(stored + ".") or stored.startswith(read + ".")


def _rebound_after_read(stmt: ast.stmt, names: frozenset[str], guard: ast.expr) -> frozenset[str]:
    """Of `names` (bound inside `stmt`, read by its fall-through `guard`) those a binding may change
    after the guard read them.

    Without a loop or a walrus, a statement runs in source order, so a name every binding of
    which ends before each of the guard's reads of it is read as the guard left it (`if a:
    from m import x` then `if x.ok(): return`). Anything else stays stale: no position, a loop.
    """
    reads: dict[str, tuple[int, int]] = {}
    # `if unknown := set(x) - ALLOWED: raise ...`: the guard's own walrus binds what it tests
    own_walrus = {(n.lineno, n.col_offset) for n in ast.walk(guard) if n.__class__ is ast.NamedExpr}
    walrus_only: set[str] = set()
    for node in ast.walk(guard):
        if node.__class__ is ast.Name and node.id in names:
            at = (getattr(node, "lineno", None), getattr(node, "col_offset", None))
            if at[0] is None or at[1] is None:
                return names
            reads[node.id] = min(reads.get(node.id, at), at)
    bound: dict[str, tuple[int, int]] = {}
    branches = [node for node in ast.walk(stmt) if node.__class__ is ast.If and node.orelse]
    for node in ast.walk(stmt):
        if node.__class__ is ast.NamedExpr:
            if node.target.id in names:
                if (node.lineno, node.col_offset) in own_walrus:
                    walrus_only.add(node.target.id)
                    continue
                return names   # bound by a walrus elsewhere: source order says nothing
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and not names.isdisjoint(bound_names(node)):
            return names   # bound in a loop: source order says nothing
        if isinstance(node, (ast.stmt, ast.ExceptHandler)) and node is not stmt:
            for name in own_bindings(node):
                if name in names and not (name in reads and _other_branch(branches, reads[name][0], node)):
                    end = (node.end_lineno or 0, node.end_col_offset or 0)
                    bound[name] = max(bound.get(name, end), end)
    return frozenset(n for n in names if not (n in walrus_only and n not in bound)
                     and (n not in bound or n not in reads or bound[n] >= reads[n]))


def _other_branch(branches: list[ast.If], line: int, node: ast.stmt) -> bool:
    """Whether `node` lies in the other branch of an `if` than the read on `line` (review 29 #2:
    `else: size = -1` after `if kind == "sliding": size = f(); if size is None: raise`): a run that
    reads the name there never runs that binding."""
    for branch in branches:
        body = (branch.body[0].lineno, branch.body[-1].end_lineno or branch.body[-1].lineno)
        other = (branch.orelse[0].lineno, branch.orelse[-1].end_lineno or branch.orelse[-1].lineno)
        at = node.lineno
        if (body[0] <= line <= body[1] and other[0] <= at <= other[1]) or \
                (other[0] <= line <= other[1] and body[0] <= at <= body[1]):
            return True
    return False


_COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar,
                       ast.Match})


def _raise_only_check(stmt: ast.stmt) -> bool:
    """An earlier validation (`assert c`, `if t: raise ...`, a try whose every handler raises):
    its guard belongs to another error.

    Such checks stay in the full condition (the site is reached only when they
    pass) but not in the site's own guard; early returns, breaks and loops
    shape the normal path and stay in both.
    """
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, (ast.Try, ast.TryStar)):   # `try: x = f()` / `except E as e: raise Other(...) from e`
        return bool(stmt.handlers) and all(h.body and isinstance(h.body[-1], ast.Raise) for h in stmt.handlers) \
            and not any(isinstance(n, (ast.Return, ast.Break, ast.Continue)) for b in stmt.body for n in ast.walk(b))
    if not isinstance(stmt, ast.If):
        return False
    ends = []
    _branch_ends(stmt, ends)
    leaving = [e for e in ends if isinstance(e, (ast.Raise, ast.Return, ast.Break, ast.Continue))]
    if leaving:
        return all(isinstance(e, ast.Raise) for e in leaving)
    # `if t: assert x; y = f(y)`: checks inside a branch that otherwise always goes on
    return _checks_and_steps(stmt.body) and _checks_and_steps(stmt.orelse) and any(
        _raise_only_check(s) for s in (*stmt.body, *stmt.orelse))


def _checks_and_steps(block: list[ast.stmt]) -> bool:
    """Whether every statement of a block is a raise-only check or never leaves (no return,
    break, continue, raise or assert in it)."""
    return all(_raise_only_check(s) or not may_leave(s) for s in block)


def _branch_ends(stmt: ast.If, out: list) -> None:
    for block in (stmt.body, stmt.orelse):
        if not block:
            continue
        last = block[-1]
        if isinstance(last, ast.If) and block is stmt.orelse and len(block) == 1:
            _branch_ends(last, out)  # elif chain
        else:
            out.append(last)


def _contains(stmts: list[ast.AST], node: ast.AST) -> bool:
    return node in stmts   # AST nodes compare by identity: the C scan is `any(s is node ...)`


def _enter(walk: _PathWalk, element: ast.AST, child: ast.AST, parent: ast.AST | None) -> list[ast.stmt] | None:
    """Add the guard for going from `element` into `child`; return child's block."""
    if isinstance(element, ast.If):
        test = simplify(element.test)
        if _contains(element.body, child):
            walk.add(test)
            return element.body
        walk.add(negate(test))
        return element.orelse
    if isinstance(element, (ast.For, ast.AsyncFor, ast.While)):
        return _enter_loop(walk, element, child)
    if isinstance(element, (ast.With, ast.AsyncWith)):
        walk.rebind(frozenset(own_bindings(element)))
        walk.entered_with(element)   # `__enter__` ran
        return element.body
    if isinstance(element, (ast.Try, ast.TryStar)):
        return _enter_try(walk, element, child)
    if isinstance(element, ast.ExceptHandler):
        _enter_handler(walk, element, parent)
        return element.body
    if isinstance(element, ast.Match):
        _enter_case(walk, element, child)
        return None
    if isinstance(element, ast.match_case):
        return element.body
    walk.note(f"unsupported path element {type(element).__name__}")
    return getattr(element, "body", None)


def _nested_bound(flow: FlowAnalyzer, stmts: list[ast.stmt]) -> frozenset[str]:
    names: set[str] = set()
    for stmt in stmts:
        names |= flow.bound(stmt)
    return frozenset(names)


def _enter_loop(walk: _PathWalk, loop: ast.For | ast.AsyncFor | ast.While, child: ast.AST) -> list[ast.stmt]:
    body_bound = _nested_bound(walk.flow, loop.body)
    if not isinstance(loop, ast.While):
        body_bound |= frozenset(target_names(loop.target))
    walk.rebind(body_bound)
    if _contains(loop.body, child):
        if isinstance(loop, ast.While):
            walk.add(simplify(loop.test))
        return loop.body
    outcome = walk.flow.loop_outcome(loop)
    walk.add(outcome.normal, outcome.approx)
    return loop.orelse


def _enter_try(walk: _PathWalk, node: ast.Try | ast.TryStar, child: ast.AST) -> list[ast.stmt] | None:
    if _contains(node.body, child):
        return node.body
    if isinstance(child, ast.ExceptHandler):
        return None
    walk.rebind(_nested_bound(walk.flow, node.body))
    walk.ran(node)   # the try body ran
    if _contains(node.orelse, child):
        body = walk.flow.block_exits(node.body)
        walk.add(body.next, body.approx)
        # The body went through: none of its calls raised what a handler catches (review 22: a test's
        # `try: check(0) / except ValueError: pass / else: raise AssertionError` read as always raising).
        for handler in node.handlers:
            raised = raised_condition(node, handler)
            if NO_CALL not in raised.approx:
                walk.add(negate(raised.expr), raised.approx)
        return node.orelse
    for handler in node.handlers:
        walk.rebind(_nested_bound(walk.flow, handler.body))
    return node.finalbody


def _enter_handler(walk: _PathWalk, handler: ast.ExceptHandler, parent: ast.AST | None) -> None:
    if not isinstance(parent, (ast.Try, ast.TryStar)):
        walk.note("except handler outside a try")
        return
    walk.rebind(_nested_bound(walk.flow, parent.body) | ({handler.name} if handler.name else set()))
    raised = raised_condition(parent, handler)
    fact, approx = raised.expr, raised.approx
    caught, caught_approx = _caught_raises(parent, handler)
    if caught:
        fact = disjoin([fact, *caught]) if raised.candidates else disjoin(caught)
        kept = raised.approx if raised.candidates else tuple(a for a in raised.approx if a != NO_CALL)
        approx = _merge_reasons(kept, caught_approx)
    elif caught_approx:
        approx = _merge_reasons(approx, caught_approx)
    for earlier in raised.excluded:   # what an earlier handler of the try takes never gets here
        walk.add(earlier)
    walk.add(fact, approx)
    walk.ran(parent)   # the try body ran up to the failing call
    for call in raised.candidates:
        if call not in walk.calls:
            walk.calls += (call,)


MAY_CATCH_SUBCLASS = "a raise in the try body may be caught as a subclass"


def _caught_raises(node: ast.Try | ast.TryStar, handler: ast.ExceptHandler) -> tuple[list[ast.expr], tuple[str, ...]]:
    """The guards under which the try body's own `raise X(...)` statements reach `handler`.

    `try: ... if v < min: raise ImportError(...)` under `except ImportError`
    enters the handler when `v < min`: that is one more way in, next to the
    calls that raised. A class caught by name (or a builtin subclass of the
    caught builtin, or any class under `except Exception`) counts; one that
    may be a subclass of the caught class is noted as approximate.
    """
    caught: list[ast.expr] = []
    approx: tuple[str, ...] = ()
    for path in _raise_paths(node.body, []):
        raise_node = path[-1]
        verdict = _catches(handler.type, raise_node.exc)
        if verdict is None:
            approx = _merge_reasons(approx, (MAY_CATCH_SUBCLASS,))
        elif verdict:
            sub = _PathWalk(FlowAnalyzer())   # its own block states: it starts in the try body
            block: list[ast.stmt] | None = node.body
            for index, element in enumerate(path):
                if block is not None:
                    _fall_through_preceding(sub, block, element)
                if sub.dead() or index == len(path) - 1:
                    break
                block = _enter(sub, element, path[index + 1], path[index - 1] if index else None)
            if not sub.dead():
                caught.append(simplify(conjoin(list(sub.guards))) if sub.guards else TRUE)
                approx = _merge_reasons(approx, sub.reasons)
    return caught, approx


def _raise_paths(block: list[ast.stmt], prefix: list[ast.AST]):
    """Paths from a try body to each `raise X` in it (not in nested definitions or nested try bodies)."""
    for stmt in block:
        path = [*prefix, stmt]
        if isinstance(stmt, ast.Raise):
            if stmt.exc is not None:
                yield path
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.TryStar)):
            continue
        if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            yield from _raise_paths(stmt.body, path)
            yield from _raise_paths(getattr(stmt, "orelse", []), path)


def _catches(caught: ast.expr | None, raised: ast.expr) -> bool | None:
    """Whether `except caught` catches `raise raised`: True, False, or None when unknown."""
    if caught is None:
        return True
    kinds = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    name = _class_name(raised.func if isinstance(raised, ast.Call) else raised)
    if name is None:
        return None
    unknown = False
    for kind in kinds:
        caught_name = _class_name(kind)
        if caught_name in (name, "BaseException") or (caught_name == "Exception" and name not in _NOT_EXCEPTIONS):
            return True
        raised_cls, caught_cls = _builtin_exception(name), _builtin_exception(caught_name)
        if raised_cls is not None and caught_cls is not None:
            if issubclass(raised_cls, caught_cls):
                return True
        elif raised_cls is None:   # a builtin is no subclass of a class defined in code
            unknown = True
    return None if unknown else False


_NOT_EXCEPTIONS = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit"})


def _class_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _builtin_exception(name: str | None) -> type | None:
    value = getattr(builtins, name, None) if name else None
    return value if isinstance(value, type) and issubclass(value, BaseException) else None


def _merge_reasons(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return first + tuple(r for r in second if r not in first)


def _enter_case(walk: _PathWalk, match: ast.Match, child: ast.AST) -> None:
    for case in match.cases:
        taken = case_condition(match.subject, case)
        if case is child:
            walk.add(taken.expr, taken.approx)
            return
        if taken.exact:
            walk.add(negate(taken.expr))
        else:
            walk.note(*taken.approx)
    walk.note(NOT_IN_BLOCK)


def _literal_values(expr: ast.AST, values: dict[str, set]) -> bool:
    """Note the literal each top-level `name == <literal>` or `name is None` term of `expr` says
    a renamed call answered (`_calls_as_names`); True when one says an answer other than noted.

    Only data literals (numbers, text, None, and lists, tuples, sets, dicts of them) count:
    two of them that differ cannot both equal one value."""
    clash = False
    for term in _and_terms(expr):
        if not (isinstance(term, ast.Compare) and len(term.ops) == 1):
            continue
        left, op, right = term.left, term.ops[0], term.comparators[0]
        if isinstance(right, ast.Name) and not isinstance(left, ast.Name):
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id.startswith("_errdex_call_")):
            continue
        if isinstance(op, ast.Is) and isinstance(right, ast.Constant) and right.value is None:
            value = None
        elif isinstance(op, ast.Eq):
            try:
                value = ast.literal_eval(right)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(value, float) and value != value:
                continue
        else:
            continue
        seen = values.setdefault(left.id, set())
        key = repr(value)
        if seen and key not in seen:
            clash = True
        seen.add(key)
    return clash


def _and_terms(expr: ast.AST) -> list[ast.AST]:
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return [t for v in expr.values for t in _and_terms(v)]
    return [expr]


def _calls_as_names(expr: ast.AST, names: dict[str, ast.Name]) -> ast.AST:
    """A copy of `expr` with the parts whose key is in `names` replaced by those names."""
    if isinstance(expr, ast.expr):
        name = names.get(expr_key(expr))
        if name is not None:
            return name
    fields = {}
    for attr in expr._fields:   # not `field`: the dataclasses import of this module
        value = getattr(expr, attr, None)
        if isinstance(value, list):
            fields[attr] = [_calls_as_names(v, names) if isinstance(v, ast.AST) else v for v in value]
        else:
            fields[attr] = _calls_as_names(value, names) if isinstance(value, ast.AST) else value
    return type(expr)(**fields)


def render_key(expr: ast.expr, key: str) -> str:
    """The source of the part of `expr` whose structural key is `key`."""
    for node in ast.walk(expr):
        if isinstance(node, ast.expr) and expr_key(node) == key:
            return render(node)
    return key


def _objects_read(expr: ast.expr) -> dict[str, tuple[str, ...]]:
    """Key of each attribute or item `expr` reads (as `state_atoms` gives them) -> its object's
    dotted name and that name's prefixes (`self.cache.n` -> `self.cache`, `self`)."""
    atoms = state_atoms(expr)
    out: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(expr):
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            key = expr_key(node)
            if key in atoms:
                owner = dotted_source(node.value)
                if owner is not None:
                    parts = owner.split(".")
                    out[key] = tuple(".".join(parts[:i]) for i in range(len(parts), 0, -1))
    return out


def _without_stale(walk: _PathWalk) -> tuple[Conjunction, Conjunction]:
    """The path's guards, and the site's own ones, less those that read a name before it was bound again."""
    kept = own = EMPTY
    for i, expr in enumerate(walk.guards):
        names = expr_names(expr)
        if any(i < before and (name in names or (name[:1] == "(" and name in state_atoms(expr)))
               for name, before in walk.stale):
            continue
        kept = kept.add(expr)
        if i not in walk.not_own:
            own = own.add(expr)
    return kept, own


def _contradicts_itself(conjunction: Conjunction) -> bool:
    """`self.mode and not self.mode`: a test and its negation among the terms, the same text read
    before and after a rebinding the simplifier keeps apart (a call may change it between).
    Compared as the terms are written: no parse per site."""
    texts = {entry[0] for entry in conjunction.texts if entry is not None}
    for text in texts:
        if text.startswith("not "):
            inner = text[4:]
            if inner in texts or (inner.startswith("(") and inner.endswith(")") and inner[1:-1] in texts):
                return True
    return False


def _same_call_twice(guards: tuple[ast.expr, ...]) -> str | None:
    """The reason a path's `raised(call, E)` terms name two calls by one text (review 19,
    storage_attachment.py:227: `drain()` at line 211 must not raise, at line 225 may), or None."""
    lines: dict[str, set[int]] = {}
    for guard in guards:
        for node in ast.walk(guard):
            if (node.__class__ is ast.Call and node.func.__class__ is ast.Name and node.func.id == "raised"
                    and node.args and hasattr(node.args[0], "lineno")):
                lines.setdefault(render(node.args[0]), set()).add(node.args[0].lineno)
    for call, at in lines.items():
        if len(at) > 1:
            return SAME_CALL_TWICE.format(call=call, lines=" and ".join(str(n) for n in sorted(at)))
    return None


def _result(walk: _PathWalk) -> TriggerCondition:
    conjunction = walk.conjunction
    if not conjunction.false and "raised(" in conjunction.text():
        twice = _same_call_twice(walk.guards)
        if twice is not None:
            walk.note(twice)
    calls = list(walk.calls)
    if not conjunction.false:
        calls.extend(c for c in conjunction.calls if c not in calls)
    reason = joined_reasons(walk.reasons)
    if walk.stale and (conjunction.false or _contradicts_itself(conjunction)
                       or any("(Call " in name for name, _ in walk.stale)):
        # `if not s: return`, `s = s.strip()`, `if not s: raise`: the two tests read two values of
        # `s`; joined, they read as an impossible path. The guards read before the name was bound
        # again are left out (the condition is approximate already, for that reason).
        kept, own = _without_stale(walk)
        if not kept.false:
            return TriggerCondition(kept.text(), False, reason, calls[:MAX_CALLS], own.text())
    full = conjunction.text()
    guard = full if conjunction.false else walk.own.text()
    return TriggerCondition(full, not walk.reasons, reason, calls[:MAX_CALLS], guard)
