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
and lambdas (not run here), and `try` statements (their handlers may take the error; the
condition's `raised(...)` terms speak of those).
"""

from __future__ import annotations

import ast

from errdex.extract.scope import dotted_source

#: At most this many calls are kept per site: the first ones on the way.
MAX_CALLS = 40

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_TRY = (ast.Try, ast.TryStar)
_LEAVES = (ast.Return, ast.Raise)
_MEMO = "_errdex_way_calls"   # like `analyze.exprs.memo`'s attributes: unseen by `ast.dump`/`unparse`


def earlier_calls(scope: ast.AST, path: list) -> list[tuple[str, int]]:
    """(dotted callee as written, line) of each call on the way to the site, the first of each
    callee, in order; `path` runs from a statement of `scope`'s body down to the site's statement."""
    found: list[tuple[str, int]] = []
    block = getattr(scope, "body", None) or []
    for depth, node in enumerate(path):
        for stmt in block:
            if stmt is node:
                break
            found.extend(_stmt_calls(stmt))
        if depth == len(path) - 1:
            break
        child = path[depth + 1]
        block = _entered(node, child, found)
        if block is None:
            break
    seen: set[str] = set()
    out = []
    for name, line in found:
        if name not in seen:
            seen.add(name)
            out.append((name, line))
            if len(out) >= MAX_CALLS:
                break
    return out


def _entered(node: ast.AST, child: ast.AST, found: list) -> list | None:
    """The block of `node` holding `child`, after adding the calls of the header run to enter it;
    None when nothing before the child counts (inside a `try`, or a node of another kind)."""
    kind = node.__class__
    if kind is ast.If or kind is ast.While:
        found.extend(_expr_calls(node.test))
    elif kind is ast.For or kind is ast.AsyncFor:
        found.extend(_expr_calls(node.iter))
    elif kind is ast.With or kind is ast.AsyncWith:
        for item in node.items:
            found.extend(_expr_calls(item.context_expr))
    elif kind is ast.Match:
        found.extend(_expr_calls(node.subject))
        if child.__class__ is ast.match_case:
            if child.guard is not None:
                found.extend(_expr_calls(child.guard))
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


def _stmt_calls(stmt: ast.stmt) -> list[tuple[str, int]]:
    """A statement's calls on the way, remembered on the node: a function's sites share them."""
    found = stmt.__dict__.get(_MEMO)
    if found is None:
        found = stmt.__dict__[_MEMO] = _collect_stmt(stmt)
    return found


def _collect_stmt(stmt: ast.stmt) -> list[tuple[str, int]]:
    if isinstance(stmt, _DEFS) or isinstance(stmt, _TRY) or isinstance(stmt, _LEAVES):
        return []
    kind = stmt.__class__
    if kind is ast.If or kind is ast.While:
        return [*_expr_calls(stmt.test), *_block_calls(stmt.body), *_block_calls(stmt.orelse)]
    if kind is ast.For or kind is ast.AsyncFor:
        return [*_expr_calls(stmt.iter), *_block_calls(stmt.body), *_block_calls(stmt.orelse)]
    if kind is ast.With or kind is ast.AsyncWith:
        heads = [c for item in stmt.items for c in _expr_calls(item.context_expr)]
        return [*heads, *_block_calls(stmt.body)]
    if kind is ast.Match:
        out = list(_expr_calls(stmt.subject))
        for case in stmt.cases:
            if case.guard is not None:
                out.extend(_expr_calls(case.guard))
            out.extend(_block_calls(case.body))
        return out
    return _expr_calls(stmt)


def _block_calls(block: list[ast.stmt]) -> list[tuple[str, int]]:
    """A branch's calls, none when it always leaves the function (then it is not on the way)."""
    if not block or block[-1].__class__ in _LEAVES:
        return []
    return [c for stmt in block for c in _stmt_calls(stmt)]


def _expr_calls(node: ast.AST) -> list[tuple[str, int]]:
    """Calls with a dotted callee in a simple statement or an expression, lambdas left out."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.__class__ is ast.Lambda:
            continue
        if n.__class__ is ast.Call:
            name = dotted_source(n.func)
            if name is not None:
                out.append((name, n.lineno))
        stack.extend(ast.iter_child_nodes(n))
    out.sort(key=lambda c: c[1])
    return out
