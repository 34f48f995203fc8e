"""The example fix: the call unguarded, then guarded at the caller, with a test a caller can write.

The guard lets through every call off the site's path (`off_path`), checks every element when the test
reads what a loop around the site binds (`over_loops`), and writes a local bound once to a plain
value as that value (`with_values`): a caller has the function's arguments, not its locals.
It never lets a call through that raises at the site.
"""

from __future__ import annotations

import ast
import re

from errdex.analyze.codegen import header_reads, loop_targets, names_in, plain_assignment
from errdex.analyze.condexpr import Condition, and_operand, nearest_conjuncts, negated_source
from errdex.analyze.names import dotted


#: Calls a value may make and still be written into a caller's guard: they read, and answer the same.
_PLAIN_CALLS = frozenset({"len", "int", "float", "str", "bool", "abs", "min", "max", "tuple", "sorted", "round"})


def with_values(guard: str, feeding: list[str]) -> str:
    """`guard` with each local name a feeding line binds once to a plain value written as that value
    (`n != len(kv_indices)` -> `len(token_ids) != len(kv_indices)`, with `n = len(token_ids)`): a
    caller has the function's arguments, not its locals. Unchanged when there is no such name."""
    values: dict[str, ast.expr] = {}
    seen: set[str] = set()
    for line in feeding:
        parts = plain_assignment(line)
        if parts is None:
            continue
        target, text = parts
        if target in seen:
            values.pop(target, None)   # bound twice: which value the test reads depends on the path
            continue
        seen.add(target)
        value = _plain_value(text)
        if value is not None and target not in names_in(text) \
                and all(part.isidentifier() for part in target.split(".")):
            values[target] = value   # `n = len(x)`, or `self.n = n` (a constructor's argument)
    if not values or names_in(guard).isdisjoint(name.rpartition(".")[2] for name in values):
        return guard
    try:
        tree = ast.parse(guard, mode="eval")
    except SyntaxError:
        return guard
    limit = 3 * len(guard) + 40
    for _ in range(3):   # a value written in terms of another local (`m = n + 1`, `n = len(x)`)
        changed = _Substitute(values).visit(tree)
        if not changed.__dict__.get("_errdex_changed"):
            break
        tree = changed
        if sum(1 for _ in ast.walk(tree)) > limit:   # values nested in values: too long to read anyway
            return guard
    text = ast.unparse(tree)
    return text if len(text) <= limit else guard


def over_loops(guard: str, loops: list[str]) -> str:
    """`all(<guard> for req in reqs)` when the guard reads what a loop around the site binds: the
    caller has `reqs`, not one `req`, and the site checks every element (outer loops first)."""
    names = set(names_in(guard))
    chosen: list[str] = []
    for header in reversed(loops):
        if header.startswith("async "):
            break   # no `async for` inside `all(...)`
        targets = loop_targets(header)
        if targets and not targets.isdisjoint(names):
            chosen.insert(0, header)
            names |= header_reads(header)
    if not chosen:
        return guard
    return f"all({guard} {' '.join(chosen)})"


def _plain_value(text: str) -> ast.expr | None:
    """A feeding value a guard may hold instead of its name: reads, arithmetic and `len(...)`-like calls."""
    if len(text) > 80:
        return None
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    for inner in ast.walk(node):
        if isinstance(inner, (ast.Lambda, ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                              ast.Await, ast.Yield, ast.YieldFrom, ast.IfExp, ast.Starred)):
            return None
        if isinstance(inner, ast.Call) and not (isinstance(inner.func, ast.Name) and inner.func.id in _PLAIN_CALLS):
            return None
    return node


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict[str, ast.expr]) -> None:
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.values.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        return _fresh(value)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.ctx, ast.Load):
            chain = dotted(node)
            value = self.values.get(chain) if chain else None
            if value is not None:
                return _fresh(value)
        return self.generic_visit(node)

    def visit_Expression(self, node: ast.Expression) -> ast.AST:
        before = ast.dump(node)
        node = self.generic_visit(node)
        node.__dict__["_errdex_changed"] = ast.dump(node) != before
        return node


def _fresh(value: ast.expr) -> ast.expr:
    """A new tree of `value` (parsed again: `copy.deepcopy` would follow whatever the analysis
    memoised on shared nodes such as the `Load` context)."""
    return ast.parse(ast.unparse(value), mode="eval").body


#: Characters of the site's path a caller's guard writes out whole (else its nearest tests).
_GUARD_PATH = 120


def off_path(cond: Condition) -> str:
    """The caller's guard: the own test negated, or the rest of the site's path failing (a short
    path, no failure fact in it): `if len(p) == 0` alone would skip every call that never takes
    the site's `if isinstance(p, list):` branch."""
    context = cond.context
    if context and len(context) > _GUARD_PATH:   # its tests nearest the site: the guard skips fewer calls
        context = nearest_conjuncts(context)
    if not context or "raised(" in context or ":=" in context or "lambda" in context:
        return cond.neg
    off = negated_source(context)
    if off is None:
        return cond.neg
    own = f"({cond.neg})" if " and " in cond.neg or " or " in cond.neg else cond.neg
    return f"{off} or {own}"


#: `self` read other than as `self.<field>` (passed on, compared): no field stands for it.
_BARE_SELF = re.compile(r"\bself\b(?!\.[A-Za-z_])")
_SELF_FIELD = re.compile(r"\bself\.(?=[A-Za-z_])")


def example_fix(cond: Condition, call: str, error_class: str, function: str, alternative: str,
                exact: bool = True, reason: str | None = None, warning: bool = False,
                feeding: list[str] | None = None, loops: list[str] | None = None) -> str | None:
    """Before/after: the call unguarded, then a guard at the caller that keeps it off the raising path.

    The "raises when" comment names the earlier checks when there are some and
    says "approximately" when the condition is not exact: it claims no more
    than the condition does.
    """
    if cond.own is None or cond.is_except or cond.constant is not None or function.endswith("<module>"):
        return None
    bare = call.split("  #")[0]
    when = f"{cond.context} and {and_operand(cond.own, cond.own_text)}" if cond.context else cond.own_text
    guard, names = off_path(cond), f"# names as in {function}"
    if function.endswith(".__post_init__") and not _BARE_SELF.search(when + " " + guard) \
            and not any(line.startswith("self.") for line in feeding or ()):   # no field set before the check
        # A dataclass's fields are what its constructor is given: `self.frames` is the `frames=` passed.
        guard, when = _SELF_FIELD.sub("", guard), _SELF_FIELD.sub("", when)
        names = f"# names: the fields given to {bare}"
    guard = with_values(guard, feeding) if feeding else guard
    guard = over_loops(guard, loops) if loops else guard
    after = (f"{names}\nif {guard}:\n    {bare}\n"
             f"else:\n    ...  # {alternative}\n")
    head = "" if exact else f"# approximate: {reason or 'not every path was followed'}\n"
    once = " (once the earlier checks in it pass)" if cond.guards else ""
    verb = "warns with" if warning else "raises"
    return f"{head}# before\n{bare}  # {verb} {error_class} when {when}{once}\n# after\n{after}"
