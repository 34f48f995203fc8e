"""`match` case patterns as conditions on the subject.

Literal patterns become `subject == literal`, singletons `subject is None`,
`|` alternatives a disjunction, wildcards and captures `True` (a capture
`case n if n > 3` reads as `subject > 3` when the subject is pure). Class,
sequence and mapping patterns are approximated by `True` and say so.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from errdex.analyze.exprs import replace_names
from errdex.analyze.purity import is_pure
from errdex.analyze.simplify import TRUE, conjoin, disjoin, simplify

MATCH_PATTERN = "match pattern"


@dataclass(frozen=True, slots=True)
class CaseMatch:
    """When a case is taken; `exact` is False when its pattern was guessed."""

    expr: ast.expr
    exact: bool
    approx: tuple[str, ...] = ()


def _pattern(subject: ast.expr, pattern: ast.pattern, captures: dict[str, ast.expr]) -> ast.expr | None:
    """Condition for `pattern` matching `subject`; None when not expressible."""
    if isinstance(pattern, ast.MatchValue):
        return simplify(ast.Compare(left=subject, ops=[ast.Eq()], comparators=[pattern.value]))
    if isinstance(pattern, ast.MatchSingleton):
        return ast.Compare(left=subject, ops=[ast.Is()], comparators=[ast.Constant(pattern.value)])
    if isinstance(pattern, ast.MatchAs):
        if pattern.name is not None:
            captures[pattern.name] = subject
        if pattern.pattern is None:
            return TRUE
        return _pattern(subject, pattern.pattern, captures)
    if isinstance(pattern, ast.MatchOr):
        parts = [_pattern(subject, p, captures) for p in pattern.patterns]
        if any(p is None for p in parts):
            return None
        return disjoin(parts)
    return None


def case_condition(subject: ast.expr, case: ast.match_case) -> CaseMatch:
    """The condition under which `case` is taken (earlier cases aside)."""
    captures: dict[str, ast.expr] = {}
    matched = _pattern(subject, case.pattern, captures)
    if matched is None:
        return CaseMatch(TRUE, False, (MATCH_PATTERN,))
    if case.guard is None:
        return CaseMatch(matched, True)
    guard = case.guard
    if captures:
        if not is_pure(subject):
            return CaseMatch(matched, False, (MATCH_PATTERN,))
        guard = replace_names(guard, captures)
    return CaseMatch(conjoin([matched, simplify(guard)]), True)

