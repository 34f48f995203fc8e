"""Inputs a function changes before a site: what its check reads is then not what the caller passed.

`for k in keys: if k not in d: d[k] = 0` fills the argument `d` before a later
`if k not in d: raise`; the condition is right as written (names as at the
site), but a caller's guard `all(k in d for k in keys)` would turn away exactly
the calls the function fills for. The code fields ask this module which of the
values a test reads the function changed first: a parameter rebound, stored into
(`d[k] = v`, `cfg.n = 0`), or changed by a method that mutates it (`seen.add(x)`).
"""

from __future__ import annotations

import ast

from errdex.analyze.exprs import memo
from errdex.analyze.names import dotted, parameter_names

#: Methods that change their object in place (`seen.add(x)`; torch's `t.zero_()`).
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "pop", "popitem", "remove", "discard",
                      "clear", "setdefault", "sort", "reverse", "appendleft", "extendleft", "popleft"})


def changed_inputs(scope: ast.AST, site_line: int) -> list[str]:
    """The parameters, and attribute chains on them, that statements of `scope` above `site_line`
    rebind, store into or mutate (nested definitions aside), sorted. `self.n = n` counts: a
    constructor's field is what it was given, which the code fields write (`fixes.with_values`)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    writes = memo(scope, "_errdex_writes", _writes)
    return sorted({chain for line, chain in writes if line < site_line})


def _writes(scope: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[int, str], ...]:
    """(line, chain) of every write to a parameter or an attribute chain on one, once per function.

    Statements only (as `feeding` reads them): a walk of every expression would cost as much as
    parsing the file, and a write hidden in one (a walrus, a mutator call as an argument) is rare."""
    from errdex.analyze.flow import statements   # analysis only: the code fields read `reads_changed`

    params = parameter_names(scope)
    out: list[tuple[int, str]] = []
    for node in statements(scope.body):
        for target in _written(node):
            chain = _base_chain(target)
            if chain is not None and chain.partition(".")[0] in params:
                out.append((node.lineno, chain))
    return tuple(out)


def _written(node: ast.AST) -> list[ast.expr]:
    """What a statement writes: assignment and loop targets, deleted names, the object of a
    mutating method it calls (`d.update(...)`, `x = d.pop(k)`)."""
    kind = node.__class__
    if kind is ast.Assign:
        return [t for target in node.targets for t in _unpacked(target)] + _mutated(node.value)
    if kind is ast.AugAssign or (kind is ast.AnnAssign and node.value is not None):
        return [node.target] + _mutated(node.value)
    if kind is ast.For or kind is ast.AsyncFor:
        return _unpacked(node.target)
    if kind is ast.Delete:
        return list(node.targets)
    if kind is ast.Expr:
        return _mutated(node.value)
    return []


def _mutated(value: ast.expr | None) -> list[ast.expr]:
    if value.__class__ is ast.Await:
        value = value.value
    if value.__class__ is ast.Call and value.func.__class__ is ast.Attribute and value.func.attr in MUTATORS:
        return [value.func.value]
    return []


def _unpacked(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for elt in target.elts for t in _unpacked(elt)]
    if isinstance(target, ast.Starred):
        return _unpacked(target.value)
    return [target]


def _base_chain(target: ast.expr) -> str | None:
    """`d` of `d[k]`, `cfg.n` of `cfg.n` or `cfg.n[0]`: the named value the write changes."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return dotted(target)


def reads_changed(reads: frozenset[str] | set[str], changed: list[str]) -> list[str]:
    """The changed inputs a test reads: the value itself, something inside it, or an object one of
    whose attributes changed (`d` when `d.n` was set)."""
    hit = []
    for chain in changed:
        inside = chain + "."
        if any(r == chain or r.startswith(inside) or chain.startswith(r + ".") for r in reads):
            hit.append(chain)
    return hit
