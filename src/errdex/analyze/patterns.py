"""`match` case patterns as conditions on the subject.

Literal patterns become `subject == literal`, singletons `subject is None`,
`|` alternatives a disjunction, wildcards and captures `True` (a capture
`case n if n > 3` reads as `subject > 3` when the subject is pure), class patterns
`isinstance(subject, C)` with their keyword sub-patterns on the subject's attributes.
Sequence and mapping patterns are approximated by `True` and say so.
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
    if isinstance(pattern, ast.MatchClass):
        return _class_pattern(subject, pattern, captures)
    return None


#: Builtins whose one positional sub-pattern matches the subject itself (`case int(n):`).
_SELF_MATCHING = frozenset({"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list",
                            "set", "str", "tuple"})


def _class_pattern(subject: ast.expr, pattern: ast.MatchClass, captures: dict[str, ast.expr]) -> ast.expr | None:
    """`case Failed(traceback=tb):` -> `isinstance(subject, Failed)`, and each keyword sub-pattern on
    `subject.<attr>`. Positional sub-patterns go by the class's `__match_args__`, unknown here: only
    wildcards and captures are taken (a capture's value then stays unknown), except for the builtins
    that match themselves."""
    cls = pattern.cls
    terms: list[ast.expr] = [ast.Call(func=ast.Name("isinstance", ast.Load()), args=[subject, cls], keywords=[])]
    if pattern.patterns:
        if isinstance(cls, ast.Name) and cls.id in _SELF_MATCHING and len(pattern.patterns) == 1:
            inner = _pattern(subject, pattern.patterns[0], captures)
            if inner is None:
                return None
            terms.append(inner)
        else:
            for sub in pattern.patterns:
                if not (isinstance(sub, ast.MatchAs) and sub.pattern is None):
                    return None
                if sub.name is not None:
                    captures[sub.name] = None   # bound to an attribute `__match_args__` names
    for attr, sub in zip(pattern.kwd_attrs, pattern.kwd_patterns):
        inner = _pattern(ast.Attribute(value=subject, attr=attr, ctx=ast.Load()), sub, captures)
        if inner is None:
            return None
        terms.append(inner)
    return conjoin(terms)


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
        if not is_pure(subject) or any(value is None for value in captures.values()):
            return CaseMatch(matched, False, (MATCH_PATTERN,))
        guard = replace_names(guard, captures)
    return CaseMatch(conjoin([matched, simplify(guard)]), True)

