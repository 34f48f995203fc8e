"""Which expressions can be evaluated twice with the same result."""

from __future__ import annotations

import ast
import re

from errdex.analyze.exprs import expr_key
from errdex.extract.scope import dotted_source

_PURE = "_errdex_pure"


def is_pure(node: ast.AST) -> bool:
    """Whether evaluating `node` twice must give the same value (memoised on the node)."""
    kind = node.__class__
    if kind is ast.Name or kind is ast.Constant:
        return True   # what `_is_pure` says, without keeping it on the node
    values = node.__dict__
    pure = values.get(_PURE)
    if pure is None:
        pure = values[_PURE] = _is_pure(node)
    return pure


def _is_pure(node: ast.AST) -> bool:
    """Whether evaluating `node` twice must give the same value.

    Names, constants, attribute and subscript chains, operators and
    comparisons; no calls, walrus, await, yield or comprehensions.
    Attribute access is assumed side-effect free (properties rarely are not).
    """
    kind = node.__class__
    if kind is ast.Name or kind is ast.Constant:
        return True
    if kind is ast.Attribute:
        return is_pure(node.value)
    if kind is ast.Compare:
        if not is_pure(node.left):
            return False
        for comparator in node.comparators:
            if not is_pure(comparator):
                return False
        return True
    if kind is ast.Call:
        return False
    if kind is ast.Subscript:
        return is_pure(node.value) and is_pure(node.slice)
    if kind is ast.UnaryOp:
        return is_pure(node.operand)
    if kind is ast.BinOp:
        return is_pure(node.left) and is_pure(node.right)
    if kind is ast.BoolOp:
        return all(map(is_pure, node.values))
    if kind is ast.Tuple or kind is ast.List:
        return all(map(is_pure, node.elts))
    if kind is ast.Slice:
        return all(p is None or is_pure(p) for p in (node.lower, node.upper, node.step))
    return False


#: Builtins that read their arguments and change nothing (calls to them are not state changes).
_READ_ONLY_CALLS = frozenset({"isinstance", "issubclass", "len", "type", "id", "callable", "hasattr",
                              "getattr", "repr", "str", "int", "float", "bool", "abs", "min", "max"})


def reads_only(node: ast.expr) -> bool:
    """`is_pure`, or a call of a read-only builtin (`getattr(o, "a", None)`, `len(x)`) on such values.

    Such a value can be written in place of a name bound to it, as long as
    nothing it reads is rebound in between.
    """
    if is_pure(node):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _READ_ONLY_CALLS
            and not node.keywords and all(reads_only(a) for a in node.args))


def reads_only_test(node: ast.expr) -> bool:
    """`reads_only` through `not`, and/or, comparisons and arithmetic: `not isinstance(x, T)`,
    `len(x) > 0 and x[0]` read their values and change nothing."""
    kind = node.__class__
    if kind is ast.UnaryOp:
        return reads_only_test(node.operand)
    if kind is ast.BoolOp:
        return all(map(reads_only_test, node.values))
    if kind is ast.Compare:
        return reads_only_test(node.left) and all(map(reads_only_test, node.comparators))
    if kind is ast.BinOp:
        return reads_only_test(node.left) and reads_only_test(node.right)
    return reads_only(node)


_NO_RUN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_STATE_CHANGES = "_errdex_changes"


def may_change_state(stmt: ast.stmt) -> bool:
    """Whether running `stmt` may change an attribute, item or call result read by a guard.

    A call (other than a read-only builtin), `await`, `yield` or a `with`
    (its `__enter__` runs) may; bodies of nested definitions do not run.
    Memoised on the node.
    """
    changes = stmt.__dict__.get(_STATE_CHANGES)
    if changes is None:
        changes = stmt.__dict__[_STATE_CHANGES] = _changes(stmt)
    return changes


