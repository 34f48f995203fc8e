"""Which names a statement binds and which names an expression reads.

Binding is found by walking statement lists and assignment targets only
(never every expression of a function): targets of `=`, `+=`, `x: T = v`,
`for`, `with ... as`, `except ... as`, imports, nested `def`/`class`, and
walruses at the top of `if`/`while` tests and assignment values, where they
are written in practice. Names are plain identifiers; attribute and
subscript targets bind (mutate) their base name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from errdex.analyze.source import walrus_free
from errdex.extract.scope import argument_names, dotted_source

_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
#: Statements that bind no name and hold no block (see `own_bindings`).
_BINDS_NOTHING = frozenset({ast.Raise, ast.Return, ast.Pass, ast.Break, ast.Continue, ast.Assert,
                            ast.Global, ast.Nonlocal})
_NOTHING: frozenset[str] = frozenset()


def target_names(target: ast.expr) -> Iterator[str]:
    """Names bound (or mutated, for `a.b`/`a[i]`) by an assignment target."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from target_names(elt)
    elif isinstance(target, ast.Starred):
        yield from target_names(target.value)
    elif isinstance(target, (ast.Attribute, ast.Subscript)):
        yield from target_names(target.value)


def shallow_walruses(expr: ast.expr | None) -> Iterator[ast.NamedExpr]:
    """Walrus expressions reachable through boolean/compare/not/call-arg nesting."""
    if walrus_free():
        return
    stack = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr):
            yield node
            stack.append(node.value)
        elif isinstance(node, ast.BoolOp):
            stack.extend(node.values)
        elif isinstance(node, ast.Compare):
            stack.append(node.left)
            stack.extend(node.comparators)
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        elif isinstance(node, ast.Call):
            stack.extend(node.args)


def own_bindings(stmt: ast.AST) -> Iterator[str]:
    """Names bound by `stmt` itself, not by the blocks nested in it."""
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            yield from target_names(target)
        yield from (w.target.id for w in shallow_walruses(stmt.value))
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        if not isinstance(stmt, ast.AnnAssign) or stmt.value is not None:
            yield from target_names(stmt.target)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        yield from target_names(stmt.target)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                yield from target_names(item.optional_vars)
    elif isinstance(stmt, ast.ExceptHandler):
        if stmt.name:
            yield stmt.name
    elif isinstance(stmt, (ast.If, ast.While)):
        yield from (w.target.id for w in shallow_walruses(stmt.test))
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            yield (alias.asname or alias.name).split(".")[0]
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, ast.Delete):
        for target in stmt.targets:
            yield from target_names(target)
    elif isinstance(stmt, ast.Expr):
        yield from (w.target.id for w in shallow_walruses(stmt.value))


def bound_names(stmt: ast.AST, cache: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """Every name `stmt` may bind, including in its nested blocks (not nested defs)."""
    if cache is not None:
        hit = cache.get(id(stmt))
        if hit is not None:
            return hit
    kind = stmt.__class__
    if kind in _BINDS_NOTHING or (kind is ast.Expr and walrus_free()):
        return _NOTHING   # most statements of a function: skip the generator and the block fields
    if kind is ast.Assign and len(stmt.targets) == 1 and stmt.targets[0].__class__ is ast.Name and walrus_free():
        result = frozenset((stmt.targets[0].id,))   # `x = ...`, the commonest binding
        if cache is not None:
            cache[id(stmt)] = result
        return result
    names = set(own_bindings(stmt))
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        for field in _BLOCK_FIELDS:
            for child in getattr(stmt, field, ()) or ():
                names |= bound_names(child, cache)
    result = frozenset(names)
    if cache is not None:
        cache[id(stmt)] = result
    return result


def block_bound_names(stmts: list[ast.stmt], cache: dict[int, frozenset[str]] | None = None) -> frozenset[str]:
    """Names any statement of a block may bind."""
    names: set[str] = set()
    for stmt in stmts:
        names |= bound_names(stmt, cache)
    return frozenset(names)


def read_names(expr: ast.AST) -> set[str]:
    """Identifiers an expression reads (loaded `Name`s)."""
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def dotted(expr: ast.AST) -> str | None:
    """`a.b.c` for a pure attribute chain on a name, else None."""
    return dotted_source(expr)


def read_chains(expr: ast.AST) -> set[str]:
    """Names and the longest attribute chains an expression reads (`self.n`), with every chain's prefixes."""
    found: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Name:
            found.add(node.id)
            continue
        if kind is ast.Attribute:   # `a.b.c` gives a, a.b and a.b.c; a chain on anything else, its base's
            attrs = []
            while node.__class__ is ast.Attribute:
                attrs.append(node.attr)
                node = node.value
            if node.__class__ is ast.Name:
                chain = node.id
                found.add(chain)
                for attr in reversed(attrs):
                    chain = f"{chain}.{attr}"
                    found.add(chain)
            else:
                stack.append(node)
            continue
        values = node.__dict__
        for field in node._fields:   # operators and contexts (no fields) read nothing
            value = values.get(field)
            if value.__class__ is list:
                stack.extend([v for v in value if isinstance(v, ast.AST) and v._fields])
            elif isinstance(value, ast.AST) and value._fields:
                stack.append(value)
    return found


def parameter_names(scope: ast.AST) -> frozenset[str]:
    """The names a function's parameters bind (none for a module or class body)."""
    return argument_names(getattr(scope, "args", None))


def text_reads(texts) -> frozenset[str]:
    """Names and attribute chains source texts read (`read_chains`: `x.n` reads no `n`); a text
    that does not parse alone (a `for` header kept as a feeding line) gives its identifiers."""
    from errdex.analyze.codegen import names_in   # codegen imports this module

    reads: set[str] = set()
    for text in texts:
        try:
            reads |= read_chains(ast.parse(text))
        except SyntaxError:
            reads |= names_in(text)
    return frozenset(reads)
