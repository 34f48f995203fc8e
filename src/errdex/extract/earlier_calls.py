"""Calls a site's function makes on the way to the site: any of them that raises stops the way.

`key = parse_key(cfg.key)` then `if cfg.n > 3: raise ValueError(...)`: the raise happens only
when `parse_key` did not raise first, which the path condition does not say (review 19,
validation_hook.py:75). This module lists the calls, as written, with their lines (the walker
resolves them through the file's imports); the dataset stage makes the condition not exact when
one of them is a function of the codebase that raises itself (`analyze.raisers`).

What counts as on the way: the statements before each element of the site's path in its block,
and the headers the path enters through (an `if` or `while` test, a `for` iterable, a `with`
item, a `match` subject or case guard). Left out, as a raise there cannot stop the way:
branches that end in `return` or `raise` (taking one leaves the function), nested definitions
(not run here; a lambda's calls are read with the expression around it), and `try` statements (their handlers may take the error; the
condition's `raised(...)` terms speak of those).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

#: The calls in a node's source text, as (dotted callee as written, line), left to right.
CallsOf = Callable[[ast.AST], list[tuple[str, int]]]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TRY = (ast.Try, ast.TryStar)
_LEAVES = (ast.Return, ast.Raise)
_MEMO = "_errdex_way_calls"   # like `analyze.exprs.memo`'s attributes: unseen by `ast.dump`/`unparse`


def earlier_calls(scope: ast.AST, path: list, calls_of: CallsOf) -> list[tuple[str, int]]:
    """(dotted callee as written, line) of each call on the way to the site, the first of each
    callee, in order; `path` runs from a statement of `scope`'s body down to the site's statement.
    `calls_of` reads a node's calls from its source text (the walker's regex: a walk of every
    expression node cost as much as the rest of the site's analysis)."""
    found: list[tuple[str, int]] = []
    block = getattr(scope, "body", None) or []
    for depth, node in enumerate(path):
        for stmt in block:
            if stmt is node:
                break
            found.extend(_stmt_calls(stmt, calls_of))
        if depth == len(path) - 1:
            break
        child = path[depth + 1]
        block = _entered(node, child, found, calls_of)
        if block is None:
            break
    seen: set[str] = set()
    out = []
    for name, line in found:
        if name not in seen:
            seen.add(name)
            out.append((name, line))
    return out


def _entered(node: ast.AST, child: ast.AST, found: list, calls_of: CallsOf) -> list | None:
    """The block of `node` holding `child`, after adding the calls of the header run to enter it;
    None when nothing before the child counts (inside a `try`, or a node of another kind)."""
    kind = node.__class__
    if kind is ast.If or kind is ast.While:
        found.extend(calls_of(node.test))
    elif kind is ast.For or kind is ast.AsyncFor:
        found.extend(calls_of(node.iter))
    elif kind is ast.With or kind is ast.AsyncWith:
        for item in node.items:
            found.extend(calls_of(item.context_expr))
    elif kind is ast.Match:
        found.extend(calls_of(node.subject))
        if child.__class__ is ast.match_case:
            if child.guard is not None:
                found.extend(calls_of(child.guard))
            return child.body
        return None
    elif kind is ast.ExceptHandler or kind is ast.match_case:
        return node.body
    else:   # a `try` (its body may have raised into a handler), or no block at all
        return None
    for name in ("body", "orelse"):
        block = getattr(node, name, None)
        if block and any(stmt is child for stmt in block):
            return block
    return None


def _stmt_calls(stmt: ast.stmt, calls_of: CallsOf) -> list[tuple[str, int]]:
    """A statement's calls on the way, remembered on the node: a function's sites share them."""
    found = stmt.__dict__.get(_MEMO)
    if found is None:
        found = stmt.__dict__[_MEMO] = _collect_stmt(stmt, calls_of)
    return found


def _collect_stmt(stmt: ast.stmt, calls_of: CallsOf) -> list[tuple[str, int]]:
    if isinstance(stmt, _DEFS) or isinstance(stmt, _TRY) or isinstance(stmt, _LEAVES):
        return []
    kind = stmt.__class__
    if kind is ast.Expr and stmt.value.__class__ is ast.Constant:
        return []   # a docstring: the calls it shows are not made
    if kind is ast.If or kind is ast.While:
        return [*calls_of(stmt.test), *_block_calls(stmt.body, calls_of), *_block_calls(stmt.orelse, calls_of)]
    if kind is ast.For or kind is ast.AsyncFor:
        return [*calls_of(stmt.iter), *_block_calls(stmt.body, calls_of), *_block_calls(stmt.orelse, calls_of)]
    if kind is ast.With or kind is ast.AsyncWith:
        heads = [c for item in stmt.items for c in calls_of(item.context_expr)]
        return [*heads, *_block_calls(stmt.body, calls_of)]
    if kind is ast.Match:
        out = list(calls_of(stmt.subject))
        for case in stmt.cases:
            if case.guard is not None:
                out.extend(calls_of(case.guard))
            out.extend(_block_calls(case.body, calls_of))
        return out
    return calls_of(stmt)


def _block_calls(block: list[ast.stmt], calls_of: CallsOf) -> list[tuple[str, int]]:
    """A branch's calls, none when it always leaves the function (then it is not on the way)."""
    if not block or block[-1].__class__ in _LEAVES:
        return []
    return [c for stmt in block for c in _stmt_calls(stmt, calls_of)]
