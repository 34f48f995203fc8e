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
from errdex.analyze.names import dotted

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
    """(line, chain) of every write to a parameter or an attribute chain on one, once per function."""
    args = scope.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    out: list[tuple[int, str]] = []
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for target in _written(node):
            chain = _base_chain(target)
            if chain is not None and chain.partition(".")[0] in params:
                out.append((node.lineno, chain))
        stack.extend(ast.iter_child_nodes(node))
    return tuple(out)


def _written(node: ast.AST) -> list[ast.expr]:
    """What a node writes: assignment and loop targets, deleted names, a mutating method's object."""
    if isinstance(node, ast.Assign):
        return [t for target in node.targets for t in _unpacked(target)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and getattr(node, "value", None) is not None:
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _unpacked(node.target)
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
        return [node.func.value]
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
