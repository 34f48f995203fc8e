"""Structural keys, read names and name replacement for guard expressions.

Guards are compared (`a and not a`), deduplicated and scanned for names many
times per function. Keys and name sets are memoised on the nodes themselves
(attributes named `_errdex_*`, invisible to `ast.dump` and `ast.unparse`), which is safe because guard trees are never mutated: new
trees are built by `replace_names`, which copies only the AST fields.

Values that hold nodes (a negation wraps its operand, a definition holds its
statement) are kept in `side_memo` tables instead: on the node they would
make the file's tree a reference cycle that only the cyclic collector frees.
The tables are emptied when analysis moves to another file (`forget_file`).
"""

from __future__ import annotations

import ast

_KEY = "_errdex_key"
_NAMES = "_errdex_names"
#: Side tables bigger than this are emptied (callers that never switch files).
MAX_SIDE = 200_000
_SIDE_TABLES: list[dict] = []


def side_table() -> dict:
    """A new table for `side_memo`, emptied by `forget_file`."""
    table: dict = {}
    _SIDE_TABLES.append(table)
    return table


def side_memo(table: dict, node: ast.AST, compute):
    """`compute(node)`, remembered in `table` (which keeps `node` alive) instead of on the node."""
    hit = table.get(id(node))
    if hit is not None:
        return hit[1]
    value = compute(node)
    if len(table) >= MAX_SIDE:
        table.clear()
    table[id(node)] = (node, value)
    return value


def forget_file() -> None:
    """Empty every side table: the previous file's trees can go."""
    for table in _SIDE_TABLES:
        table.clear()


def memo(node: ast.AST, attr: str, compute):
    """`compute(node)`, remembered on the node under `attr`."""
    cached = node.__dict__.get(attr)
    if cached is None:
        cached = compute(node)
        node.__dict__[attr] = cached
    return cached


def expr_key(node: ast.AST) -> str:
    """A string equal for two trees exactly when they are structurally equal."""
    values = node.__dict__
    cached = values.get(_KEY)
    if cached is not None:
        return cached
    kind = node.__class__
    if kind is ast.Name:
        key = f"N{node.id}"
    elif kind is ast.Constant:
        key = f"C{type(node.value).__name__}:{node.value!r}"
    elif kind is ast.Attribute:   # the commonest kinds written directly, as the loop below would
        key = f"(Attribute {_child_key(node.value)} {node.attr!r} {_child_key(node.ctx)})"
    elif kind is ast.Compare and len(node.ops) == 1:
        key = comparison_key(node.left, node.ops[0].__class__, node.comparators[0])
    elif kind is ast.Compare:
        ops = ",".join([_child_key(op) for op in node.ops])
        key = f"(Compare {_child_key(node.left)} [{ops}] [{','.join([_child_key(c) for c in node.comparators])}])"
    elif kind is ast.Subscript:
        key = f"(Subscript {_child_key(node.value)} {_child_key(node.slice)} {_child_key(node.ctx)})"
    elif kind is ast.Call:
        args = ",".join([_child_key(a) for a in node.args])
        key = f"(Call {_child_key(node.func)} [{args}] [{','.join([_child_key(k) for k in node.keywords])}])"
    elif not node._fields:   # operators and contexts
        key = _leaf_key(kind)
    else:
        parts = [kind.__name__]
        for field in node._fields:
            value = values.get(field)
            if value.__class__ is list:
                parts.append("[" + ",".join([_child_key(v) if isinstance(v, ast.AST) else repr(v) for v in value]) + "]")
            elif isinstance(value, ast.AST):
                child = value.__class__
                if child is ast.Name:
                    parts.append(f"N{value.id}")
                elif not value._fields:
                    parts.append(_LEAF_KEYS.get(child) or _leaf_key(child))
                else:
                    parts.append(expr_key(value))
            else:
                parts.append(repr(value))
        key = "(" + " ".join(parts) + ")"
    values[_KEY] = key
    return key


def comparison_key(left: ast.expr, op: type, right: ast.expr) -> str:
    """`expr_key` of the comparison `left <op> right`, without building it."""
    return f"(Compare {_child_key(left)} [{_LEAF_KEYS.get(op) or _leaf_key(op)}] [{_child_key(right)}])"


#: Keys of operators and contexts, which have no fields: one string per kind.
_LEAF_KEYS: dict[type, str] = {}


def _leaf_key(kind: type) -> str:
    key = _LEAF_KEYS.get(kind)
    if key is None:
        key = _LEAF_KEYS[kind] = f"({kind.__name__})"
    return key


def _child_key(node: ast.AST) -> str:
    """`expr_key` of a child; names, operators and contexts (most children) without a call or a memo."""
    kind = node.__class__
    if kind is ast.Name:
        return f"N{node.id}"
    if not node._fields:
        return _LEAF_KEYS.get(kind) or _leaf_key(kind)
    return expr_key(node)


_NO_NAMES: frozenset[str] = frozenset()


def expr_names(node: ast.AST) -> frozenset[str]:
    """Identifiers an expression mentions (`Name` nodes, any context); memoised on the node.

    The subtree is walked in one loop (a memoised subtree is taken whole);
    its inner nodes are not memoised one by one: most are never asked about.
    """
    values = node.__dict__
    cached = values.get(_NAMES)
    if cached is not None:
        return cached
    kind = node.__class__
    if kind is ast.Name:
        names = frozenset((node.id,))
    elif kind is ast.Constant or not node._fields:
        names = _NO_NAMES
    else:
        found: set[str] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            fields = current.__dict__
            for field in current._fields:
                value = fields.get(field)
                for child in (value if value.__class__ is list else (value,)):
                    if child.__class__ is ast.Name:
                        found.add(child.id)
                    elif isinstance(child, ast.AST) and child._fields:
                        known = child.__dict__.get(_NAMES)
                        if known is None:
                            stack.append(child)
                        elif known:
                            found |= known
        names = frozenset(found)
    values[_NAMES] = names
    return names


def replace_names(node: ast.AST, values: dict[str, ast.expr]) -> ast.AST:
    """A fresh copy of `node` with loaded names replaced (values are shared)."""
    if isinstance(node, ast.Name) and node.id in values and not isinstance(getattr(node, "ctx", None), ast.Store):
        return values[node.id]
    if isinstance(node, ast.expr) and not (expr_names(node) & values.keys()):
        return node
    fields = {}
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            fields[field] = [replace_names(v, values) if isinstance(v, ast.AST) else v for v in value]
        elif isinstance(value, ast.AST):
            fields[field] = replace_names(value, values)
        else:
            fields[field] = value
    return type(node)(**fields)
