"""The values of a condition's variables, read from the raising frame's locals without running code.

Only plain names and attribute chains (`n`, `self.size`, `cfg.max_len`) are
read; attributes come from instance dictionaries and class attributes via
`inspect.getattr_static`, so properties, `__getattr__` and descriptors are never
invoked. Values are shown with `repr` only for builtin types; any other object
is shown by its type name, since its `__repr__` is code we must not run.
"""

from __future__ import annotations

import ast
import reprlib
from types import FrameType

_SAFE_REPR_TYPES = (int, float, complex, bool, str, bytes, type(None), list, tuple, dict, set, frozenset)
_MISSING = object()
_repr = reprlib.Repr()
_repr.maxstring = 80
_repr.maxother = 80
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 8


def plain_chains(expression: str) -> list[str]:
    """Name and attribute chains in `expression`, in order, never those in call position."""
    try:
        tree = ast.parse(expression, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return []
    found: list[str] = []
    nodes = list(ast.walk(tree))
    skip = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    skip |= {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    chains = [n for n in nodes if isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in skip]
    for node in sorted(chains, key=lambda n: (n.lineno, n.col_offset)):
        chain = _chain_text(node)
        if chain and chain not in found:
            found.append(chain)
    return found


def _chain_text(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def read_chain(chain: str, frame_locals: dict, frame_globals: dict | None = None) -> object:
    """The value of `chain` in the frame, or `_MISSING`; never calls user code."""
    head, *rest = chain.split(".")
    value = frame_locals.get(head, _MISSING)
    if value is _MISSING and frame_globals is not None:
        value = frame_globals.get(head, _MISSING)
    if value is _MISSING or not rest:
        return value
    import inspect   # only for attribute chains: a new process pays several ms for it

    for attr in rest:
        try:
            found = inspect.getattr_static(value, attr)
        except AttributeError:
            return _MISSING
        if _is_descriptor(found):
            return _MISSING
        value = found
    return value


def _is_descriptor(value: object) -> bool:
    kind = type(value)
    return any(hasattr(kind, m) for m in ("__get__", "__set__", "__delete__")) and not callable(value) \
        or isinstance(value, (property, staticmethod, classmethod))


def safe_repr(value: object) -> str:
    """`repr` for builtin values (shortened), `<TypeName object>` for anything else."""
    if type(value) in _SAFE_REPR_TYPES and _only_builtins(value):
        try:
            return _repr.repr(value)
        except Exception:  # noqa: BLE001 - a value's repr must never break the hook
            pass
    kind = type(value)
    return f"<{kind.__module__}.{kind.__qualname__} object>" if kind.__module__ != "builtins" \
        else f"<{kind.__qualname__} object>"


def _only_builtins(value: object, depth: int = 0) -> bool:
    """True when a container holds only builtin values (their reprs run no user code)."""
    if depth > 3:
        return False
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(type(v) in _SAFE_REPR_TYPES and _only_builtins(v, depth + 1) for v in list(value)[:8])
    if isinstance(value, dict):
        items = list(value.items())[:8]
        return all(type(k) in _SAFE_REPR_TYPES and type(v) in _SAFE_REPR_TYPES
                   and _only_builtins(k, depth + 1) and _only_builtins(v, depth + 1) for k, v in items)
    return True


def frame_values(expressions: list[str], frame: FrameType | None) -> dict[str, str]:
    """{chain: shown value} for every readable chain in `expressions`."""
    if frame is None:
        return {}
    out: dict[str, str] = {}
    frame_locals = frame.f_locals
    for expression in expressions:
        for chain in plain_chains(expression):
            if chain in out:
                continue
            value = read_chain(chain, frame_locals)
            if value is not _MISSING:
                out[chain] = safe_repr(value)
    return out
