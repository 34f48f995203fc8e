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

Except-sites use the pseudo-function **`raised(call, E)`**: "evaluating
`call` (a call in the `try` body, as written) raised an exception that is
an instance of `E`" (`E` as written in the handler, a tuple for
`except (A, B)`, `BaseException` for a bare `except:`). It is not real
Python; readers and the matcher treat it as an opaque fact. When the try
body holds several calls the first one is named and the condition is not
exact; `TriggerCondition.calls` lists the candidates.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

from errdex.analyze.flow import FlowAnalyzer
from errdex.analyze.conjunction import EMPTY
from errdex.analyze.exprs import expr_names
from errdex.analyze.names import own_bindings, target_names
from errdex.analyze.patterns import case_condition
from errdex.analyze.raised import raised_condition
from errdex.analyze.simplify import is_const, negate, simplify

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Module

REBOUND = "guard on {names} checked before {names} is reassigned"
NOT_IN_BLOCK = "path element not found in its block"
MAX_CALLS = 8


@dataclass(slots=True)
class TriggerCondition:
    """The guard leading to an error site, as code."""

    expr: str               # Python expression over the function's names; "True"/"False"
    exact: bool             # every path was followed without approximation
    reason: str | None      # why not exact
    calls: list[str] = field(default_factory=list)  # calls the condition relies on
    guard: str = ""         # the site's own guard: `expr` without earlier validation checks


class _PathWalk:
    """Guards met along the path, in execution order, and what was guessed.

    The collections are tuples so that a snapshot after every statement of a
    block (see `_fall_through_preceding`) costs nothing to take or restore.
    A guard's names are looked up only once a later binding asks (most of a
    site's own guards are never followed by one).
    """

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

    def note(self, *reasons: str) -> None:
        for reason in reasons:
            if reason not in self.reasons:
                self.reasons += (reason,)

    def add(self, expr: ast.expr, approx: tuple[str, ...] = (), own: bool = True) -> None:
        if approx:
            self.note(*approx)
        if not is_const(expr, True):
            self.guards += (expr,)
            shared = self.own is self.conjunction
            self.conjunction = self.conjunction.add(expr)
            if own:
                self.own = self.conjunction if shared else self.own.add(expr)

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
            if stale:
                self.note(REBOUND.format(names=", ".join(sorted(stale))))

    def snapshot(self) -> tuple:
        return self.guards, self.guarded, self.named, self.reasons, self.calls, self.conjunction, self.own

    def restore(self, state: tuple) -> None:
        self.guards, self.guarded, self.named, self.reasons, self.calls, self.conjunction, self.own = state

    def dead(self) -> bool:
        return self.conjunction.false


_FLOW = "_errdex_flow"


def _flow_for(scope: Scope) -> FlowAnalyzer:
    """The analyzer of `scope`, kept on the scope node: it lives as long as the tree.

    Nothing in it refers back to the scope node, so this makes no reference cycle.
    """
    flow = scope.__dict__.get(_FLOW)
    if flow is None:
        flow = scope.__dict__[_FLOW] = FlowAnalyzer()
    return flow


def trigger_condition(scope: Scope, path: Sequence[ast.AST]) -> TriggerCondition:
    """The condition under which the last node of `path` raises (see module doc)."""
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
            break
        parent = path[index - 1] if index else None
        block = _enter(walk, element, path[index + 1], parent)
    return _result(walk)


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
    exits = flow.stmt_exits(stmt)
    bound = None
    if walk.guards:   # with no guard yet, a rebinding stales nothing
        bound = flow.bound(stmt)
        walk.rebind(bound)
    if is_const(exits.next, True):   # most statements: no guard, so no own-guard question either
        if exits.approx:
            walk.note(*exits.approx)
        return
    walk.add(exits.next, exits.approx, own=not _raise_only_check(stmt))
    if bound is None:
        bound = flow.bound(stmt)
    stale = bound and expr_names(exits.next) & bound
    if stale and not isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        walk.note(REBOUND.format(names=", ".join(sorted(stale))))


def _raise_only_check(stmt: ast.stmt) -> bool:
    """An earlier validation (`assert c`, `if t: raise ...`): its guard belongs to another error.

    Such checks stay in the full condition (the site is reached only when they
    pass) but not in the site's own guard; early returns, breaks and loops
    shape the normal path and stay in both.
    """
    if isinstance(stmt, ast.Assert):
        return True
    if not isinstance(stmt, ast.If):
        return False
    ends = []
    _branch_ends(stmt, ends)
    leaving = [e for e in ends if isinstance(e, (ast.Raise, ast.Return, ast.Break, ast.Continue))]
    return bool(leaving) and all(isinstance(e, ast.Raise) for e in leaving)


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
    if _contains(node.orelse, child):
        body = walk.flow.block_exits(node.body)
        walk.add(body.next, body.approx)
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
    walk.add(raised.expr, raised.approx)
    for call in raised.candidates:
        if call not in walk.calls:
            walk.calls += (call,)


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


def _result(walk: _PathWalk) -> TriggerCondition:
    conjunction = walk.conjunction
    calls = list(walk.calls)
    if not conjunction.false:
        calls.extend(c for c in conjunction.calls if c not in calls)
    reason = "; ".join(walk.reasons) if walk.reasons else None
    full = conjunction.text()
    guard = full if conjunction.false else walk.own.text()
    return TriggerCondition(full, not walk.reasons, reason, calls[:MAX_CALLS], guard)