def method_receivers(stmt: ast.stmt) -> frozenset[str]:
    """The dotted objects whose methods `stmt` calls (`manager` of `manager.prepare(x)`), read-only
    looking methods aside (`get*`, `is_*`, `has_*`, `keys`, `copy`...); nested definitions' bodies do
    not run. Memoised on the node."""
    found = stmt.__dict__.get(_RECEIVERS)
    if found is None:
        names: set[str] = set()
        stack: list[ast.AST] = [stmt]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)) and node is not stmt:
                continue
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and not _READ_ONLY_METHOD.match(node.func.attr):
                owner = dotted_source(node.func.value)
                if owner is not None:
                    names.add(owner)
            stack.extend(ast.iter_child_nodes(node))
        found = stmt.__dict__[_RECEIVERS] = frozenset(names)
    return found


_RECEIVERS = "_errdex_receivers"
#: Methods that read: `get*`, `is_*`, `has_*`, those of str and dict that do, and a tensor's that
#: give a new value (`view`, `to`, `stride`: PyTorch names an in-place one with a trailing `_`).
_READ_ONLY_METHOD = re.compile(
    r"(?:get|is|has|new_)|(?:keys|values|items|copy|count|index|find|rfind|startswith|endswith|format|join|split|"
    r"rsplit|strip|lstrip|rstrip|lower|upper|replace|encode|decode|size|dim|ndimension|numel|nelement|item|tolist|"
    r"stride|storage_offset|data_ptr|element_size|untyped_storage|contiguous|view|view_as|reshape|reshape_as|to|"
    r"type|type_as|float|half|bfloat16|double|int|long|short|bool|byte|char|cpu|cuda|numpy|clone|detach|t|T|mT|"
    r"transpose|permute|unsqueeze|squeeze|flatten|unflatten|expand|expand_as|repeat|narrow|select|split_with_sizes|"
    r"chunk|unbind|sum|mean|max|min|amax|amin|abs|any|all|eq|ne|lt|gt|le|ge|equal|allclose|norm|argmax|argmin|"
    r"nonzero|flip|roll|masked_fill|index_select|gather|matmul|mm|bmm|add|sub|mul|div|pow|exp|log|sqrt|sigmoid|"
    r"softmax|clamp|round|ceil|floor|sort|argsort|topk|cumsum|diff|unique|bincount|__len__|__contains__|__getitem__)$")


def expr_may_change_state(expr: ast.expr) -> bool:
    """`may_change_state` for an expression (a test): whether evaluating it may call something."""
    return _changes(expr)


def _changes(stmt: ast.AST) -> bool:
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return True
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in _READ_ONLY_CALLS):
            return True
        if isinstance(node, _NO_RUN) and node is not stmt:
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


_STATE_ATOMS = "_errdex_state_atoms"
#: Calls whose value changes only with what their arguments read (and `raised`, errdex's own fact).
_LOOK_INSIDE = _READ_ONLY_CALLS | {"all", "any", "raised"}
_NO_ATOMS: frozenset[str] = frozenset()


def state_atoms(expr: ast.expr) -> frozenset[str]:
    """Keys of the attributes, items and calls `expr` reads: values a call elsewhere may change.

    Outermost ones only (`a.b.c`, not `a.b`); a guard reading only names has none.
    Memoised on the node.
    """
    atoms = expr.__dict__.get(_STATE_ATOMS)
    if atoms is None:
        atoms = expr.__dict__[_STATE_ATOMS] = _atoms(expr)
    return atoms


def _atoms(expr: ast.expr) -> frozenset[str]:
    found: set[str] = set()
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _LOOK_INSIDE:
            if node.func.id != "raised":   # an except-site's fact is not read again
                stack.extend(node.args)
            continue
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Await)):
            found.add(expr_key(node))
            continue
        if isinstance(node, (ast.Name, ast.Constant, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(found) if found else _NO_ATOMS


def constant_display(node: ast.expr) -> bool:
    """`[]`, `{"a": [], "b": 0}`, `set()`: a fresh container of constants, an initial value that code
    usually fills in place before reading it."""
    if isinstance(node, (ast.List, ast.Set, ast.Tuple)):
        return all(isinstance(e, ast.Constant) or constant_display(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(isinstance(v, ast.Constant) or constant_display(v) for v in node.values)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords
            and node.func.id in ("list", "dict", "set", "defaultdict", "OrderedDict", "deque"))
