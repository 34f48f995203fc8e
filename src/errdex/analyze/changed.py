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


def changed_inputs(scope: ast.AST, site_line: int, path: list | None = None) -> list[str]:
    """The parameters, and attribute chains on them, that statements of `scope` above `site_line`
    rebind, store into or mutate (nested definitions aside), sorted. `self.n = n` counts: a
    constructor's field is what it was given, which the code fields write (`fixes.with_values`).

    With the site's `path` (scope first), a write in the other arm of an `if` the site is in
    does not count: that arm never runs on the way to the site (`if steps is None: steps =
    len(s) ... else: raise`), unless a loop around the `if` may run it on an earlier pass."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    writes = memo(scope, "_errdex_writes", _writes)
    arms = _site_arms(path) if path else {}
    return sorted({chain for line, chain, way in writes if line < site_line
                   and not any(not looped and arms.get(branch, arm) != arm for branch, arm, looped in way)})


def _site_arms(path: list) -> dict[int, int]:
    """The arm (0: body, 1: else) of each `if` on the site's path, by the `if` node's id."""
    return {id(node): 0 if any(inner is s for s in node.body) else 1
            for node, inner in zip(path, path[1:]) if node.__class__ is ast.If}


#: A write's way in: (id of an enclosing `if`, its arm, whether a loop inside the function holds that `if`).
Way = tuple[tuple[int, int, bool], ...]


def _writes(scope: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[tuple[int, str, Way], ...]:
    """(line, chain, way in) of every write to a parameter or an attribute chain on one, once per
    function.

    Statements only (as `feeding` reads them): a walk of every expression would cost as much as
    parsing the file, and a write hidden in one (a walrus, a mutator call as an argument) is rare."""
    params = parameter_names(scope)
    out: list[tuple[int, str, Way]] = []
    for node, way in _statements(scope.body, (), False):
        for target in _written(node):
            chain = _base_chain(target)
            if chain is not None and chain.partition(".")[0] in params:
                out.append((node.lineno, chain, way))
    return tuple(out)


def _statements(body: list, way: Way, looped: bool):
    """Each statement of a block and those nested in it (nested definitions aside), with the
    arms of the `if`s it lies in."""
    for node in body:
        yield node, way
        kind = node.__class__
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        if kind is ast.If:
            yield from _statements(node.body, (*way, (id(node), 0, looped)), looped)
            yield from _statements(node.orelse, (*way, (id(node), 1, looped)), looped)
            continue
        inner = looped or kind in (ast.For, ast.AsyncFor, ast.While)
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(node, field, None) or (), way, inner)
        for handler in getattr(node, "handlers", None) or ():
            yield handler, way
            yield from _statements(handler.body, way, inner)
        for case in getattr(node, "cases", None) or ():
            yield from _statements(case.body, way, inner)


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
    # An object is read whole only when nothing inside it is read besides (`validate(d)`): the
    # `self` of `self.n` (the chains of a read hold their prefixes) reads no other attribute of it
    # (review 19: "changes `self._loaded`" above a check that reads `self._builtins` only).
    whole = [r for r in reads if not any(other.startswith(r + ".") for other in reads)]
    hit = []
    for chain in changed:
        inside = chain + "."
        if any(r == chain or r.startswith(inside) for r in reads) or any(chain.startswith(r + ".") for r in whole):
            hit.append(chain)
    return hit
